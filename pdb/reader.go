package pdb

import (
	"math/bits"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/zindex"
)

// A Reader reads one lookup of a set (Korf & Felner 2002) for states of the board's
// canonical frame, given as the cell of each tile (pos, the blank's pos[0]): the cells of
// its tiles, mapped into the table's frame, ranked into an index (kperm, or a zero-aware
// table's zperm, package zindex), and the half excess of the entry there over the tiles'
// Manhattan distance. A search steps a zero-aware lookup's index move by move (Place,
// Step, IndexOf) and reads a table in the bit encoding from the parent's value (ReadBit).
type Reader struct {
	Tiles [8]uint8              // the state's tiles it reads, in the table's index order
	K     int                   // how many
	Cell  [board.MaxCells]uint8 // the table's cell of each of the state's cells
	Table *Packed

	// A table stored through a mirror (Packed.Mirror) holds a placement's entry at the
	// smaller of its index and its image's: MTiles and MCell read the image.
	Mirror bool
	MTiles [8]uint8
	MCell  [board.MaxCells]uint8

	n    uint32         // the board's cells
	nib  []byte         // the table's nibbles
	zero *zindex.Scheme // a zero-aware table: the index takes the blank's region
	bits []byte         // a zero-aware table in the bit encoding

	// For stepping a zero-aware lookup's ranks (Step): the state's cell of each of the
	// table's cells, and each tile's number in the lookup.
	inv [board.MaxCells]uint8
	num [board.MaxCells]uint8
}

// NewReader prepares the lookup of table that reads the state's tiles (in the table's
// index order) through the map cell of the state's cells (len: the board's cells) to the
// table's.
func NewReader(table *Packed, tiles, cell []uint8) Reader {
	l := Reader{K: len(tiles), Table: table, n: uint32(len(cell)), nib: table.Nibbles, zero: table.Zero, bits: table.Bitmap}
	copy(l.Tiles[:], tiles)
	copy(l.Cell[:], cell)
	l.setMirror()
	l.setInverse(len(cell))
	return l
}

// ZeroAware reports whether the table is zero-aware (its index takes the blank's region).
func (l *Reader) ZeroAware() bool { return l.zero != nil }

// InBits reports whether the table is in the bit encoding (read with ReadBit).
func (l *Reader) InBits() bool { return l.bits != nil }

// setInverse fills inv and num from cell and tiles.
func (l *Reader) setInverse(n int) {
	for c := 0; c < n; c++ {
		l.inv[l.Cell[c]] = uint8(c)
	}
	for i := 0; i < l.K; i++ {
		l.num[l.Tiles[i]] = uint8(i)
	}
}

// setMirror prepares the image lookup of a table stored through a mirror.
func (l *Reader) setMirror() {
	if l.Table.Mirror == Identity {
		return
	}
	l.Mirror = true
	cell, perm := l.Table.MirrorMap()
	for j := 0; j < l.K; j++ {
		l.MTiles[perm[j]] = l.Tiles[j]
	}
	for c := range l.Cell {
		l.MCell[c] = cell[l.Cell[c]]
	}
}

// Index returns the index at which the lookup's table stores the entry of the tile
// positions pos.
func (l *Reader) Index(pos *[board.MaxCells]uint8) uint32 {
	if l.zero != nil {
		var cells [8]uint8
		var mask uint32
		for i := 0; i < l.K; i++ {
			c := l.Cell[pos[l.Tiles[i]]]
			cells[i] = c
			mask |= 1 << c
		}
		return l.zero.IndexMask(cells[:l.K], mask, int(l.Cell[pos[0]]))
	}
	if l.Mirror {
		// The first digit of an index is its first tile's cell: it decides which of the
		// placement and its image has the smaller index, unless they are equal.
		a, b := l.Cell[pos[l.Tiles[0]]], l.MCell[pos[l.MTiles[0]]]
		switch {
		case a > b:
			return rank(&l.MTiles, &l.MCell, l.K, l.n, pos)
		case a == b:
			return min(rank(&l.Tiles, &l.Cell, l.K, l.n, pos), rank(&l.MTiles, &l.MCell, l.K, l.n, pos))
		}
	}
	return rank(&l.Tiles, &l.Cell, l.K, l.n, pos)
}

// rank is the kperm index of the tiles' cells under the cell map.
func rank(tiles *[8]uint8, cell *[board.MaxCells]uint8, k int, n uint32, pos *[board.MaxCells]uint8) uint32 {
	var used, idx uint32
	for i := 0; i < k; i++ {
		c := uint32(cell[pos[tiles[i]]])
		idx = idx*(n-uint32(i)) + c - uint32(bits.OnesCount32(used&(1<<c-1)))
		used |= 1 << c
	}
	return idx
}

// Nibble reads the packed entry i.
func (l *Reader) Nibble(i uint32) uint8 { return l.nib[i>>1] >> (4 * (i & 1)) & 0xF }

