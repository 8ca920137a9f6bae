package ida_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/search"
)

// The 5x5 solver finds the same optimal lengths as the general search of package search
// (IDA* with Manhattan distance, the slow reference) on scrambles of 30 to 40 moves, for
// both named goals (blank-last through the frame's turn), with one and two goroutines.
func TestFiveByFiveAgainstGeneralSearch(t *testing.T) {
	set := ida.Set5x5ForTests(t)
	size := board.Size5x5
	rng := rand.New(rand.NewPCG(24, 24))
	for _, goal := range []board.Goal{board.BlankFirst(size), board.BlankLast(size)} {
		md, err := heuristic.New("md", goal, nil)
		require.NoError(t, err)
		for _, l := range []ida.Lookups{ida.Reflected, ida.All} {
			fast, err := ida.New(goal, ida.Options{Set: set, Lookups: l})
			require.NoError(t, err)
			two, err := ida.New(goal, ida.SplitSmallTrees(ida.Options{Set: set, Lookups: l, Workers: 2}))
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
