package ida

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
)

func solver(t testing.TB, goal board.Goal, h Heuristic) *Solver {
	t.Helper()
	s, err := New(goal, withTables(t, Options{Heuristic: h}))
	require.NoError(t, err)
	return s
}

// heuristics lists the heuristics other than the sets.
var heuristics = []Heuristic{MD, hLC, hWD, hPDB, hMax}

// withTables gives opt the embedded walking-distance and IDA15 tables.
func withTables(t testing.TB, opt Options) Options {
	t.Helper()
	def, err := data.Default()
	require.NoError(t, err)
	opt.WD, opt.IDA15 = def.WDLast, def.IDA15
	return opt
}

func TestSmallCorpus(t *testing.T) {
	for _, in := range corpus.Small() {
		if in.Goal.Size() != board.Size4x4 {
			continue
		}
		for _, h := range heuristics {
			res, err := solver(t, in.Goal, h).Solve(context.Background(), in.Start)
			require.NoError(t, err, "%s %v", in.Name, h)
			assert.Equal(t, in.Optimal, len(res.Moves), "%s %v", in.Name, h)
			assert.Equal(t, in.Optimal, res.LowerBound)
			assert.True(t, res.Optimal && res.Solved)
			assert.LessOrEqual(t, res.H0, in.Optimal)
			var passNodes uint64
			for _, p := range res.Passes {
				passNodes += p.Nodes
			}
			assert.Equal(t, res.Nodes, passNodes, "passes add up")
		}
	}
}

// A fast subset of Korf's 100 (the full run is the benchmark).
func TestKorfSubset(t *testing.T) {
	korf := corpus.Korf100()
	for _, h := range []Heuristic{hPDB, hMax} {
		s := solver(t, korf[0].Goal, h)
		for _, i := range []int{0, 8, 11, 12, 15, 20, 41, 54, 78, 99} {
			in := korf[i]
			res, err := s.Solve(context.Background(), in.Start)
			require.NoError(t, err)
			assert.Equal(t, in.Optimal, len(res.Moves), "%s with %v", in.Name, h)
		}
	}
}

func TestEvalWorkedExample(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	e := newEvaluator(t, goal)
	s, err := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	require.NoError(t, err)
	v, err := e.Eval(s)
	require.NoError(t, err)
	assert.Equal(t, 9, v.MD)
	assert.Equal(t, 4, v.LC-v.MD, "linear conflicts")
	assert.Equal(t, 5, v.WDRows)
	assert.Equal(t, 6, v.WDCols)
	assert.Equal(t, 11, v.WD)
	assert.Equal(t, max(v.PDB, v.WD), v.Max)
	extreme, _ := goal.Parse("0 15 14 13 / 12 11 10 9 / 8 7 6 5 / 4 3 2 1")
	v, err = e.Eval(extreme)
	require.NoError(t, err)
	assert.Equal(t, 70, v.WD)

	_, err = e.Eval(board.State{1, 2})
	assert.ErrorIs(t, err, board.ErrCount)
}

// The evaluator agrees with the reference implementations in packages board, wd and pdb.
func TestEvalAgainstReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ida15, err := pdb.BuildIDA15(context.Background(), pdb.Options{})
	require.NoError(t, err)
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)} {
		e := newEvaluator(t, goal)
		for i := 0; i < 500; i++ {
			s := goal.Random(rng)
			v, err := e.Eval(s)
			require.NoError(t, err)
			require.Equal(t, goal.Manhattan(s), v.MD)
			last := s
			if goal.Name() == "blank-first" {
				last = board.Rotate180(s)
			}
			require.Equal(t, ida15.Eval(last), v.PDB)
			require.GreaterOrEqual(t, v.LC, v.MD)
			require.GreaterOrEqual(t, v.WD, v.MD)
		}
	}
}

