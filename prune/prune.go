// Package prune removes duplicate paths from a depth-first search of a sliding-tile board
// with a finite-state automaton (Taylor & Korf, "Pruning duplicate nodes in depth-first
// search", AAAI 1993; Korf & Taylor used one for the first optimal 24-puzzle solutions,
// AAAI 1996).
//
// A string of blank moves taken from a cell permutes the board's cells the same way
// whatever the tiles are. Two strings from the same cell with the same effect lead any
// position to the same position, and a search needs only one of them. Of all the strings
// with one effect, the automaton keeps the first in shortlex order (shorter first, then by
// direction: U < D < L < R) and prunes the others, and every string that contains one of
// them.
//
// Building one (Build):
//
//  1. From each cell of the board, a breadth-first search over strings of blank moves, in
//     shortlex order and up to a depth, records the effect of each string it keeps. A
//     string whose effect an earlier string had is a duplicate: it is recorded, with the
//     cell it starts from, and not extended. The move straight back (UD from a cell where
//     both exist) is the shortest duplicate, of the empty string.
//  2. A duplicate that ends with a shorter duplicate is dropped (whatever contains it
//     contains the shorter one: most of them are of this kind). The others are compiled
//     into an Aho-Corasick automaton over (cell, direction) symbols: its states are the prefixes of duplicates, each at a known cell, and a
//     transition that completes a duplicate (or a duplicate within it) is Pruned.
//  3. The automaton is minimised (Moore's partition refinement), keeping states of
//     different cells apart.
//
// A search carries one state per node: the start state of the blank's cell at the root,
// and Next(state, dir) for each child, which it does not generate when that is Pruned.
//
// Why nothing optimal is lost: the shortlex-first string to any position contains no
// duplicate (replacing the duplicate by its earlier twin would give an earlier string to
// the same position), so the automaton never prunes it, and it is a shortest path. IDA*
// with an admissible heuristic therefore still meets an optimal solution. The tests prove
// it exhaustively on small boards (every position, from every cell of the blank) and check
// every duplicate against its twin.
//
// The automaton of depth 0 is the move-back rule (Parent): its state is the blank's cell
// and the last direction, and it prunes only the move that undoes the last one.
package prune

import (
	"errors"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// Pruned is the transition of a move whose string the automaton prunes.
const Pruned = tablefile.NoTransition

// ErrAutomaton reports an automaton that is malformed: a transition out of range, a state
// on no cell, or a start state that is not on its cell.
var ErrAutomaton = errors.New("prune: malformed automaton")

// An Automaton prunes duplicate strings of blank moves on one board. It is immutable and
// safe for concurrent use.
type Automaton struct {
	size  board.Size
	depth int
	// next[s*4+d] is the state after move d (board.Dir) from state s, or Pruned; a move
	// off the board is Pruned too.
	next  []uint32
	cell  []uint8  // the blank's cell in each state
	start []uint32 // start state of each cell
}

// Size returns the board the automaton is for.
func (a *Automaton) Size() board.Size { return a.size }

// Depth returns the length of the longest duplicate string the automaton was built to
// find: 0 for the move-back rule, which finds only the two-move ones.
func (a *Automaton) Depth() int { return a.depth }

// States returns the number of states.
func (a *Automaton) States() int { return len(a.cell) }

// Start returns the state of a search whose blank is on cell at its root.
func (a *Automaton) Start(cell int) uint32 { return a.start[cell] }

// Next returns the state after the blank moves d from state s, or Pruned.
func (a *Automaton) Next(s uint32, d board.Dir) uint32 { return a.next[s*4+uint32(d&3)] }

// Transitions returns the transitions, next[s*4+d], for hot loops that index them directly. The
// slice is the automaton's own: do not modify it.
func (a *Automaton) Transitions() []uint32 { return a.next }

// Cell returns the blank's cell in state s.
func (a *Automaton) Cell(s uint32) int { return int(a.cell[s]) }

// Name says what the automaton prunes, for people: "move back" or "automaton depth 14,
// 1,234 states".
func (a *Automaton) Name() string {
	if a.depth == 0 {
		return "move back"
	}
	return fmt.Sprintf("automaton depth %d, %d states", a.depth, a.States())
}

// Allows reports whether the automaton lets a search take path (blank directions) from
// the blank's cell, and the state at its end.
func (a *Automaton) Allows(cell int, path []board.Dir) (uint32, bool) {
	s := a.start[cell]
	for _, d := range path {
		if d > board.Right {
			return 0, false
		}
		if s = a.Next(s, d); s == Pruned {
			return 0, false
		}
	}
	return s, true
}

// Parent returns the move-back rule as an automaton: its state is the blank's cell and the
// last direction (or none, at the root), and it prunes the move that undoes the last one.
func Parent(size board.Size) *Automaton {
	n := size.Cells()
	a := &Automaton{size: size, next: make([]uint32, n*5*4), cell: make([]uint8, n*5), start: make([]uint32, n)}
	for c := 0; c < n; c++ {
		a.start[c] = uint32(c*5 + 4)
		for last := 0; last < 5; last++ {
			s := c*5 + last
			a.cell[s] = uint8(c)
			for d := board.Up; d <= board.Right; d++ {
				q := size.Step(c, d)
				if q < 0 || last < 4 && d == board.Dir(last).Opposite() {
					a.next[s*4+int(d)] = Pruned
					continue
				}
				a.next[s*4+int(d)] = uint32(q*5 + int(d))
			}
		}
	}
	return a
}

// check reports whether the automaton is well formed: every transition in range and to a
// state on the cell the move reaches, every start state on its cell.
func (a *Automaton) check() error {
	n := a.size.Cells()
	if len(a.start) != n || len(a.next) != 4*len(a.cell) {
		return fmt.Errorf("%w: %d start states and %d transitions for %d states on %s", ErrAutomaton, len(a.start), len(a.next), len(a.cell), a.size)
	}
	for c, s := range a.start {
		if int(s) >= len(a.cell) || int(a.cell[s]) != c {
			return fmt.Errorf("%w: the start state of cell %d is not on it", ErrAutomaton, c)
		}
	}
	for s, c := range a.cell {
		if int(c) >= n {
			return fmt.Errorf("%w: state %d on cell %d of %s", ErrAutomaton, s, c, a.size)
		}
		for d := board.Up; d <= board.Right; d++ {
			t := a.next[s*4+int(d)]
			q := a.size.Step(int(c), d)
			switch {
			case t == Pruned:
			case q < 0:
				return fmt.Errorf("%w: state %d moves %s off the board", ErrAutomaton, s, d)
			case int(t) >= len(a.cell) || int(a.cell[t]) != q:
				return fmt.Errorf("%w: state %d moves %s to state %d, not on cell %d", ErrAutomaton, s, d, t, q)
			}
		}
	}
	return nil
}
