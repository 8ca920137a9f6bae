package audit

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
)

var eight = board.BlankLast(board.Size{W: 3, H: 3})

func audit(t *testing.T, name string, goal board.Goal, opt Options) *Report {
	t.Helper()
	h, err := heuristic.New(name, goal, nil)
	require.NoError(t, err)
	r, err := Run(context.Background(), h, opt)
	require.NoError(t, err)
	return r
}

func TestAdmissibleHeuristicsNeverOverestimate(t *testing.T) {
	for _, name := range []string{"hamming", "md", "lc", "wd", "pdb", "max"} {
		r := audit(t, name, eight, Options{})
		assert.Equal(t, int64(181440), r.States, name)
		assert.Equal(t, "exhaustive", r.Mode)
		assert.Zero(t, r.Overestimated, name)
		assert.Zero(t, r.MaxOverestimate, name)
		if name == "pdb" || name == "max" {
			// Korf & Felner's no-blank tables (the least distance over the blank's
			// regions) are admissible but not consistent.
			assert.NotZero(t, r.Inconsistent, "%s: the audit sees the inconsistency", name)
		} else {
			assert.Zero(t, r.Inconsistent, "%s is consistent", name)
		}
		assert.InDelta(t, 21.97, r.MeanDistance, 0.01, "mean optimal length of the 8-puzzle")
	}
}

// The audit's count of chebyshev2's overestimates equals an independent count: a plain
// breadth-first search with a map, and the formula written out again here.
func TestChebyshevCountedExactly(t *testing.T) {
	r := audit(t, "chebyshev2", eight, Options{})
	size := eight.Size()
	goal := eight.Tiles()
	dist := map[string]int{string(goal): 0}
	queue := []board.State{goal}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, d := range board.Dirs {
			n := s.Clone()
			if size.Move(n, d) {
				if _, ok := dist[string(n)]; !ok {
					dist[string(n)] = dist[string(s)] + 1
					queue = append(queue, n)
				}
			}
		}
	}
	var over int64
	worst := 0
	for k, d := range dist {
		h := 0
		for c, t := range []byte(k) {
			if t == 0 {
				continue
			}
			home := int(t) - 1 // blank-last: tile t belongs on cell t-1
			dr, dc := c/3-home/3, c%3-home%3
			h += 2 * max(dr, -dr, dc, -dc)
		}
		if h > d {
			over++
			worst = max(worst, h-d)
		}
	}
	assert.Equal(t, int64(len(dist)), r.States)
	assert.Equal(t, over, r.Overestimated)
	assert.Equal(t, worst, r.MaxOverestimate)
	assert.Greater(t, r.Overestimated, int64(0), "chebyshev2 is not admissible")
	assert.NotEmpty(t, r.Examples)
	var sum int64
	for _, c := range r.Histogram {
		sum += c
	}
	assert.Equal(t, r.Overestimated, sum)
}

func TestSample(t *testing.T) {
	r := audit(t, "md", board.BlankLast(board.Size4x4), Options{Sample: 5, Walk: 30, Seed: 1})
	assert.Equal(t, "sample", r.Mode)
	assert.Equal(t, int64(5), r.States)
	assert.Zero(t, r.Overestimated)
	assert.Greater(t, r.Moves, int64(0))
	h, err := heuristic.New("md", board.BlankLast(board.Size4x4), nil)
	require.NoError(t, err)
	_, err = Run(context.Background(), h, Options{})
	assert.ErrorContains(t, err, "sample")
}
