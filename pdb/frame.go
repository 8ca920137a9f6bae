package pdb

import "github.com/tilekit/tilekit/board"

// A Frame carries states of one goal onto another goal of the same square board, the
// goal that some tables were built for: a symmetry of the board takes the goal's blank
// home onto the other's, and the tiles are relabelled so that the goal reads as the other.
// Distances are unchanged, so the tables of the other goal serve this one. Corner goals
// (blank-last, blank-first and their images) all have a frame onto each other.
type Frame struct {
	Sym   Symmetry              // the symmetry applied to the cells
	Cell  [board.MaxCells]uint8 // cell p of the goal's board is cell Cell[p] in the frame
	Label [board.MaxCells]uint8 // tile t of the goal is tile Label[t] of the frame's goal
	size  board.Size
}

// frameSymmetries are the symmetries tried, in order, for a frame: those that take a
// corner to a corner.
var frameSymmetries = []Symmetry{Identity, Rot90, Rot180, Rot270, Transpose}

// NewFrame returns the frame that carries goal onto canon, and false when none of the
// square board's symmetries takes goal's blank home onto canon's (or the boards differ or
// are not square).
func NewFrame(goal, canon board.Goal) (Frame, bool) {
	size := goal.Size()
	if size != canon.Size() || size.W != size.H {
		return Frame{}, false
	}
	for _, sym := range frameSymmetries {
		if sym.Apply(size.W, goal.Home(0)) != canon.Home(0) {
			continue
		}
		f := Frame{Sym: sym, size: size}
		for p := 0; p < size.Cells(); p++ {
			f.Cell[p] = uint8(sym.Apply(size.W, p))
		}
		tiles := canon.Tiles()
		for t := 0; t < size.Cells(); t++ {
			f.Label[t] = tiles[f.Cell[goal.Home(t)]]
		}
		return f, true
	}
	return Frame{}, false
}

// MapTo writes into dst (as long as s) the state of the frame's goal that corresponds to
// s, and returns it: a caller's buffer, so that a heuristic evaluated per node allocates
// nothing.
func (f *Frame) MapTo(dst, s board.State) board.State {
	for p, t := range s {
		dst[f.Cell[p]] = f.Label[t]
	}
	return dst
}
