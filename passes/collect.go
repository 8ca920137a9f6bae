package passes

import (
	"sync"
	"sync/atomic"

	"github.com/tilekit/tilekit/board"
)

// A collection says how collect chooses a pass's frontier.
type collection struct {
	Bound int // the pass's
	Want  int // the subtrees wanted, at least
	// Refine, if set, is asked of each node of the chosen depth (given its path from the
	// start) whether to split it further: the walk then goes on below it and takes the
	// nodes one move deeper instead, asking again (down to two moves above the bound).
	Refine func(path []board.Dir) bool
	// Workers is the crew's goroutines. Once a depth holds From nodes a worker (0: 64),
	// the deeper depths are tried on them, below that depth's nodes.
	Workers, From int
	// Raised, if set, counts the nodes of such a depth whose value rose below them short
	// of cutting their parent (for the tests).
	Raised *atomic.Int64
}

// collectFrom is collection.From's default.
const collectFrom = 64

// collect walks the top of the pass with s down to the shallowest depth below the bound
// that holds at least o.Want frontier nodes (or, when none does, the widest: once two
// depths in a row hold fewer nodes than the widest so far, the tree is taken to narrow
// towards the bound), and returns them in the serial order with the work of that last,
// deciding, walk. Every other try counts in s's work too. It stops early when s is
// aborted. The frontier is f, emptied first, or one that takes its place (f's memory is
// reused by the next collection into the one returned).
//
// With more than one worker, once a depth holds o.From nodes a worker, the deeper depths
// are tried on s's walkers below that depth's nodes (collectBelow).
//
// With o.Refine set, the depth is chosen by the nodes there, as without it; then the nodes
// of that depth are collected again, each split further where refine asks.
func collect(s Search, f *Frontier, o collection) (*Frontier, Work) {
	if o.From <= 0 {
		o.From = collectFrom
	}
	f, last := collectDepth(s, f, o)
	if o.Refine == nil || s.Aborted() || len(f.nodes) == 0 {
		return f, last
	}
	depth := f.G(0)
	f.reset()
	_, _, _, last = walk(s, nil, 0, &Cut{At: depth, into: f, refine: o.Refine, bound: o.Bound})
	return f, last
}

// collectDepth is collect without refine.
func collectDepth(s Search, f *Frontier, o collection) (*Frontier, Work) {
	top := Walker(s)
	var last Work
	f.reset()
	parallel := o.Workers > 1
	widest, at, narrower := 0, 0, 0 // the widest depth so far, and the depths since narrower
	for d := 1; d < o.Bound; d++ {
		// Room for the next depth's nodes (a few times this one's), so that they are not
		// copied as the slices grow.
		if next := min(4*max(len(f.nodes), 64), 3*o.Want); cap(f.nodes) < next && len(f.nodes) < o.Want {
			f.reserve(next, next*(d+1))
		}
		f.reset()
		_, _, _, last = walk(top, nil, 0, &Cut{At: d, into: f})
		if top.Aborted() || len(f.nodes) >= o.Want || narrower < 0 {
			break
		}
		if len(f.nodes) > widest {
			widest, at, narrower = len(f.nodes), d, 0
		} else if narrower++; narrower == 2 {
			// The tree narrows towards the bound: deeper frontiers only thin out, and
			// collecting each would search the whole pass again. Take the widest.
			d, narrower = at-1, -1
			continue
		}
		if parallel && len(f.nodes) >= o.From*o.Workers {
			parallel = false
			below, w, ok := collectBelow(s, f, last, d, o, widest, at, narrower)
			if top.Aborted() {
				break
			}
			if ok {
				return below, w
			}
			// A value raised below the frontier: the deeper depths from the root.
		}
	}
	return f, last
}

