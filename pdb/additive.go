package pdb

import (
	"context"
	"fmt"
	"runtime/debug"
)

// This file builds the no-blank ("additive") pattern databases of Korf & Felner (2002).
//
// An entry is, for one placement of the pattern tiles, the fewest moves of pattern tiles
// that bring them home, where the blank must travel to make each move and moves of other
// tiles are free. The search therefore runs over (placement, blank) states, and the entry
// is the least distance over the blank's positions. Within a placement the blank moves at
// no cost inside the connected region of free cells it is in, so the region, not the cell,
// is what a state must record: a state is (placement, region), the states of a
// zero-aware table (package zindex). A placement's entry is the distance at which its
// first region is reached; the search is engine.go's, the one of the zero-aware tables.

// buildAdditive computes the Korf-Felner table of p, which must not have the blank in its
// index, a byte an entry (engine.go).
func buildAdditive(ctx context.Context, p *Pattern, opt Options) ([]uint8, error) {
	if p.blank {
		return nil, fmt.Errorf("pdb: %s has the blank in its index", p.Name())
	}
	return additiveValues(ctx, p, opt)
}

// collect runs the garbage collector after a large table's search, when what the search
// alone needed is garbage, and returns that memory to the system, so that the next step
// (the file's compression, the next table) starts from the table alone: left to the
// pacer, the heap would grow to twice the live bytes first, and the freed pages would
// stay resident.
func collect(entries int) {
	if entries >= 1<<26 {
		debug.FreeOSMemory()
	}
}
