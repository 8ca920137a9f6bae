package ida

import (
	"sync"
	"sync/atomic"

	"github.com/tilekit/tilekit/zindex"
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
	// before is the work of the search that collected the node, from its start to the node:
	// what a serial pass does before it reaches the node.
	before Work
}

// frontier is the nodes of a split pass's frontier, in serial order, and their paths. The
// nodes hold no pointers, so that the collector need not scan them.
type frontier struct {
	nodes []frontierNode
	paths []uint8
	cats  catLookups // a catalogue's lookups at each node, when the search has one
}

// catLookups are the lookups of a catalogue's search at each of a frontier's nodes, as
// catState holds them but only the catalogue's nl lookups and np partitions a node (a
// catState is 704 bytes; small-t's lookups are 308).
type catLookups struct {
	nl, np int
	ex, hm []uint8
	z      []zindex.State
	sum    []int16
}

// add appends a node's lookups, c's with the partition sums sum.
func (cl *catLookups) add(c *catState, sum *[maxParts]int16) {
	cl.ex = append(cl.ex, c.ex[:cl.nl]...)
	cl.hm = append(cl.hm, c.hm[:cl.nl]...)
	cl.z = append(cl.z, c.z[:cl.nl]...)
	cl.sum = append(cl.sum, sum[:cl.np]...)
}

// len returns how many nodes' lookups cl holds.
func (cl *catLookups) len() int {
	if cl.nl == 0 {
		return 0
	}
	return len(cl.ex) / cl.nl
}

// get sets c to node i's lookups.
func (cl *catLookups) get(i int, c *catState) {
	*c = catState{}
	copy(c.ex[:], cl.ex[i*cl.nl:(i+1)*cl.nl])
	copy(c.hm[:], cl.hm[i*cl.nl:(i+1)*cl.nl])
	copy(c.z[:], cl.z[i*cl.nl:(i+1)*cl.nl])
	copy(c.sum[:], cl.sum[i*cl.np:(i+1)*cl.np])
}

// reserve makes room for n nodes' lookups of nl lookups and np partitions, keeping none.
func (cl *catLookups) reserve(n, nl, np int) {
	cl.nl, cl.np = nl, np
	if cap(cl.ex) < n*nl || cap(cl.sum) < n*np {
		cl.ex, cl.hm = make([]uint8, 0, n*nl), make([]uint8, 0, n*nl)
		cl.z, cl.sum = make([]zindex.State, 0, n*nl), make([]int16, 0, n*np)
	}
	cl.reset()
}

// reset empties cl, keeping its memory.
func (cl *catLookups) reset() {
	cl.ex, cl.hm, cl.z, cl.sum = cl.ex[:0], cl.hm[:0], cl.z[:0], cl.sum[:0]
}

// append adds o's nodes, their paths and lookups, after f's.
func (f *frontier) append(o *frontier) {
	base := uint32(len(f.paths))
	for _, n := range o.nodes {
		n.path += base
		f.nodes = append(f.nodes, n)
	}
	f.paths = append(f.paths, o.paths...)
	if f.cats.nl > 0 {
		f.cats.ex = append(f.cats.ex, o.cats.ex...)
		f.cats.hm = append(f.cats.hm, o.cats.hm...)
		f.cats.z = append(f.cats.z, o.cats.z...)
		f.cats.sum = append(f.cats.sum, o.cats.sum...)
	}
}

// path returns the path of node i (in the solver's frame).
func (f *frontier) path(i int) []uint8 {
	n := &f.nodes[i]
	return f.paths[n.path : n.path+uint32(n.g)]
}

// reset empties f, keeping its memory.
func (f *frontier) reset() {
	f.nodes, f.paths = f.nodes[:0], f.paths[:0]
	f.cats.reset()
}

// parallelFrontierFrom is how many frontier nodes each worker must have to share before
// collectFrontier collects the deeper depths on its workers (collectBelow; the tests set
// another: Options.frontierFrom).
const parallelFrontierFrom = 64

// collectFrontier searches the top of the current pass down to the shallowest depth, from
// first on and below the bound, that holds at least want frontier nodes (or, when none
// does, the widest: once two depths in a row hold fewer nodes than the widest so far, the
// tree is taken to narrow towards the bound), and returns them in the serial order with the
// work of that last, deciding, search. Every other try is counted in st's nodes too. It
// stops early when the search is aborted. The frontier is st's own, reused by its next
// collection.
//
// With more than one worker, once a depth holds parallelFrontierFrom nodes a worker, the
// deeper depths are tried on the workers below that depth's nodes (collectBelow).
//
// With refine set, the depth is chosen by the nodes there, as without it; then the nodes of
// that depth are collected again, each split further where refine asks.
func (st *walk) collectFrontier(first, want, workers int) (*frontier, Work) {
	refine := st.refine
	st.refine = nil
	f, last := st.collectDepth(first, want, workers)
	st.refine = refine
	if refine == nil || st.aborted || len(f.nodes) == 0 {
		return f, last
	}
	depth := int(f.nodes[0].g)
	f = &st.frontier
	f.reset()
	st.tryStart = Work{Nodes: st.nodes, Expanded: st.expanded}
	st.collectAt = depth
	st.root()
	st.collectAt = never
	return f, Work{Nodes: st.nodes - st.tryStart.Nodes, Expanded: st.expanded - st.tryStart.Expanded}
}

