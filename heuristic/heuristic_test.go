package heuristic

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
)

func mustNew(t testing.TB, name string, goal board.Goal) *Heuristic {
	t.Helper()
	h, err := New(name, goal, nil)
	require.NoError(t, err)
	return h
}

// On the 4x4 board these general versions agree with package fifteen's.
func TestAgreesWithFifteen(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)} {
		ev, err := ida.NewEvaluator(goal, nil)
		require.NoError(t, err)
		hs := map[string]*Heuristic{}
		for _, name := range []string{"md", "lc", "wd", "pdb", "max"} {
			hs[name] = mustNew(t, name, goal)
		}
		for i := 0; i < 300; i++ {
			s := goal.Random(rng)
			v, err := ev.Eval(s)
			require.NoError(t, err)
			assert.Equal(t, v.MD, hs["md"].Eval(s))
			assert.Equal(t, v.LC, hs["lc"].Eval(s))
			assert.Equal(t, v.WD, hs["wd"].Eval(s))
			assert.Equal(t, v.PDB, hs["pdb"].Eval(s))
			assert.Equal(t, v.Max, hs["max"].Eval(s))
		}
	}
}

func TestSimpleValues(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	s, err := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	require.NoError(t, err)
	for name, want := range map[string]int{
		"hamming":    7, // 4, 2, 3, 13, 5, 9 and 12 are away from home
		"md":         9,
		"lc":         13,
		"chebyshev2": 2 * 9, // 4 and 13 are two away, the others one
		"wd":         11,
		"hh":         11 + 4 + 9/3,
	} {
		assert.Equal(t, want, mustNew(t, name, goal).Eval(s), name)
	}
	for _, name := range Names {
		h := mustNew(t, name, goal)
		assert.Equal(t, 0, h.Eval(goal.Tiles()), "%s is 0 at the goal", name)
		assert.Equal(t, name != "chebyshev2" && name != "hh", h.Admissible, name)
	}
}

func TestOtherBoards(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, size := range []board.Size{{W: 3, H: 3}, {W: 2, H: 4}, {W: 5, H: 5}, {W: 3, H: 5}} {
		goal := board.BlankFirst(size)
		for _, name := range Names {
			h, err := New(name, goal, nil)
			if size == (board.Size{W: 5, H: 5}) && (name == "wd" || name == "max" || name == "hh") {
				assert.Error(t, err, "no 5x5 walking-distance table")
				continue
			}
			require.NoError(t, err, "%s on %v", name, size)
			md := mustNew(t, "md", goal)
			for i := 0; i < 50; i++ {
				s := goal.Random(rng)
				if name != "hamming" {
					assert.GreaterOrEqual(t, h.Eval(s), md.Eval(s), "%s >= md on %v", name, size)
				}
			}
		}
	}
	_, err := New("euclid", board.BlankLast(board.Size4x4), nil)
	assert.ErrorContains(t, err, "hamming, md")
}