// Every heuristic, updated move by move, equals its value computed from scratch.
func TestIncrementalUpdates(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4), cornerGoal(t)} {
		for _, h := range []Heuristic{hLC, hWD, hPDB, hMax} {
			s := solver(t, goal, h)
			for i := 0; i < 20; i++ {
				start, _ := goal.RandomWalk(30, rng)
				_, err := s.Solve(context.Background(), start)
				require.NoError(t, err)
			}
		}
	}
}

// cornerGoal is a goal with the blank in the top-right corner: solved through a mirror.
func cornerGoal(t testing.TB) board.Goal {
	g, err := board.ParseGoal(board.Size4x4, "3 2 1 0 / 7 6 5 4 / 11 10 9 8 / 15 14 13 12")
	require.NoError(t, err)
	return g
}

// All heuristics find solutions of the same length, in any goal convention, and the
// solutions replay (Solve checks it).
func TestHeuristicsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	odd, err := board.ParseGoal(board.Size4x4, "1 2 3 4 / 5 0 6 7 / 8 9 10 11 / 12 13 14 15")
	require.NoError(t, err)
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4), cornerGoal(t), odd} {
		for i := 0; i < 8; i++ {
			start, walk := goal.RandomWalk(35, rng)
			want := -1
			for _, h := range heuristics {
				s, err := New(goal, withTables(t, Options{Heuristic: h}))
				if goal.Equal(odd) && h.Kind().IDA15 {
					assert.ErrorIs(t, err, ErrGoal)
					continue
				}
				require.NoError(t, err)
				res, err := s.Solve(context.Background(), start)
				require.NoError(t, err)
				if want < 0 {
					want = len(res.Moves)
				}
				require.Equal(t, want, len(res.Moves), "goal %s, %v, start %v", goal.Name(), h, start)
				require.LessOrEqual(t, want, len(walk))
			}
		}
	}
}

func TestCancelAndLimit(t *testing.T) {
	korf := corpus.Korf100()
	hard := korf[87] // instance 88, one of the hardest
	s := solver(t, hard.Goal, MD)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err := s.Solve(ctx, hard.Start)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
	assert.False(t, res.Solved)
	assert.GreaterOrEqual(t, res.LowerBound, res.H0)
	assert.LessOrEqual(t, res.LowerBound, hard.Optimal)

	// A node limit is honoured exactly by one worker, and to within a chunk per worker by
	// several (issue 10: --max-nodes 1 used to run 136,393 nodes).
	for _, tc := range []struct {
		limit   uint64
		workers int
	}{{1, 1}, {1, 2}, {100_000, 1}, {100_000, 2}, {3_000_000, 2}} {
		for _, h := range []Heuristic{MD, hMax} {
			limited, err := New(hard.Goal, withTables(t, Options{Heuristic: h, MaxNodes: tc.limit, Workers: tc.workers}))
			require.NoError(t, err)
			res, err = limited.Solve(context.Background(), hard.Start)
			assert.ErrorIs(t, err, passes.ErrNodeLimit)
			assert.False(t, res.Optimal)
			assert.LessOrEqual(t, res.Nodes, tc.limit, "%+v %v", tc, h)
			if tc.workers == 1 {
				assert.Equal(t, tc.limit, res.Nodes, "%+v %v", tc, h)
			} else {
				assert.GreaterOrEqual(t, res.Nodes+uint64(tc.workers)*budgetChunk, tc.limit, "%+v %v", tc, h)
			}
		}
	}
}

