package prune

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/sysmem"
)

// The estimate grows with the depth and holds the measured peaks within a factor of 1.5.
func TestBuildBytes(t *testing.T) {
	for _, m := range []struct {
		size  board.Size
		depth int
		peak  float64
	}{{board.Size4x4, 18, 334e6}, {board.Size4x4, 19, 713e6}, {board.Size4x4, 20, 1.28e9}, {board.Size4x4, 21, 2.53e9},
		{board.Size5x5, 16, 509e6}, {board.Size5x5, 18, 2.8e9}} {
		got := float64(BuildBytes(m.size, m.depth))
		assert.InDelta(t, 1, got/m.peak, 0.5, "%s depth %d: %.3g against %.3g measured", m.size, m.depth, got, m.peak)
	}
	for _, size := range []board.Size{board.Size4x4, board.Size5x5} {
		for d := 2; d < MaxDepth; d++ {
			assert.LessOrEqual(t, BuildBytes(size, d), BuildBytes(size, d+1))
		}
	}
}

// A depth whose build cannot fit the machine is refused at once, with the figures, rather
// than dying of want of memory half-way (depth 24 on 5x5: hundreds of GB).
func TestBuildRefusesWhatCannotFit(t *testing.T) {
	avail := sysmem.Available()
	if avail == 0 {
		t.Skip("the system does not say how much memory is available")
	}
	require.Greater(t, BuildBytes(board.Size5x5, 24), avail, "a machine with room for it")
	// Refused before it starts: a build that began would not return (it would outgrow
	// the memory), so the error itself shows that nothing was built.
	_, err := Build(context.Background(), board.Size5x5, 24)
	assert.ErrorIs(t, err, ErrMemory)
	assert.ErrorContains(t, err, "depth 24 on 5x5 needs about")
}

// The depths a board's searches take by default and pdbgen installs, and the one range
// check: 0 to MaxDepth.
func TestDepthPolicy(t *testing.T) {
	require.Equal(t, 12, DefaultDepth(board.Size4x4))
	require.Equal(t, 14, DefaultDepth(board.Size5x5))
	require.Equal(t, 12, DefaultDepth(board.Size{W: 3, H: 3}))
	require.Equal(t, []int{18, 14}, InstallDepths(board.Size5x5))
	require.Equal(t, []int{12}, InstallDepths(board.Size4x4))
	for _, d := range []int{0, 1, 2, MaxDepth} {
		require.NoError(t, CheckDepth(d), d)
	}
	for _, d := range []int{-1, MaxDepth + 1} {
		require.ErrorContains(t, CheckDepth(d), "out of range", d)
		_, err := Build(context.Background(), board.Size{W: 3, H: 3}, d)
		require.Error(t, err, d)
	}
}
