package ida

import (
	"fmt"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
)

// The loop of a catalogue, or a set (catalogue.go prepares its tables), in steps.

// dfsCat runs the pass below a node at depth g whose heuristic value is h and whose
// partition sums are sum, the largest that of partition bp, with the blank on cell blank
// and the pruning automaton in state. It reports whether it found the goal, and the
// node's value as BPMX raised it.
//
// A child is first looked up in partition bp alone: most children that the bound prunes
// are pruned by it, and need none of their other lookups. Only the children it keeps are
// looked up in full. A pruned child's value is then a lower bound (its partition bp's),
// which prunes it as the full value would; only BPMX may see less of it, and a
// consistent catalogue (zero-aware tables) gives BPMX nothing to see.
func (st *search) dfsCat(g, h int, blank uint8, state uint32, sum *[maxParts]int16, bp int) (bool, int) {
	if st.atFrontier(g) {
		return st.collect(g, blank, state, h, sum)
	}
	if st.expand() {
		return true, h
	}
	nc, ok := st.catChildren(g, blank, state, bp)
	if !ok {
		return true, h
	}
	st.catIndexBest(g, bp, nc)
	st.catReadBest(g, blank, sum, bp, nc)
	st.catStepRest(g, blank, bp, nc)
	st.catIndexRest(g, bp, nc)
	hb := st.catReadRest(g, h, blank, sum, bp, nc)
	if g+hb > st.bound {
		return false, hb
	}
	// 4. Search below the children in order.
	ch := &st.kids[g]
	for j := 0; j < nc; j++ {
		c := &ch[j]
		if g+1+c.h > st.bound {
			continue
		}
		st.catMove(c, blank)
		st.path[g] = c.dir
		hc := c.h
		if st.t.cat.dual && hc > 0 && int(st.t.md[0][st.pos[0]]) <= dualReach {
			hc = max(hc, st.dualH())
		}
		found := false
		switch {
		case g+1+hc > st.bound:
		case hc == 0:
			st.depth, found = g+1, true
		default:
			found, hc = st.dfsCat(g+1, hc, c.q, c.state, &c.sum, c.bp)
		}
		st.catUnmove(c, blank)
		if found {
			return true, hb
		}
		if hc-1 > hb {
			hb = hc - 1
			if g+hb > st.bound {
				st.countCut(g, j, nc, func(k int) int { return ch[k].h })
				return false, hb
			}
		}
	}
	return false, hb
}

// catChildren is step 1 at a node at depth g: it generates the children that the
// automaton allows into st.kids[g], with their ranks in partition bp (catIndexBest then
// gives their indices), and returns how many; false when the node budget is spent.
func (st *search) catChildren(g int, blank uint8, state uint32, bp int) (int, bool) {
	t := st.t
	s := t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	nc := 0
	for i := uint8(0); i < t.nmoves[blank]; i++ {
		mv := t.moves[blank][i]
		ns := t.fsm[state*4+uint32(mv.dir)]
		if ns == prune.Pruned {
			continue
		}
		if !st.generate() {
			return nc, false
		}
		q := mv.cell
		tile := st.board[q]
		c := &ch[nc]
		nc++
		c.q, c.tile, c.dir, c.state = q, tile, mv.dir, ns
		c.md = st.md + int(t.md[tile][blank]) - int(t.md[tile][q])
		if s.wd {
			c.wdRow, c.wdCol = t.wdStep(st.wdRow, st.wdCol, mv.dir, tile)
		}
		st.pos[tile], st.pos[0] = blank, q
		j, k := s.slot[tile][bp]&(maxTouch-1), s.of[tile][bp]&(maxCatLookups-1)
		c.idx[j], c.z[j] = s.look[k].step(st.cat.z[k], q, blank, &st.pos, &st.board)
		st.pos[tile], st.pos[0] = q, blank
	}
	if len(t.fsm) > prefetchRowsAbove {
		prefetchRows(st, ch[:nc])
	}
	return nc, true
}

