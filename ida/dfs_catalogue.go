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
func (st *walk) dfsCat(g, h int, blank uint8, state uint32, sum *[maxParts]int16, bp int) (bool, int) {
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
	st.catIndex(g, bp, nc, false)
	st.catRead(g, h, blank, sum, bp, nc, false)
	st.catStepRest(g, blank, bp, nc)
	st.catIndex(g, bp, nc, true)
	hb := st.catRead(g, h, blank, sum, bp, nc, true)
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
func (st *walk) catChildren(g int, blank uint8, state uint32, bp int) (int, bool) {
	t := st.t
	s := t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	nc := 0
	for i := uint8(0); i < t.nmoves[blank]; i++ {
		mv, ns := t.step(blank, state, i)
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
		c.idx[j], c.z[j] = s.look[k].Step(st.cat.z[k], q, blank, &st.pos, &st.board)
		st.pos[tile], st.pos[0] = q, blank
	}
	if len(t.fsm) > prefetchRowsAbove {
		prefetchRows(st, ch[:nc])
	}
	return nc, true
}

// slots returns which of child c's lookups (its places in touch[c.tile]) a step takes,
// as [lo, hi) less skip: partition bp's alone, or (rest) the others, none when c is not
// marked full.
func (st *walk) slots(c *catChild, bp int, rest bool) (lo, hi, skip int) {
	s := st.t.cat
	slot := int(s.slot[c.tile][bp&(maxParts-1)])
	switch {
	case !rest:
		return slot, slot + 1, -1
	case !c.full:
		return 0, 0, -1
	}
	return 0, int(s.ntouch[c.tile]), slot
}

// catIndex completes the indices of the nc children's lookups that step left to it
// (zero-aware tables): in partition bp, or (rest) the others of the children marked full.
func (st *walk) catIndex(g, bp, nc int, rest bool) {
	s := st.t.cat
	if !s.zero {
		return
	}
	ch := &st.kids[g]
	for j := 0; j < nc; j++ {
		c := &ch[j]
		lo, hi, skip := st.slots(c, bp, rest)
		for i := lo; i < hi; i++ {
			if i != skip {
				i := i & (maxTouch - 1)
				c.idx[i] = s.look[s.touch[c.tile][i]&(maxCatLookups-1)].IndexOf(c.idx[i], c.z[i], c.q)
			}
		}
	}
}

// catStepRest is the first part of step 3: the ranks (or indices) of the other lookups
// of the children marked full.
func (st *walk) catStepRest(g int, blank uint8, bp, nc int) {
	s := st.t.cat
	ch := &st.kids[g]
	for j := 0; j < nc; j++ {
		c := &ch[j]
		lo, hi, skip := st.slots(c, bp, true)
		st.pos[c.tile], st.pos[0] = blank, c.q
		for i := lo; i < hi; i++ {
			if i != skip {
				i := i & (maxTouch - 1)
				k := s.touch[c.tile][i] & (maxCatLookups - 1)
				c.idx[i], c.z[i] = s.look[k].Step(st.cat.z[k], c.q, blank, &st.pos, &st.board)
			}
		}
		st.pos[c.tile], st.pos[0] = c.q, blank
	}
}

// catRead reads the nc children's entries and returns the node's value h as BPMX raises
// it from its children's. Step 2 (not rest) reads their entries in partition bp and marks
// the children that the bound does not prune by them for a full lookup; step 3 (rest)
// reads the other entries of the children marked full and sums their partitions. A table
// in the bit encoding gives an entry from the node's value and one bit, another its nibble
// or, for an escape, the escape list.
func (st *walk) catRead(g, h int, blank uint8, sum *[maxParts]int16, bp, nc int, rest bool) int {
	t := st.t
	s := t.cat
	ch := &st.kids[g]
	bp &= maxParts - 1
	hb := h
	for j := 0; j < nc; j++ {
		c := &ch[j]
		tile := c.tile
		lo, hi, skip := st.slots(c, bp, rest)
		for i := lo; i < hi; i++ {
			if i == skip {
				continue
			}
			i := i & (maxTouch - 1)
			k := s.touch[tile][i] & (maxCatLookups - 1)
			if s.look[k].InBits() {
				c.ex[i], c.hm[i] = s.look[k].ReadBit(c.idx[i], st.cat.ex[k], st.cat.hm[k], c.md-st.md)
			} else if c.ex[i] = s.look[k].Nibble(c.idx[i]); c.ex[i] == pdb.EscapeNibble {
				st.pos[tile], st.pos[0] = blank, c.q
				c.ex[i] = s.look[k].Excess(c.idx[i], c.ex[i], &st.pos)
				st.pos[tile], st.pos[0] = c.q, blank
			}
		}
		switch {
		case !rest:
			k := s.of[tile][bp] & (maxCatLookups - 1)
			c.h = c.md + 2*int(sum[bp]-int16(st.cat.ex[k])+int16(c.ex[s.slot[tile][bp]&(maxTouch-1)]))
		case c.full:
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
		}
		if s.wd && (!rest || c.full) {
			c.h = max(c.h, t.wdOf(c.wdRow, c.wdCol))
		}
		if !rest {
			c.full = s.eager || g+1+c.h <= st.bound
		}
		hb = max(hb, c.h-1)
	}
	return hb
}

// catMove makes child c of the node whose blank is on blank the current node: its tile
// moves, and its Manhattan distance, walking-distance ids and lookups are swapped in for
// the node's (catUnmove swaps them back).
func (st *walk) catMove(c *catChild, blank uint8) {
	st.board[blank] = c.tile
	st.pos[c.tile], st.pos[0] = blank, c.q
	st.catSwap(c)
	if debugCheck {
		st.checkCat(c.h, &c.sum)
	}
}

// catUnmove undoes catMove.
func (st *walk) catUnmove(c *catChild, blank uint8) {
	st.board[c.q] = c.tile
	st.pos[c.tile], st.pos[0] = c.q, blank
	st.catSwap(c)
}

// catSwap exchanges the current node's Manhattan distance, walking-distance ids and the
// lookups that hold c's tile with c's.
func (st *walk) catSwap(c *catChild) {
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
func (st *walk) checkCat(h int, sum *[maxParts]int16) {
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
