package instances

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
)

// Every file reads as valid states of its board, each with an optimal length and an id
// of its own; the 24-puzzle's files agree with each other on every instance they share.
func TestFilesRead(t *testing.T) {
	lengths := map[string]int{}
	for _, c := range []struct {
		name  string
		size  board.Size
		count int
	}{
		{Korf100, board.Size4x4, 100},
		{Korf24, board.Size5x5, 3},
		{Korf24Twelve, board.Size5x5, 12},
		{Korf24Campaign, board.Size5x5, 26},
		{Korf24All, board.Size5x5, 44},
	} {
		r := instance.NewReader(strings.NewReader(Text(c.name)), c.size)
		ids := map[string]bool{}
		n := 0
		for {
			in, err := r.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, c.name)
			n++
			require.Positive(t, in.Optimal, "%s %s", c.name, in.Name())
			require.NoError(t, board.BlankFirst(c.size).Check(in.State), "%s %s", c.name, in.Name())
			if in.ID != "" {
				require.False(t, ids[in.ID], "%s: %s twice", c.name, in.ID)
				ids[in.ID] = true
				key := in.ID + " " + in.State.String()
				if l, ok := lengths[key]; ok {
					assert.Equal(t, l, in.Optimal, "%s %s", c.name, in.ID)
				}
				lengths[key] = in.Optimal
			}
		}
		assert.Equal(t, c.count, n, c.name)
	}
}
