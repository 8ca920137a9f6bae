package ida

import (
	"context"
	"encoding/binary"
	"math"
	"sync/atomic"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/zindex"
)

// The engine's part in split passes (package passes): a walk is a passes.Search (a
// passes.Walker with its copies on other goroutines and a copy apart for replays), and the
// Solver the passes.Engine of the frontiers its walks meet. A frontier node's payload is its board, blank, automaton state
// and, under a catalogue, its lookups, so that the walk below it starts from them rather
// than from scratch (a table in the bit encoding would walk to its goal for every lookup).

// The payload's layout: the board (the tile on each cell, 0 on the blank's), the blank's
// cell, the automaton's state, then a catalogue's nl half excesses, nl values modulo 4, nl
// ranks (8 bytes each) and np partition sums (2 bytes each).
const (
	payBlank = maxCells
	payState = maxCells + 1
	payCat   = maxCells + 5
)

// stride is the size of the solver's frontier nodes' payloads.
func (s *Solver) stride() int {
	if c := s.t.cat; c != nil {
		return payCat + c.nl*10 + c.np*2
	}
	return payCat
}

// encode writes the payload of the current node, whose blank is on blank, the automaton in
// state, and whose partition sums are sum (nil: no catalogue).
func (st *walk) encode(p []byte, blank uint8, state uint32, sum *[maxParts]int16) {
	copy(p, st.board[:])
	p[blank], p[payBlank] = 0, blank // dfs keeps the board, not the blank's cell
	binary.LittleEndian.PutUint32(p[payState:], state)
	if sum == nil {
		return
	}
	nl, np := st.t.cat.nl, st.t.cat.np
	q := p[payCat:]
	copy(q, st.cat.ex[:nl])
	copy(q[nl:], st.cat.hm[:nl])
	for k := range nl {
		binary.LittleEndian.PutUint64(q[2*nl+8*k:], uint64(st.cat.z[k]))
	}
	for k := range np {
		binary.LittleEndian.PutUint16(q[10*nl+2*k:], uint16(sum[k]))
	}
}

// decodeSeed sets c to the catalogue lookups of payload p (encode), nl lookups in np
// partitions.
func decodeSeed(p []byte, nl, np int, c *catState) {
	*c = catState{}
	decodeLookups(p, c.ex[:nl], c.hm[:nl], c.z[:nl], c.sum[:np])
}

// decodeLookups reads the catalogue lookups of payload p (encode) into ex, hm, z (one each
// a lookup) and sum (one a partition).
func decodeLookups(p []byte, ex, hm []uint8, z []zindex.State, sum []int16) {
	nl := len(ex)
	q := p[payCat:]
	copy(ex, q)
	copy(hm, q[nl:])
	for k := range z {
		z[k] = zindex.State(binary.LittleEndian.Uint64(q[2*nl+8*k:]))
	}
	for k := range sum {
		sum[k] = int16(binary.LittleEndian.Uint16(q[10*nl+2*k:]))
	}
}

// place sets st up to walk below node i of f, and returns the node's blank and automaton
// state.
func (st *walk) place(f *passes.Frontier, i int) (uint8, uint32) {
	p := f.Payload(i)
	st.setBoard(p)
	st.seed = nil
	if c := st.t.cat; c != nil {
		decodeSeed(p, c.nl, c.np, &st.seedBuf)
		st.seed = &st.seedBuf
	}
	st.init()
	for k, e := range f.Path(i) {
		st.path[k] = st.fr.inverse[e]
	}
	st.placed = true
	return p[payBlank], binary.LittleEndian.Uint32(p[payState:])
}

// setBoard sets the board (the frame's tile on each cell) and the positions.
func (st *walk) setBoard(b []uint8) {
	copy(st.board[:], b[:maxCells])
	for c := 0; c < st.t.n; c++ {
		st.pos[st.board[c]] = uint8(c)
	}
}

