package solve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
)

// A known optimum bounds the search: a pass whose bound passes it ends the search at once
// with ErrPastOptimum, its lower bound proven (report names the goal the start fits); the
// right optimum changes nothing.
func TestKnownOptimumBoundsTheSearch(t *testing.T) {
	korf := corpus.ByOptimum()[0] // the easiest
	s, err := New(context.Background(), korf.Goal, Options{Heuristic: "md"})
	require.NoError(t, err)

	res, err := s.WithOptimum(korf.Optimal).Solve(context.Background(), korf.Start)
	require.NoError(t, err)
	assert.Equal(t, korf.Optimal, res.Length())

	// A wrong figure: the search ends at the pass past it, not at the optimum.
	res, err = s.WithOptimum(korf.Optimal-4).Solve(context.Background(), korf.Start)
	require.ErrorIs(t, err, ErrPastOptimum)
	assert.False(t, res.Solved)
	assert.Equal(t, korf.Optimal-2, res.LowerBound)
	assert.Contains(t, err.Error(), fmt.Sprintf("the search passed the input's optimum (%d) at bound %d", korf.Optimal-4, korf.Optimal-2))

	// A 5x5 position of blank first searched for blank last: the search ends at once, and
	// names the goal that fits.
	first := board.BlankFirst(board.Size5x5)
	start, _ := first.RandomWalk(24, rand.New(rand.NewPCG(69, 70)))
	sf, err := New(context.Background(), first, Options{Heuristic: "md", Pruning: "parent"})
	require.NoError(t, err)
	right, err := sf.Solve(context.Background(), start)
	require.NoError(t, err)
	s5, err := New(context.Background(), board.BlankLast(board.Size5x5), Options{Heuristic: "md", Pruning: "parent"})
	require.NoError(t, err)
	res, err = s5.WithOptimum(right.Length()).Solve(context.Background(), start)
	require.ErrorIs(t, err, ErrPastOptimum)
	assert.Greater(t, res.LowerBound, right.Length())
	assert.False(t, res.Solved)

	// BA*'s bounds prove nothing: a known optimum changes nothing there.
	sb, err := New(context.Background(), korf.Goal, Options{Algorithm: "bastar", Heuristic: "hh"})
	require.NoError(t, err)
	res, err = sb.WithOptimum(korf.Optimal-10).Solve(context.Background(), korf.Start)
	require.NoError(t, err)
	assert.True(t, res.Solved)

	// Without an optimum (negative), the solver is unchanged.
	res, err = s.WithOptimum(-1).Solve(context.Background(), korf.Start)
	require.NoError(t, err)
	assert.Equal(t, korf.Optimal, res.Length())
}
