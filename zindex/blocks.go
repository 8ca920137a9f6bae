package zindex

import (
	"math/bits"
	"sync"
)

// The index is map-major: the k! entries of one (map, region) pair, a slot, are
// consecutive, ordered by the order's rank. A move of a pattern tile sends the whole slot
// to one other slot: the map loses the tile's cell and gains the one it moves to, the
// blank's region is the one of the cell the tile left, and every order changes the same
// way, by the tile's place among the occupied cells before and after the move (Shift).
// A breadth-first search over the table can therefore move whole slots at a time, with a
// table lookup per entry and no ranking (package bfs, BlockGraph).

// Slots returns the number of (map, region) pairs: the index divided by k!.
func (s *Scheme) Slots() int { return int(s.first[len(s.first)-1]) }

// Maps returns the number of maps: the sets of k occupied cells.
func (s *Scheme) Maps() int { return len(s.first) - 1 }

// FirstSlot returns the slot of map m's region 0; its regions' slots follow it.
func (s *Scheme) FirstSlot(m uint32) uint32 { return s.first[m] }

// Fact returns k!, the entries of a slot.
func (s *Scheme) Fact() int { return int(s.fact) }

// Cells returns the size of the board.
func (s *Scheme) Cells() int { return s.n }

// Mask returns the occupied cells of map m: the k-subset of rank m.
func (s *Scheme) Mask(m uint32) uint32 {
	var mask uint32
	c := s.n - 1
	for j := s.k; j >= 1; j-- {
		for s.binom[c][j] > m {
			c--
		}
		mask |= 1 << c
		m -= s.binom[c][j]
		c--
	}
	return mask
}

// A Move takes every entry of one slot to an entry of another: the tile on the From-th
// smallest occupied cell moves into a free cell next to it, in the blank's region, where
// it is the Into-th smallest. Order o of the slot becomes order Shift(From, Into)[o] of
// slot To.
type Move struct {
	To         uint32 // the slot reached
	From, Into uint8  // the moving tile's place among the occupied cells, before and after
}

// Moves appends the moves out of slot region of map m (whose occupied cells are mask) to
// dst, in a fixed order: by the moving tile's place, then by the cell it moves to.
func (s *Scheme) Moves(m, mask uint32, region int, dst []Move) []Move {
	row := s.region[int(m)*s.n : int(m+1)*s.n]
	j := 0
	for occ := mask; occ != 0; occ &= occ - 1 {
		a := bits.TrailingZeros32(occ)
		for to := s.nbr[a] &^ mask; to != 0; to &= to - 1 {
			b := bits.TrailingZeros32(to)
			if int(row[b]) != region {
				continue
			}
			next := mask ^ (1<<a | 1<<b)
			m2 := s.Map(next)
			r2 := uint32(s.region[int(m2)*s.n+a])
			into := bits.OnesCount32(next & (1<<b - 1))
			dst = append(dst, Move{To: s.first[m2] + r2, From: uint8(j), Into: uint8(into)})
		}
		j++
	}
	return dst
}

// Parity returns the colour of the occupied cells on a checkerboard, summed: every move of
// a tile changes it, so a slot's distances from the goal all have one parity, and slots of
// the two colours alternate along any path.
func (s *Scheme) Parity(mask uint32) int { return bits.OnesCount32(mask&s.dark) & 1 }

// orders holds the tables of the order ranks (made on first use).
type orders struct {
	once   sync.Once
	shift  [][]uint16 // shift[from*k+into][o]
	places []uint32   // places[o]: tile i's place among the occupied cells, 3 bits each
}

// Shift returns how the order's rank changes when the tile on the from-th occupied cell
// moves to where it is the into-th: order o becomes Shift(from, into)[o], the other tiles
// keeping their cells (those between the two places move one place along). For from ==
// into it is the identity. The table is shared: do not modify it.
func (s *Scheme) Shift(from, into int) []uint16 {
	s.tabulate()
	return s.orders.shift[from*s.k+into]
}

// Places returns, for each order rank, the places of the tiles among the occupied cells,
// tile i's in bits 3i to 3i+2. The table is shared: do not modify it.
func (s *Scheme) Places() []uint32 {
	s.tabulate()
	return s.orders.places
}

func (s *Scheme) tabulate() {
	o := &s.orders
	o.once.Do(func() {
		k, fact := s.k, int(s.fact)
		o.places = make([]uint32, fact)
		var p [8]uint8
		for r := 0; r < fact; r++ {
			s.unrankOrder(uint32(r), p[:k])
			var w uint32
			for i := 0; i < k; i++ {
				w |= uint32(p[i]) << (3 * i)
			}
			o.places[r] = w
		}
		o.shift = make([][]uint16, k*k)
		for from := 0; from < k; from++ {
			for into := 0; into < k; into++ {
				t := make([]uint16, fact)
				for r := 0; r < fact; r++ {
					w := o.places[r]
					for i := 0; i < k; i++ {
						q := uint8(w >> (3 * i) & 7)
						switch {
						case q == uint8(from):
							q = uint8(into)
						case from < into && q > uint8(from) && q <= uint8(into):
							q--
						case into < from && q >= uint8(into) && q < uint8(from):
							q++
						}
						p[i] = q
					}
					t[r] = uint16(s.rankOrder(p[:k]))
				}
				o.shift[from*k+into] = t
			}
		}
	})
}

// rankOrder returns the rank of the places p (a permutation of 0..k-1).
func (s *Scheme) rankOrder(p []uint8) uint32 {
	var used, r uint32
	for i := 0; i < s.k; i++ {
		r = r*uint32(s.k-i) + uint32(p[i]) - uint32(bits.OnesCount32(used&(1<<p[i]-1)))
		used |= 1 << p[i]
	}
	return r
}

// unrankOrder fills p with the places of order rank r.
func (s *Scheme) unrankOrder(r uint32, p []uint8) {
	var digits [8]uint32
	for i := s.k - 1; i >= 0; i-- {
		radix := uint32(s.k - i)
		digits[i] = r % radix
		r /= radix
	}
	var used uint32
	for i := 0; i < s.k; i++ {
		// The digits[i]-th unused place.
		free := ^used
		for d := digits[i]; d > 0; d-- {
			free &= free - 1
		}
		q := bits.TrailingZeros32(free)
		used |= 1 << q
		p[i] = uint8(q)
	}
}

// CountMoves returns how many moves Moves lists for the slot, without ranking them.
func (s *Scheme) CountMoves(m, mask uint32, region int) int {
	row := s.region[int(m)*s.n : int(m+1)*s.n]
	var reg uint32
	for c, r := range row {
		if int(r) == region {
			reg |= 1 << c
		}
	}
	n := 0
	for occ := mask; occ != 0; occ &= occ - 1 {
		n += bits.OnesCount32(s.nbr[bits.TrailingZeros32(occ)] & reg)
	}
	return n
}
