package instance

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
)

func TestReadKorfFile(t *testing.T) {
	r := NewReader(strings.NewReader(corpus.KorfFile()), board.Size4x4)
	n, sum := 0, 0
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		n++
		sum += in.Optimal
		assert.Equal(t, "", in.ID)
	}
	assert.Equal(t, 100, n)
	assert.Equal(t, 5305, sum)
}

func TestParseLine(t *testing.T) {
	goal := "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"
	for _, tc := range []struct {
		text    string
		id      string
		optimal int
	}{
		{goal, "", -1},
		{"a1: " + goal, "a1", -1},
		{"a1 " + goal + " 0", "a1", 0},
		{goal + " 0", "", 0},
		{"7 " + goal, "7", -1},         // a numeric id: only that reading is valid
		{"7 " + goal + " 12", "7", 12}, // id and length
		{"1,2,3,4 - 5,6,7,8 - 9,10,11,12 - 13,14,15,0", "", -1},
	} {
		in, err := ParseLine(board.Size4x4, tc.text)
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.id, in.ID, tc.text)
		assert.Equal(t, tc.optimal, in.Optimal, tc.text)
		assert.Equal(t, board.BlankLast(board.Size4x4).Tiles(), in.State, tc.text)
	}
}

func TestLineErrors(t *testing.T) {
	text := "1 2 3\n# comment\n\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15\n" +
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 # fine\n" + "x y 1 2\n"
	r := NewReader(strings.NewReader(text), board.Size4x4)
	var lines []int
	var errs []error
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			lines = append(lines, le.Line)
			errs = append(errs, err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, 5, in.Line)
	}
	assert.Equal(t, []int{1, 4, 6}, lines)
	assert.ErrorIs(t, errs[0], board.ErrCount)
	assert.ErrorIs(t, errs[1], board.ErrDuplicate)
	assert.Contains(t, errs[0].Error(), "line 1: ")
}

func TestLongLine(t *testing.T) {
	r := NewReader(strings.NewReader(strings.Repeat("1 ", 5000)), board.Size4x4)
	_, err := r.Next()
	var le *LineError
	require.ErrorAs(t, err, &le)
	assert.Contains(t, err.Error(), "longer than")
}

func FuzzParseLine(f *testing.F) {
	f.Add("korf1: 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 57")
	f.Add("1 2 3 4 - 5 6 7 8 - 9 10 11 12 - 13 14 15 0")
	f.Add("0 0 0")
	f.Fuzz(func(t *testing.T, text string) {
		in, err := ParseLine(board.Size4x4, text)
		if err != nil {
			return
		}
		require.Len(t, in.State, 16)
		again, err := board.FromInts(board.Size4x4, toInts(in.State))
		require.NoError(t, err)
		require.Equal(t, in.State, again)
	})
}

func toInts(s board.State) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}
