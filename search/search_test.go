package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
)

var ctx = context.Background()

func mustH(t testing.TB, name string, goal board.Goal) *heuristic.Heuristic {
	t.Helper()
	h, err := heuristic.New(name, goal, nil)
	require.NoError(t, err)
	return h
}

// exact returns the distance table of every state of a small board (a pattern database of
// all tiles and the blank), and the pattern to index it.
func exact(t testing.TB, goal board.Goal) (*pdb.Table, error) {
	var tiles []int
	for i := 1; i < goal.Size().Cells(); i++ {
		tiles = append(tiles, i)
	}
	p, err := pdb.NewPattern(goal, tiles, true)
	require.NoError(t, err)
	return pdb.Build(ctx, p, pdb.Options{})
}

// On the 8-puzzle, every optimal algorithm with every admissible heuristic finds the exact
// distance that breadth-first search gives.
func TestOptimalOnEightPuzzle(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, goal := range []board.Goal{board.BlankLast(board.Size{W: 3, H: 3}), mustGoal(t, "2 5 4 8 0 7 1 6 3")} {
		dist, err := exact(t, goal)
		require.NoError(t, err)
		for _, name := range []string{"hamming", "md", "lc", "wd", "pdb", "max"} {
			h := mustH(t, name, goal)
			for i := 0; i < 12; i++ {
				s := goal.Random(rng)
				want := dist.Lookup(s)
				for _, algo := range []string{"astar", "idastar", "rbfs"} {
					res, err := Run(ctx, algo, h, s, Options{})
					require.NoError(t, err)
					require.Equal(t, want, len(res.Moves), "%s with %s on %v", algo, name, s)
					require.True(t, res.Optimal)
					require.Greater(t, res.Expanded, uint64(0))
					require.GreaterOrEqual(t, res.Nodes, res.Expanded)
				}
			}
		}
	}
}

func mustGoal(t testing.TB, text string) board.Goal {
	g, err := board.ParseGoal(board.Size{W: 3, H: 3}, text)
	require.NoError(t, err)
	return g
}

// The shared corpus, on every algorithm (BA* may be longer, never shorter).
func TestCorpus(t *testing.T) {
	for _, in := range corpus.Small() {
		if in.Optimal > 30 {
			continue // the 42- and 45-move instances belong to package ida
		}
		h := mustH(t, "lc", in.Goal)
		for _, algo := range Algorithms {
			res, err := Run(ctx, algo, h, in.Start, Options{})
			require.NoError(t, err, "%s on %s", algo, in.Name)
			if algo == "bastar" {
				assert.GreaterOrEqual(t, len(res.Moves), in.Optimal, in.Name)
				assert.False(t, res.Optimal, "BA* never claims optimality")
				assert.Equal(t, "hh", res.Heuristic)
				continue
			}
			assert.Equal(t, in.Optimal, len(res.Moves), "%s on %s", algo, in.Name)
		}
	}
}

func TestInadmissibleIsNotOptimal(t *testing.T) {
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	s, err := goal.Parse("8 6 7 2 5 4 3 0 1")
	require.NoError(t, err)
	res, err := Run(ctx, "astar", mustH(t, "chebyshev2", goal), s, Options{})
	require.NoError(t, err)
	assert.True(t, res.Solved)
	assert.False(t, res.Optimal)
	assert.GreaterOrEqual(t, len(res.Moves), 31)
}

func TestBAStarOnKorf(t *testing.T) {
	in := corpus.Korf100()[0]
	h := mustH(t, "hh", in.Goal)
	res, err := Run(ctx, "bastar", h, in.Start, Options{})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(res.Moves), in.Optimal)
	assert.Less(t, len(res.Moves), in.Optimal+20)
	assert.Greater(t, res.PeakStored, 0)
}

func TestLimits(t *testing.T) {
	in := corpus.Korf100()[2]
	h := mustH(t, "md", in.Goal)
	res, err := Run(ctx, "astar", h, in.Start, Options{MaxStates: 10000})
	assert.ErrorIs(t, err, ErrMemory)
	assert.False(t, res.Solved)
	assert.LessOrEqual(t, res.PeakStored, 10000+4)

	for _, algo := range Algorithms {
		res, err := Run(ctx, algo, h, in.Start, Options{MaxExpansions: 500})
		assert.ErrorIs(t, err, ErrExpansions, algo)
		assert.LessOrEqual(t, res.Expanded, uint64(500), algo)
	}

	c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = Run(c, "idastar", h, in.Start, Options{})
	assert.True(t, errors.Is(err, context.DeadlineExceeded))

	_, err = Run(ctx, "dfs", h, in.Start, Options{})
	assert.ErrorContains(t, err, "unknown algorithm")
	_, err = Run(ctx, "astar", h, board.State{1, 2, 3}, Options{})
	assert.ErrorIs(t, err, board.ErrCount)
}

func TestPack(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	goal := board.BlankLast(board.Size5x5)
	seen := map[key]string{}
	for i := 0; i < 2000; i++ {
		s := goal.Random(rng)
		k := pack(s)
		if old, ok := seen[k]; ok {
			require.Equal(t, old, s.String(), "two states share a key")
		}
		seen[k] = s.String()
	}
	assert.Len(t, seen, 2000)
}

// Every algorithm reports its progress while it runs, not only IDA* at its passes.
func TestProgressForEveryAlgorithm(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	h, err := heuristic.New("md", goal, nil)
	require.NoError(t, err)
	start, err := goal.Parse("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3")
	require.NoError(t, err)
	for _, algo := range []string{"astar", "rbfs"} { // BA* solves this one in milliseconds
		calls := 0
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		Run(ctx, algo, h, start, Options{MaxStates: 2_000_000, ProgressEvery: time.Millisecond,
			Progress: func(bound int, nodes uint64) { calls++ }})
		cancel()
		assert.Greater(t, calls, 5, algo)
	}
}
