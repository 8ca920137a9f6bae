package ida

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
)

var (
	five4Once sync.Once
	five4     *pdb.Set
)

// set5x5 is a small additive set for the 24-puzzle: six groups of four tiles (tables of
// 303,600 entries, built in a second), for tests; the real one is 6-6-6-6.
func set5x5(t testing.TB) *pdb.Set {
	five4Once.Do(func() {
		spec := pdb.SetSpec{Name: "4x6", Goal: board.BlankFirst(board.Size5x5),
			Tables: [][]int{{1, 2, 5, 6}, {3, 4, 8, 9}, {7, 12, 13, 14}, {10, 11, 15, 16}, {17, 18, 22, 23}, {19, 20, 21, 24}}}
		spec.Lookups = pdb.TableLookups(spec.Tables)
		five4, _ = pdb.NewSet(context.Background(), spec, 0)
	})
	require.NotNil(t, five4)
	return five4
}