// collectBelow goes on from top, the frontier collectDepth collected at depth d0 with the
// work w0, on o.Workers of crew's walkers: it counts the nodes of each deeper depth below
// top's nodes (storing none), chooses the depth as collectDepth does (widest, at and
// narrower are its state at d0), and collects that depth into arrays of exactly its size,
// the nodes below each of top's in their place. It returns the frontier (top itself if the
// choice is d0) and the work of the walk that would collect it from the root.
//
// That is the serial collection's frontier as long as no node's walk raised its value
// (BPMX) so far that it cuts the node's parent: the serial walk would have seen the raised
// value above the node, and cut its later siblings. ok is false when one did, or a walk
// was aborted.
func collectBelow(s Search, top *Frontier, w0 Work, d0 int, o collection, widest, at, narrower int) (*Frontier, Work, bool) {
	n := len(top.nodes)
	ws := s.Walkers(o.Workers)
	defer s.Gather(ws, Work{})
	// run walks below every node of top down to depth d, counting, or into the places that
	// off gives each node's nodes, and returns what lies below each node.
	run := func(d int, into *Frontier, off []span, room []portion) ([]portion, bool) {
		shares := make([]portion, n)
		if !each(ws, n, func(w Walker, i int) {
			c := &Cut{At: d}
			if into != nil {
				c.into = into.window(off[i], room[i].span)
			}
			shares[i] = below(w, top, i, c, o)
			if into != nil {
				for k := range c.into.nodes {
					c.into.nodes[k].path += uint32(off[i].paths)
				}
			}
		}) {
			return nil, false
		}
		for i := range shares {
			if shares[i].raised {
				return nil, false
			}
		}
		return shares, true
	}

	// Count each depth's nodes until one is chosen.
	var chosen, atShares []portion // the depth's, and the widest's when deeper than d0
	d := d0 + 1
	for ; d < o.Bound; d++ {
		shares, ok := run(d, nil, nil, nil)
		if !ok {
			return nil, Work{}, false
		}
		total := 0
		for i := range shares {
			total += shares[i].nodes
		}
		chosen = shares
		if total >= o.Want {
			break
		}
		if total > widest {
			widest, at, atShares, narrower = total, d, shares, 0
		} else if narrower++; narrower == 2 {
			d, chosen = at, atShares
			break
		}
	}
	if d >= o.Bound {
		d = o.Bound - 1 // the deepest tried, as collectDepth ends
	}
	if d == d0 || chosen == nil {
		return top, w0, true
	}

	// Collect the chosen depth, each node's share in its place.
	off := make([]span, n)
	var end span
	for i := range chosen {
		off[i] = end
		end.nodes += chosen[i].nodes
		end.paths += chosen[i].paths
	}
	into := top.sized(end)
	got, ok := run(d, into, off, chosen)
	if !ok {
		return nil, Work{}, false
	}
	// The work before each node, from the root's walk: before its top node, below the top
	// nodes before that one, and below its top node before it.
	w := w0
	for i := range got {
		if got[i].span != chosen[i].span {
			return nil, Work{}, false // cannot be: the same walk twice
		}
		base := since(w, w0)
		base.Add(top.nodes[i].before)
		for k := off[i].nodes; k < off[i].nodes+got[i].nodes; k++ {
			into.nodes[k].before.Add(base)
		}
		w.Add(got[i].work)
	}
	return into, w, true
}

// portion is what lies below one node of a frontier at a deeper depth: its nodes there,
// their moves, the work of reaching them, and whether the walk raised the node's value
// so far that it cuts the node's parent.
type portion struct {
	span
	work   Work
	raised bool
}

// below walks below node i of top (shallower than c.At) under c (collectBelow): counting
// its nodes at c.At, or recording them into c's window.
func below(w Walker, top *Frontier, i int, c *Cut, o collection) portion {
	_, value, _, work := walk(w, top, i, c)
	// A raise matters to the top only where it cuts the node's parent (g-1 + v-1 > bound):
	// short of that the parent stays within the bound, and nothing above is cut
	// (docs/SEARCH.md, section 6), as the driver's replay reasons.
	sh := portion{span: c.counted, work: work, raised: top.G(i)+value > o.Bound+2}
	if value > top.H(i) && !sh.raised && o.Raised != nil {
		o.Raised.Add(1)
	}
	if c.into != nil {
		sh.span = c.into.size()
	}
	return sh
}

// each calls f(w, k) for every k from 0 to n-1, on the walkers, one goroutine each, which
// take the next k's 4 at a time (for balance on many cores). It reports whether no walker
// was aborted.
func each(ws []Walker, n int, f func(w Walker, k int)) bool {
	const chunk = 4
	var taken atomic.Int64
	onEach(ws, func(w Walker) {
		for !w.Aborted() {
			k0 := int(taken.Add(chunk) - chunk)
			if k0 >= n {
				return
			}
			for k := k0; k < min(k0+chunk, n) && !w.Aborted(); k++ {
				f(w, k)
			}
		}
	})
	for _, w := range ws {
		if w.Aborted() {
			return false
		}
	}
	return true
}

// onEach runs f on each of the walkers, one goroutine each, and returns when all have
// returned.
func onEach(ws []Walker, f func(w Walker)) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	wg.Wait()
}
