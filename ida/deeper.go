package ida

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/tilekit/tilekit/passes"
)

// Deeper is chosen subtrees of a batch split further: the nodes below each of them at a
// deeper depth, as a batch of their own, and the way back from that batch's results to
// the chosen subtrees'. A runner whose search of a subtree proves too large for one of its
// threads (a GPU's, searching a set whose threads cannot share their work) searches the
// parts instead, which its other threads share; each chosen subtree's result is then made
// as the driver makes a split pass's (docs/SEARCH.md, section 6): the top of the subtree
// searched again with the parts' results in place of their searches. So it is exactly the
// serial search's below that subtree: its work, its first solution, and its root's value
// as BPMX left it.
type Deeper struct {
	// Batch holds the parts of the chosen subtrees, each one's in serial order, the chosen
	// ones in the order given. Its MaxNodes is the split batch's.
	Batch *passes.Batch

	s     *Solver
	from  *passes.Batch
	nodes *frontier // from's
	parts *frontier // Batch's
	which []int
	first []int // where each chosen subtree's parts begin in Batch, and len(Batch.Paths) last
}

// Deeper splits the subtrees which (indices of b, in increasing order) of b, a batch that
// this solver's driver made (or an earlier Deeper), each into about parts subtrees: the
// nodes of its part of the pass at the depth ceil(log2(parts)) below it (most nodes have
// two children or more), or deeper while that depth holds fewer than parts and the next
// holds more. A chosen subtree whose pass holds no node there is split into none; its
// result is then its own search's. It returns ctx's error when cancelled.
func (s *Solver) Deeper(ctx context.Context, b *passes.Batch, which []int, parts int) (*Deeper, error) {
	from, err := nodesOf(b)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for k, i := range which {
		if i < 0 || i >= len(from.nodes) || (k > 0 && i <= which[k-1]) {
			return nil, fmt.Errorf("ida: subtrees %v to split of a batch of %d: not increasing indices of it", which, len(from.nodes))
		}
	}
	// Each chosen subtree's parts, on the solver's workers, then all of them in one
	// frontier, in order.
	each := make([]frontier, len(which))
	if err := s.eachOf(ctx, b, len(which), func(ws *walk, k int) {
		each[k] = ws.partsOf(from, which[k], max(parts, 1))
	}); err != nil {
		return nil, err
	}
	d := &Deeper{s: s, from: b, nodes: from, which: slices.Clone(which), first: make([]int, len(which)+1)}
	var total span
	for k := range each {
		d.first[k] = total.nodes
		total.nodes += len(each[k].nodes)
		total.paths += len(each[k].paths)
	}
	d.first[len(which)] = total.nodes
	into := &frontier{nodes: make([]frontierNode, 0, total.nodes), paths: make([]uint8, 0, total.paths)}
	if c := s.t.cat; c != nil {
		into.cats.reserve(total.nodes, c.nl, c.np)
	}
	for k := range each {
		into.append(&each[k])
		each[k] = frontier{}
	}
	d.parts = into
	d.Batch = passes.NewBatch(b.Start, b.Bound, b.MaxNodes, &subtrees{f: into, fr: &s.frame})
	return d, nil
}

// Parts returns where the parts of the k-th chosen subtree lie in d.Batch: from its
// subtree from to the one before to (none when from == to).
func (d *Deeper) Parts(k int) (from, to int) { return d.first[k], d.first[k+1] }

// Results returns the result of each chosen subtree, in the order Deeper was given them,
// from the results of the parts (a runner's of d.Batch, one a part, in its order), as a
// runner returns them: up to the first chosen subtree with a solution, every part that the
// serial search below a chosen subtree reaches must be searched (up to its first solution,
// and that one); the chosen subtrees after it are reported not searched, with their
// parts' work.
func (d *Deeper) Results(ctx context.Context, parts []passes.SubtreeResult) ([]passes.SubtreeResult, error) {
	s, b := d.s, d.Batch
	if len(parts) != len(b.Paths) {
		return nil, fmt.Errorf("%w: %d results for %d parts", passes.ErrRunner, len(parts), len(b.Paths))
	}
	for j := range parts {
		if parts[j].Moves != nil {
			if err := passes.CheckSolution(parts[j].Moves, b.Paths[j], b.Bound); err != nil {
				return nil, fmt.Errorf("%w: part %d: %v", passes.ErrRunner, j, err)
			}
		}
	}
	// Each chosen subtree's replay, on the solver's workers; those after the first with a
	// solution are then left.
	out := make([]passes.SubtreeResult, len(d.which))
	errs := make([]error, len(d.which))
	if err := s.eachOf(ctx, d.from, len(d.which), func(ws *walk, k int) {
		out[k], errs[k] = d.result(ws, k, d.which[k], parts)
	}); err != nil {
		return nil, err
	}
	k := 0
	for ; k < len(d.which) && (k == 0 || out[k-1].Moves == nil); k++ {
		if errs[k] != nil {
			return nil, errs[k]
		}
	}
	for ; k < len(d.which); k++ {
		// The serial search ends before it: whatever its parts did is work, not searched.
		out[k] = passes.SubtreeResult{}
		for j := d.first[k]; j < d.first[k+1]; j++ {
			out[k].Work.Add(parts[j].Work)
		}
	}
	return out, nil
}

