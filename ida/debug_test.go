//go:build idadebug

package ida

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
)

// TestDebugChecksCatchAWrongStep: with the debug checks on (-tags idadebug), a lookup
// whose incremental step is wrong (two of its tiles swapped in the order a lookup from
// scratch ranks them, which stepping the ranks does not see) makes the search panic at the
// first node where the step and the value from scratch part, instead of searching on with
// wrong values.
func TestDebugChecksCatchAWrongStep(t *testing.T) {
	set, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	korf := corpus.Korf100()
	good, err := New(korf[0].Goal, Options{Set: set})
	require.NoError(t, err)
	res, err := good.Solve(context.Background(), korf[11].Start)
	require.NoError(t, err)
	require.Equal(t, korf[11].Optimal, len(res.Moves))

	bad, err := New(korf[0].Goal, Options{Set: set})
	require.NoError(t, err)
	l := &bad.t.cat.look[0]
	l.Tiles[0], l.Tiles[1] = l.Tiles[1], l.Tiles[0]
	require.Panics(t, func() { _, _ = bad.Solve(context.Background(), korf[11].Start) })
}
