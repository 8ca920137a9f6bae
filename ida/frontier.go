package ida

import "github.com/tilekit/tilekit/zindex"

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

// collectFrontier searches the top of the current pass down to the shallowest depth, from
// first on and below the bound, that holds at least want frontier nodes (or, when none
// does, the widest: once two depths in a row hold fewer nodes than the widest so far, the
// tree is taken to narrow towards the bound), and returns them in the serial order with the
// work of that last, deciding, search. Every other try is counted in st's nodes too. It
// stops early when the search is aborted. The frontier is st's own, reused by its next
// collection.
func (st *search) collectFrontier(first, want int) (*frontier, Work) {
	var last Work
	f := &st.frontier
	if st.t.cat != nil {
		f.cats.nl, f.cats.np = st.t.cat.nl, st.t.cat.np
	}
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
			continue
		}
		if narrower++; narrower == 2 {
			// The tree narrows towards the bound: deeper frontiers only thin out, and
			// collecting each would search the whole pass again. Take the widest.
			d, narrower = at-1, -1
		}
	}
	st.collectAt = never
	return f, last
}

// place sets ws up to search below node i of f.
func (ws *search) place(f *frontier, i int) {
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
