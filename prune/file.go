package prune

import (
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// File returns the automaton as a table file of kind prune (docs/FORMAT.md): its
// transitions, four a state, the start states of the cells first.
func (a *Automaton) File() (*tablefile.Table, error) {
	for c, s := range a.start {
		if int(s) != c {
			return nil, fmt.Errorf("%w: the start state of cell %d is %d, not %d", ErrAutomaton, c, s, c)
		}
	}
	return tablefile.NewPrune(a.size, a.depth, a.next)
}

// FromFile reads an automaton from a table file of kind prune. It checks what a search
// relies on: every state is reached from the start states (0 to cells-1), each on one
// cell, and every transition is Pruned or goes to a state on the cell the move reaches.
// Whether the automaton prunes only duplicates is another matter: Verify proves that.
func FromFile(t *tablefile.Table) (*Automaton, error) {
	if t.Kind != tablefile.KindPrune {
		return nil, fmt.Errorf("%w: a %s table, not a prune table", ErrAutomaton, t.Kind)
	}
	size := t.Size
	n := size.Cells()
	states := len(t.Words) / 4
	if len(t.Words)%4 != 0 || states < n {
		return nil, fmt.Errorf("%w: %d transitions", ErrAutomaton, len(t.Words))
	}
	a := &Automaton{size: size, depth: t.Depth, next: t.Words, cell: make([]uint8, states), start: make([]uint32, n)}
	known := make([]bool, states)
	queue := make([]uint32, 0, states)
	for c := range n {
		a.start[c], a.cell[c], known[c] = uint32(c), uint8(c), true
		queue = append(queue, uint32(c))
	}
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		for d := board.Up; d <= board.Right; d++ {
			u := a.next[int(s)*4+int(d)]
			if u == Pruned {
				continue
			}
			q := size.Step(int(a.cell[s]), d)
			switch {
			case q < 0:
				return nil, fmt.Errorf("%w: state %d moves %s off the board", ErrAutomaton, s, d)
			case int(u) >= states:
				return nil, fmt.Errorf("%w: state %d moves %s to state %d of %d", ErrAutomaton, s, d, u, states)
			case !known[u]:
				known[u], a.cell[u] = true, uint8(q)
				queue = append(queue, u)
			case int(a.cell[u]) != q:
				return nil, fmt.Errorf("%w: state %d is reached on cells %d and %d", ErrAutomaton, u, a.cell[u], q)
			}
		}
	}
	if len(queue) != states {
		return nil, fmt.Errorf("%w: %d of its %d states are never reached", ErrAutomaton, states-len(queue), states)
	}
	return a, a.check()
}
