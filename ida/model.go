package ida

import (
	"errors"
	"fmt"

	"github.com/tilekit/tilekit/board"
)

// A Model is what an implementation of the node protocol outside this package (the GPU
// kernel of package gpu) needs of a solver to search its subtrees as it does: the board's
// moves in the search's order, the heuristic's tables and the pruning automaton, all in
// the solver's frame (docs/SEARCH.md). Batch.Roots gives a split pass's subtrees in the same
// frame.
type Model struct {
	Heuristic Heuristic // what the model computes: MD
	Size      board.Size
	// NMoves[c] is the number of moves of the blank from cell c; MoveCell[c][i] and
	// MoveDir[c][i] the cell it goes to and its direction (the frame's: U, D, L, R = 0..3)
	// for the i-th, in the search's order.
	NMoves   [maxCells]uint8
	MoveCell [maxCells][4]uint8
	MoveDir  [maxCells][4]uint8
	// MD[t][c] is the Manhattan distance of tile t (the frame's label) on cell c.
	MD [maxCells][maxCells]uint8
	// Pruning is the automaton's transitions: Pruning[s*4+d] is the state after the blank
	// moves d from state s, or prune.Pruned. The slice is the solver's: do not modify it.
	Pruning []uint32
}

// ErrNoModel is matched by the error of Model for a solver whose heuristic has no model
// yet: another implementation cannot search it.
var ErrNoModel = errors.New("ida: no model of this heuristic for another implementation")

// Model returns the solver's model, for the Manhattan distance; other heuristics give an
// error matching ErrNoModel.
func (s *Solver) Model() (*Model, error) {
	if s.t.set != nil || s.t.cat != nil || s.opt.Heuristic != MD {
		return nil, fmt.Errorf("%w: %s", ErrNoModel, s.describe())
	}
	t := s.t
	m := &Model{Heuristic: MD, Size: t.size, NMoves: t.nmoves, MD: t.md, Pruning: t.fsm}
	for c := 0; c < t.n; c++ {
		for i := 0; i < int(t.nmoves[c]); i++ {
			m.MoveCell[c][i], m.MoveDir[c][i] = t.moves[c][i].cell, t.moves[c][i].dir
		}
	}
	return m, nil
}

// describe names the solver's heuristic for people.
func (s *Solver) describe() string {
	switch {
	case s.opt.Set != nil && s.opt.Set.Partitions != nil:
		return "the catalogue " + s.opt.Set.Name
	case s.opt.Set != nil:
		return "the set " + s.opt.Set.Name
	}
	return fmt.Sprint(s.opt.Heuristic)
}

// Root is a subtree's root in the solver's frame (the Model's).
type Root struct {
	Board [maxCells]uint8 // the tile on each cell, 0 on the blank's
	Blank uint8           // the blank's cell
	G, H  uint8           // its depth, and its value as its parent computed it
	State uint32          // the pruning automaton's
}

// Roots returns the batch's subtrees in the solver's frame, in serial order; nil for a
// batch the driver did not make.
func (b *Batch) Roots() []Root {
	if b.items == nil {
		return nil
	}
	out := make([]Root, len(b.items.nodes))
	for i := range b.items.nodes {
		it := &b.items.nodes[i]
		out[i] = Root{Board: it.board, Blank: it.blank, G: it.g, H: it.h, State: it.state}
	}
	return out
}
