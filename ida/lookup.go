package ida

import (
	"math/bits"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/zindex"
)

// A lookup reads one pattern database of a set (Korf & Felner 2002) for a state: the
// cells of its tiles, mapped into the table's frame, ranked into an index (kperm, or a
// zero-aware table's zperm, package zindex), and the half excess of the entry there over
// the tiles' Manhattan distance. catalogue.go sums the lookups into partitions.

// lookupTab is one lookup: the tiles of the state it reads, in the table's index order,
// the map from the state's cells to the table's, and the table.
type lookupTab struct {
	tiles [8]uint8
	k     int
	n     uint32
	cell  [maxCells]uint8
	table *pdb.Packed
	nib   []byte
	zero  *zindex.Scheme // a zero-aware table: the index takes the blank's region
	bits  []byte         // a zero-aware table in the bit encoding (catalogue.go reads it)

	// A table stored through a mirror (pdb.Packed.Mirror) holds a placement's entry at the
	// smaller of its index and its image's: mtiles and mcell read the image.
	mirror bool
	mtiles [8]uint8
	mcell  [maxCells]uint8

	// For stepping a zero-aware lookup's ranks (step): the state's cell of each of the
	// table's cells, and each tile's number in the lookup.
	inv [maxCells]uint8
	num [maxCells]uint8
}

// setInverse fills inv and num from cell and tiles.
func (l *lookupTab) setInverse(n int) {
	for c := 0; c < n; c++ {
		l.inv[l.cell[c]] = uint8(c)
	}
	for i := 0; i < l.k; i++ {
		l.num[l.tiles[i]] = uint8(i)
	}
}

// setMirror prepares the image lookup of a table stored through a mirror.
func (l *lookupTab) setMirror() {
	if l.table.Mirror == pdb.Identity {
		return
	}
	l.mirror = true
	cell, perm := l.table.MirrorMap()
	for j := 0; j < l.k; j++ {
		l.mtiles[perm[j]] = l.tiles[j]
	}
	for c := range l.cell {
		l.mcell[c] = cell[l.cell[c]]
	}
}

// index returns the index at which the lookup's table stores the entry of the tile
// positions pos.
func (l *lookupTab) index(pos *[maxCells]uint8) uint32 {
	if l.zero != nil {
		var cells [8]uint8
		var mask uint32
		for i := 0; i < l.k; i++ {
			c := l.cell[pos[l.tiles[i]]]
			cells[i] = c
			mask |= 1 << c
		}
		return l.zero.IndexMask(cells[:l.k], mask, int(l.cell[pos[0]]))
	}
	if l.mirror {
		// The first digit of an index is its first tile's cell: it decides which of the
		// placement and its image has the smaller index, unless they are equal.
		a, b := l.cell[pos[l.tiles[0]]], l.mcell[pos[l.mtiles[0]]]
		switch {
		case a > b:
			return rank(&l.mtiles, &l.mcell, l.k, l.n, pos)
		case a == b:
			return min(rank(&l.tiles, &l.cell, l.k, l.n, pos), rank(&l.mtiles, &l.mcell, l.k, l.n, pos))
		}
	}
	return rank(&l.tiles, &l.cell, l.k, l.n, pos)
}

// rank is the kperm index of the tiles' cells under the cell map.
func rank(tiles *[8]uint8, cell *[maxCells]uint8, k int, n uint32, pos *[maxCells]uint8) uint32 {
	var used, idx uint32
	for i := 0; i < k; i++ {
		c := uint32(cell[pos[tiles[i]]])
		idx = idx*(n-uint32(i)) + c - uint32(bits.OnesCount32(used&(1<<c-1)))
		used |= 1 << c
	}
	return idx
}

// nibble reads the packed entry i.
func (l *lookupTab) nibble(i uint32) uint8 { return l.nib[i>>1] >> (4 * (i & 1)) & 0xF }

// excess returns half the excess of the lookup's entry i over its tiles' Manhattan
// distance: the nibble, or for an escape the value from the escape list.
func (l *lookupTab) excess(i uint32, e uint8, pos *[maxCells]uint8) uint8 {
	if e != pdb.EscapeNibble {
		return e
	}
	var cells [maxCells]uint8
	for j := 0; j < l.k; j++ {
		cells[j] = l.cell[pos[l.tiles[j]]]
	}
	return uint8(l.table.Excess(i, l.table.MD(cells[:])))
}

// value returns the lookup's whole entry (not its excess) for the positions pos.
func (l *lookupTab) value(pos *[maxCells]uint8) int {
	var cells [maxCells]uint8
	for j := 0; j < l.k; j++ {
		cells[j] = l.cell[pos[l.tiles[j]]]
	}
	if l.zero != nil {
		return l.table.Value(l.zero.IndexBlank(cells[:l.k], int(l.cell[pos[0]])), cells[:])
	}
	return l.table.Value(l.table.Rank(cells[:]), cells[:]) // Value takes care of the mirror
}
