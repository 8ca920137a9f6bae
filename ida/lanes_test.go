package ida

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
)

var (
	cat5Once sync.Once
	cat5     *pdb.Set
	cat5Err  error
)

// catalogue5x5 is a small zero-aware catalogue of the 24-puzzle (two partitions of
// four-tile groups and their reflections) in the bit encoding, for tests.
func catalogue5x5(t *testing.T) *pdb.Set {
	cat5Once.Do(func() {
		ctx := context.Background()
		spec, err := pdb.NewCatalogue("5x5z", board.BlankFirst(board.Size5x5), true, true, [][][]int{
			{{1, 2, 5, 6}, {3, 4, 8, 9}, {7, 12, 13, 14}, {10, 11, 15, 16}, {17, 18, 22, 23}, {19, 20, 21, 24}},
			{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 13, 14, 19}, {10, 11, 15, 20}, {12, 16, 17, 18}, {21, 22, 23, 24}},
		})
		if cat5Err = err; err != nil {
			return
		}
		set, err := pdb.NewSet(ctx, spec, 0)
		if cat5Err = err; err != nil {
			return
		}
		cat5 = &pdb.Set{SetSpec: set.SetSpec}
		for _, tab := range set.Tables {
			b, err := tab.ToBits(ctx, 0)
			if cat5Err = err; err != nil {
				return
			}
			cat5.Tables = append(cat5.Tables, b)
		}
	})
	require.NoError(t, cat5Err)
	return cat5
}

// TestLanesAreOneSearch searches with several lanes on one and two workers, checking
// every node's values from scratch, and wants the search of one lane: the same solution,
// bound and serial counts, with and without a pruning automaton, on catalogues and sets
// in nibbles and in bits.
func TestLanesAreOneSearch(t *testing.T) {
	defer SplitSmallTrees()()
	ctx := context.Background()
	four, err := prune.Build(ctx, board.Size4x4, 10)
	require.NoError(t, err)
	five, err := prune.Build(ctx, board.Size5x5, 8)
	require.NoError(t, err)
	spec, err := pdb.NewCatalogue("4x4z", board.BlankLast(board.Size4x4), true, true, [][][]int{
		{{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}},
		{{1, 2, 5, 6}, {3, 4, 7, 8}, {9, 10, 13, 14}, {11, 12, 15}},
	})
	require.NoError(t, err)
	cat4, err := pdb.NewSet(ctx, spec, 0)
	require.NoError(t, err)
	plain, err := pdb.NewSet(ctx, pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	korf := corpus.Korf100()
	rng := newRand(30)
	fiveGoal := board.BlankFirst(board.Size5x5)
	var fiveStarts []board.State
	for range 2 {
		s, _ := fiveGoal.RandomWalk(50, rng)
		fiveStarts = append(fiveStarts, s)
	}
	fourStarts := []board.State{korf[0].Start, korf[11].Start}
	// Tables in the bit encoding are checked from scratch by descent: slow, so easier.
	var easyStarts []board.State
	for range 2 {
		s, _ := korf[0].Goal.RandomWalk(44, rng)
		easyStarts = append(easyStarts, s)
	}
	cases := []struct {
		name   string
		goal   board.Goal
		starts []board.State
		set    *pdb.Set
		fsm    *prune.Automaton
	}{
		{"4x4 catalogue", korf[0].Goal, fourStarts, cat4, nil},
		{"5-5-5 in nibbles", korf[0].Goal, fourStarts, testSet555(t), nil},
		{"5-5-5z in nibbles", korf[0].Goal, fourStarts, plain, nil},
		{"5-5-5z in nibbles, automaton", korf[0].Goal, fourStarts, plain, four},
		{"4x4 catalogue in bits, automaton", korf[0].Goal, easyStarts, toBits(t, cat4), four},
		{"5-5-5z in bits", korf[0].Goal, easyStarts, toBits(t, plain), nil},
		{"5x5 catalogue in bits", fiveGoal, fiveStarts, catalogue5x5(t), nil},
		{"5x5 catalogue in bits, automaton", fiveGoal, fiveStarts, catalogue5x5(t), five},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			one, err := New(c.goal, Options{Set: c.set, Pruning: c.fsm})
			require.NoError(t, err)
			for _, start := range c.starts {
				want, err := one.Solve(ctx, start)
				require.NoError(t, err)
				for _, o := range []struct{ workers, lanes int }{{1, 2}, {1, 7}, {2, 4}} {
					s, err := New(c.goal, Options{Set: c.set, Pruning: c.fsm, Workers: o.workers, Lanes: o.lanes})
					require.NoError(t, err)
					require.Equal(t, o.lanes, s.lanes())
					debugCheck = true
					got, err := s.Solve(ctx, start)
					debugCheck = false
					require.NoError(t, err)
					require.Equal(t, want.Moves, got.Moves, "%d workers, %d lanes, %v", o.workers, o.lanes, start)
					require.Equal(t, want.Serial, got.Serial, "%d workers, %d lanes, %v", o.workers, o.lanes, start)
					require.Equal(t, want.LowerBound, got.LowerBound)
					require.Len(t, got.Passes, len(want.Passes))
				}
			}
		})
	}
}

