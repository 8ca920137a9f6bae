package pdb

import (
	"math/bits"
	"sync"

	"github.com/tilekit/tilekit/board"
)

// geometry answers questions about the free cells of a placement: which connected regions
// they form, in a fixed order (zindex's). Cells are bits of a uint32 (row-major, bit 0 the
// top left). The lookups through a symmetry (Mirror, a set's layout checks) ask it.
//
// The regions of a set of free cells are numbered by their smallest cell: region 0 holds
// the smallest free cell, region 1 the smallest free cell not in region 0, and so on.
//
// Boards of at most 16 cells use a precomputed table (512 KB): the number of each cell's
// region, by free-cell mask. Larger boards flood-fill.
type geometry struct {
	n, w  int
	full  uint32
	nbr   [board.MaxCells]uint32 // cells next to each cell
	left  uint32                 // cells not in the leftmost column (may receive from the left)
	right uint32                 // cells not in the rightmost column

	// Boards of at most 16 cells: ord[free] holds the region number of every cell, three
	// bits each (cell c at bit 3c).
	ord []uint64
}

// maxRegions bounds the regions a placement's free cells may form for the tables this
// package builds: with k tiles on a board, entries are at most 2^32, which leaves room for
// at most 8 regions (on 4x4, eight tiles on one colour of the checkerboard).
const maxRegions = 8

var (
	geometriesMu sync.Mutex
	geometries   = map[board.Size]*geometry{}
)

// newGeometryCached shares the (1 MB) region tables of a board size.
func newGeometryCached(size board.Size) *geometry {
	geometriesMu.Lock()
	defer geometriesMu.Unlock()
	g := geometries[size]
	if g == nil {
		g = newGeometry(size)
		geometries[size] = g
	}
	return g
}

func newGeometry(size board.Size) *geometry {
	g := &geometry{n: size.Cells(), w: size.W, full: 1<<size.Cells() - 1}
	for c := 0; c < g.n; c++ {
		for _, d := range board.Dirs {
			if q := size.Step(c, d); q >= 0 {
				g.nbr[c] |= 1 << q
			}
		}
		if c%g.w != 0 {
			g.left |= 1 << c
		}
		if c%g.w != g.w-1 {
			g.right |= 1 << c
		}
	}
	if g.n <= 16 {
		g.tabulate()
	}
	return g
}

// flood returns the cells of free connected to seed (seed itself must be free).
func (g *geometry) flood(seed, free uint32) uint32 {
	m := seed
	for {
		next := (m | m<<1&g.left | m>>1&g.right | m<<uint(g.w) | m>>uint(g.w)) & free
		if next == m {
			return m
		}
		m = next
	}
}

// regions writes the regions of free in order and returns how many there are (at most
// maxRegions are written; the count may be larger).
func (g *geometry) regions(free uint32, out *[maxRegions]uint32) int {
	k := 0
	for rest := free; rest != 0; k++ {
		r := g.flood(rest&-rest, free)
		if k < maxRegions {
			out[k] = r
		}
		rest &^= r
	}
	return k
}

// region returns the number of the region of cell c (which must be free).
func (g *geometry) region(free uint32, c int) int {
	if g.ord != nil {
		return int(g.ord[free] >> (3 * uint(c)) & 7)
	}
	r := g.flood(1<<c, free)
	k := 0
	for rest := free & (r&-r - 1); rest != 0; k++ { // regions with a smaller first cell
		rest &^= g.flood(rest&-rest, free)
	}
	return k
}

func (g *geometry) tabulate() {
	size := 1 << g.n
	g.ord = make([]uint64, size)
	for free := 0; free < size; free++ {
		var rs [maxRegions]uint32
		k := g.regions(uint32(free), &rs)
		for i := 0; i < min(k, maxRegions); i++ {
			for m := rs[i]; m != 0; m &= m - 1 {
				g.ord[free] |= uint64(i) << (3 * bits.TrailingZeros32(m))
			}
		}
	}
}
