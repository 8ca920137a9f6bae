package repro

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The 28 positions read with the paper's figures, and those figures give back the means
// the paper states (BA* 85.4 moves and 256,774 states over 28; UA* 83.1 moves and
// 1,252,606 states over the 21 it solved): a check of the per-position figures, which had
// to be re-split from the paper's table.
func TestTable4Positions(t *testing.T) {
	positions, starts, goals, err := table4Positions()
	require.NoError(t, err)
	require.Len(t, positions, 28)
	require.Len(t, starts, 28)
	for i, p := range positions {
		require.NoError(t, goals[i].Check(starts[i]), p.ID)
		assert.Equal(t, goals[i].Name(), p.Goal)
	}
	assert.Equal(t, "blank-first", positions[0].Goal)
	assert.Equal(t, "blank-last", positions[27].Goal)
	r := &Table4Result{Positions: positions}
	_, paper, _, solved := r.Means()
	assert.Equal(t, 21, solved)
	assert.InDelta(t, 85.4, paper[0][0], 0.05)
	assert.InDelta(t, 256774, paper[0][1], 1)
	assert.InDelta(t, 83.1, paper[1][0], 0.05)
	assert.InDelta(t, 1252606, paper[1][1], 1)
	assert.False(t, math.IsNaN(paper[1][1]))
}