// catIndexBest completes the indices of the nc children in partition bp.
func (st *search) catIndexBest(g, bp, nc int) {
	s := st.t.cat
	if !s.zero {
		return
	}
	ch := &st.kids[g]
	bp &= maxParts - 1
	for j := 0; j < nc; j++ {
		c := &ch[j]
		i, k := s.slot[c.tile][bp]&(maxTouch-1), s.of[c.tile][bp]&(maxCatLookups-1)
		c.idx[i] = s.look[k].indexOf(c.idx[i], c.z[i], c.q)
	}
}

// catReadBest is step 2: it reads the nc children's entries in partition bp, and marks
// the children that the bound does not prune by them for a full lookup.
func (st *search) catReadBest(g int, blank uint8, sum *[maxParts]int16, bp, nc int) {
	t := st.t
	s := t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	for j := 0; j < nc; j++ {
		c := &ch[j]
		tile := c.tile
		k, i := s.of[tile][bp]&(maxCatLookups-1), s.slot[tile][bp]&(maxTouch-1)
		if s.look[k].bits != nil {
			c.ex[i], c.hm[i] = s.look[k].readBit(c.idx[i], st.cat.ex[k], st.cat.hm[k], c.md-st.md)
		} else if c.ex[i] = s.look[k].nibble(c.idx[i]); c.ex[i] == pdb.EscapeNibble {
			st.pos[tile], st.pos[0] = blank, c.q
			c.ex[i] = s.look[k].excess(c.idx[i], c.ex[i], &st.pos)
			st.pos[tile], st.pos[0] = c.q, blank
		}
		c.h = c.md + 2*int(sum[bp]-int16(st.cat.ex[k])+int16(c.ex[i]))
		if s.wd {
			c.h = max(c.h, t.wdOf(c.wdRow, c.wdCol))
		}
		c.full = s.eager || g+1+c.h <= st.bound
	}
}

// catStepRest is the first part of step 3: the ranks (or indices) of the other lookups
// of the children marked full. It returns how many.
func (st *search) catStepRest(g int, blank uint8, bp, nc int) int {
	s := st.t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	count := 0
	for j := 0; j < nc; j++ {
		c := &ch[j]
		if !c.full {
			continue
		}
		tile := c.tile
		st.pos[tile], st.pos[0] = blank, c.q
		tl, n, skip := &s.touch[tile], int(s.ntouch[tile]), int(s.slot[tile][bp])
		for i := 0; i < n; i++ {
			if i != skip {
				i := i & (maxTouch - 1)
				k := tl[i] & (maxCatLookups - 1)
				c.idx[i], c.z[i] = s.look[k].step(st.cat.z[k], c.q, blank, &st.pos, &st.board)
			}
		}
		count += n - 1
		st.pos[tile], st.pos[0] = c.q, blank
	}
	return count
}

// catIndexRest completes the indices of catStepRest.
func (st *search) catIndexRest(g, bp, nc int) {
	s := st.t.cat
	if !s.zero {
		return
	}
	ch := &st.kids[g]
	bp &= maxParts - 1
	for j := 0; j < nc; j++ {
		c := &ch[j]
		if !c.full {
			continue
		}
		tl, n, skip := &s.touch[c.tile], int(s.ntouch[c.tile]), int(s.slot[c.tile][bp])
		for i := 0; i < n; i++ {
			if i != skip {
				i := i & (maxTouch - 1)
				c.idx[i] = s.look[tl[i]&(maxCatLookups-1)].indexOf(c.idx[i], c.z[i], c.q)
			}
		}
	}
}

