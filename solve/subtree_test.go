package solve

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
)

// searchInOrder searches a split pass's subtrees here, one after another, up to the first
// solution: the serial search's work.
func searchInOrder(s *Solver) func(context.Context, *passes.Batch) ([]passes.SubtreeResult, error) {
	return func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
		out := make([]passes.SubtreeResult, len(b.Paths))
		for i, p := range b.Paths {
			r, err := s.SearchBelow(ctx, b.Start, p, b.Bound)
			out[i] = r
			if err != nil {
				return out, err
			}
			if r.Moves != nil {
				break
			}
		}
		return out, nil
	}
}

// A split search finds the serial search's solution, with its node counts (but for the top
// of the last pass) when the subtrees are searched in order up to the first solution, its
// large subtrees split further from one pass to the next, for Korf instances with the default set, and with md on a random position.
func TestSolveSplitIsSolve(t *testing.T) {
	korf := corpus.Korf100()
	for _, h := range []string{"", "md"} {
		s, err := New(context.Background(), korf[0].Goal, Options{Heuristic: h})
		require.NoError(t, err)
		walk, _ := korf[0].Goal.RandomWalk(70, rand.New(rand.NewPCG(5, 5)))
		starts := []board.State{korf[0].Start, korf[2].Start, korf[7].Start}
		if h == "md" {
			starts = []board.State{walk} // md takes seconds on Korf's
		}
		for i, start := range starts {
			want, err := s.Solve(context.Background(), start)
			require.NoError(t, err)
			var split []int
			got, err := s.SolveSplit(context.Background(), start, SplitOptions{Subtrees: 40, SplitFrom: 1000, MaxUnitNodes: 300,
				Pass: func(b int, sp bool, _ passes.Work) {
					if sp {
						split = append(split, b)
					}
				}}, searchInOrder(s))
			require.NoError(t, err)
			assert.NotEmpty(t, split, "some passes were split")
			assert.Equal(t, want.Moves, got.Moves, "instance %d", i+1)
			assert.Equal(t, want.Tiles, got.Tiles)
			// The passes count all the work: a split pass adds the frontier's shallower
			// tries, and the last one the subtrees after the solution's, which the serial
			// search never reaches.
			n := len(want.Passes)
			require.Len(t, got.Passes, n)
			for k := range want.Passes {
				assert.Equal(t, want.Passes[k].Bound, got.Passes[k].Bound)
				assert.GreaterOrEqual(t, got.Passes[k].Nodes, want.Passes[k].Nodes)
				assert.Less(t, got.Passes[k].Nodes, want.Passes[k].Nodes*3/2)
			}
			assert.True(t, got.Solved && got.Optimal)
			assert.Equal(t, want.Heuristic, got.Heuristic)
			// The serial counts are the serial search's, to the node.
			require.NotZero(t, got.SerialNodes)
			assert.Equal(t, want.Nodes, got.SerialNodes)
			assert.Equal(t, want.Expanded, got.SerialExpanded)
		}
	}
}

// An error of the subtrees' search ends the split search with the bound proven so far;
// the general search cannot be split.
func TestSolveSplitErrors(t *testing.T) {
	korf := corpus.Korf100()
	s, err := New(context.Background(), korf[0].Goal, Options{})
	require.NoError(t, err)
	lost := errors.New("workers lost")
	asked := 0
	res, err := s.SolveSplit(context.Background(), korf[0].Start, SplitOptions{Subtrees: 8},
		func(_ context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			asked = b.Bound
			return nil, lost
		})
	assert.ErrorIs(t, err, lost)
	assert.False(t, res.Solved)
	assert.NotZero(t, asked)
	assert.Equal(t, asked, res.LowerBound, "the bound of the pass the runner failed")

	// A runner that leaves a subtree unsearched before any solution breaks its contract.
	_, err = s.SolveSplit(context.Background(), korf[0].Start, SplitOptions{Subtrees: 8},
		func(_ context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			return make([]passes.SubtreeResult, len(b.Paths)), nil
		})
	assert.ErrorIs(t, err, passes.ErrRunner)
	// And so does one with too few results.
	_, err = s.SolveSplit(context.Background(), korf[0].Start, SplitOptions{Subtrees: 8},
		func(_ context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) { return nil, nil })
	assert.ErrorIs(t, err, passes.ErrRunner)

	g, err := New(context.Background(), board.BlankLast(board.Size{W: 3, H: 3}), Options{})
	require.NoError(t, err)
	assert.False(t, g.Splits())
	_, err = g.SolveSplit(context.Background(), board.BlankLast(board.Size{W: 3, H: 3}).Tiles(), SplitOptions{}, nil)
	assert.ErrorIs(t, err, ErrOptions)
}

