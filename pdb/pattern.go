// Package pdb builds and reads pattern databases (Culberson & Schaeffer 1998,
// Korf & Felner 2002, Hilchie's IDA15).
//
// A pattern is a list of tiles. A state is abstracted to the cells of those tiles and,
// optionally, the cell of the blank; the entry for an abstract state is the fewest moves of
// pattern tiles that bring the pattern tiles (and the blank) home, moves of other tiles
// being free. Since every real move moves exactly one tile, entries of disjoint patterns
// add up to an admissible heuristic.
//
// Abstract states are ranked densely (scheme kperm-v1, docs/FORMAT.md): the cells of the
// tiles in the pattern's order, then the blank's, are read as a k-permutation of the board's
// cells and ranked lexicographically. A table is built by a 0-1 breadth-first search from
// the goal with package bfs: a move of a pattern tile costs 1, a move of the blank into a
// free cell costs 0.
package pdb

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// A Pattern is a set of tiles in a fixed order, for one goal, with or without the blank
// in the index. It ranks and unranks abstract states without allocating.
type Pattern struct {
	goal  board.Goal
	tiles []int
	blank bool
	n     int                     // cells
	m     int                     // elements ranked: tiles, plus the blank
	size  uint32                  // entries: n!/(n-m)!
	recip [board.MaxCells]uint64  // recip[i] = ceil(2^64 / (n-i)): division by multiplication
	nbr   [board.MaxCells][4]int8 // neighbour cell in each direction, -1 off the board
}

// NewPattern makes the pattern of the given tiles for the goal. blank says whether the
// blank's cell is part of the index.
func NewPattern(goal board.Goal, tiles []int, blank bool) (*Pattern, error) {
	size := goal.Size()
	n := size.Cells()
	if len(tiles) == 0 {
		return nil, fmt.Errorf("pdb: a pattern needs at least one tile")
	}
	seen := map[int]bool{}
	for _, t := range tiles {
		if t < 1 || t >= n {
			return nil, fmt.Errorf("pdb: tile %d out of range 1..%d for a %s board", t, n-1, size)
		}
		if seen[t] {
			return nil, fmt.Errorf("pdb: tile %d listed twice", t)
		}
		seen[t] = true
	}
	count := tablefile.PDBEntries(n, len(tiles), blank)
	if count < 0 || count >= 1<<32-1 {
		return nil, fmt.Errorf("pdb: %d tiles%s on a %s board make too many entries for a table", len(tiles), map[bool]string{true: " and the blank"}[blank], size)
	}
	p := &Pattern{goal: goal, tiles: append([]int(nil), tiles...), blank: blank, n: n, m: len(tiles), size: uint32(count)}
	if blank {
		p.m++
	}
	for i := 0; i < p.m; i++ {
		if r := uint64(n - i); r > 1 {
			p.recip[i] = ^uint64(0)/r + 1
		}
	}
	for c := 0; c < n; c++ {
		for d, dir := range board.Dirs {
			p.nbr[c][d] = int8(size.Step(c, dir))
		}
	}
	return p, nil
}

// ParseTiles reads a tile list such as "1,2,5,6" or "1 2 5 6".
func ParseTiles(text string) ([]int, error) {
	tiles, err := board.Fields(text)
	if err != nil {
		return nil, err
	}
	if len(tiles) == 0 {
		return nil, fmt.Errorf("pdb: no tiles in %q", text)
	}
	return tiles, nil
}

// Goal returns the pattern's goal.
func (p *Pattern) Goal() board.Goal { return p.goal }

// Tiles returns the pattern tiles in index order.
func (p *Pattern) Tiles() []int { return append([]int(nil), p.tiles...) }

// BlankInIndex reports whether the blank's cell is part of the index.
func (p *Pattern) BlankInIndex() bool { return p.blank }

// Len returns the number of entries.
func (p *Pattern) Len() int { return int(p.size) }

// Elems returns how many cells an abstract state lists: the tiles, plus the blank.
func (p *Pattern) Elems() int { return p.m }

// Name describes the pattern, such as "1-2-5-6+blank".
func (p *Pattern) Name() string {
	s := make([]string, len(p.tiles))
	for i, t := range p.tiles {
		s[i] = fmt.Sprint(t)
	}
	name := strings.Join(s, "-")
	if p.blank {
		name += "+blank"
	}
	return name
}

// Rank returns the index of an abstract state: cells[i] is the cell of the i-th pattern
// tile, and cells[Elems()-1] the blank's when it is in the index.
func (p *Pattern) Rank(cells []uint8) uint32 {
	var used uint32
	var idx uint32
	for i := 0; i < p.m; i++ {
		c := uint32(cells[i])
		d := c - uint32(bits.OnesCount32(used&(1<<c-1)))
		idx = idx*uint32(p.n-i) + d
		used |= 1 << c
	}
	return idx
}

// Unrank fills cells (of length at least Elems()) with the abstract state of index idx.
func (p *Pattern) Unrank(idx uint32, cells []uint8) {
	// The mixed-radix digits, last first. Dividing by multiplying with a rounded-up
	// reciprocal is exact for 32-bit numerators and divisors up to 25, and several times
	// faster than a division.
	var digits [board.MaxCells]uint64
	x := uint64(idx)
	for i := p.m - 1; i >= 0; i-- {
		if p.recip[i] == 0 { // radix 1: the digit is 0
			continue
		}
		q, _ := bits.Mul64(x, p.recip[i])
		digits[i] = x - q*uint64(p.n-i)
		x = q
	}
	if p.n <= 16 {
		// The free cells in order, one per nibble: select the d-th and close the gap.
		free := uint64(0xFEDCBA9876543210)
		for i := 0; i < p.m; i++ {
			shift := digits[i] * 4
			cells[i] = uint8(free >> shift & 0xF)
			free = free&(1<<shift-1) | free>>(shift+4)<<shift
		}
		return
	}
	free := uint32(1)<<p.n - 1
	for i := 0; i < p.m; i++ {
		f := free
		for d := digits[i]; d > 0; d-- {
			f &= f - 1 // drop the lowest free cell
		}
		c := bits.TrailingZeros32(f)
		cells[i] = uint8(c)
		free &^= 1 << c
	}
}

// Cells fills cells with the abstraction of the board state s.
func (p *Pattern) Cells(s board.State, cells []uint8) {
	for c, t := range s {
		if t == 0 {
			if p.blank {
				cells[p.m-1] = uint8(c)
			}
			continue
		}
		for i, pt := range p.tiles {
			if int(t) == pt {
				cells[i] = uint8(c)
			}
		}
	}
}

// Index returns the index of the board state s.
func (p *Pattern) Index(s board.State) uint32 {
	var cells [board.MaxCells]uint8
	p.Cells(s, cells[:])
	return p.Rank(cells[:])
}

// goalIndex is the index of the goal's abstraction.
func (p *Pattern) goalIndex() uint32 { return p.Index(p.goal.Tiles()) }
