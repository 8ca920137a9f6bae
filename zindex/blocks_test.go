package zindex

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

// randomState returns a random placement of s's tiles and a free cell for the blank.
func randomState(rng *rand.Rand, size board.Size, k int) ([]uint8, int) {
	perm := rng.Perm(size.Cells())
	cells := make([]uint8, k)
	for i := range cells {
		cells[i] = uint8(perm[i])
	}
	return cells, perm[k+rng.IntN(size.Cells()-k)]
}

// Index64 and Unrank64 are inverse on the 8-tile scheme of the 24-puzzle, whose indices
// pass 2^32 (87,358,400,640 entries), without building its table; below 2^32 they agree
// with the 32-bit Index.
func TestIndex64PastTwoToThe32(t *testing.T) {
	s, err := For(board.Size5x5, 8)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	above := 0
	for range 5000 {
		cells, blank := randomState(rng, board.Size5x5, 8)
		var mask uint32
		for _, c := range cells {
			mask |= 1 << c
		}
		m := s.Map(mask)
		r := int(s.Region(m, blank))
		idx := s.Index64(cells, r)
		require.Less(t, idx, uint64(s.Entries()))
		if idx >= 1<<32 {
			above++
		}
		back := make([]uint8, 8)
		gm, gr := s.Unrank64(idx, back)
		require.Equal(t, cells, back)
		require.Equal(t, m, gm)
		require.Equal(t, r, gr)
		require.Equal(t, mask, s.Mask(m))
	}
	assert.Greater(t, above, 4000, "most indices of 8 tiles are past 2^32")
	// The last entry: the tiles on the last cells in the last order, the last region.
	last := uint64(s.Entries() - 1)
	cells := make([]uint8, 8)
	m, r := s.Unrank64(last, cells)
	assert.Equal(t, uint32(s.Maps()-1), m)
	assert.Equal(t, last, s.Index64(cells, r))

	small, err := For(board.Size5x5, 6)
	require.NoError(t, err)
	for range 1000 {
		cells, blank := randomState(rng, board.Size5x5, 6)
		var mask uint32
		for _, c := range cells {
			mask |= 1 << c
		}
		r := int(small.Region(small.Map(mask), blank))
		require.Equal(t, uint64(small.IndexBlank(cells, blank)), small.Index64(cells, r))
	}
}

// A slot's moves send each of its entries where ranking the moved state from scratch
// does: the slot To and the order Shift(From, Into)[o]. Every move of a pattern tile into
// a free cell of the blank's region is listed once, it changes the map's parity, and
// moving back returns every order to itself.
func TestMovesAgreeWithIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		size board.Size
		k    int
	}{{board.Size{W: 3, H: 3}, 3}, {board.Size{W: 4, H: 3}, 4}, {board.Size4x4, 7}, {board.Size5x5, 6}, {board.Size5x5, 8}} {
		s, err := For(c.size, c.k)
		require.NoError(t, err)
		places := s.Places()
		require.Len(t, places, s.Fact())
		for range 300 {
			cells, blank := randomState(rng, c.size, c.k)
			var mask uint32
			for _, x := range cells {
				mask |= 1 << x
			}
			m := s.Map(mask)
			r := int(s.Region(m, blank))
			idx := s.Index64(cells, r)
			slot, order := idx/uint64(s.Fact()), idx%uint64(s.Fact())
			moves := s.Moves(m, mask, r, nil)
			// The moves by brute force: each tile, each direction.
			var want []uint64
			for i := range cells {
				for _, d := range board.Dirs {
					to := c.size.Step(int(cells[i]), d)
					if to < 0 || mask&(1<<to) != 0 || int(s.Region(m, to)) != r {
						continue
					}
					next := slices.Clone(cells)
					next[i] = uint8(to)
					want = append(want, s.Index64(next, int(s.Region(s.Map(mask^(1<<cells[i]|1<<to)), int(cells[i])))))
				}
			}
			var got []uint64
			for _, mv := range moves {
				got = append(got, uint64(mv.To)*uint64(s.Fact())+uint64(s.Shift(int(mv.From), int(mv.Into))[order]))
				back := s.Shift(int(mv.Into), int(mv.From))[s.Shift(int(mv.From), int(mv.Into))[order]]
				require.Equal(t, uint16(order), back)
				toMask := s.Mask(s.mapOfSlot(mv.To))
				require.NotEqual(t, s.Parity(mask), s.Parity(toMask))
			}
			slices.Sort(got)
			slices.Sort(want)
			require.Equal(t, want, got, "%s %v region %d", c.size, cells, r)
			_ = slot
			// Places agrees with Unrank.
			back := make([]uint8, c.k)
			s.Unrank64(idx, back)
			var occ []uint8
			for x := mask; x != 0; x &= x - 1 {
				occ = append(occ, uint8(bits.TrailingZeros32(x)))
			}
			for i := range back {
				require.Equal(t, back[i], occ[places[order]>>(3*i)&7])
			}
		}
	}
}

// mapOfSlot returns the map of a slot.
func (s *Scheme) mapOfSlot(slot uint32) uint32 {
	m, _ := slices.BinarySearch(s.first, slot+1)
	return uint32(m - 1)
}
