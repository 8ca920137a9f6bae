package ida

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// frontierNode is a node at which a split pass splits the search tree. Its path from the
// root is kept in its frontier's arena (frontier.path), so that a frontier of a million
// nodes is two allocations, not a million.
type frontierNode struct {
	board [maxCells]uint8 // its tiles, 0 on the blank's cell
	blank uint8
	g, h  uint8  // its depth, and its value as the search met it
	state uint32 // the pruning automaton's
	path  uint32 // where its path starts in the frontier's arena (g moves)
	// before is the work of the search that collected the node, before it: what a serial
	// pass does before it reaches the node.
	before Work
}

// frontier is the nodes of a split pass's frontier, in serial order, and their paths. The
// nodes hold no pointers, so that the collector need not scan them.
type frontier struct {
	nodes []frontierNode
	paths []uint8
	cats  []catState // a catalogue's lookups at each node, when the search has one
}

// path returns the path of node i (in the solver's frame).
func (f *frontier) path(i int) []uint8 {
	n := &f.nodes[i]
	return f.paths[n.path : n.path+uint32(n.g)]
}

// reset empties f, keeping its memory.
func (f *frontier) reset() {
	f.nodes, f.paths, f.cats = f.nodes[:0], f.paths[:0], f.cats[:0]
}

// itemsPerWorker is how many subtrees a parallel pass aims to give each worker, so that
// subtrees of very different sizes even out, and so that in the last pass little work is
// spent after the solution's subtree (with 256 rather than 32, the 24-puzzle's k24-38
// took 12% fewer nodes on two workers; 1,024 did worse again).
const itemsPerWorker = 256

// parallelFrom is the size of pass (in nodes) after which passes are split among workers
// (a variable so that tests can split small trees).
var parallelFrom uint64 = 100_000

// collectFrontier searches the top of the current pass down to the shallowest depth, from
// first on and below the bound, that holds at least want frontier nodes (or the deepest),
// and returns them in the serial order with the work of that last, deciding, search. Every
// shallower try is counted in st's nodes too. It stops early when the search is aborted.
// The frontier is st's own, reused by its next collection.
func (st *search) collectFrontier(first, want int) (*frontier, Work) {
	var last Work
	f := &st.frontier
	for d := first; d < st.bound; d++ {
		nodes, expanded := st.nodes, st.expanded
		st.collectAt = d
		// Room for the next depth's nodes (a few times this one's), so that they are not
		// copied as the slice grows.
		if next := min(4*max(len(f.nodes), 64), 3*want); cap(f.nodes) < next && len(f.nodes) < want {
			f.nodes = make([]frontierNode, 0, next)
			f.paths = make([]uint8, 0, next*(d+1))
		}
		f.reset()
		st.root()
		last = Work{Nodes: st.nodes - nodes, Expanded: st.expanded - expanded}
		if st.aborted || len(st.frontier.nodes) >= want {
			break
		}
	}
	st.collectAt = never
	return &st.frontier, last
}

// searchItems searches below the frontier items of the current pass on several goroutines
// (workers), adds all their work to st's counts, and returns each
// item's result. Workers take the items in
// serial order; once an item has a solution, items after it are abandoned (their results
// hold the work done, not Searched), items before it finished. The node budget is shared:
// workers take it a chunk at a time.
func (st *search) searchItems(items *frontier, workers int) []SubtreeResult {
	p := &pass{items: items, results: make([]SubtreeResult, len(items.nodes))}
	p.best.Store(math.MaxInt64)
	best := &p.best
	searches := make([]*search, workers)
	var budget atomic.Int64
	limited := st.nodeCap != math.MaxUint64
	budget.Store(math.MaxInt64)
	if limited {
		budget.Store(int64(st.nodeCap - min(st.nodes, st.nodeCap)))
	}
	var wg sync.WaitGroup
	for w := range searches {
		ws := *st
		ws.nodes, ws.expanded, ws.published, ws.frontier, ws.kids, ws.undo = 0, 0, 0, frontier{}, nil, nil
		ws.best = best
		ws.nodeCap, ws.budget = 0, &budget
		searches[w] = &ws
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := searches[w]
			for !ws.aborted {
				it := p.take(ws)
				if it == nil {
					return
				}
				found, value := ws.below(int(it.g), int(it.h), it.blank, it.state)
				p.done(ws, found, value)
			}
		}()
	}
	wg.Wait()
	unused := uint64(max(budget.Load(), 0))
	for _, ws := range searches {
		st.nodes += ws.nodes
		st.expanded += ws.expanded
		st.cuts += ws.cuts
		st.aborted = st.aborted || ws.aborted
		unused += ws.nodeCap - ws.nodes
	}
	if limited {
		st.nodeCap = st.nodes + unused
	}
	return p.results
}

// pass is what the workers of a parallel pass share.
type pass struct {
	items   *frontier
	next    atomic.Int64    // the next item to take
	results []SubtreeResult // each item's, once searched
	best    atomic.Int64    // the earliest item with a solution so far
}

// take sets ws up to search below the next item and returns it, or returns nil when no
// item is left that could matter.
func (p *pass) take(ws *search) *frontierNode {
	i := p.next.Add(1) - 1
	if i >= int64(len(p.items.nodes)) || i > p.best.Load() {
		return nil
	}
	it := &p.items.nodes[i]
	ws.board, ws.item, ws.cut = it.board, i, false
	for c := 0; c < ws.t.n; c++ {
		ws.pos[it.board[c]] = uint8(c)
	}
	ws.seed = nil
	if len(p.items.cats) > 0 {
		ws.seed = &p.items.cats[i]
	}
	ws.init()
	copy(ws.path[:], p.items.path(int(i)))
	ws.itemWork = Work{Nodes: ws.nodes, Expanded: ws.expanded}
	return it
}

// done records the end of ws's search below its item; found and value are the search's
// report.
func (p *pass) done(ws *search, found bool, value int) {
	i := ws.item
	r := &p.results[i]
	r.Work = Work{Nodes: ws.nodes - ws.itemWork.Nodes, Expanded: ws.expanded - ws.itemWork.Expanded}
	if ws.aborted || ws.cut { // aborted: cancelled, or the budget is spent; the others stop soon too
		return
	}
	r.Searched, r.Value = true, value
	if !found {
		return
	}
	r.path = append([]uint8(nil), ws.path[:ws.depth]...)
	for b := p.best.Load(); i < b && !p.best.CompareAndSwap(b, i); b = p.best.Load() {
	}
}

// Workers returns a runner that searches a batch's subtrees on n goroutines of this
// process (0: Options.Workers), as Solve's split passes do: for a plan whose runner
// chooses, pass by pass, between them and another (a GPU). It searches batches that this
// solver's driver made (Batch.Roots), and refuses others.
func (s *Solver) Workers(n int) Runner {
	if n <= 0 {
		n = max(s.opt.Workers, 1)
	}
	return RunnerFunc(func(ctx context.Context, b *Batch) ([]SubtreeResult, error) {
		if b.items == nil {
			return nil, fmt.Errorf("%w: a batch that this process's driver did not make", ErrRunner)
		}
		st := s.newSearch(b.Start)
		var stop atomic.Bool
		st.stop, st.ctx = &stop, ctx
		st.setBudget(b.MaxNodes)
		st.bound = b.Bound
		results := st.searchItems(b.items, n)
		switch {
		case !st.aborted:
			return results, nil
		case ctx.Err() != nil:
			return results, ctx.Err()
		}
		return results, ErrNodeLimit
	})
}