// TestLanesStop: a node limit and a deadline stop a search with lanes, and so does a
// limit that runs out while lanes are searching.
func TestLanesStop(t *testing.T) {
	defer SplitSmallTrees()()
	set := catalogue5x5(t)
	start, _ := board.BlankFirst(board.Size5x5).RandomWalk(200, newRand(31))
	s, err := New(board.BlankFirst(board.Size5x5), Options{Set: set, Lanes: 8, MaxNodes: 300_000})
	require.NoError(t, err)
	res, err := s.Solve(context.Background(), start)
	assert.ErrorIs(t, err, ErrNodeLimit)
	assert.False(t, res.Solved)
	assert.LessOrEqual(t, res.Nodes, uint64(300_000+8*budgetChunk))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s, err = New(board.BlankFirst(board.Size5x5), Options{Set: set, Lanes: 8})
	require.NoError(t, err)
	res, err = s.Solve(ctx, start)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, res.Solved)
}

// Lanes are for the catalogue search, which takes sets too, but not their dual lookups;
// the others take one subtree at a time.
func TestLanesOnlyWhereTheyAre(t *testing.T) {
	korf := corpus.Korf100()
	plain, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	for _, opt := range []Options{{Heuristic: MD, Lanes: 8}, {Set: testSet555(t), Lookups: Dual, Lanes: 8}, {Set: plain, Lookups: Dual, Lanes: 8}} {
		s, err := New(korf[0].Goal, opt)
		require.NoError(t, err)
		assert.Equal(t, 1, s.lanes())
	}
	for _, set := range []*pdb.Set{plain, testSet555(t)} {
		s, err := New(korf[0].Goal, Options{Set: set, Lanes: 8})
		require.NoError(t, err)
		assert.Equal(t, 8, s.lanes())
	}
	s, err := New(korf[0].Goal, Options{Set: toBits(t, plain), Lanes: 1000})
	require.NoError(t, err)
	assert.Equal(t, MaxLanes, s.lanes())
}

// The catalogue's loop searches a set in nibbles in the same nodes and order as the set
// loop, which it replaced for every set without dual lookups: the same solution, bound,
// passes and serial counts, checking every node's values from scratch; with and without
// zero-aware (consistent) tables, the reflection, walking distance and an automaton.
func TestCatalogueLoopIsTheSetLoop(t *testing.T) {
	ctx := context.Background()
	four, err := prune.Build(ctx, board.Size4x4, 10)
	require.NoError(t, err)
	zero, err := pdb.NewSet(ctx, pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	korf := corpus.Korf100()
	cases := []struct {
		name string
		opt  Options
	}{
		{"5-5-5", Options{Set: testSet555(t)}},
		{"5-5-5, regular lookups", Options{Set: testSet555(t), Lookups: Regular}},
		{"5-5-5 with walking distance, automaton", Options{Set: testSet555(t), WithWD: true, Pruning: four}},
		{"5-5-5z", Options{Set: zero}},
		{"5-5-5z, automaton", Options{Set: zero, Pruning: four}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			setLoop = true
			old, err := New(korf[0].Goal, c.opt)
			setLoop = false
			require.NoError(t, err)
			require.NotNil(t, old.t.set)
			s, err := New(korf[0].Goal, c.opt)
			require.NoError(t, err)
			require.NotNil(t, s.t.cat)
			for _, in := range []corpus.Case{korf[0], korf[11]} {
				want, err := old.Solve(ctx, in.Start)
				require.NoError(t, err)
				debugCheck = true
				got, err := s.Solve(ctx, in.Start)
				debugCheck = false
				require.NoError(t, err)
				require.Equal(t, in.Optimal, len(got.Moves), in.Name)
				require.Equal(t, want.Moves, got.Moves, in.Name)
				require.Equal(t, want.Serial, got.Serial, in.Name)
				require.Equal(t, want.Passes, got.Passes, in.Name)
			}
		})
	}
	// Dual lookups stay with the set loop.
	s, err := New(korf[0].Goal, Options{Set: testSet555(t), Lookups: Dual})
	require.NoError(t, err)
	assert.NotNil(t, s.t.set)
}
