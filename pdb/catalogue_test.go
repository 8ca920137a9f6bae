package pdb

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
)

// small-t as a file reads as the built-in catalogue: 28 lookups, 14 partitions, over 11
// tables. Each group whose image under a symmetry of the board is a table's group (with
// the blank's home kept in the blank's region) reads that table through the symmetry:
// the 14 groups that are reflections of others, and three more. The 11 are among the 14
// that the transpose alone left, so that sets installed before still serve.
func TestParseCatalogueSmallT(t *testing.T) {
	f, err := os.Open("testdata/small-t.cat")
	require.NoError(t, err)
	defer f.Close()
	spec, err := ParseCatalogue(f, "small-t", board.BlankFirst(board.Size5x5), true)
	require.NoError(t, err)
	assert.True(t, spec.ZeroAware)
	assert.Len(t, spec.Tables, 11)
	assert.Len(t, spec.Lookups, 28)
	assert.Len(t, spec.Partitions, 14)
	assert.Equal(t, SmallT.Tables, spec.Tables)
	assert.Equal(t, SmallT.Lookups, spec.Lookups)
	assert.Equal(t, SmallT.Partitions, spec.Partitions)
	mapped := 0
	for _, l := range spec.Lookups {
		if l.Map != Identity {
			mapped++
			require.NoError(t, spec.checkLookup(0, l))
		}
	}
	assert.Equal(t, 17, mapped)
	transposeOnly := []string{"[1 2 5 6 10 11]", "[1 5 6 10 11 12]", "[1 5 6 10 15 20]", "[11 12 13 16 17 18]",
		"[11 12 16 17 21 22]", "[13 14 15 16 17 18]", "[13 14 18 19 23 24]", "[14 19 21 22 23 24]",
		"[15 16 17 20 21 22]", "[19 20 21 22 23 24]", "[2 3 4 7 8 9]", "[3 4 7 8 9 12]", "[3 4 9 14 19 24]",
		"[7 8 12 13 18 23]"}
	for _, tab := range spec.Tables {
		assert.Contains(t, transposeOnly, fmt.Sprint(tab))
	}
}

func TestParseCatalogueErrors(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	for _, c := range []struct{ text, want string }{
		{"", "no partitions"},
		{"# only a comment\n", "no partitions"},
		{"1,2,3,4,5,6,7\n8,9,10,11,12,13,14\n", "leaves tile 15 out"},
		{"1,2,3,4,5,6,7,8\n8,9,10,11,12,13,14,15\n", "tile 8 twice"},
		{"1,2,3,x\n", "x"},
		{"1,2,16\n", "no tile 16"},
		{"0,1,2,3,4,5,6,7\n8,9,10,11,12,13,14,15\n", "mark all or none"},
		{"1,2,3,4,5,6,7,8,9\n10,11,12,13,14,15\n", "9 tiles"},
		{"0\n1,2,3,4,5,6,7,8\n", "0 tiles"},
		{strings.Repeat("1,2,3,4,5,6,7,8\n9,10,11,12,13,14,15\n\n", 40), "more than 32 partitions"},
		{strings.Repeat("#", 70000), "larger than"},
	} {
		_, err := ParseCatalogue(strings.NewReader(c.text), "cat.txt", goal, false)
		if assert.Error(t, err, "%q", c.text) {
			assert.Contains(t, err.Error(), c.want, "%.40q", c.text)
			assert.Contains(t, err.Error(), "cat.txt")
		}
	}
	_, err := ParseCatalogue(strings.NewReader("1,2,3\n4,5,6\n7\n8\n"), "odd", board.BlankLast(board.Size{W: 3, H: 3}), true)
	assert.NoError(t, err)
	_, err = ParseCatalogue(strings.NewReader("1,2,3\n4,5,6,7\n"), "wide", board.BlankLast(board.Size{W: 4, H: 2}), true)
	assert.ErrorContains(t, err, "square board")
}

// A zero-aware catalogue with reflections on the 8-puzzle: for every one of the 181,440
// states its value is at most the state's distance, and a move changes it by at most one
// (zero-aware tables are consistent, and so is a maximum of sums of them); it is at least
// each of its partitions alone.
func TestCatalogueExhaustive(t *testing.T) {
	goal := board.BlankFirst(board.Size{W: 3, H: 3})
	parts := [][][]int{{{1, 2, 3, 4}, {5, 6, 7, 8}}, {{1, 2, 4, 5}, {3, 6, 7, 8}}}
	spec, err := NewCatalogue("8p", goal, true, true, parts)
	require.NoError(t, err)
	require.Len(t, spec.Partitions, 4)
	cat, err := NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	one, err := NewCatalogue("8p-0", goal, true, false, parts[:1])
	require.NoError(t, err)
	first, err := NewSet(context.Background(), one, 0)
	require.NoError(t, err)
	dist := corpus.Distances(goal)
	require.Len(t, dist, 181440)
	stronger := 0
	for key, d := range dist {
		st := board.State(key)
		h := cat.Eval(st)
		require.LessOrEqual(t, h, d, "%v", st)
		h1 := first.Eval(st)
		require.GreaterOrEqual(t, h, h1)
		if h > h1 {
			stronger++
		}
		blank := st.Blank()
		for _, dir := range board.Dirs {
			if q := goal.Size().Step(blank, dir); q >= 0 {
				next := st.Clone()
				next[blank], next[q] = next[q], 0
				require.LessOrEqual(t, abs(cat.Eval(next)-h), 1, "%v -> %v", st, next)
			}
		}
	}
	assert.Positive(t, stronger, "more partitions, higher values somewhere")
}

func FuzzParseCatalogue(f *testing.F) {
	small, err := os.ReadFile("testdata/small-t.cat")
	require.NoError(f, err)
	f.Add(string(small), true)
	f.Add("1,2,3,4,7\n5,6,9,10,13\n8,11,12,14,15\n\n1 2 5 6\n3 4 7 8\n9 10 13 14\n11 12 15\n", false)
	f.Add("0,1,2\n0,3\n", true)
	goal := board.BlankLast(board.Size4x4)
	f.Fuzz(func(t *testing.T, text string, reflect bool) {
		spec, err := ParseCatalogue(strings.NewReader(text), "fuzz", goal, reflect)
		if err != nil {
			return
		}
		require.NoError(t, spec.Check())
		require.NotEmpty(t, spec.Partitions)
		require.LessOrEqual(t, len(spec.Partitions), MaxPartitions)
	})
}

func TestRecommended(t *testing.T) {
	for size, want := range map[board.Size]string{board.Size4x4: "7-8", board.Size5x5: "small-t"} {
		s, err := Recommended(size)
		require.NoError(t, err)
		assert.Equal(t, want, s.Name)
		assert.LessOrEqual(t, s.Resident(), int64(12e9), "the tables fit the budget")
	}
	_, err := Recommended(board.Size{W: 3, H: 3})
	assert.ErrorContains(t, err, "3x3")
}
