package pdb

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// smallZeroAware are zero-aware patterns small enough to check every entry of.
var smallZeroAware = []struct {
	size  board.Size
	goal  string
	tiles []int
}{
	{board.Size{W: 3, H: 3}, "blank-last", []int{1, 2, 3, 4}},
	{board.Size{W: 3, H: 3}, "blank-first", []int{2, 5, 8}},
	{board.Size{W: 4, H: 2}, "blank-first", []int{1, 2, 5, 6}},
	{board.Size{W: 4, H: 3}, "blank-last", []int{1, 2, 5, 6, 9}},
	{board.Size{W: 4, H: 4}, "blank-last", []int{1, 2, 3}},
}

// A zero-aware entry is the distance of its (placement, blank cell) state in the table with
// the blank in the index (a different search, package bfs), for every placement and every
// cell of the blank, on small boards; the least over a placement's regions is Korf &
// Felner's entry; and a round trip through a file keeps every value.
func TestZeroAwareAgainstBlankTables(t *testing.T) {
	for _, c := range smallZeroAware {
		goal, err := board.ParseGoal(c.size, c.goal)
		require.NoError(t, err)
		withBlank, err := NewPattern(goal, c.tiles, true)
		require.NoError(t, err)
		ref, err := Build(context.Background(), withBlank, Options{})
		require.NoError(t, err)
		p, err := NewPattern(goal, c.tiles, false)
		require.NoError(t, err)
		z, err := ZeroAware(context.Background(), p, Options{Workers: 2})
		require.NoError(t, err)
		kf, err := Build(context.Background(), p, Options{})
		require.NoError(t, err)

		values, err := z.Values(context.Background(), 2)
		require.NoError(t, err)
		require.Len(t, values, z.Entries())
		k := len(c.tiles)
		cells := make([]uint8, k+1)
		for i := 0; i < ref.Len(); i++ {
			ref.Unrank(uint32(i), cells)
			want := int(ref.Entries[i])
			zi := z.Zero.IndexBlank(cells[:k], int(cells[k]))
			require.Equal(t, want, int(values[zi]), "%s %v: tiles on %v, blank on %d", c.size, c.tiles, cells[:k], cells[k])
			require.Equal(t, want, z.Value(zi, cells[:k]))
			// Korf & Felner's entry is the least over the regions.
			least := 255
			m := z.Zero.Map(occupied(cells[:k]))
			for r := 0; r < z.Zero.Regions(m); r++ {
				least = min(least, int(values[z.Zero.Index(cells[:k], r)]))
			}
			require.Equal(t, int(kf.Entries[p.Rank(cells[:k])]), least)
		}

		f, err := z.File()
		require.NoError(t, err)
		assert.Equal(t, tablefile.IndexZero, f.Index)
		raw, err := f.Marshal(context.Background())
		require.NoError(t, err)
		back, err := tablefile.Decode(bytes.NewReader(raw))
		require.NoError(t, err)
		z2, err := LoadPacked(back)
		require.NoError(t, err)
		require.NotNil(t, z2.Zero)
		v2, err := z2.Values(context.Background(), 1)
		require.NoError(t, err)
		assert.Equal(t, values, v2)
	}
}

func occupied(cells []uint8) uint32 {
	var m uint32
	for _, c := range cells {
		m |= 1 << c
	}
	return m
}

// A zero-aware lookup on a state changes by at most one with any move (consistency), on
// random walks of the 4x3 board, where Korf & Felner's can jump.
func TestZeroAwareIsConsistent(t *testing.T) {
	goal := board.BlankLast(board.Size{W: 4, H: 3})
	p, err := NewPattern(goal, []int{1, 2, 5, 6, 9}, false)
	require.NoError(t, err)
	z, err := ZeroAware(context.Background(), p, Options{})
	require.NoError(t, err)
	size := goal.Size()
	s := goal.Tiles()
	rng := rand.New(rand.NewPCG(3, 4))
	prev := z.Lookup(s)
	require.Equal(t, 0, prev)
	for range 20000 {
		d := board.Dirs[rng.IntN(4)]
		if !size.Move(s, d) {
			continue
		}
		h := z.Lookup(s)
		require.LessOrEqual(t, h-prev, 1)
		require.LessOrEqual(t, prev-h, 1)
		prev = h
	}
}