// Walk walks the pass from the start (f nil) or below node i of f under c (passes.Walker).
func (st *walk) Walk(f *passes.Frontier, i int, c *passes.Cut) (found bool, value int, ok bool) {
	st.cut, st.cutOff, st.collectAt = c, false, never
	if c != nil {
		st.collectAt = c.At
	}
	if f == nil {
		if st.placed || st.undo == nil && st.kids == nil { // a crew's walker, or one placed
			st.setBoard(st.start[:])
			st.seed, st.placed = nil, false
			st.init()
		}
		found, value = st.root(), st.h()
	} else {
		blank, state := st.place(f, i)
		found, value = st.below(f.G(i), f.H(i), blank, state)
	}
	st.cut, st.collectAt = nil, never
	return found, value, !st.aborted && !st.cutOff
}

// Work is the walk's work so far.
func (st *walk) Work() passes.Work { return passes.Work{Nodes: st.nodes, Expanded: st.expanded} }

// Aborted says that the walk was cancelled or ran out of nodes.
func (st *walk) Aborted() bool { return st.aborted }

// Moves is the last solution found, in the caller's directions.
func (st *walk) Moves() []board.Dir { return st.fr.caller(st.path[:st.depth]) }

// Begin starts the pass of bound (passes.Search).
func (st *walk) Begin(bound int) { st.bound, st.published = bound, st.nodes }

// Walkers returns n copies of st for the parallel parts of its pass (passes.Search):
// counts of their own, sharing st's node budget (what is left of it, or none).
func (st *walk) Walkers(n int) []passes.Walker {
	budget := new(atomic.Int64)
	budget.Store(math.MaxInt64)
	if st.nodeCap != math.MaxUint64 {
		budget.Store(int64(st.nodeCap - min(st.nodes, st.nodeCap)))
	}
	ws := make([]passes.Walker, max(n, 1))
	for w := range ws {
		c := st.copy()
		c.nodeCap, c.budget = 0, budget
		ws[w] = c
	}
	return ws
}

// Gather adds the work of st's Walkers, and outside work, to st's counts, and gives st back
// the budget they left (passes.Search).
func (st *walk) Gather(ws []passes.Walker, outside passes.Work) {
	st.nodes, st.expanded = st.nodes+outside.Nodes, st.expanded+outside.Expanded
	if len(ws) == 0 {
		return
	}
	var unused uint64
	for k, w := range ws {
		c := w.(*walk)
		if k == 0 {
			unused = uint64(max(c.budget.Load(), 0))
		}
		st.nodes += c.nodes
		st.expanded += c.expanded
		st.cuts += c.cuts
		st.aborted = st.aborted || c.aborted
		unused += c.nodeCap - c.nodes
	}
	if st.nodeCap != math.MaxUint64 {
		st.nodeCap = st.nodes + unused
	}
}

// copy returns a walk of st's pass with counts of its own, which makes its own per-depth
// state (init).
func (st *walk) copy() *walk {
	c := *st
	c.nodes, c.expanded, c.cuts, c.published, c.kids, c.undo, c.cut = 0, 0, 0, 0, nil, nil, nil
	return &c
}

// Apart returns a walk of st's pass whose work is its own, without a node limit or
// progress, that stops for nothing: a replay's (passes.Search).
func (st *walk) Apart() passes.Walker { return st.apart() }

func (st *walk) apart() *walk {
	c := st.copy()
	c.setBudget(0)
	c.budget, c.rep = nil, nil
	var stop atomic.Bool
	c.stop, c.ctx = &stop, context.Background()
	return c
}

// Walkers returns n walks of b's pass, which the solver's walks met (passes.Engine).
func (s *Solver) Walkers(ctx context.Context, b *passes.Batch, n int) []passes.Walker {
	st := s.newWalk(b.Start)
	var stop atomic.Bool
	st.stop, st.ctx = &stop, ctx
	st.setBudget(b.MaxNodes)
	st.bound = b.Bound
	return st.Walkers(n)
}

// Threads is Options.Workers, at least one (passes.Engine).
func (s *Solver) Threads() int { return max(s.opt.Workers, 1) }