// catReadRest is the last part of step 3: it reads the other entries of the children
// marked full and sums their partitions, and returns the node's value h as BPMX raises it
// from its children's.
func (st *search) catReadRest(g, h int, blank uint8, sum *[maxParts]int16, bp, nc int) int {
	t := st.t
	s := t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	hb := h
	for j := 0; j < nc; j++ {
		c := &ch[j]
		if !c.full {
			hb = max(hb, c.h-1)
			continue
		}
		tile := c.tile
		tl, n, skip := &s.touch[tile], int(s.ntouch[tile]), int(s.slot[tile][bp])
		for i := 0; i < n; i++ {
			if i == skip {
				continue
			}
			i := i & (maxTouch - 1)
			k := tl[i] & (maxCatLookups - 1)
			if s.look[k].bits != nil {
				c.ex[i], c.hm[i] = s.look[k].readBit(c.idx[i], st.cat.ex[k], st.cat.hm[k], c.md-st.md)
			} else if c.ex[i] = s.look[k].nibble(c.idx[i]); c.ex[i] == pdb.EscapeNibble {
				st.pos[tile], st.pos[0] = blank, c.q
				c.ex[i] = s.look[k].excess(c.idx[i], c.ex[i], &st.pos)
				st.pos[tile], st.pos[0] = c.q, blank
			}
		}
		best, bestP := int16(-1), 0
		of, slot := &s.of[tile], &s.slot[tile]
		for p := 0; p < s.np; p++ {
			p := p & (maxParts - 1)
			v := sum[p] - int16(st.cat.ex[of[p]&(maxCatLookups-1)]) + int16(c.ex[slot[p]&(maxTouch-1)])
			c.sum[p] = v
			if v > best {
				best, bestP = v, p
			}
		}
		c.bp = bestP
		c.h = c.md + 2*int(best)
		if s.wd {
			c.h = max(c.h, t.wdOf(c.wdRow, c.wdCol))
		}
		hb = max(hb, c.h-1)
	}
	return hb
}

// catMove makes child c of the node whose blank is on blank the current node: its tile
// moves, and its Manhattan distance, walking-distance ids and lookups are swapped in for
// the node's (catUnmove swaps them back).
func (st *search) catMove(c *catChild, blank uint8) {
	st.board[blank] = c.tile
	st.pos[c.tile], st.pos[0] = blank, c.q
	st.catSwap(c)
	if debugCheck {
		st.checkCat(c.h, &c.sum)
	}
}

// catUnmove undoes catMove.
func (st *search) catUnmove(c *catChild, blank uint8) {
	st.board[c.q] = c.tile
	st.pos[c.tile], st.pos[0] = c.q, blank
	st.catSwap(c)
}

// catSwap exchanges the current node's Manhattan distance, walking-distance ids and the
// lookups that hold c's tile with c's.
func (st *search) catSwap(c *catChild) {
	s := st.t.cat
	st.md, c.md = c.md, st.md
	st.wdRow, c.wdRow = c.wdRow, st.wdRow
	st.wdCol, c.wdCol = c.wdCol, st.wdCol
	tl, n := &s.touch[c.tile], int(s.ntouch[c.tile])
	for i := 0; i < n; i++ {
		i, k := i&(maxTouch-1), tl[i&(maxTouch-1)]&(maxCatLookups-1)
		c.ex[i], st.cat.ex[k] = st.cat.ex[k], c.ex[i]
		c.hm[i], st.cat.hm[k] = st.cat.hm[k], c.hm[i]
		c.z[i], st.cat.z[k] = st.cat.z[k], c.z[i]
	}
}

// checkCat compares the incrementally updated value and partition sums of the current
// node with ones computed from scratch.
func (st *search) checkCat(h int, sum *[maxParts]int16) {
	fresh := *st
	fresh.seed = nil
	fresh.initCat()
	if fresh.cat.sum != *sum {
		panic(fmt.Sprintf("ida: incremental partition sums %v, from scratch %v, board %v", sum[:st.t.cat.np], fresh.cat.sum[:st.t.cat.np], st.board))
	}
	want := fresh.md + 2*fresh.cat.best(st.t.cat.np)
	if st.t.cat.wd {
		want = max(want, fresh.wd())
	}
	if want != h || fresh.cat.ex != st.cat.ex || fresh.cat.hm != st.cat.hm || fresh.cat.z != st.cat.z {
		panic(fmt.Sprintf("ida: incremental set value %d, from scratch %d, board %v", h, want, st.board))
	}
}
