package ida

import (
	"unsafe"

	"github.com/tilekit/tilekit/internal/prefetch"
)

// Lanes: one goroutine advances several depth-first searches of a pass ("lanes") round
// robin, a step at a time, so that the table reads of one wait in flight while the others
// work. A step computes a node's next table indices, asks the processor to prefetch their
// entries (package prefetch), and yields; when the lane's turn comes again, its entries
// are in cache. This is the interleaving that databases use for hash probes: group
// prefetching (Chen, Ailamaki, Gibbons & Mowry, ICDE 2004), asynchronous memory access
// chaining (Kocberber, Falsafi & Grot, VLDB 2015) and coroutines (Psaropoulos et al.,
// VLDB 2017), applied here to IDA* with pattern databases.
//
// A zero-aware table's index takes two reads: the ranks of the placement's map
// (zindex.Scheme.IndexOf), then the entry. Prefetching the first too, with a step of its
// own, made the lanes slower still (docs/RESULTS.md, "Lanes").
//
// The lanes are the subtrees of a pass's frontier (parallel.go), taken in the serial
// order: a pass is decided by the first subtree with a solution once all before it are
// done, as with several workers, so the solution and the serial counts are those of one
// lane. A lane runs dfsCat's steps (catalogue.go) on an explicit stack.

// catFrame is a node on a lane's path: dfsCat's arguments and locals.
type catFrame struct {
	h, hb int              // the node's value, and as BPMX raises it
	sum   *[maxParts]int16 // its partition sums
	bp    int              // its partition of the largest sum
	nc, j int              // its children, and the one being searched
	state uint32           // the pruning automaton's
	blank uint8
	step  uint8 // what the lane does next at this node
}

// The steps of a node in a lane.
const (
	stepEnter    = iota // expand: generate the children, prefetch their best partition's entries
	stepBest            // read them; compute the other indices of the children kept, prefetch
	stepRest            // read those; the node's value
	stepNext            // move to the next child within the bound
	stepReturned        // the child searched below has returned
)

// startLane sets a lane up to search below its current node (board, positions and path
// set, and init called) at depth g.
func (st *search) startLane(g int, blank uint8, state uint32) {
	if st.frames == nil {
		st.frames = make([]catFrame, len(st.path)+1)
	}
	st.g0, st.g = g, g
	st.frames[g] = catFrame{h: st.h(), sum: &st.cat.sum, bp: st.cat.bestPart(st.t.cat.np), state: state, blank: blank}
}

// stepLane advances the lane to its next prefetch and reports false, or to the end of its
// subtree and reports true; laneFound then says whether it found the goal (or was
// aborted, as dfsCat's found does).
func (st *search) stepLane() bool {
	for {
		g := st.g
		f := &st.frames[g]
		switch f.step {
		case stepEnter:
			st.expanded++
			if st.expanded&(pollEvery-1) == 0 && st.poll() {
				if st.laneReturn(true, f.h) {
					return true
				}
				continue
			}
			nc, ok := st.catChildren(g, f.blank, f.state, f.bp)
			if !ok {
				if st.laneReturn(true, f.h) {
					return true
				}
				continue
			}
			st.catIndexBest(g, f.bp, nc)
			f.nc, f.step = nc, stepBest
			st.prefetchBest(g, f.bp, nc)
			return false
		case stepBest:
			st.catReadBest(g, f.blank, f.sum, f.bp, f.nc)
			f.step = stepRest
			if st.catStepRest(g, f.blank, f.bp, f.nc) > 0 {
				st.catIndexRest(g, f.bp, f.nc)
				st.prefetchRest(g, f.bp, f.nc)
				return false
			}
		case stepRest:
			f.hb = st.catReadRest(g, f.h, f.blank, f.sum, f.bp, f.nc)
			if g+f.hb > st.bound {
				if st.laneReturn(false, f.hb) {
					return true
				}
				continue
			}
			f.j, f.step = 0, stepNext
		case stepNext:
			ch := &st.kids[g]
			for f.j < f.nc && g+1+ch[f.j].h > st.bound {
				f.j++
			}
			if f.j == f.nc {
				if st.laneReturn(false, f.hb) {
					return true
				}
				continue
			}
			c := &ch[f.j]
			st.catMove(c, f.blank)
			st.path[g] = c.dir
			f.step = stepReturned
			if c.h == 0 {
				st.depth = g + 1
				st.laneFound, st.laneH = true, 0
				continue
			}
			st.g = g + 1
			st.frames[g+1] = catFrame{h: c.h, sum: &c.sum, bp: c.bp, state: c.state, blank: c.q}
		case stepReturned:
			c := &st.kids[g][f.j]
			st.catUnmove(c, f.blank)
			if st.laneFound {
				if st.laneReturn(true, f.hb) {
					return true
				}
				continue
			}
			f.j++
			f.step = stepNext
			if hc := st.laneH; hc-1 > f.hb {
				f.hb = hc - 1
				if g+f.hb > st.bound {
					ch := &st.kids[g]
					st.countCut(g, f.j-1, f.nc, func(k int) int { return ch[k].h })
					if st.laneReturn(false, f.hb) {
						return true
					}
				}
			}
		}
	}
}

// laneReturn returns from the lane's current node with dfsCat's results, and reports
// whether that node was the root of its subtree.
func (st *search) laneReturn(found bool, h int) bool {
	st.laneFound, st.laneH = found, h
	if st.g == st.g0 {
		return true
	}
	st.g--
	return false
}

// entry returns the address of entry i of a lookup's table.
func (l *lookupTab) entry(i uint32) uintptr {
	if l.bits != nil {
		return uintptr(unsafe.Pointer(unsafe.SliceData(l.bits))) + uintptr(i>>3)
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(l.nib))) + uintptr(i>>1)
}

// prefetchBest prefetches the entries catReadBest reads, and the automaton's rows of the
// children (read when they are expanded).
func (st *search) prefetchBest(g, bp, nc int) {
	s := st.t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	n := 0
	fsm := uintptr(unsafe.Pointer(unsafe.SliceData(st.t.fsm)))
	for j := 0; j < nc; j++ {
		c := &ch[j]
		k, i := s.of[c.tile][bp]&(maxCatLookups-1), s.slot[c.tile][bp]&(maxTouch-1)
		st.fetch[n] = s.look[k].entry(c.idx[i])
		st.fetch[n+1] = fsm + uintptr(c.state)*16
		n += 2
	}
	prefetch.Addrs(st.fetch[:n])
}

// prefetchRest prefetches the entries catReadRest reads.
func (st *search) prefetchRest(g, bp, nc int) {
	s := st.t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	n := 0
	for j := 0; j < nc; j++ {
		c := &ch[j]
		if !c.full {
			continue
		}
		tl, m, skip := &s.touch[c.tile], int(s.ntouch[c.tile]), int(s.slot[c.tile][bp])
		for i := 0; i < m && n < len(st.fetch); i++ {
			if i != skip {
				i := i & (maxTouch - 1)
				st.fetch[n] = s.look[tl[i]&(maxCatLookups-1)].entry(c.idx[i])
				n++
			}
		}
	}
	prefetch.Addrs(st.fetch[:n])
}
