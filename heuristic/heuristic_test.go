package heuristic

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
)

func mustNew(t testing.TB, name string, goal board.Goal) *Heuristic {
	t.Helper()
	h, err := New(name, goal, nil)
	require.NoError(t, err)
	return h
}

// On the 4x4 board pdb with IDA15's tables is IDA15's own value, through the frame of a
// corner goal (blank-first is blank-last turned by 180 degrees), and max is the larger of
// pdb and wd.
func TestIDA15(t *testing.T) {
	def, err := data.Default()
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)} {
		p, err := New(PDB, goal, def.IDA15)
		require.NoError(t, err)
		m, err := New(Max, goal, def.IDA15)
		require.NoError(t, err)
		w := mustNew(t, WD, goal)
		for i := 0; i < 300; i++ {
			s := goal.Random(rng)
			last := s
			if goal.Name() == "blank-first" {
				last = board.Rotate180(s)
			}
			require.Equal(t, def.IDA15.Eval(last), p.Eval(s))
			require.Equal(t, max(p.Eval(s), w.Eval(s)), m.Eval(s))
			require.Equal(t, goal.Manhattan(s), mustNew(t, MD, goal).Eval(s))
		}
	}
}

// The registry: every name once, sets from pdb.Sets, the fast engine's boards.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, i := range Registry() {
		assert.False(t, seen[i.Name], "%s registered twice", i.Name)
		seen[i.Name] = true
		if i.Set {
			assert.True(t, i.FastOn(i.FastBoards[0]) && i.Engines == Fast, i.Name)
		}
	}
	assert.Len(t, seen, len(pdb.Sets)+8)
	assert.Equal(t, []string{"hamming", "md", "lc", "chebyshev2", "wd", "pdb", "max", "hh"}, Names(General))
	md, err := Lookup(" MD ")
	require.NoError(t, err)
	assert.True(t, md.FastOn(board.Size5x5) && md.FastOn(board.Size4x4) && !md.FastOn(board.Size{W: 3, H: 3}))
	lc, _ := Lookup("lc")
	assert.False(t, lc.FastOn(board.Size5x5))
	for _, name := range Names(General) {
		info, _ := Lookup(name)
		_, err := New(name, board.BlankFirst(board.Size5x5), nil)
		assert.Equal(t, info.GeneralOn(board.Size5x5), err == nil, "%s on 5x5: the registry says what New does", name)
	}
	_, err = New("7-8", board.BlankLast(board.Size4x4), nil)
	assert.ErrorContains(t, err, "fast IDA* alone")
	assert.Contains(t, Usage(), "auto, a set (5-5-5, 6-6-3, 6-6-3z, 7-8, 7-8z, 6-6-6-6, 6-6-6-6z, small-t), hamming, md")
	assert.Contains(t, Table(), "  wd          walking distance, rows plus columns (not on 5x5)\n")
	assert.Equal(t, len(Names(General)), strings.Count(Table(), "\n")+1, "a line per heuristic")
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
	for _, name := range Names(General) {
		h := mustNew(t, name, goal)
		assert.Equal(t, 0, h.Eval(goal.Tiles()), "%s is 0 at the goal", name)
		assert.Equal(t, name != "chebyshev2" && name != "hh", h.Admissible, name)
	}
}

func TestOtherBoards(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, size := range []board.Size{{W: 3, H: 3}, {W: 2, H: 4}, {W: 5, H: 5}, {W: 3, H: 5}} {
		goal := board.BlankFirst(size)
		for _, name := range Names(General) {
			h, err := New(name, goal, nil)
			if size == (board.Size5x5) && (name == "wd" || name == "max" || name == "hh") {
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
	assert.ErrorContains(t, err, "choose from auto, 5-5-5")
}

// pdb with IDA15's tables allocates nothing per evaluation: the general search calls it at
// every node.
func TestIDA15EvalAllocatesNothing(t *testing.T) {
	def, err := data.Default()
	require.NoError(t, err)
	goal := board.BlankFirst(board.Size4x4) // through a frame
	h, err := New(PDB, goal, def.IDA15)
	require.NoError(t, err)
	s := goal.Random(rand.New(rand.NewPCG(9, 9)))
	assert.Zero(t, testing.AllocsPerRun(100, func() { h.Eval(s) }))
}
