package wd

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

func build(t testing.TB, goal board.Goal) *WD {
	t.Helper()
	w, err := New(context.Background(), goal, 0)
	require.NoError(t, err)
	return w
}

func parse(t testing.TB, g board.Goal, text string) board.State {
	t.Helper()
	s, err := g.Parse(text)
	require.NoError(t, err)
	return s
}

func TestPublishedFigures(t *testing.T) {
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)} {
		w := build(t, goal)
		assert.Equal(t, 24964, w.Rows.Len(), goal.Name())
		assert.Same(t, w.Rows, w.Cols, "one table serves both axes of a square board")
		maxd := 0
		for _, d := range w.Rows.Dists() {
			maxd = max(maxd, int(d))
		}
		assert.Equal(t, 35, maxd, goal.Name())
		assert.Equal(t, 0, w.Rows.Dist(w.Rows.Goal()))
		assert.Equal(t, int64(w.Rows.Len()), tablefile.WDEntries(board.Size4x4, w.Rows.BlankHome),
			"the enumeration and the file format's count agree")
	}
}

func TestWorkedExamples(t *testing.T) {
	g := board.BlankLast(board.Size4x4)
	w := build(t, g)
	s := parse(t, g, "1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	rows, cols := w.Eval(s)
	assert.Equal(t, 5, rows, "horizontal (row) WD")
	assert.Equal(t, 6, cols, "vertical (column) WD")
	assert.Equal(t, 9, g.Manhattan(s))
	extreme := parse(t, g, "0 15 14 13 / 12 11 10 9 / 8 7 6 5 / 4 3 2 1")
	rows, cols = w.Eval(extreme)
	assert.Equal(t, 70, rows+cols)
}

// A plain breadth-first search over patterns with a map, independent of Enumerate and bfs.
func TestAgainstSlowSearch(t *testing.T) {
	for _, tc := range []struct{ lines, lineLen, home int }{{4, 4, 3}, {4, 4, 0}, {3, 3, 1}, {3, 4, 2}, {4, 2, 0}} {
		tab, err := Build(context.Background(), tc.lines, tc.lineLen, tc.home, 2)
		require.NoError(t, err)
		var goal Pattern
		goal.Blank = tc.home
		for l := 0; l < tc.lines; l++ {
			goal.M[l][l] = uint8(tab.lineTiles(l, tc.home))
		}
		dist := map[Pattern]int{goal: 0}
		queue := []Pattern{goal}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, from := range []int{p.Blank - 1, p.Blank + 1} {
				if from < 0 || from >= tc.lines {
					continue
				}
				for g := 0; g < tc.lines; g++ {
					if p.M[from][g] == 0 {
						continue
					}
					q := p
					q.M[from][g]--
					q.M[p.Blank][g]++
					q.Blank = from
					if _, ok := dist[q]; !ok {
						dist[q] = dist[p] + 1
						queue = append(queue, q)
					}
				}
			}
		}
		require.Equal(t, len(dist), tab.Len(), "%+v: every enumerated pattern is reachable", tc)
		for p, d := range dist {
			id, ok := tab.ID(&p)
			require.True(t, ok)
			require.Equal(t, d, tab.Dist(id), "%+v pattern %+v", tc, p)
			require.Equal(t, p, tab.Pattern(id), "key round trip")
		}
	}
}

func TestIDsAreCanonical(t *testing.T) {
	tab, err := Enumerate(4, 4, 3)
	require.NoError(t, err)
	for i := 1; i < tab.Len(); i++ {
		require.Less(t, tab.keys[i-1], tab.keys[i])
	}
	first := tab.Pattern(0)
	assert.Equal(t, 0, first.Blank, "id 0 has the blank in line 0")
	assert.Equal(t, [4]uint8{0, 0, 0, 3}, [4]uint8(first.M[0][:4]), "and the smallest counts first")
}

func TestPropertiesOnRandomStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)} {
		w := build(t, goal)
		size := goal.Size()
		for i := 0; i < 3000; i++ {
			s := goal.Random(rng)
			rows, cols := w.Eval(s)
			require.GreaterOrEqual(t, rows+cols, goal.Manhattan(s), "WD >= MD for %v", s)
			rid, cid := w.IDs(s)
			for _, d := range board.Dirs {
				n := s.Clone()
				q := size.Step(n.Blank(), d)
				if q < 0 {
					continue
				}
				tile := n[q]
				size.Move(n, d)
				r2, c2 := w.Eval(n)
				if d == board.Up || d == board.Down {
					require.Equal(t, 1, abs(r2-rows), "a vertical move changes row WD by exactly 1")
					require.Equal(t, cols, c2, "and leaves column WD alone")
					dir := map[board.Dir]int{board.Up: Up, board.Down: Down}[d]
					g := size.Row(goal.Home(int(tile)))
					want, _ := w.IDs(n)
					require.Equal(t, want, w.Rows.Next(rid, dir, g), "transition")
				} else {
					require.Equal(t, 1, abs(c2-cols), "a horizontal move changes column WD by exactly 1")
					require.Equal(t, rows, r2)
					dir := map[board.Dir]int{board.Left: Up, board.Right: Down}[d]
					g := size.Col(goal.Home(int(tile)))
					_, want := w.IDs(n)
					require.Equal(t, want, w.Cols.Next(cid, dir, g), "transition")
				}
			}
		}
	}
}

// The blank-first table is the blank-last table seen upside down.
func TestMirrorSymmetry(t *testing.T) {
	last := build(t, board.BlankLast(board.Size4x4)).Rows
	first := build(t, board.BlankFirst(board.Size4x4)).Rows
	for id := uint32(0); id < uint32(last.Len()); id++ {
		p := last.Pattern(id)
		var m Pattern
		m.Blank = 3 - p.Blank
		for l := 0; l < 4; l++ {
			for g := 0; g < 4; g++ {
				m.M[3-l][3-g] = p.M[l][g]
			}
		}
		mid, ok := first.ID(&m)
		require.True(t, ok)
		require.Equal(t, last.Dist(id), first.Dist(mid))
	}
}

func TestNonSquareBoard(t *testing.T) {
	g := board.BlankLast(board.Size{W: 3, H: 2})
	w := build(t, g)
	assert.NotSame(t, w.Rows, w.Cols)
	assert.Equal(t, 2, w.Rows.Lines)
	assert.Equal(t, 3, w.Cols.Lines)
	s := parse(t, g, "0 5 4 / 3 2 1")
	rows, cols := w.Eval(s)
	assert.GreaterOrEqual(t, rows+cols, g.Manhattan(s))
}

func TestFileRoundTrip(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	w := build(t, goal)
	f, err := w.Rows.File(goal)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, f.Encode(&buf))
	var again bytes.Buffer
	require.NoError(t, f.Encode(&again))
	assert.Equal(t, buf.Bytes(), again.Bytes(), "encoding is deterministic")
	back, err := tablefile.Decode(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	tab, g, err := Load(back)
	require.NoError(t, err)
	assert.True(t, g.Equal(goal))
	assert.Equal(t, w.Rows.Dists(), tab.Dists())
	assert.Equal(t, w.Rows.Transitions(), tab.Transitions())
	assert.Equal(t, f.DecodedSHA, back.DecodedSHA)

	_, err = w.Rows.File(board.BlankFirst(board.Size{W: 3, H: 3}))
	assert.Error(t, err)
}

func BenchmarkBuild(b *testing.B) {
	b.Run("both-4x4-goals", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, home := range []int{3, 0} {
				if _, err := Build(context.Background(), 4, 4, home, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestFromTablesChecksShapes(t *testing.T) {
	last, first := board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)
	w := build(t, last)
	_, err := FromTables(first, w.Rows, w.Rows)
	assert.ErrorContains(t, err, "row table")
	_, err = FromTables(last, w.Rows, w.Rows)
	assert.NoError(t, err)
	small := build(t, board.BlankLast(board.Size{W: 3, H: 4}))
	_, err = FromTables(board.BlankLast(board.Size{W: 3, H: 4}), small.Rows, small.Rows)
	assert.ErrorContains(t, err, "column table")
}
