package ida

import (
	"context"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/prefetch"
	"github.com/tilekit/tilekit/passes"
)

// pollEvery is how many expansions pass between checks for cancellation (a power of 2).
const pollEvery = 1 << 16

// A walk is one goroutine's IDA* search of the tree, in the solver's frame: its board,
// the heuristic's components, its path and counts, and the split pass's hooks.
type walk struct {
	t    *tables
	kind Heuristic

	board [maxCells]uint8 // tile on each cell; the blank's cell is not kept up to date
	pos   [maxCells]uint8 // cell of each tile, pos[0] the blank's

	comps         // the heuristic's components (dfs_table.go)
	undo  []comps // what dfs restores at each depth (a search's own: init makes it)

	cat     catState      // an additive set's or a catalogue's lookups (catalogue.go)
	seed    *catState     // where init takes cat from, when set (a parallel pass's frontier node)
	seedBuf catState      // the seed of the frontier node that seed points to
	kids    [][4]catChild // the children of each depth's node (dfsCat)

	// Room for the addresses of the automaton's rows it prefetches (prefetchRows).
	fetch [128]uintptr

	split // a split pass's hooks (split.go)

	// cuts counts the nodes whose search BPMX ended early, after a child's search raised
	// the node's value above the bound while a later child was still to be searched.
	cuts uint64

	bound    int
	path     [256]uint8
	depth    int
	nodes    uint64
	expanded uint64
	stop     *atomic.Bool
	aborted  bool

	// The node budget: when nodes reaches nodeCap the search tops it up from budget, the
	// nodes left to a parallel pass, or stops (nodeCap is MaxUint64 without a limit).
	nodeCap uint64
	budget  *atomic.Int64

	// rep hears of progress; published is how much of nodes has been added to its count.
	rep       *passes.Reporter
	published uint64
	ctx       context.Context
}

// split is a walk's part in a split pass (split.go), apart from its search: at depth
// collectAt (never: not at all) and deeper, the nodes that cut asks for are frontier
// nodes, which it meets instead of expanding them; cutOff is set once cut says that the
// walk's subtree no longer matters.
type split struct {
	cut       *passes.Cut
	collectAt int
	cutOff    bool
	dirs      [256]board.Dir // a frontier node's path, in the caller's directions
	fr        *frame         // the solver's
	start     [maxCells]uint8
	placed    bool // at a frontier node (place), not at the start
}

// budgetChunk is how many nodes a worker of a parallel pass takes from the shared budget at
// a time: a node limit is honoured to within this many nodes per worker.
const budgetChunk = 1024

// never is the depth of collectAt without a frontier: deeper than any walk goes.
const never = 1 << 30

// setBudget sets the node limit of a serial search (0: none).
func (st *walk) setBudget(maxNodes uint64) {
	st.nodeCap = math.MaxUint64
	if maxNodes > 0 {
		st.nodeCap = maxNodes
	}
}

// overBudget is called before a node is generated when nodes has reached nodeCap: it tops
// the budget up from the shared one and reports false, or marks the search aborted and
// reports true.
func (st *walk) overBudget() bool {
	for st.budget != nil {
		left := st.budget.Load()
		if left <= 0 {
			break
		}
		take := min(left, budgetChunk)
		if st.budget.CompareAndSwap(left, left-take) {
			st.nodeCap += uint64(take)
			return false
		}
	}
	st.aborted = true
	return true
}

// newWalk returns a walk of start's tree that records no frontier.
func (s *Solver) newWalk(start board.State) *walk {
	st := &walk{t: s.t, kind: s.opt.Heuristic, split: split{collectAt: never, fr: &s.frame}}
	for p, tile := range start {
		c := s.frame.cell[p]
		l := s.frame.label[tile]
		st.board[c] = l
		st.pos[l] = c
	}
	st.start = st.board
	st.init()
	return st
}

// init computes every heuristic component from scratch.
func (st *walk) init() {
	t := st.t
	st.md, st.lc = 0, 0
	st.rowCode, st.colCode = [4]uint16{}, [4]uint16{}
	for tile := 1; tile < t.n; tile++ {
		c := st.pos[tile]
		st.md += int(t.md[tile][c])
		if t.size == board.Size4x4 {
			st.rowCode[c/4] += t.rowContrib[tile][c]
			st.colCode[c%4] += t.colContrib[tile][c]
		}
	}
	for i := 0; i < 4; i++ {
		st.lc += int(t.lcLine[st.rowCode[i]]) + int(t.lcLine[st.colCode[i]])
	}
	if t.wdRowNext != nil {
		st.wdRow, st.wdCol = st.wdIDs()
	}
	if t.ida15 != nil {
		st.pdbSum = 0
		for k := 0; k < 4; k++ {
			st.part[k] = st.lookup(k)
			st.pdbSum += int(st.part[k])
		}
	}
	if t.cat != nil {
		st.initCat()
	}
	if st.undo == nil && t.cat == nil { // dfs's (a catalogue's loop keeps its children instead)
		st.undo = make([]comps, len(st.path))
	}
}

// wdIDs finds the walking-distance pattern ids of the current board (once per start; moves
// then follow the transition tables).
func (st *walk) wdIDs() (uint16, uint16) {
	state := make(board.State, st.t.n)
	for tile := 1; tile < st.t.n; tile++ {
		state[st.pos[tile]] = uint8(tile)
	}
	row, col := st.t.wd.IDs(state)
	return uint16(row), uint16(col)
}

