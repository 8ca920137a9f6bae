package pdb

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

// In the bit encoding every entry's value is recovered by descending to the goal, and
// equals the half-excess table's; a round trip through a file keeps it; bits built straight
// from the search's values are ToBits of the half-excess table. Small boards, every entry.
func TestBitTableDescends(t *testing.T) {
	for _, c := range smallZeroAware {
		goal, err := board.ParseGoal(c.size, c.goal)
		require.NoError(t, err)
		p, err := NewPattern(goal, c.tiles, false)
		require.NoError(t, err)
		z, err := ZeroAware(context.Background(), p, Options{Workers: 2})
		require.NoError(t, err)
		b, err := z.ToBits(context.Background(), 2)
		require.NoError(t, err)
		assert.Len(t, b.Bitmap, (z.Entries()+7)/8)
		built, err := ZeroAwareBits(context.Background(), p, Options{Workers: 2})
		require.NoError(t, err)
		assert.Equal(t, b.Bitmap, built.Bitmap, p.Name())
		f, err := b.File()
		require.NoError(t, err)
		back, err := LoadPacked(f)
		require.NoError(t, err)
		values, err := z.Values(context.Background(), 2)
		require.NoError(t, err)
		checked := 0
		for i, v := range values {
			if v == Unreachable {
				continue
			}
			got, ok := back.Descend(uint32(i))
			require.True(t, ok, "%s entry %d", p.Name(), i)
			require.Equal(t, int(v), got, "%s entry %d", p.Name(), i)
			checked++
		}
		assert.Positive(t, checked)
	}
}

// On random walks, the value of each state follows from its parent's and its bit
// (NextValue), as a search reads it.
func TestBitTableFollowsMoves(t *testing.T) {
	goal := board.BlankLast(board.Size{W: 4, H: 3})
	p, err := NewPattern(goal, []int{1, 2, 5, 6, 9}, false)
	require.NoError(t, err)
	z, err := ZeroAware(context.Background(), p, Options{})
	require.NoError(t, err)
	b, err := z.ToBits(context.Background(), 0)
	require.NoError(t, err)
	size := goal.Size()
	s := goal.Tiles()
	rng := rand.New(rand.NewPCG(5, 6))
	v := 0
	var cells [board.MaxCells]uint8
	for range 20000 {
		d := board.Dirs[rng.IntN(4)]
		before := s.Clone()
		if !size.Move(s, d) {
			continue
		}
		p.Cells(s, cells[:])
		i := b.Zero.IndexBlank(cells[:p.m], s.Blank())
		p.Cells(before, cells[:])
		if b.Zero.IndexBlank(cells[:p.m], before.Blank()) != i {
			v += NextValue(uint8(v), b.Bit(i)) // a pattern tile moved
		}
		require.Equal(t, z.Lookup(s), v)
		require.Equal(t, v, b.Lookup(s))
	}
}

// A set's tables go to the bit encoding together, each the table's ToBits; a set with a
// table that is not zero-aware is refused.
func TestSetToBits(t *testing.T) {
	spec, err := NewCatalogue("rows", board.BlankLast(board.Size4x4), true, false, [][][]int{
		{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15}},
	})
	require.NoError(t, err)
	set, err := NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	bits, err := set.ToBits(context.Background(), 0)
	require.NoError(t, err)
	require.Len(t, bits.Tables, len(set.Tables))
	assert.Equal(t, set.SetSpec.Name, bits.SetSpec.Name)
	for i, b := range bits.Tables {
		one, err := set.Tables[i].ToBits(context.Background(), 1)
		require.NoError(t, err)
		assert.Equal(t, one.Bitmap, b.Bitmap, "table %d", i)
		assert.NotEmpty(t, b.Bitmap)
	}
	plainSpec, err := NewCatalogue("plain rows", board.BlankLast(board.Size4x4), false, false, [][][]int{
		{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15}},
	})
	require.NoError(t, err)
	plain, err := NewSet(context.Background(), plainSpec, 0)
	require.NoError(t, err)
	_, err = plain.ToBits(context.Background(), 0)
	assert.ErrorContains(t, err, "not zero-aware")
}
