package passes

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
)

// Deeper is chosen subtrees of a batch split further: the nodes below each of them at a
// deeper depth, as a batch of their own, and the way back from that batch's results to
// the chosen subtrees'. A runner whose search of a subtree proves too large for one of its
// threads (a GPU's, searching a set whose threads cannot share their work) searches the
// parts instead, which its other threads share; each chosen subtree's result is then made
// as the driver makes a split pass's (docs/SEARCH.md, section 6): the top of the subtree
// walked again with the parts' results in place of their searches. So it is exactly the
// serial search's below that subtree: its work, its first solution, and its root's value
// as BPMX left it.
type Deeper struct {
	// Batch holds the parts of the chosen subtrees, each one's in serial order, the chosen
	// ones in the order given. Its MaxNodes is the split batch's.
	Batch *Batch

	from  *Batch
	nodes *Frontier // from's
	parts *Frontier // Batch's
	which []int
	first []int // where each chosen subtree's parts begin in Batch, and len(Batch.Paths) last
}

// Deepen splits the subtrees which (indices of b, in increasing order) of b, a batch of an
// engine's frontier (that the driver made, or an earlier Deeper), each into about parts
// subtrees: the nodes of its part of the pass at the depth ceil(log2(parts)) below it (most
// nodes have two children or more), or deeper while that depth holds fewer than parts and
// the next holds more. A chosen subtree whose pass holds no node there is split into none;
// its result is then its own search's. The walks are the engine's, on its workers. It
// returns ctx's error when cancelled.
func Deepen(ctx context.Context, b *Batch, which []int, parts int) (*Deeper, error) {
	from, err := frontierOf(b)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for k, i := range which {
		if i < 0 || i >= from.Len() || (k > 0 && i <= which[k-1]) {
			return nil, fmt.Errorf("passes: subtrees %v to split of a batch of %d: not increasing indices of it", which, from.Len())
		}
	}
	// Each chosen subtree's parts, on the engine's workers, then all of them in one
	// frontier, in order.
	each := make([]*Frontier, len(which))
	if err := eachOf(ctx, b, len(which), func(w Walker, k int) {
		each[k] = partsOf(w, from, which[k], max(parts, 1), b.Bound)
	}); err != nil {
		return nil, err
	}
	d := &Deeper{from: b, nodes: from, which: slices.Clone(which), first: make([]int, len(which)+1)}
	var total span
	for k := range each {
		d.first[k] = total.nodes
		total.nodes += len(each[k].nodes)
		total.paths += len(each[k].paths)
	}
	d.first[len(which)] = total.nodes
	d.parts = newFrontier(from.stride, from.engine)
	d.parts.reserve(total.nodes, total.paths)
	for k := range each {
		d.parts.append(each[k])
		each[k] = nil
	}
	d.Batch = newBatch(b.Start, b.Bound, b.MaxNodes, d.parts)
	return d, nil
}

// Parts returns where the parts of the k-th chosen subtree lie in d.Batch: from its
// subtree from to the one before to (none when from == to).
func (d *Deeper) Parts(k int) (from, to int) { return d.first[k], d.first[k+1] }

// Results returns the result of each chosen subtree, in the order Deepen was given them,
// from the results of the parts (a runner's of d.Batch, one a part, in its order), as a
// runner returns them: up to the first chosen subtree with a solution, every part that the
// serial search below a chosen subtree reaches must be searched (up to its first solution,
// and that one); the chosen subtrees after it are reported not searched, with their
// parts' work.
func (d *Deeper) Results(ctx context.Context, parts []SubtreeResult) ([]SubtreeResult, error) {
	b := d.Batch
	if len(parts) != len(b.Paths) {
		return nil, fmt.Errorf("%w: %d results for %d parts", ErrRunner, len(parts), len(b.Paths))
	}
	for j := range parts {
		if parts[j].Moves != nil {
			if err := checkSolution(parts[j].Moves, b.Paths[j], b.Bound); err != nil {
				return nil, fmt.Errorf("%w: part %d: %v", ErrRunner, j, err)
			}
		}
	}
	// Each chosen subtree's replay, on the engine's workers; those after the first with a
	// solution are then left.
	out := make([]SubtreeResult, len(d.which))
	errs := make([]error, len(d.which))
	if err := eachOf(ctx, d.from, len(d.which), func(w Walker, k int) {
		out[k], errs[k] = d.result(ctx, w, k, parts)
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
		out[k] = SubtreeResult{}
		for j := d.first[k]; j < d.first[k+1]; j++ {
			out[k].Work.Add(parts[j].Work)
		}
	}
	return out, nil
}

// result is the result of the k-th chosen subtree from its parts' results: the top of its
// search again, each part's result in place of its search.
func (d *Deeper) result(ctx context.Context, w Walker, k int, parts []SubtreeResult) (SubtreeResult, error) {
	i := d.which[k]
	rp, c := replayOf(d.parts, d.first[k], d.first[k+1], parts)
	found, value, _, work := walk(w, d.nodes, i, c)
	switch {
	case w.Aborted():
		return SubtreeResult{}, stopped(ctx)
	case rp.err != nil:
		return SubtreeResult{}, rp.err
	case !found && rp.found >= 0:
		// (Found with no part's solution is a goal above the parts' depth: the subtree
		// where the first solution was met may end there.)
		return SubtreeResult{}, fmt.Errorf("passes: internal error: the replay below subtree %d found nothing, its part %d a solution", i, rp.found)
	}
	r := SubtreeResult{Searched: true, Work: work, Value: value}
	r.Work.Add(rp.work)
	if found {
		r.Moves = w.Moves()
	}
	return r, nil
}

// eachOf calls f for k from 0 to n-1 on the engine's workers (each), each a walker of b's
// pass without a node limit, and returns ctx's error if one of them was aborted.
func eachOf(ctx context.Context, b *Batch, n int, f func(w Walker, k int)) error {
	e := b.Frontier().engine
	unlimited := *b
	unlimited.MaxNodes = 0
	if !each(e.Walkers(ctx, &unlimited, min(max(e.Threads(), 1), max(n, 1))), n, f) {
		return stopped(ctx)
	}
	return nil
}

// stopped is the error of a walk without a node limit that was aborted: ctx's.
func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("passes: internal error: a walk without a node limit stopped")
}

// partsOf returns the parts of node i of top (Deepen) in the pass of bound: the nodes at
// ceil(log2(parts)) moves below it, or deeper while that holds fewer than parts and the
// next depth holds more.
func partsOf(w Walker, top *Frontier, i, parts, bound int) *Frontier {
	d := top.G(i) + max(bits.Len(uint(parts-1)), 1)
	if d >= bound {
		return newFrontier(top.stride, top.engine)
	}
	got := partsAt(w, top, i, d)
	for len(got.nodes) < parts && d+1 < bound && !w.Aborted() {
		next := partsAt(w, top, i, d+1)
		if len(next.nodes) <= len(got.nodes) {
			break // the tree narrows towards the bound
		}
		got, d = next, d+1
	}
	return got
}

// partsAt returns the nodes below node i of top at depth d, as the walk below it meets
// them.
func partsAt(w Walker, top *Frontier, i, d int) *Frontier {
	f := newFrontier(top.stride, top.engine)
	walk(w, top, i, &Cut{At: d, into: f})
	return f
}
