package ida

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/tilekit/tilekit/passes"
)

// itemsPerWorker is how many subtrees a parallel pass aims to give each worker, so that
// subtrees of very different sizes even out, and so that in the last pass little work is
// spent after the solution's subtree (with 256 rather than 32, the 24-puzzle's k24-38
// took 12% fewer nodes on two workers; 1,024 did worse again).
const itemsPerWorker = 256

// parallelFrom is the size of pass (in nodes) after which passes are split among workers
// (Options.splitFrom, for the tests, sets another).
const parallelFrom = 100_000

// searchItems searches below the frontier items of the current pass on several goroutines
// (workers), adds all their work to st's counts, and returns each
// item's result. Workers take the items in
// serial order; once an item has a solution, items after it are abandoned (their results
// hold the work done, not Searched), items before it finished. The node budget is shared:
// workers take it a chunk at a time.
func (st *walk) searchItems(items *frontier, workers int, fr *frame) []passes.SubtreeResult {
	p := &pass{items: items, results: make([]passes.SubtreeResult, len(items.nodes)), fr: fr}
	p.best.Store(math.MaxInt64)
	best := &p.best
	walks, budget := st.spawn(workers)
	for _, ws := range walks {
		ws.best = best
	}
	onEach(walks, func(ws *walk) {
		for !ws.aborted {
			it := p.take(ws)
			if it == nil {
				return
			}
			found, value := ws.below(int(it.g), int(it.h), it.blank, it.state)
			p.done(ws, found, value)
		}
	})
	st.gather(walks, budget)
	return p.results
}

// spawn returns n workers for a parallel part of st's pass: copies of st with counts of
// their own and no frontier, sharing st's node budget (what is left of it, or none).
func (st *walk) spawn(n int) ([]*walk, *atomic.Int64) {
	budget := new(atomic.Int64)
	budget.Store(math.MaxInt64)
	if st.nodeCap != math.MaxUint64 {
		budget.Store(int64(st.nodeCap - min(st.nodes, st.nodeCap)))
	}
	walks := make([]*walk, max(n, 1))
	for w := range walks {
		ws := *st
		ws.nodes, ws.expanded, ws.cuts, ws.published, ws.frontier, ws.kids, ws.undo = 0, 0, 0, 0, frontier{}, nil, nil
		ws.best, ws.replay = nil, nil
		ws.nodeCap, ws.budget = 0, budget
		walks[w] = &ws
	}
	return walks, budget
}

// gather adds the work of spawn's workers to st's counts, and gives st back the budget
// they left.
func (st *walk) gather(walks []*walk, budget *atomic.Int64) {
	unused := uint64(max(budget.Load(), 0))
	for _, ws := range walks {
		st.nodes += ws.nodes
		st.expanded += ws.expanded
		st.cuts += ws.cuts
		st.aborted = st.aborted || ws.aborted
		unused += ws.nodeCap - ws.nodes
	}
	if st.nodeCap != math.MaxUint64 {
		st.nodeCap = st.nodes + unused
	}
}

// pass is what the workers of a parallel pass share.
type pass struct {
	items   *frontier
	next    atomic.Int64           // the next item to take
	results []passes.SubtreeResult // each item's, once searched
	best    atomic.Int64           // the earliest item with a solution so far
	fr      *frame                 // the solver's, for the solutions
}

// take sets ws up to search below the next item and returns it, or returns nil when no
// item is left that could matter.
func (p *pass) take(ws *walk) *frontierNode {
	i := p.next.Add(1) - 1
	if i >= int64(len(p.items.nodes)) || i > p.best.Load() {
		return nil
	}
	it := &p.items.nodes[i]
	ws.item, ws.cut = i, false
	ws.place(p.items, int(i))
	ws.itemWork = Work{Nodes: ws.nodes, Expanded: ws.expanded}
	return it
}

// done records the end of ws's search below its item; found and value are the search's
// report.
func (p *pass) done(ws *walk, found bool, value int) {
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
	r.Moves = p.fr.caller(ws.path[:ws.depth])
	for b := p.best.Load(); i < b && !p.best.CompareAndSwap(b, i); b = p.best.Load() {
	}
}

// Workers returns a runner that searches a batch's subtrees on n goroutines of this
// process (0: Options.Workers), as Solve's split passes do: for a plan whose runner
// chooses, pass by pass, between them and another (a GPU). It searches batches that this
// solver's driver made, and refuses others.
func (s *Solver) Workers(n int) passes.Runner {
	if n <= 0 {
		n = max(s.opt.Workers, 1)
	}
	return passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
		items, err := nodesOf(b)
		if err != nil {
			return nil, err
		}
		st := s.newWalk(b.Start)
		var stop atomic.Bool
		st.stop, st.ctx = &stop, ctx
		st.setBudget(b.MaxNodes)
		st.bound = b.Bound
		results := st.searchItems(items, n, &s.frame)
		switch {
		case !st.aborted:
			return results, nil
		case ctx.Err() != nil:
			return results, ctx.Err()
		}
		return results, passes.ErrNodeLimit
	})
}
