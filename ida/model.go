package ida

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/zindex"
)

// The limits of a set's model (SetModel).
const (
	maxModelLookups = 64 // distinct lookups
	maxModelParts   = 32 // partitions, with their reflections
	maxModelTouch   = 16 // distinct lookups that hold one tile
)

// SetModel is an additive set of tables, or a catalogue, as the search reads it: h = md + 2
// * the largest of its partitions' sums of half excesses (docs/SEARCH.md, section 4).
//
// Eager marks a set of tables in nibbles that are not zero-aware: its values are
// inconsistent, so a search of it propagates them with BPMX (section 5), looking every
// child up in full. Otherwise every table is zero-aware (in nibbles, or in the bit
// encoding), and a child is first looked up in its parent's best partition alone, in full
// only if that keeps it within the bound; a zero-aware lookup's index is stepped per move
// from its ranks (Reader.Scheme, zindex.Layout), a table in the bit encoding read from the
// parent's value (Reader.Bits), and a subtree's root starts from its Model.Seeds.
type SetModel struct {
	Lookups []pdb.Reader // each lookup: its tiles, map of cells, table and mirror
	Parts   int
	Eager   bool
	// Of[t][p] is the lookup of partition p that holds tile t; Touch[t][:NTouch[t]] the
	// distinct lookups that hold it.
	Of     [maxCells][maxModelParts]uint8
	Touch  [maxCells][maxModelTouch]uint8
	NTouch [maxCells]uint8
}

// A Model is what an implementation of the node protocol outside this package (the GPU
// kernel of package gpu) needs of a solver to search its subtrees as it does: the board's
// moves in the search's order, the heuristic's tables and the pruning automaton, all in
// the solver's frame (docs/SEARCH.md). Roots gives a split pass's subtrees in the same
// frame.
type Model struct {
	Heuristic Heuristic // MD, or a set when Set is given
	Set       *SetModel
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

// errNoModel is in the error of Model for a solver whose heuristic has no model yet:
// another implementation cannot search it.
var errNoModel = errors.New("ida: no model of this heuristic for another implementation")

// Model returns the solver's model: for the Manhattan distance; for a set of tables in
// nibbles that are not zero-aware; and for a set or a catalogue of zero-aware tables, in
// nibbles or in the bit encoding; with the move order's lookups (regular, reflected), not
// dual, not maxed with walking distance. Other heuristics give an error that says so.
func (s *Solver) Model() (*Model, error) {
	t := s.t
	var set *SetModel
	switch {
	case t.cat != nil:
		var err error
		if set, err = t.cat.model(); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errNoModel, s.describe(), err)
		}
	case s.opt.Heuristic != MD:
		return nil, fmt.Errorf("%w: %s", errNoModel, s.describe())
	}
	m := &Model{Heuristic: MD, Set: set, Size: t.size, NMoves: t.nmoves, MD: t.md, Pruning: t.fsm}
	if set != nil {
		m.Heuristic = hSet
	}
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
// batch whose subtrees this package's walks did not meet.
func Roots(b *passes.Batch) []Root {
	f := ownFrontier(b)
	if f == nil {
		return nil
	}
	out := make([]Root, f.Len())
	for i := range out {
		p := f.Payload(i)
		out[i] = Root{Blank: p[payBlank], G: uint8(f.G(i)), H: uint8(f.H(i)), State: binary.LittleEndian.Uint32(p[payState:])}
		copy(out[i].Board[:], p)
	}
	return out
}

// model returns the set's model, or says why it has none.
func (s *catTables) model() (*SetModel, error) {
	switch {
	case s.dual:
		return nil, fmt.Errorf("dual lookups")
	case s.wd:
		return nil, fmt.Errorf("maxed with walking distance")
	case s.nl > maxModelLookups || s.np > maxModelParts:
		return nil, fmt.Errorf("%d lookups in %d partitions (at most %d in %d)", s.nl, s.np, maxModelLookups, maxModelParts)
	case !s.eager && !s.zero:
		return nil, fmt.Errorf("a catalogue of tables that are not zero-aware")
	}
	m := &SetModel{Parts: s.np, Eager: s.eager}
	for k := 0; k < s.nl; k++ {
		l := &s.look[k]
		switch {
		case s.eager && (l.InBits() || l.ZeroAware()):
			return nil, fmt.Errorf("tables in the bit encoding")
		case !s.eager && !l.ZeroAware():
			return nil, fmt.Errorf("a catalogue of zero-aware tables and others")
		}
		m.Lookups = append(m.Lookups, *l)
	}
	for t := range maxCells {
		if int(s.ntouch[t]) > maxModelTouch {
			return nil, fmt.Errorf("tile %d in %d lookups (at most %d)", t, s.ntouch[t], maxModelTouch)
		}
		m.NTouch[t] = s.ntouch[t]
		copy(m.Touch[t][:], s.touch[t][:s.ntouch[t]])
		copy(m.Of[t][:], s.of[t][:s.np])
	}
	return m, nil
}

// Seed is a subtree root's lookups under a catalogue that is not eager (SetModel): each
// lookup's half excess, value modulo 4 (a table in the bit encoding) and ranks (a
// zero-aware table: zindex.State.Word), and each partition's sum.
type Seed struct {
	Ex, Hm []uint8
	Z      []zindex.State
	Sum    []int16
}

// Seeds returns the lookups of the batch's subtrees' roots under the catalogue of m, in
// serial order; nil when m has none, or for a batch whose subtrees this package's walks
// did not meet under it.
func (m *Model) Seeds(b *passes.Batch) []Seed {
	f := ownFrontier(b)
	if f == nil || m.Set == nil {
		return nil
	}
	nl, np := len(m.Set.Lookups), m.Set.Parts
	n := f.Len()
	if n > 0 && len(f.Payload(0)) != payCat+nl*10+np*2 {
		return nil
	}
	ex, hm, z, sum := make([]uint8, n*nl), make([]uint8, n*nl), make([]zindex.State, n*nl), make([]int16, n*np)
	out := make([]Seed, n)
	for i := range out {
		l, s := i*nl, i*np
		out[i] = Seed{Ex: ex[l : l+nl : l+nl], Hm: hm[l : l+nl : l+nl], Z: z[l : l+nl : l+nl], Sum: sum[s : s+np : s+np]}
		decodeLookups(f.Payload(i), out[i].Ex, out[i].Hm, out[i].Z, out[i].Sum)
	}
	return out
}
