package board

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	want := State{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0}
	for _, text := range []string{
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0",
		"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0",
		"1 2 3 4 - 5 6 7 8 - 9 10 11 12 - 13 14 15 0",
		" 1, 2, 3, 4 / 5, 6, 7, 8 / 9 10 11 12 / 13 14 15 0 ",
		"1,2,3,4/5,6,7,8/9,10,11,12/13,14,15,0",
		"1;2;3;4\t5 6 7 8\r\n9 10 11 12 13 14 15 0",
	} {
		s, err := Parse(Size4x4, text)
		require.NoError(t, err, text)
		assert.Equal(t, want, s, text)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		want error
		msg  string
	}{
		{"1 2 3", ErrCount, "got 3 numbers"},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 1", ErrCount, "got 17"},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15", ErrDuplicate, "15 at positions 15 and 16"},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", ErrRange, "16 at position 16"},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 x 0", ErrSyntax, `"x"`},
		// Signs, leading zeros and glued separators are not silently dropped (issue 10).
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 -14 15 0", ErrSyntax, `"-14"`},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 +15 0", ErrSyntax, `"+15"`},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 015 0", ErrSyntax, `"015"`},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 -0", ErrSyntax, `"-0"`},
		{"1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-0", ErrSyntax, `"1-2-3-4-5-6-7-8-9-10-11-..." is not a number`},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 99999999999", ErrSyntax, "up to"},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 \x00\x01", ErrSyntax, `"\x00\x01"`},
		// Row separators must separate rows of the board's width.
		{"1 2 3 / 4 5 6 7 8 / 9 10 11 12 / 13 14 15 0", ErrSyntax, "row 1 has 3 numbers"},
		{"1 2 3 4 / 5 6 7 8 9 10 11 12 / 13 14 15 0", ErrSyntax, "2 row separators"},
		{"1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 0 /", ErrSyntax, "4 row separators"},
		{"1 2 3 4 / / 5 6 7 8 9 10 11 12 / 13 14 15 0", ErrSyntax, "row 2 has 0 numbers"},
	} {
		_, err := Parse(Size4x4, tc.text)
		require.Error(t, err, tc.text)
		assert.ErrorIs(t, err, tc.want, tc.text)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

func TestFields(t *testing.T) {
	nums, err := Fields("1,2,5,6")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 5, 6}, nums)
	for _, bad := range []string{"1,2/5,6", "1 -2", "01 2", "1 2 x"} {
		_, err := Fields(bad)
		assert.ErrorIs(t, err, ErrSyntax, bad)
	}
}

func TestParseSize(t *testing.T) {
	s, err := ParseSize("3x4")
	require.NoError(t, err)
	assert.Equal(t, Size{3, 4}, s)
	for _, bad := range []string{"4", "1x4", "6x6", "axb", "", "+4x4", "04x4", "4x-4", "x", "4x", "x4", " X "} {
		_, err := ParseSize(bad)
		assert.ErrorIs(t, err, ErrSize, bad)
	}
}

// reachable enumerates, by a plain breadth-first search, every state that can reach goal.
func reachable(g Goal) map[string]bool {
	seen := map[string]bool{string(g.tiles): true}
	queue := []State{g.tiles}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, d := range Dirs {
			n := s.Clone()
			if g.size.Move(n, d) && !seen[string(n)] {
				seen[string(n)] = true
				queue = append(queue, n)
			}
		}
	}
	return seen
}

// allStates lists every arrangement of n cells.
func allStates(n int) []State {
	var out []State
	var rec func(prefix State, used int)
	rec = func(prefix State, used int) {
		if len(prefix) == n {
			out = append(out, prefix.Clone())
			return
		}
		for t := 0; t < n; t++ {
			if used&(1<<t) == 0 {
				rec(append(prefix, uint8(t)), used|1<<t)
			}
		}
	}
	rec(nil, 0)
	return out
}

// The parity rule must agree with an exhaustive search, for several sizes and goals.
func TestSolvableMatchesSearch(t *testing.T) {
	for _, tc := range []struct {
		size Size
		goal string
	}{
		{Size{2, 2}, "blank-last"},
		{Size{2, 3}, "blank-first"},
		{Size{3, 2}, "2 0 4 1 5 3"},
		{Size{3, 3}, "2 5 4 8 0 7 1 6 3"},
	} {
		g, err := ParseGoal(tc.size, tc.goal)
		require.NoError(t, err)
		reach := reachable(g)
		all := allStates(tc.size.Cells())
		assert.Equal(t, len(all)/2, len(reach), "%v %s: half of all arrangements", tc.size, tc.goal)
		for _, s := range all {
			if g.Solvable(s) != reach[string(s)] {
				t.Fatalf("%v goal %s: Solvable(%v) = %v, search says %v", tc.size, tc.goal, s, g.Solvable(s), reach[string(s)])
			}
		}
	}
}

func TestClassicRule(t *testing.T) {
	g := BlankLast(Size4x4)
	// Swapping 14 and 15 gives the famous unsolvable position.
	s, err := Parse(Size4x4, "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0")
	require.NoError(t, err)
	err = g.Check(s)
	assert.ErrorIs(t, err, ErrUnsolvable)
	assert.Contains(t, err.Error(), "blank-last")
	// The same position is fine for a goal that has 15 and 14 swapped.
	g2, err := ParseGoal(Size4x4, "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0")
	require.NoError(t, err)
	assert.NoError(t, g2.Check(s))
}