// A subtree's size in the next pass is estimated from the last split pass's: its own times
// the growth, the sum of the subtrees below a shallower path, the share of the subtree
// above a deeper one (halved a move), and nothing where the last pass found no subtree.
func TestEstimate(t *testing.T) {
	u, d, l, r := board.Up, board.Down, board.Left, board.Right
	paths := [][]board.Dir{{u, l}, {u, r}, {d}}
	each := []passes.SubtreeResult{{Work: passes.Work{Nodes: 10}}, {Work: passes.Work{Nodes: 20}}, {Work: passes.Work{Nodes: 40}}}
	est := estimate(subtreeSizes(paths, each), 200, 100) // the passes grow by 2
	require.NotNil(t, est)
	for _, c := range []struct {
		path []board.Dir
		want float64
	}{
		{[]board.Dir{u, l}, 20},
		{[]board.Dir{u, r}, 40},
		{[]board.Dir{u}, 60},
		{[]board.Dir{d}, 80},
		{[]board.Dir{d, l}, 40},
		{[]board.Dir{d, l, u}, 20},
		{[]board.Dir{u, r, d, r}, 10},
		{[]board.Dir{l}, 0},
		{[]board.Dir{u, d}, 0},
		{[]board.Dir{u, d, l}, 0},
		{nil, 0},
	} {
		assert.Equal(t, c.want, est(c.path), "%v", board.FormatDirs(c.path))
	}
	assert.Nil(t, estimate(subtreeSizes(nil, nil), 200, 100), "no subtrees last time")
	assert.Nil(t, estimate(subtreeSizes(paths, each), 200, 0), "no pass before the last")
}

// benchK24 returns k24-01 (Korf & Felner's first 24-puzzle instance, blank first) and
// the directory of tables in $TILEKIT_BENCH_TABLES, for the benchmarks of a GPU pass's CPU
// side; with tables set, it skips the benchmark without that directory.
func benchK24(b *testing.B, tables bool) (board.Goal, board.State, string) {
	dir := os.Getenv("TILEKIT_BENCH_TABLES")
	if tables && dir == "" {
		b.Skip("TILEKIT_BENCH_TABLES names no directory of tables")
	}
	goal := board.BlankFirst(board.Size5x5)
	start, err := board.Parse(board.Size5x5, "14 5 9 2 18 8 23 19 12 17 15 0 10 20 4 6 11 21 1 7 24 3 16 22 13")
	require.NoError(b, err)
	return goal, start, dir
}

// k24Frontiers returns two frontiers of k24-01 as a GPU pass meets them, for the
// benchmarks of their order: every path of the blank that does not undo its last move,
// 13 moves deep (about 230,000) and 14 (about 600,000), in the serial search's order
// (the moves U, D, L, R), the first given made-up work.
func k24Frontiers(b *testing.B) (last, next [][]board.Dir, each []passes.SubtreeResult) {
	goal, start, _ := benchK24(b, false)
	size := goal.Size()
	paths := func(depth int) [][]board.Dir {
		var out [][]board.Dir
		var path []board.Dir
		var walk func(cell int)
		walk = func(cell int) {
			if len(path) == depth {
				out = append(out, slices.Clone(path))
				return
			}
			for _, d := range board.Dirs {
				next := size.Step(cell, d)
				if next < 0 || len(path) > 0 && d == path[len(path)-1]^1 {
					continue
				}
				path = append(path, d)
				walk(next)
				path = path[:len(path)-1]
			}
		}
		walk(start.Blank())
		return out
	}
	last, next = paths(13), paths(14)
	each = make([]passes.SubtreeResult, len(last))
	for i := range each {
		each[i].Work.Nodes = uint64(i%97 + 1)
	}
	return last, next, each
}

// BenchmarkEstimate measures the estimates that order a GPU pass's subtrees largest first:
// the tree of the last split pass's subtrees and the estimate of each of the next pass's
// (k24Frontiers).
func BenchmarkEstimate(b *testing.B) {
	last, next, each := k24Frontiers(b)
	for b.Loop() {
		est := estimate(subtreeSizes(last, each), 1000, 100)
		for _, p := range next {
			est(p)
		}
	}
	b.ReportMetric(float64(len(last)), "last")
	b.ReportMetric(float64(len(next)), "next")
}

// BenchmarkHints measures the order of a GPU pass's subtrees (hints: the estimates
// and the counting sort) on the same two frontiers as BenchmarkEstimate.
func BenchmarkHints(b *testing.B) {
	last, next, each := k24Frontiers(b)
	est := estimate(subtreeSizes(last, each), 1000, 100)
	batch := &passes.Batch{Paths: next}
	for b.Loop() {
		hints(batch, est, 0, 0)
	}
	b.ReportMetric(float64(len(next)), "subtrees")
}
