package cmdline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
)

// Done counts a state done only by a record that solved it optimally, on the same board
// and goal; other values (a bench's totals) are passed over.
func TestDoneRecords(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	state := "1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15"
	records := `{"start":[1,0,2,3,4,5,6,7,8,9,10,11,12,13,14,15],"board":"4x4","goal":"blank-first","solved":true,"optimal":true}
{"start":[4,1,2,3,0,5,6,7,8,9,10,11,12,13,14,15],"board":"4x4","goal":"blank-first","solved":true,"optimal":false}
{"start":[1,2,0,3,4,5,6,7,8,9,10,11,12,13,14,15],"board":"4x4","goal":"blank-last","solved":true,"optimal":true}
{"total":{"solved":3}}
`
	path := filepath.Join(t.TempDir(), "done.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(records), 0o644))
	done, err := Done(path, goal)
	require.NoError(t, err)
	for _, c := range []struct {
		state string
		want  bool
	}{
		{state, true},
		{"4 1 2 3 0 5 6 7 8 9 10 11 12 13 14 15", false}, // not proven optimal
		{"1 2 0 3 4 5 6 7 8 9 10 11 12 13 14 15", false}, // another goal's record
		{"0 1 2 3 4 5 6 7 8 9 10 11 12 14 13 15", false}, // no record
	} {
		s, err := board.Parse(board.Size4x4, c.state)
		require.NoError(t, err)
		assert.Equal(t, c.want, done(&instance.Instance{State: s}), c.state)
	}
}
