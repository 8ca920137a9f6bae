package ida_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	. "github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
)

// A pass searched as the top of its tree plus its frontier's subtrees, in order, generates
// exactly the nodes of the serial pass, and the first subtree with a solution gives the
// serial search's solution: for every pass of a few Korf instances, with md, max and the
// 5-5-5 set, on both corner goals, with and without a pruning automaton, and on the
// 24-puzzle.
func TestSubtreesMakeThePass(t *testing.T) {
	korf := corpus.Korf100()
	set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	five := Set5x5ForTests(t)
	fiveGoal := board.BlankFirst(board.Size5x5)
	fiveStart, _ := fiveGoal.RandomWalk(36, rand.New(rand.NewPCG(7, 7)))
	walk, _ := korf[0].Goal.RandomWalk(60, rand.New(rand.NewPCG(3, 3)))
	def, err := data.Default()
	require.NoError(t, err)
	fsm, err := prune.Build(context.Background(), board.Size4x4, 12)
	require.NoError(t, err)
	cases := []struct {
		name  string
		goal  board.Goal
		start board.State
		opt   Options
	}{
		{"md", korf[0].Goal, walk, Options{Heuristic: MD}},
		{"max", korf[11].Goal, korf[11].Start, Options{Heuristic: heuristicNamed(t, "max"), WD: def.WDLast, IDA15: def.IDA15}},
		{"5-5-5", korf[2].Goal, korf[2].Start, Options{Set: set}},
		{"5-5-5, automaton", korf[2].Goal, korf[2].Start, Options{Set: set, Pruning: fsm}},
		{"max, automaton", korf[11].Goal, korf[11].Start, Options{Heuristic: heuristicNamed(t, "max"), WD: def.WDLast, IDA15: def.IDA15, Pruning: fsm}},
		{"5-5-5, blank-last", board.BlankLast(board.Size4x4), board.Rotate180(korf[4].Start), Options{Set: set}},
		{"4x6 on 5x5", fiveGoal, fiveStart, Options{Set: five}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(c.goal, c.opt)
			require.NoError(t, err)
			want, err := s.Solve(context.Background(), c.start)
			require.NoError(t, err)
			h0, err := s.H0(c.start)
			require.NoError(t, err)
			require.Equal(t, want.H0, h0)
			require.Greater(t, len(want.Passes), 1, "a test of more than one pass")
			// Every pass split into at least 50 subtrees, searched one after another with
			// SearchBelow (as a cluster's workers do); every other pass, the subtrees whose path
			// starts with an even direction split further: a frontier of mixed depths.
			var split []*passes.SplitPass
			plan := passes.Plan{
				Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
					if len(p.Passes)%2 == 1 {
						return 50, func(p []board.Dir) bool { return p[0]%2 == 0 && len(p) < 8 }
					}
					return 50, nil
				},
				Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
					out := make([]passes.SubtreeResult, len(b.Paths))
					for i, p := range b.Paths {
						r, err := s.SearchBelow(ctx, c.start, p, b.Bound)
						require.NoError(t, err)
						require.True(t, r.Searched)
						if r.Moves != nil {
							assert.Equal(t, p, r.Moves[:len(p)], "a solution below a path starts with it")
						}
						out[i] = r
					}
					return out, nil
				}),
				OnPass: func(_ passes.Pass, sp *passes.SplitPass) { split = append(split, sp) },
			}
			got, err := s.Run(context.Background(), c.start, plan)
			require.NoError(t, err)
			assert.Equal(t, want.Moves, got.Moves, "the serial search's solution")
			assert.Equal(t, want.Serial, got.Serial)
			require.Len(t, split, len(want.Passes))
			for i, pass := range want.Passes {
				sp := split[i]
				if sp == nil {
					continue // the pass ended above any frontier (or was the first)
				}
				if i%2 == 1 {
					// The refined subtrees lie deeper than the others.
					minOdd, maxEven := 1000, 0
					for _, p := range sp.Paths {
						if p[0]%2 == 1 {
							minOdd = min(minOdd, len(p))
						} else {
							maxEven = max(maxEven, len(p))
						}
					}
					if minOdd < 8 && minOdd+2 < pass.Bound && maxEven > 0 {
						assert.Greater(t, maxEven, minOdd, "pass %d", pass.Bound)
					}
				}
				// The top and the subtrees up to the solution (none but in the last pass)
				// make the serial pass.
				assert.Equal(t, pass.Work(), sp.Serial, "pass %d", pass.Bound)
				last := i == len(want.Passes)-1
				for _, r := range sp.Results {
					if !last {
						assert.Nil(t, r.Moves, "pass %d has no solution", pass.Bound)
					}
				}
			}
			whole, err := s.SearchBelow(context.Background(), c.start, nil, want.Passes[len(want.Passes)-1].Bound)
			require.NoError(t, err)
			assert.Equal(t, want.Moves, whole.Moves)
			assert.Equal(t, want.Passes[len(want.Passes)-1].Work(), whole.Work, "the whole last pass")
		})
	}
}

// Paths that are no path of the search are refused, not searched from a wrong board.
func TestSearchBelowRefusesBadPaths(t *testing.T) {
	korf := corpus.Korf100()
	s, err := New(korf[0].Goal, Options{Heuristic: MD})
	require.NoError(t, err)
	start := korf[0].Start // blank on cell 9: every direction is open
	for _, path := range [][]board.Dir{
		{board.Up, board.Down},                   // undoes its first move
		{board.Dir(7)},                           // not a direction
		{board.Up, board.Up, board.Up, board.Up}, // off the board
	} {
		_, err = s.SearchBelow(context.Background(), start, path, 60)
		assert.ErrorContains(t, err, "not a path of the search", "%v", path)
	}
	_, err = s.SearchBelow(context.Background(), start, []board.Dir{board.Up}, 1)
	assert.ErrorContains(t, err, "not a path of the search", "a path as long as the bound")
}

// heuristicNamed is the engine's heuristic of that name.
func heuristicNamed(t *testing.T, name string) Heuristic {
	t.Helper()
	h, err := ParseHeuristic(name)
	require.NoError(t, err)
	return h
}
