package data

import (
	"context"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/prune"
)

// PruningDepth returns the depth of the duplicate-pruning automaton a board's searches
// take by default (docs/RESULTS.md, "Pruning duplicate paths", says how each was chosen),
// or 0 where no automaton pays: boards the fast search does not take.
func PruningDepth(size board.Size) int {
	switch size {
	case board.Size4x4:
		return 12
	case board.Size5x5:
		return 14
	}
	return 0
}

// automata holds the automata built in this process, by board and depth.
var automata struct {
	sync.Mutex
	built map[automatonKey]*prune.Automaton
}

type automatonKey struct {
	size  board.Size
	depth int
}

// Automaton returns the board's duplicate-pruning automaton of the given depth (0: the
// board's PruningDepth): built once per process (package prune), and then shared.
func Automaton(ctx context.Context, size board.Size, depth int) (*prune.Automaton, error) {
	if depth == 0 {
		depth = PruningDepth(size)
	}
	key := automatonKey{size, depth}
	automata.Lock()
	defer automata.Unlock()
	if a := automata.built[key]; a != nil {
		return a, nil
	}
	a, err := prune.Build(ctx, size, depth)
	if err != nil {
		return nil, err
	}
	if automata.built == nil {
		automata.built = map[automatonKey]*prune.Automaton{}
	}
	automata.built[key] = a
	return a, nil
}
