package instance

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	_, err := Open(ctx, "", nil, nil, goal)
	assert.ErrorIs(t, err, ErrNoInput)
	_, err = Open(ctx, "x", []string{"1"}, nil, goal)
	assert.ErrorIs(t, err, ErrNoInput)
	_, err = Open(ctx, t.TempDir(), nil, nil, goal)
	assert.ErrorContains(t, err, "is a directory")

	// Nine words make one state; a quoted state is one; the stdin of "-" is read.
	s, err := Open(ctx, "", []string{"1", "2", "3", "4", "5", "6", "7", "0", "8", "1 2 3 4 5 6 7 8 0"}, nil, goal)
	require.NoError(t, err)
	assert.False(t, s.Single())
	var lines []int
	for e := range s.All() {
		require.NotNil(t, e.In)
		lines = append(lines, e.Line)
	}
	assert.Equal(t, []int{1, 2}, lines)
	assert.Equal(t, "the arguments", s.Name())

	s, err = Open(ctx, "-", nil, strings.NewReader("# one\n1 2 3 4 5 6 7 0 8\n"), goal)
	require.NoError(t, err)
	assert.True(t, s.Single())
	assert.Equal(t, "stdin", s.Name())
}

// Bad lines are reported up to MaxProblems, then counted, with a hint when every
// unsolvable state fits the other named goal.
func TestProblems(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	var input strings.Builder
	for i := 0; i < MaxProblems+5; i++ {
		input.WriteString("2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n") // solvable for blank-first only
	}
	var out bytes.Buffer
	p := NewProblems(&out, "x: ", goal)
	for e := range NewStream(context.Background(), strings.NewReader(input.String()), "f", goal).All() {
		p.Add(e)
	}
	p.Finish()
	assert.Equal(t, MaxProblems+5, p.Bad)
	assert.Equal(t, MaxProblems+2, strings.Count(out.String(), "\n"))
	assert.Contains(t, out.String(), "x: ... and 5 more invalid lines (25 in all)")
	assert.Contains(t, out.String(), "x: hint: all 25 of those states are solvable for blank-first, not blank-last: try --goal blank-first")
}

// ReadAll: a limit stops early, max bounds what a list may hold, known demands optima,
// and a bad line is named with its line.
func TestReadAll(t *testing.T) {
	ctx := context.Background()
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	list := "a 1 2 3 4 5 6 7 0 8 1\nb 1 2 3 4 5 6 0 7 8 2\nc 1 2 3 4 5 6 7 8 0\n"
	got, err := ReadAll(ctx, strings.NewReader(list), "l", goal, 2, 10, true)
	require.NoError(t, err)
	assert.Len(t, got, 2)
	_, err = ReadAll(ctx, strings.NewReader(list), "l", goal, 0, 10, true)
	assert.EqualError(t, err, "l:3: no known optimal length")
	got, err = ReadAll(ctx, strings.NewReader(list), "l", goal, 0, 10, false)
	require.NoError(t, err)
	assert.Len(t, got, 3)
	_, err = ReadAll(ctx, strings.NewReader(list), "l", goal, 0, 2, false)
	assert.EqualError(t, err, "l holds more than 2 instances")
	_, err = ReadAll(ctx, strings.NewReader("1 2 3\n"), "l", goal, 0, 2, false)
	assert.ErrorContains(t, err, "l:1: ")
}

// A bad line keeps the id it gave, whether its numbers are wrong or its state does not fit
// the goal; a line whose id could not be read has none.
func TestBadLinesKeepTheirIDs(t *testing.T) {
	text := "k7 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15\nk8 2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n1 2 3\n"
	s, err := Open(context.Background(), "-", nil, strings.NewReader(text), board.BlankLast(board.Size4x4))
	require.NoError(t, err)
	var ids []string
	for e := range s.All() {
		require.Nil(t, e.In)
		ids = append(ids, e.ID)
	}
	assert.Equal(t, []string{"k7", "k8", ""}, ids)
}