// Progress is called at every pass and periodically within long ones, never concurrently.
func TestProgressTicks(t *testing.T) {
	in := corpus.Korf100()[0]
	var calls, bounds int
	var busy atomic.Bool
	last, lastNodes := -1, uint64(0)
	s, err := New(in.Goal, WithWorkersSplit(Options{Heuristic: hLC, Workers: 2, ProgressEvery: time.Millisecond,
		Progress: func(bound int, nodes uint64) {
			require.False(t, busy.Swap(true), "overlapping calls")
			defer busy.Store(false)
			calls++
			if bound != last {
				bounds++
				last = bound
			}
			assert.GreaterOrEqual(t, nodes, lastNodes)
			lastNodes = nodes
		}}))
	require.NoError(t, err)
	res, err := s.Solve(context.Background(), in.Start)
	require.NoError(t, err)
	assert.Equal(t, len(res.Passes), bounds)
	assert.Greater(t, calls, bounds, "ticks within passes")
	assert.LessOrEqual(t, lastNodes, res.Nodes)
}

func TestBadInput(t *testing.T) {
	_, err := New(board.BlankLast(board.Size{W: 3, H: 3}), Options{})
	assert.Error(t, err)
	s := solver(t, board.BlankLast(board.Size4x4), MD)
	unsolvable, _ := board.Parse(board.Size4x4, "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0")
	_, err = s.Solve(context.Background(), unsolvable)
	assert.ErrorIs(t, err, board.ErrUnsolvable)
	_, err = New(board.BlankLast(board.Size4x4), Options{Heuristic: hPDB})
	assert.ErrorIs(t, err, ErrOptions, "pdb without its tables")
	_, err = New(board.BlankFirst(board.Size5x5), Options{Heuristic: hLC})
	assert.ErrorIs(t, err, ErrOptions, "lc on 5x5")
}

func BenchmarkMD(b *testing.B) {
	// Nodes per second of plain Manhattan IDA*, the baseline figure of issue 5.
	in := corpus.Korf100()[15]
	s := solver(b, in.Goal, MD)
	var nodes uint64
	for i := 0; i < b.N; i++ {
		res, err := s.Solve(context.Background(), in.Start)
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// Several goroutines on one instance find the very solution one goroutine finds.
func TestParallelSameSolution(t *testing.T) {
	korf := corpus.Korf100()
	rng := rand.New(rand.NewPCG(7, 7))
	for _, h := range heuristics {
		serial := solver(t, korf[0].Goal, h)
		par, err := New(korf[0].Goal, SplitSmallTrees(withTables(t, Options{Heuristic: h, Workers: 3})))
		require.NoError(t, err)
		var starts []board.State
		if h == MD || h == hLC || h == hWD {
			for i := 0; i < 4; i++ {
				s, _ := korf[0].Goal.RandomWalk(40, rng)
				starts = append(starts, s)
			}
		} else {
			starts = []board.State{korf[0].Start, korf[11].Start, korf[15].Start}
		}
		for _, s := range starts {
			a, err := serial.Solve(context.Background(), s)
			require.NoError(t, err)
			b, err := par.Solve(context.Background(), s)
			require.NoError(t, err)
			require.Equal(t, a.Moves, b.Moves, "%v on %v", h, s)
			require.Equal(t, passes.Work{Nodes: a.Nodes, Expanded: a.Expanded}, a.Serial)
			require.Equal(t, a.Serial, b.Serial, "%v on %v: the serial count of a parallel search", h, s)
			require.Equal(t, a.LowerBound, b.LowerBound)
			require.Len(t, b.Passes, len(a.Passes))
		}
	}
}

func TestParallelLimits(t *testing.T) {
	hard := corpus.Korf100()[87]
	s, err := New(hard.Goal, WithWorkersSplit(withTables(t, Options{Heuristic: MD, Workers: 2, MaxNodes: 5_000_000})))
	require.NoError(t, err)
	res, err := s.Solve(context.Background(), hard.Start)
	assert.ErrorIs(t, err, passes.ErrNodeLimit)
	assert.False(t, res.Solved)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	s, err = New(hard.Goal, WithWorkersSplit(withTables(t, Options{Heuristic: hMax, Workers: 2})))
	require.NoError(t, err)
	res, err = s.Solve(ctx, hard.Start)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, res.Solved)
	assert.GreaterOrEqual(t, res.LowerBound, res.H0)
}
