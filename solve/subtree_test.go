package solve

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/internal/corpus"
)

// searchInOrder searches a split pass's subtrees here, one after another, up to the first
// solution: the serial search's work.
func searchInOrder(s *Solver) func(context.Context, Subtrees) (SubtreesFound, error) {
	return func(ctx context.Context, st Subtrees) (SubtreesFound, error) {
		found := SubtreesFound{First: -1, Each: make([]ida.Work, len(st.Paths))}
		for i, p := range st.Paths {
			moves, w, err := s.SearchBelow(ctx, st.Start, p, st.Bound)
			if err != nil {
				return found, err
			}
			found.Each[i] = w
			found.Work.Nodes += w.Nodes
			found.Work.Expanded += w.Expanded
			if moves != nil {
				found.First, found.Moves = i, moves
				break
			}
		}
		return found, nil
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
				Pass: func(b int, sp bool, _ ida.Work) {
					if sp {
						split = append(split, b)
					}
				}}, searchInOrder(s))
			require.NoError(t, err)
			assert.NotEmpty(t, split, "some passes were split")
			assert.Equal(t, want.Moves, got.Moves, "instance %d", i+1)
			assert.Equal(t, want.Tiles, got.Tiles)
			// The passes before the last are the serial ones, node for node; the last one
			// adds the top of the tree after the solution's subtree, which the serial search
			// never reaches.
			n := len(want.Passes)
			require.Len(t, got.Passes, n)
			assert.Equal(t, want.Passes[:n-1], got.Passes[:n-1])
			assert.GreaterOrEqual(t, got.Passes[n-1].Nodes, want.Passes[n-1].Nodes)
			assert.Less(t, got.Passes[n-1].Nodes, want.Passes[n-1].Nodes*3/2)
			assert.True(t, got.Solved && got.Optimal)
			assert.Equal(t, want.Heuristic, got.Heuristic)
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
	res, err := s.SolveSplit(context.Background(), korf[0].Start, SplitOptions{Subtrees: 8},
		func(context.Context, Subtrees) (SubtreesFound, error) { return SubtreesFound{}, lost })
	assert.ErrorIs(t, err, lost)
	assert.False(t, res.Solved)
	assert.Equal(t, res.H0, res.LowerBound)

	g, err := New(context.Background(), board.BlankLast(board.Size{W: 3, H: 3}), Options{})
	require.NoError(t, err)
	assert.False(t, g.Splits())
	_, err = g.SolveSplit(context.Background(), board.BlankLast(board.Size{W: 3, H: 3}).Tiles(), SplitOptions{}, nil)
	assert.ErrorIs(t, err, ErrOptions)
}