func TestMovesAndReplay(t *testing.T) {
	g := BlankLast(Size4x4)
	start := g.Tiles()
	dirs, err := ParseDirs("ULDR")
	require.NoError(t, err)
	tiles, err := Size4x4.DirsToTiles(start, dirs)
	require.NoError(t, err)
	assert.Equal(t, []int{12, 11, 15, 12}, tiles)
	back, err := Size4x4.TilesToDirs(start, tiles)
	require.NoError(t, err)
	assert.Equal(t, dirs, back)
	end, err := Size4x4.Replay(start, dirs)
	require.NoError(t, err)
	assert.Equal(t, "1 2 3 4 / 5 6 7 8 / 9 10 15 11 / 13 14 12 0", Size4x4.Format(end))
	assert.Equal(t, "ULDR", FormatDirs(dirs))

	_, err = Size4x4.Replay(start, []Dir{Up, Right})
	assert.ErrorIs(t, err, ErrMove)
	assert.Contains(t, err.Error(), "step 2")
	_, err = Size4x4.TilesToDirs(start, []int{12, 1})
	assert.ErrorIs(t, err, ErrMove)
	assert.Contains(t, err.Error(), "step 2: tile 1")
	_, err = ParseDirs("UX")
	assert.ErrorIs(t, err, ErrSyntax)
}

func TestRotate180(t *testing.T) {
	first, last := BlankFirst(Size4x4), BlankLast(Size4x4)
	assert.Equal(t, last.Tiles(), Rotate180(first.Tiles()))
	assert.True(t, first.Rotate180().Equal(last))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		s, dirs := first.RandomWalk(30, rng)
		require.NoError(t, first.Check(s))
		r := Rotate180(s)
		require.NoError(t, last.Check(r), "rotated state solvable for blank-last")
		assert.Equal(t, s, Rotate180(r), "rotation is an involution")
		// Undo the walk on the rotated board: reverse the list, undo each move (Opposite)
		// and rotate it (Opposite again); the two Opposites cancel.
		undo := make([]Dir, len(dirs))
		for k, d := range dirs {
			undo[len(dirs)-1-k] = d
		}
		end, err := Size4x4.Replay(r, undo)
		require.NoError(t, err)
		assert.Equal(t, last.Tiles(), end)
	}
}

func TestRandomIsSolvableAndUniform(t *testing.T) {
	g := BlankLast(Size{2, 2})
	rng := rand.New(rand.NewPCG(3, 4))
	counts := map[string]int{}
	const n = 12000
	for i := 0; i < n; i++ {
		s := g.Random(rng)
		require.True(t, g.Solvable(s))
		counts[s.String()]++
	}
	assert.Len(t, counts, 12, "a 2x2 board has 12 solvable states")
	for k, c := range counts {
		assert.InDelta(t, n/12, c, 150, "state %s drawn %d times", k, c)
	}
}

func TestManhattanAndName(t *testing.T) {
	g := BlankLast(Size4x4)
	s, err := g.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	require.NoError(t, err)
	assert.Equal(t, 9, g.Manhattan(s))
	assert.Equal(t, "blank-last", g.Name())
	assert.Equal(t, "blank-first", BlankFirst(Size4x4).Name())
	_, err = ParseGoal(Size4x4, "1 1 2")
	assert.True(t, errors.Is(err, ErrCount))
	assert.True(t, strings.Contains(err.Error(), "neither"))
}

// Any text is a size or an ErrSize, never a panic; a size prints back to itself.
func FuzzParseSize(f *testing.F) {
	f.Add("4x4")
	f.Add("x")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSize(text)
		if err != nil {
			require.ErrorIs(t, err, ErrSize)
			return
		}
		again, err := ParseSize(s.String())
		require.NoError(t, err)
		require.Equal(t, s, again)
	})
}

func FuzzParse(f *testing.F) {
	f.Add("1 2 3 4 - 5 6 7 8 - 9 10 11 12 - 13 14 15 0")
	f.Add("1,2,3")
	f.Add("-1 99999999999999999999")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(Size4x4, text)
		if err != nil {
			return
		}
		// Whatever parsed must be an arrangement and print back to itself.
		require.NoError(t, Size4x4.check(s))
		again, err := Parse(Size4x4, Size4x4.Format(s))
		require.NoError(t, err)
		require.Equal(t, s, again)
	})
}

// Ints and FromInts are each other's inverse.
func TestIntsRoundTrip(t *testing.T) {
	for _, size := range []Size{{W: 3, H: 3}, Size4x4, Size5x5} {
		s, _ := BlankLast(size).RandomWalk(50, rand.New(rand.NewPCG(1, uint64(size.W))))
		back, err := FromInts(size, s.Ints())
		if err != nil || !back.Equal(s) {
			t.Fatalf("%s: %v round trips to %v (%v)", size, s, back, err)
		}
	}
	if got := State(nil).Ints(); len(got) != 0 {
		t.Fatalf("the empty state gives %v", got)
	}
}