// lookup returns the IDA15 entry of lookup k for the current positions.
func (st *walk) lookup(k int) uint8 { return st.t.ida15.Lookup(k, st.pos[:16]) }

// h returns the current heuristic value.
func (st *walk) h() int {
	switch st.kind {
	case MD:
		return st.md
	case hLC:
		return st.md + st.lc
	case hWD:
		return st.wd()
	case hPDB:
		return st.pdbSum
	case hMax:
		return max(st.pdbSum, st.wd())
	}
	return st.catH()
}

func (st *walk) wd() int { return st.t.wdOf(st.wdRow, st.wdCol) }

// poll checks for cancellation, the node limit, and (in a parallel pass) whether an earlier
// item has already been solved; it is called every pollEvery expansions.
func (st *walk) poll() bool {
	if st.stop.Load() || st.ctx.Err() != nil {
		st.stop.Store(true)
		st.aborted = true
	}
	if st.rep != nil {
		st.rep.Add(st.nodes - st.published)
		st.published = st.nodes
	}
	if st.cut != nil && st.cut.Gone() {
		st.cutOff = true
	}
	return st.aborted || st.cutOff
}

// The steps of the node protocol (docs/SEARCH.md) that every loop takes alike: a node
// is first asked whether it is a frontier node (atFrontier, then collect), else expanded
// (expand); each child the automaton allows is generated (generate) before its value is
// computed.

// atFrontier reports whether the node at depth g is a frontier node of a split pass.
func (st *walk) atFrontier(g int) bool {
	return g >= st.collectAt && (!st.cut.Choosy() || st.cut.Here(st.callerPath(g)))
}

// callerPath returns the path to the node at depth g in the caller's directions.
func (st *walk) callerPath(g int) []board.Dir {
	for i, d := range st.path[:g] {
		st.dirs[i] = board.Dir(st.fr.dirMap[d])
	}
	return st.dirs[:g]
}

// expand counts the current node as expanded and reports whether the search must stop
// (polling every pollEvery expansions).
func (st *walk) expand() bool {
	st.expanded++
	return st.expanded&(pollEvery-1) == 0 && st.poll()
}

// generate counts a child as generated, or reports false when the node budget is spent.
func (st *walk) generate() bool {
	if st.nodes >= st.nodeCap && st.overBudget() {
		return false
	}
	st.nodes++
	return true
}

// collect meets the current node, at depth g and of value h, as a frontier node of a split
// pass (passes.Cut.Meet), and returns the loops' (found, value) for it: (false, h) when it
// is recorded or counted (its board, blank, state and, a catalogue's, partition sums sum
// into the payload: encode); in a replay, its subtree's solution or value.
func (st *walk) collect(g int, blank uint8, state uint32, h int, sum *[maxParts]int16) (bool, int) {
	if st.cut.Count(g) {
		return false, h
	}
	path := st.dirs[:g] // made by atFrontier, for Here
	if !st.cut.Choosy() {
		path = st.callerPath(g)
	}
	payload, r, stop := st.cut.Meet(path, h, st.Work())
	switch {
	case stop:
		return true, h
	case r != nil && r.Moves != nil:
		st.depth = st.fr.own(r.Moves, st.path[:])
		return true, h
	case r != nil:
		return false, max(h, r.Value)
	case payload != nil:
		st.encode(payload, blank, state, sum)
	}
	return false, h
}

// root runs one pass with the current bound and reports whether it found the goal.
func (st *walk) root() bool {
	if st.h() == 0 {
		st.depth = 0
		return true
	}
	switch {
	case st.t.cat != nil:
		found, _ := st.dfsCat(0, st.h(), st.pos[0], st.t.fsmStart[st.pos[0]], &st.cat.sum, st.cat.bestPart(st.t.cat.np))
		return found
	}
	return st.dfs(0, st.h(), st.pos[0], st.t.fsmStart[st.pos[0]])
}

// prefetchRowsAbove is the size of an automaton (in transitions) from which the loops of
// the sets and catalogues ask for each child's row of transitions as soon as they
// generate it, so that it is in cache when the child is expanded after the table reads:
// a deep automaton leaves the caches (depth 18 on 5x5 takes 69 MB: 5% faster on k24-40
// and k24-01 with small-t, docs/RESULTS.md), a small one stays in them (depth 14 on 5x5,
// 3.2 MB: no change), and 4x4's (0.2 MB) is not asked for.
const prefetchRowsAbove = 1 << 18

// prefetchRows asks for the automaton's rows of the children ch, in one call.
func prefetchRows(st *walk, ch []catChild) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(st.t.fsm)))
	for j := range ch {
		st.fetch[j] = base + uintptr(ch[j].state)*16
	}
	prefetch.Addrs(st.fetch[:len(ch)])
}

// countCut counts a BPMX cut at a node at depth g: its child j of nc raised its value above
// the bound. It counts only when a later child (whose value h(k) gives) was within the
// bound, so that the cut kept the search from it.
func (st *walk) countCut(g, j, nc int, h func(k int) int) {
	for k := j + 1; k < nc; k++ {
		if g+1+h(k) <= st.bound {
			st.cuts++
			return
		}
	}
}
