package corpus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

func TestKorf100(t *testing.T) {
	inst := Korf100()
	require.Len(t, inst, 100)
	sum := 0
	for _, in := range inst {
		require.NoError(t, in.Goal.Check(in.Start), in.Name)
		sum += in.Optimal
	}
	assert.Equal(t, 5305, sum)
	assert.Equal(t, 42, inst[15].Optimal, "instance 16 is 42, not the misprinted 44")
}

// The 3x3 boards of the corpus are checked against an exhaustive breadth-first search.
func TestSmallAgainstBFS(t *testing.T) {
	for _, in := range Small() {
		require.NoError(t, in.Goal.Check(in.Start), in.Name)
		if in.Goal.Size() != (board.Size{W: 3, H: 3}) {
			continue
		}
		dist := Distances(in.Goal)
		assert.Equal(t, 181440, len(dist))
		assert.Equal(t, in.Optimal, dist[string(in.Start)], in.Name)
	}
}

func TestRotatedTwin(t *testing.T) {
	var a, b Case
	for _, in := range Small() {
		switch in.Name {
		case "korf16":
			a = in
		case "korf16-last":
			b = in
		}
	}
	assert.Equal(t, b.Start, board.Rotate180(a.Start))
}