// result is the result of the chosen subtree i, the k-th, from its parts' results: the top
// of its search again, each part's result in place of its search.
func (d *Deeper) result(rs *walk, k, i int, parts []passes.SubtreeResult) (passes.SubtreeResult, error) {
	s := d.s
	rs.place(d.nodes, i)
	defer func() { rs.replay, rs.collectAt = nil, never }()
	rp := &replay{index: make(map[string]int, d.first[k+1]-d.first[k]), results: parts, found: -1, fr: &s.frame}
	for j := d.first[k]; j < d.first[k+1]; j++ {
		rp.index[string(d.parts.path(j))] = j
		rs.collectAt = min(rs.collectAt, int(d.parts.nodes[j].g))
	}
	rs.replay = rp
	nodes, expanded := rs.nodes, rs.expanded
	it := &d.nodes.nodes[i]
	found, value := rs.below(int(it.g), int(it.h), it.blank, it.state)
	switch {
	case rs.aborted:
		return passes.SubtreeResult{}, stopped(rs.ctx)
	case rp.err != nil:
		return passes.SubtreeResult{}, rp.err
	case !found && rp.found >= 0:
		// (Found with no part's solution is a goal above the parts' depth: the subtree
		// where the first solution was met may end there.)
		return passes.SubtreeResult{}, fmt.Errorf("ida: internal error: the replay below subtree %d found nothing, its part %d a solution", i, rp.found)
	}
	r := passes.SubtreeResult{Searched: true, Work: Work{Nodes: rs.nodes - nodes, Expanded: rs.expanded - expanded}, Value: value}
	r.Work.Add(rp.work)
	if found {
		r.Moves = s.frame.caller(rs.path[:rs.depth])
	}
	return r, nil
}

// walkOf returns a search of b's pass, without a node limit, that stops when ctx is
// cancelled; collectAt is never.
func (s *Solver) walkOf(ctx context.Context, b *passes.Batch) *walk {
	st := s.newWalk(b.Start)
	var stop atomic.Bool
	st.stop, st.ctx = &stop, ctx
	st.setBudget(0)
	st.bound = b.Bound
	return st
}

// eachOf calls f for k from 0 to n-1 on the solver's workers (eachOn), each with a search
// of b's pass of its own (walkOf), and returns ctx's error if one of them was aborted.
func (s *Solver) eachOf(ctx context.Context, b *passes.Batch, n int, f func(ws *walk, k int)) error {
	walks := make([]*walk, min(max(s.opt.Workers, 1), n))
	for w := range walks {
		walks[w] = s.walkOf(ctx, b)
	}
	if !eachOn(walks, n, f) {
		return stopped(ctx)
	}
	return nil
}

// stopped is the error of a search of Deeper's that was aborted: ctx's.
func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("ida: internal error: a search without a node limit stopped")
}

// partsOf returns the parts of node i of top (Deeper): the nodes at ceil(log2(parts))
// moves below it, or deeper while that holds fewer than parts and the next depth holds
// more.
func (ws *walk) partsOf(top *frontier, i, parts int) frontier {
	g := int(top.nodes[i].g)
	d := g + max(bits.Len(uint(parts-1)), 1)
	if d >= ws.bound {
		return frontier{}
	}
	got := ws.partsAt(top, i, d)
	for len(got.nodes) < parts && d+1 < ws.bound && !ws.aborted {
		next := ws.partsAt(top, i, d+1)
		if len(next.nodes) <= len(got.nodes) {
			break // the tree narrows towards the bound
		}
		got, d = next, d+1
	}
	return got
}

// partsAt returns the nodes below node i of top at depth d, as the search of the pass below
// it meets them.
func (ws *walk) partsAt(top *frontier, i, d int) frontier {
	ws.frontier = frontier{}
	if c := ws.t.cat; c != nil {
		ws.frontier.cats.nl, ws.frontier.cats.np = c.nl, c.np
	}
	ws.collectAt, ws.counting = d, false
	ws.searchNode(top, i)
	ws.collectAt = never
	f := ws.frontier
	ws.frontier = frontier{}
	return f
}
