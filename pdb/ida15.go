package pdb

import (
	"context"
	"fmt"
	"slices"

	"github.com/tilekit/tilekit/board"
)

// The IDA15 patterns (Hilchie): for the 4x4 board and the blank-last goal.
var (
	IDA15Small = []int{11, 12, 15} // with the blank: 43,680 entries
	IDA15Large = []int{1, 2, 5, 6} // with the blank: 524,160 entries
	// IDA15Large is reused through mirrors for these, tile for tile:
	IDA15MirrorCols = []int{4, 3, 8, 7}    // (r, c) -> (r, 3-c)
	IDA15MirrorRows = []int{13, 14, 9, 10} // (r, c) -> (3-r, c)
)

// IDA15 is the additive heuristic of the IDA15 solver for the 4x4 board and the blank-last
// goal (Hilchie's IDA15):
//
//	h = Small(11,12,15,blank) + Large(1,2,5,6,blank)
//	  + Large(4,3,8,7,blank mirrored by columns) + Large(13,14,9,10,blank mirrored by rows)
//
// The mirrors move the blank's home from cell 15 to 12 or 3; that does not matter because
// with those four tiles home the blank reaches every free cell at no cost. h is at least
// the Manhattan distance and has its parity. For blank-first states, evaluate the state
// turned 180 degrees (board.Rotate180), which is an equivalent blank-last state.
type IDA15 struct {
	Small, Large *Table
}

// NewIDA15 checks that the two tables are the IDA15 patterns for the blank-last 4x4 goal.
func NewIDA15(small, large *Table) (*IDA15, error) {
	want := board.BlankLast(board.Size4x4)
	for _, c := range []struct {
		t     *Table
		tiles []int
	}{{small, IDA15Small}, {large, IDA15Large}} {
		if !c.t.goal.Equal(want) || !c.t.blank || fmt.Sprint(c.t.tiles) != fmt.Sprint(c.tiles) {
			return nil, fmt.Errorf("pdb: IDA15 needs tiles %v + blank for the blank-last 4x4 goal, got %s for goal %s",
				c.tiles, c.t.Name(), c.t.goal.Name())
		}
	}
	return &IDA15{Small: small, Large: large}, nil
}

// BuildIDA15 builds both IDA15 tables.
func BuildIDA15(ctx context.Context, opt Options) (*IDA15, error) {
	goal := board.BlankLast(board.Size4x4)
	var tables [2]*Table
	for i, tiles := range [][]int{IDA15Small, IDA15Large} {
		p, err := NewPattern(goal, tiles, true)
		if err != nil {
			return nil, err
		}
		if tables[i], err = Build(ctx, p, opt); err != nil {
			return nil, err
		}
	}
	return NewIDA15(tables[0], tables[1])
}

// MirrorCols and MirrorRows map 4x4 cells to their mirror images.
func MirrorCols(c int) int { return c/4*4 + 3 - c%4 }

// MirrorRows maps (r, c) to (3-r, c).
func MirrorRows(c int) int { return (3-c/4)*4 + c%4 }

// ida15Lookups are IDA15's four lookups (Parts), each its tiles (the blank follows them
// in the index) and its map of cells.
var ida15Lookups = [4]struct {
	tiles []int
	cell  func(int) int
}{
	{IDA15Small, func(c int) int { return c }},
	{IDA15Large, func(c int) int { return c }},
	{IDA15MirrorCols, MirrorCols},
	{IDA15MirrorRows, MirrorRows},
}

// IDA15Lookup returns the lookup (Parts' order) that holds tile t, 1 to 15.
func IDA15Lookup(t int) int {
	for k, l := range ida15Lookups {
		if slices.Contains(l.tiles, t) {
			return k
		}
	}
	return -1
}

// Lookup returns the entry of lookup k (Parts' order) for the cells of the tiles: cell[t]
// is tile t's, cell[0] the blank's.
func (h *IDA15) Lookup(k int, cell []uint8) uint8 {
	l := &ida15Lookups[k&3]
	var cells [5]uint8
	for i, t := range l.tiles {
		cells[i] = uint8(l.cell(int(cell[t])))
	}
	n := len(l.tiles)
	cells[n] = uint8(l.cell(int(cell[0])))
	tab := h.Large
	if k == 0 {
		tab = h.Small
	}
	return tab.Entries[tab.Rank(cells[:n+1])]
}

// Parts returns the four lookups for a blank-last 4x4 state: Small, Large, Large mirrored
// by columns, Large mirrored by rows.
func (h *IDA15) Parts(s board.State) [4]int {
	var cell [16]uint8
	for c, t := range s {
		cell[t] = uint8(c)
	}
	var out [4]int
	for k := range out {
		out[k] = int(h.Lookup(k, cell[:]))
	}
	return out
}

// Eval returns the IDA15 heuristic of a blank-last 4x4 state.
func (h *IDA15) Eval(s board.State) int {
	p := h.Parts(s)
	return p[0] + p[1] + p[2] + p[3]
}
