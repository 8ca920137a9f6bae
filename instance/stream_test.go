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
	assert.Contains(t, out.String(), "x: hint: the 25 states not solvable for blank-last are all solvable for blank-first")
}