// collectDepth is collectFrontier without refine.
func (st *walk) collectDepth(first, want, workers int) (*frontier, Work) {
	var last Work
	f := &st.frontier
	if st.t.cat != nil {
		f.cats.nl, f.cats.np = st.t.cat.nl, st.t.cat.np
	}
	parallel := workers > 1
	widest, at, narrower := 0, 0, 0 // the widest depth so far, and the depths since narrower
	for d := first; d < st.bound; d++ {
		st.tryStart = Work{Nodes: st.nodes, Expanded: st.expanded}
		st.collectAt = d
		// Room for the next depth's nodes (a few times this one's), so that they are not
		// copied as the slice grows.
		if next := min(4*max(len(f.nodes), 64), 3*want); cap(f.nodes) < next && len(f.nodes) < want {
			f.nodes = make([]frontierNode, 0, next)
			f.paths = make([]uint8, 0, next*(d+1))
			if st.t.cat != nil {
				f.cats.reserve(next, st.t.cat.nl, st.t.cat.np)
			}
		}
		f.reset()
		st.root()
		last = Work{Nodes: st.nodes - st.tryStart.Nodes, Expanded: st.expanded - st.tryStart.Expanded}
		if st.aborted || len(f.nodes) >= want || narrower < 0 {
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
		if parallel && len(f.nodes) >= st.frontierFrom*workers {
			parallel = false
			below, w, ok := st.collectBelow(f, last, d, want, workers, widest, at, narrower)
			if st.aborted {
				break
			}
			if ok {
				if below != f {
					st.frontier = *below
				}
				st.collectAt = never
				return f, w
			}
			// A value raised below the frontier: the deeper depths from the root.
		}
	}
	st.collectAt = never
	return f, last
}

// collectBelow goes on from top, the frontier collectFrontier collected at depth d0 with
// the work w0, on workers goroutines: it counts the nodes of each deeper depth below top's
// nodes (storing none), chooses the depth as collectFrontier does (widest, at and narrower
// are its state at d0), and collects that depth into arrays of exactly its size, the nodes
// below each of top's in their place. It returns the frontier (top itself if the choice is
// d0) and the work of the search that would collect it from the root.
//
// That is the serial collection's frontier as long as no node's search raised its value
// (BPMX) so far that it cuts the node's parent: the serial search would have seen the
// raised value above the node, and cut its later siblings. ok is false when one did, or
// the search was aborted.
func (st *walk) collectBelow(top *frontier, w0 Work, d0, want, workers, widest, at, narrower int) (*frontier, Work, bool) {
	n := len(top.nodes)
	walks, budget := st.spawn(workers)
	defer st.gather(walks, budget)
	// run searches below every node of top down to depth d, counting, or into the places
	// that off gives each node's nodes, and returns what lies below each node.
	run := func(d int, into *frontier, off []span, room []share) ([]share, bool) {
		shares := make([]share, n)
		if !eachOn(walks, n, func(ws *walk, i int) {
			ws.collectAt, ws.counting = d, into == nil
			var at, size span
			if into != nil {
				at, size = off[i], room[i].span
			}
			shares[i] = ws.below1(top, i, d, into, at, size)
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
	var chosen, atShares []share // the depth's, and the widest's when deeper than d0
	d := d0 + 1
	for ; d < st.bound; d++ {
		shares, ok := run(d, nil, nil, nil)
		if !ok {
			return nil, Work{}, false
		}
		total := 0
		for i := range shares {
			total += shares[i].nodes
		}
		chosen = shares
		if total >= want {
			break
		}
		if total > widest {
			widest, at, atShares, narrower = total, d, shares, 0
		} else if narrower++; narrower == 2 {
			d, chosen = at, atShares
			break
		}
	}
	if d >= st.bound {
		d = st.bound - 1 // the deepest tried, as collectFrontier ends
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
	into := &frontier{nodes: make([]frontierNode, end.nodes), paths: make([]uint8, end.paths)}
	if st.t.cat != nil {
		nl, np := st.t.cat.nl, st.t.cat.np
		into.cats = catLookups{nl: nl, np: np, ex: make([]uint8, end.nodes*nl), hm: make([]uint8, end.nodes*nl),
			z: make([]zindex.State, end.nodes*nl), sum: make([]int16, end.nodes*np)}
	}
	got, ok := run(d, into, off, chosen)
	if !ok {
		return nil, Work{}, false
	}
	// The work before each node, from the root's search: before its top node, below the
	// top nodes before that one, and below its top node before it.
	w := w0
	for i := range got {
		if got[i].span != chosen[i].span {
			return nil, Work{}, false // cannot be: the same search twice
		}
		base := Work{Nodes: w.Nodes - w0.Nodes, Expanded: w.Expanded - w0.Expanded}
		base.Add(top.nodes[i].before)
		for k := off[i].nodes; k < off[i].nodes+got[i].nodes; k++ {
			into.nodes[k].before.Add(base)
		}
		w.Add(got[i].work)
	}
	return into, w, true
}

// eachOn calls f(ws, k) for every k from 0 to n-1, on the walks, one goroutine each,
// which take the next k's 4 at a time (for balance on many cores). It reports whether no
// search was aborted.
func eachOn(walks []*walk, n int, f func(ws *walk, k int)) bool {
	const chunk = 4
	var taken atomic.Int64
	onEach(walks, func(ws *walk) {
		for !ws.aborted {
			k0 := int(taken.Add(chunk) - chunk)
			if k0 >= n {
				return
			}
			for k := k0; k < min(k0+chunk, n) && !ws.aborted; k++ {
				f(ws, k)
			}
		}
	})
	for _, ws := range walks {
		if ws.aborted {
			return false
		}
	}
	return true
}

// onEach runs f on each of the walks, one goroutine each, and returns when all have
// returned.
func onEach(walks []*walk, f func(ws *walk)) {
	var wg sync.WaitGroup
	for _, ws := range walks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ws)
		}()
	}
	wg.Wait()
}

// span is a run of a frontier's nodes and of their moves in its arena.
type span struct{ nodes, paths int }

// share is what lies below one node of a frontier at a deeper depth: its nodes there,
// their moves, the work of reaching them, and whether the search raised the node's value
// so far that it cuts the node's parent.
type share struct {
	span
	work   Work
	raised bool
}

// below1 searches below node i of top (shallower than d) down to depth d (collectBelow):
// counting its nodes there (ws.counting), or recording them into the place at off in into,
// of room's size, their paths and works before them counted from that place and from the
// node's search's start.
func (ws *walk) below1(top *frontier, i, d int, into *frontier, off, room span) share {
	ws.counted, ws.countedPaths = 0, 0
	if into != nil {
		// Exactly the room counted: more would be appended elsewhere, and be caught.
		ws.frontier = into.window(off, room)
	}
	it := &top.nodes[i]
	value := ws.searchNode(top, i)
	// A raise matters to the top only where it cuts the node's parent (g-1 + v-1 > bound):
	// short of that the parent stays within the bound, and nothing above is cut
	// (docs/SEARCH.md, section 6), as the driver's replay reasons.
	sh := share{work: Work{Nodes: ws.nodes - ws.tryStart.Nodes, Expanded: ws.expanded - ws.tryStart.Expanded}, raised: int(it.g)+value > ws.bound+2}
	if value > int(it.h) && !sh.raised && ws.raised != nil {
		ws.raised.Add(1) // for the tests (Options.raised)
	}
	sh.span = span{ws.counted, ws.countedPaths}
	if into != nil {
		sh.span = span{len(ws.frontier.nodes), len(ws.frontier.paths)}
		for k := range ws.frontier.nodes {
			ws.frontier.nodes[k].path += uint32(off.paths)
		}
		ws.frontier = frontier{}
	}
	return sh
}

// searchNode searches the pass below node i of f, from its own state (place), its work
// counted from ws.tryStart, and returns the node's value as the search left it.
func (ws *walk) searchNode(f *frontier, i int) int {
	it := &f.nodes[i]
	ws.place(f, i)
	ws.tryStart = Work{Nodes: ws.nodes, Expanded: ws.expanded}
	_, value := ws.below(int(it.g), int(it.h), it.blank, it.state)
	return value
}

// window returns an empty frontier whose nodes, moves and lookups are appended in place
// into f from o on, with room for n's.
func (f *frontier) window(o, n span) frontier {
	nodes := n.nodes
	w := frontier{nodes: f.nodes[o.nodes : o.nodes : o.nodes+nodes], paths: f.paths[o.paths : o.paths : o.paths+n.paths]}
	if nl, np := f.cats.nl, f.cats.np; nl > 0 {
		a, b := o.nodes*nl, (o.nodes+nodes)*nl
		w.cats = catLookups{nl: nl, np: np, ex: f.cats.ex[a:a:b], hm: f.cats.hm[a:a:b], z: f.cats.z[a:a:b],
			sum: f.cats.sum[o.nodes*np : o.nodes*np : (o.nodes+nodes)*np]}
	}
	return w
}

// place sets ws up to search below node i of f.
func (ws *walk) place(f *frontier, i int) {
	it := &f.nodes[i]
	ws.board = it.board
	for c := 0; c < ws.t.n; c++ {
		ws.pos[it.board[c]] = uint8(c)
	}
	ws.seed = nil
	if f.cats.len() > 0 {
		f.cats.get(i, &ws.seedBuf)
		ws.seed = &ws.seedBuf
	}
	ws.init()
	copy(ws.path[:], f.path(i))
}
