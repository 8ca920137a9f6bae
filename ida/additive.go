package ida

import (
	"fmt"
	"math/bits"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/zindex"
)

// This file is the search with an additive set of pattern databases (Korf & Felner 2002):
// h is the Manhattan distance of the state plus twice the sum of the packed tables' half
// excesses over it, taken for the state and, with the options, for its reflection about
// the main diagonal, its dual and the reflected dual (Zahavi, Felner et al. 2007); h is the
// largest of them.
//
// A move changes one tile, so one lookup of the regular sum and one of the reflected sum
// change; their indices are computed for every child first and the tables read together,
// so that the memory accesses of a node's children overlap. Dual values change with two
// tiles and are inconsistent: they are computed only for a child that the others did not
// prune, and propagated with BPMX (Felner et al. 2005): a child's value less one bounds its
// parent's, which can prune the parent's other children.

// maxLookups bounds the lookups of a set (6-6-6-6 has four; smaller tables, more).
const maxLookups = 8

// setTables is a set prepared for search in the canonical frame.
type setTables struct {
	name    string
	lookups Lookups
	nl      int                   // lookups per sum
	reg     [maxLookups]lookupTab // on the state
	ref     [maxLookups]lookupTab // on the state reflected about the main diagonal
	regOf   [maxCells]uint8       // the regular lookup of each tile
	refOf   [maxCells]uint8       // the reflected lookup of each tile
	goal    [maxCells]uint8       // the canonical goal: the tile on each cell
	wd      bool                  // also the maximum with walking distance (4x4)
}

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