// Excess returns half the excess of the lookup's entry i over its tiles' Manhattan
// distance: the nibble, or for an escape the value from the escape list.
func (l *Reader) Excess(i uint32, e uint8, pos *[board.MaxCells]uint8) uint8 {
	if e != EscapeNibble {
		return e
	}
	var cells [board.MaxCells]uint8
	for j := 0; j < l.K; j++ {
		cells[j] = l.Cell[pos[l.Tiles[j]]]
	}
	return uint8(l.Table.Excess(i, l.Table.MD(cells[:])))
}

// Value returns the lookup's whole entry (not its excess) for the positions pos.
func (l *Reader) Value(pos *[board.MaxCells]uint8) int {
	var cells [board.MaxCells]uint8
	for j := 0; j < l.K; j++ {
		cells[j] = l.Cell[pos[l.Tiles[j]]]
	}
	if l.zero != nil {
		return l.Table.Value(l.zero.IndexBlank(cells[:l.K], int(l.Cell[pos[0]])), cells[:])
	}
	return l.Table.Value(l.Table.Rank(cells[:]), cells[:]) // Value takes care of the mirror
}

// Same reports whether two lookups read the same entry for every state.
func (l *Reader) Same(o *Reader) bool {
	return l.Table == o.Table && l.K == o.K && l.Tiles == o.Tiles && l.Cell == o.Cell
}

// Place returns a zero-aware lookup's ranks of the positions pos (0 for another lookup).
func (l *Reader) Place(pos *[board.MaxCells]uint8) zindex.State {
	if l.zero == nil {
		return 0
	}
	var cells [8]uint8
	for i := 0; i < l.K; i++ {
		cells[i] = l.Cell[pos[l.Tiles[i]]]
	}
	return l.zero.Place(cells[:l.K])
}

// Step returns a child's index and ranks, the tile on cell q moved to the parent's blank
// cell blank: z is the parent's ranks, pos the child's positions, board the parent's
// board. A zero-aware lookup's index is left to IndexOf (0 here), so that a search can
// prefetch what that reads first.
func (l *Reader) Step(z zindex.State, q, blank uint8, pos, board *[board.MaxCells]uint8) (uint32, zindex.State) {
	if l.zero == nil {
		return l.Index(pos), 0
	}
	from, to := l.Cell[q], l.Cell[blank]
	// The lookup's tiles the move passes (up or down, at most width-1 cells), in
	// increasing order of the table's cells.
	var passed [8]uint8
	n := 0
	lo, hi := min(from, to), max(from, to)
	for x := z.Occupied() & (1<<hi - 1<<(lo+1)); x != 0; x &= x - 1 {
		passed[n&7] = l.num[board[l.inv[bits.TrailingZeros32(x)]]]
		n++
	}
	return 0, l.zero.Step(z, from, to, l.num[board[q]], passed[:n&7])
}

// IndexOf returns the index of a child whose blank is on cell q from the index and ranks
// Step returned.
func (l *Reader) IndexOf(i uint32, z zindex.State, q uint8) uint32 {
	if l.zero == nil {
		return i
	}
	return l.zero.IndexOf(z, l.Cell[q])
}

// ReadBit returns the half excess and the value modulo 4 of a child's entry i of a lookup
// in the bit encoding, from the parent's (ex, hm) and the change dmd of the Manhattan
// distance (the moved tile's, the same in every frame: the cell maps are isometries).
func (l *Reader) ReadBit(i uint32, ex, hm uint8, dmd int) (uint8, uint8) {
	dh := NextValue(hm, l.bits[i>>3]>>(i&7)&1)
	return uint8(int(ex) + (dh-dmd)/2), uint8(int(hm)+dh) & 3
}

// Fresh returns the half excess and the value modulo 4 of the lookup at the positions pos,
// from scratch (a table in the bit encoding descends to its goal).
func (l *Reader) Fresh(pos *[board.MaxCells]uint8) (ex, hm uint8) {
	if l.bits == nil {
		i := l.Index(pos)
		return l.Excess(i, l.Nibble(i), pos), 0
	}
	var cells [board.MaxCells]uint8
	for j := 0; j < l.K; j++ {
		cells[j] = l.Cell[pos[l.Tiles[j]]]
	}
	v := l.Value(pos)
	return uint8((v - l.Table.MD(cells[:])) / 2), uint8(v) & 3
}

// Scheme returns a zero-aware lookup's index scheme (nil for another).
func (l *Reader) Scheme() *zindex.Scheme { return l.zero }

// Bits returns a table's bits in the bit encoding (nil for another): bit i&7 of byte i>>3
// is entry i's bit 1.
func (l *Reader) Bits() []byte { return l.bits }

// Inverse returns, for stepping a zero-aware lookup's ranks, the state's cell of each of
// the table's cells, and each tile's number in the lookup.
func (l *Reader) Inverse() (inv, num [board.MaxCells]uint8) { return l.inv, l.num }
