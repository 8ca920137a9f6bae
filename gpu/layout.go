package gpu

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
)

// The kernel's structures (kernel/search.h) as bytes: sizes and offsets, which the host
// build prints (host layout) and TestLayout compares with these.
const (
	rootSize   = 36
	tablesSize = 864
	passSize   = 144 // without the tests' hash

	tablesNMoves = 4
	tablesMCell  = 29
	tablesMDir   = 129
	tablesMD     = 229
	tablesFSM    = 856

	passBound   = 0
	passRoots   = 8
	passNRoots  = 16
	passGen     = 24
	passExp     = 32
	passNext    = 40
	passBest    = 44
	passQueue   = 48
	passSeq     = 56
	passCap     = 64
	passHead    = 68
	passTail    = 72
	passIdle    = 76
	passThreads = 80
	passStop    = 84
	passNodes   = 88
	passLimit   = 96
	passCancel  = 104
	passDonated = 112
	passBusy    = 120
	passCycles  = 128
	// passDonateAfter is the expansions a thread makes below a root before it donates work
	// (then again after as many more).
	passDonateAfter = 136
)

// donateAfter is the GPU's Pass.donateAfter: a thread donates only from roots that have
// proved large (run 3 of docs/RESULTS.md donated one node per 31 expanded, and the queue,
// not the search, set the rate).
const donateAfter = 2048

const cells = board.MaxCells

// encodeTables lays out a model's tables as the kernel's Tables, fsm the device address of
// the automaton's transitions.
func encodeTables(m *ida.Model, fsm uint64) []byte {
	b := make([]byte, tablesSize)
	binary.LittleEndian.PutUint32(b, uint32(m.Size.Cells()))
	copy(b[tablesNMoves:], m.NMoves[:])
	for c := 0; c < cells; c++ {
		copy(b[tablesMCell+4*c:], m.MoveCell[c][:])
		copy(b[tablesMDir+4*c:], m.MoveDir[c][:])
		copy(b[tablesMD+cells*c:], m.MD[c][:])
	}
	binary.LittleEndian.PutUint64(b[tablesFSM:], fsm)
	return b
}

// encodeRoots lays out the frontier as the kernel's Roots, each with its serial index.
func encodeRoots(roots []ida.Root) []byte {
	b := make([]byte, rootSize*len(roots))
	for i := range roots {
		r := &roots[i]
		o := b[rootSize*i:]
		copy(o, r.Board[:])
		o[25], o[26], o[27] = r.Blank, r.G, r.H
		binary.LittleEndian.PutUint32(o[28:], r.State)
		binary.LittleEndian.PutUint32(o[32:], uint32(i))
	}
	return b
}

// checkModel refuses what the kernel cannot search: another heuristic than md, a bound
// past its stack.
func checkModel(m *ida.Model) error {
	if m.Heuristic != ida.MD {
		return fmt.Errorf("%w: %v", ErrHeuristic, m.Heuristic)
	}
	return nil
}

// maxBound is the deepest pass the kernel's stack holds (kMaxDepth - 1).
const maxBound = 255

// launch is what one launch of a pass reports: each subtree's counts, the earliest solving
// subtree (len(gen): none) and whether it stopped early.
type launch struct {
	gen, exp []uint64
	best     int
	stopped  bool
}

// results turns a launch into the runner's results: subtrees before the earliest solving
// one searched (the kernel's counts), that one searched again on the CPU for its solution
// and its serial counts, those after it left (their partial work kept). A stopped launch
// gives the results so far and the stop's error (ctx's, or ida.ErrNodeLimit).
func results(ctx context.Context, s *ida.Solver, b *ida.Batch, l *launch, stopErr error) ([]ida.SubtreeResult, error) {
	out := make([]ida.SubtreeResult, len(b.Paths))
	for i := range out {
		out[i].Work = ida.Work{Nodes: l.gen[i], Expanded: l.exp[i]}
		out[i].Searched = !l.stopped && i < l.best
	}
	if l.stopped {
		return out, stopErr
	}
	if l.best < len(out) {
		r, err := s.SearchBelow(ctx, b.Start, b.Paths[l.best], b.Bound)
		if err != nil {
			return out, err
		}
		if r.Moves == nil {
			return out, fmt.Errorf("gpu: internal error: the GPU found the goal below subtree %d (%s) of the pass of bound %d, the CPU none",
				l.best, board.FormatDirs(b.Paths[l.best]), b.Bound)
		}
		out[l.best] = r
	}
	return out, nil
}