// newSetTables prepares set for the canonical frame of its board.
func newSetTables(set *pdb.Set, lookups Lookups) (*setTables, error) {
	spec := set.SetSpec
	size := spec.Size()
	if len(spec.Lookups) > maxLookups {
		return nil, fmt.Errorf("ida: set %s has %d lookups, at most %d are supported", spec.Name, len(spec.Lookups), maxLookups)
	}
	if !spec.Goal.Equal(canonicalGoal(size)) {
		return nil, fmt.Errorf("ida: set %s is for goal %s, not the board's canonical one", spec.Name, spec.Goal.Name())
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	s := &setTables{name: spec.Name, lookups: lookups, nl: len(spec.Lookups)}
	w := size.W
	n := size.Cells()
	goal := spec.Goal.Tiles()
	copy(s.goal[:], goal)
	// sigma maps a tile to the tile whose home is its home reflected (a canonical goal is
	// symmetric about the main diagonal).
	var sigma [maxCells]uint8
	for t := 0; t < n; t++ {
		sigma[t] = goal[pdb.Transpose.Apply(w, spec.Goal.Home(t))]
	}
	for k, l := range spec.Lookups {
		tab := set.Tables[l.Table]
		reg, ref := &s.reg[k], &s.ref[k]
		reg.k, ref.k = len(l.Tiles), len(l.Tiles)
		reg.n, ref.n = uint32(n), uint32(n)
		reg.table, ref.table = tab, tab
		reg.nib, ref.nib = tab.Nibbles, tab.Nibbles
		reg.zero, ref.zero = tab.Zero, tab.Zero
		for i, t := range l.Tiles {
			// The reflected state holds tile sigma(t) on the reflection of t's cell: its
			// lookup reads the tiles sigma^-1(l.Tiles) = sigma(l.Tiles) of the state.
			reg.tiles[i], ref.tiles[i] = uint8(t), sigma[t]
			s.regOf[t], s.refOf[sigma[t]] = uint8(k), uint8(k)
		}
		for c := 0; c < n; c++ {
			reg.cell[c] = uint8(l.Map.Apply(w, c))
			ref.cell[c] = uint8(l.Map.Apply(w, pdb.Transpose.Apply(w, c)))
		}
		reg.setMirror()
		ref.setMirror()
		reg.setInverse(n)
		ref.setInverse(n)
	}
	return s, nil
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

// setState is a search's view of its node under the set: the half excess of each lookup
// and their sums, and a zero-aware lookup's placement ranks (catState says why).
type setState struct {
	reg, ref       [maxLookups]uint8
	sumReg, sumRef int
	zReg, zRef     [maxLookups]zindex.State
}

// initSet computes the lookups of the current node from scratch.
func (st *search) initSet() {
	s := st.t.set
	st.set = setState{}
	for k := 0; k < s.nl; k++ {
		i := s.reg[k].index(&st.pos)
		st.set.reg[k] = s.reg[k].excess(i, s.reg[k].nibble(i), &st.pos)
		st.set.sumReg += int(st.set.reg[k])
		st.set.zReg[k] = s.reg[k].place(&st.pos)
		if s.lookups.reflect() {
			i = s.ref[k].index(&st.pos)
			st.set.ref[k] = s.ref[k].excess(i, s.ref[k].nibble(i), &st.pos)
			st.set.sumRef += int(st.set.ref[k])
			st.set.zRef[k] = s.ref[k].place(&st.pos)
		}
	}
}

// setH returns the set's heuristic at the current node: the regular and reflected sums,
// and the dual ones when the options ask for them.
func (st *search) setH() int {
	h := st.md + 2*max(st.set.sumReg, st.set.sumRef)
	if st.t.set.wd {
		h = max(h, st.wd())
	}
	if st.t.set.lookups.dual() {
		h = max(h, st.dualH())
	}
	return h
}

// valueBelow returns the heuristic value of the current node as the search meets it as a
// child (not the root): the loop of the sets takes the dual lookups only where the blank
// is within dualReach of its home, setH everywhere.
func (st *search) valueBelow() int {
	if st.t.set == nil || !st.t.set.lookups.dual() {
		return st.h()
	}
	h := st.md + 2*max(st.set.sumReg, st.set.sumRef)
	if st.t.set.wd {
		h = max(h, st.wd())
	}
	if h > 0 && int(st.t.md[0][st.pos[0]]) <= dualReach {
		h = max(h, st.dualH())
	}
	return h
}

// dualH returns a lower bound from the dual state (Zahavi, Felner et al. 2007): in the
// canonical frame, where a tile's label is its goal cell, the dual swaps the roles of tiles
// and cells: tile t stands on the home of the tile that stands on t's home. A solution of a
// state whose blank is home, its moves taken in reverse order as swaps of cells, solves the
// dual, so the two are equally far from the goal; with the blank elsewhere that fails
// (the dual may even be unsolvable). So the blank is first taken home along a fixed path
// (rows, then columns) and the dual is that of the state reached, S': the state is at
// least d(S') - |path| from the goal, and d(S') = d(dual(S')) is at least the set's value
// on dual(S'), for the regular and the reflected lookups.
func (st *search) dualH() int {
	s := st.t.set
	t := st.t
	var b [maxCells]uint8
	copy(b[:t.n], st.board[:t.n])
	blank := int(st.pos[0])
	b[blank] = 0
	home := int(t.homes[0])
	hr, hc := home/t.w, home%t.w
	moves := 0
	for blank != home {
		next := blank
		switch r, c := blank/t.w, blank%t.w; {
		case r < hr:
			next += t.w
		case r > hr:
			next -= t.w
		case c < hc:
			next++
		default:
			next--
		}
		b[blank], b[next] = b[next], 0
		blank = next
		moves++
	}
	var dpos [maxCells]uint8
	dpos[0] = t.homes[0] // the dual's blank is home, as the state's was made to be
	for c := 0; c < t.n; c++ {
		if tile := s.goal[c]; tile != 0 { // tile's home is c
			dpos[tile] = t.homes[b[c]]
		}
	}
	reg, ref := 0, 0
	for k := 0; k < s.nl; k++ {
		reg += s.reg[k].value(&dpos)
		if s.lookups.reflect() {
			ref += s.ref[k].value(&dpos)
		}
	}
	return max(reg, ref) - moves
}

// dualReach is how far the blank may be from home for dualH to be tried: the farther,
// the weaker the dual value (it pays the blank's way home) and the less it prunes for its
// cost.
var dualReach = 6
