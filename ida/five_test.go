package ida_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/search"
)

var (
	five4Once sync.Once
	five4     *pdb.Set
)

// testSet5x5 is a small additive set for the 24-puzzle: six groups of four tiles (tables of
// 303,600 entries, built in a second), for tests; the real one is 6-6-6-6.
func testSet5x5(t testing.TB) *pdb.Set {
	five4Once.Do(func() {
		spec := pdb.SetSpec{Name: "4x6", Goal: board.BlankFirst(board.Size5x5),
			Tables: [][]int{{1, 2, 5, 6}, {3, 4, 8, 9}, {7, 12, 13, 14}, {10, 11, 15, 16}, {17, 18, 22, 23}, {19, 20, 21, 24}}}
		spec.Lookups = pdb.TableLookups(spec.Tables)
		five4, _ = pdb.NewSet(context.Background(), spec, 0)
	})
	require.NotNil(t, five4)
	return five4
}

// The 5x5 solver finds the same optimal lengths as the general search of package search
// (IDA* with Manhattan distance, the slow reference) on scrambles of 30 to 40 moves, for
// both named goals (blank-last through the frame's turn), with one and two goroutines.
func TestFiveByFiveAgainstGeneralSearch(t *testing.T) {
	defer ida.SplitSmallTrees()()
	set := testSet5x5(t)
	size := board.Size5x5
	rng := rand.New(rand.NewPCG(24, 24))
	for _, goal := range []board.Goal{board.BlankFirst(size), board.BlankLast(size)} {
		md, err := heuristic.New("md", goal, nil)
		require.NoError(t, err)
		for _, l := range []ida.Lookups{ida.Reflected, ida.All} {
			fast, err := ida.New(goal, ida.Options{Set: set, Lookups: l})
			require.NoError(t, err)
			two, err := ida.New(goal, ida.Options{Set: set, Lookups: l, Workers: 2})
			require.NoError(t, err)
			for i := 0; i < 6; i++ {
				start, _ := goal.RandomWalk(30+rng.IntN(11), rng)
				ref, err := search.Run(context.Background(), "idastar", md, start, search.Options{})
				require.NoError(t, err)
				res, err := fast.Solve(context.Background(), start)
				require.NoError(t, err)
				assert.Equal(t, len(ref.Moves), len(res.Moves), "%s %v %v", goal.Name(), l, start)
				assert.LessOrEqual(t, res.H0, len(ref.Moves))
				par, err := two.Solve(context.Background(), start)
				require.NoError(t, err)
				assert.Equal(t, res.Moves, par.Moves, "two goroutines find the same solution")
			}
		}
	}
}

// The lookups of the real 6-6-6-6 set are the four groups of Korf & Felner, the three 2x3
// blocks served by one table through quarter turns, and every table's lookups are sound.
func TestSet6666Spec(t *testing.T) {
	require.NoError(t, pdb.Set6666.Check())
	assert.Len(t, pdb.Set6666.Tables, 2)
	assert.Len(t, pdb.Set6666.Lookups, 4)
}
