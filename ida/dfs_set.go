package ida

import (
	"fmt"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/zindex"
)

// The loop of a plain additive set in nibbles (additive.go prepares its tables), for its
// dual lookups: every other set is searched by the catalogues' loop (dfs_catalogue.go).

// child is one successor while a node's children are evaluated.
type child struct {
	q, tile, dir uint8
	state        uint32 // the pruning automaton's
	md           int
	ir, ifl      uint32       // indices of the changed regular and reflected lookups
	er, ef       uint8        // their half excesses
	zr, zf       zindex.State // their placement ranks (zero-aware tables)
	wdRow, wdCol uint16       // walking-distance pattern ids, when maxed with WD
	h            int
}

// dfsSet runs the pass below a node at depth g whose heuristic value is h, with the blank
// on cell blank and the pruning automaton in state. It reports whether it found the goal, and the node's
// value as BPMX raised it.
func (st *search) dfsSet(g, h int, blank uint8, state uint32) (bool, int) {
	if g >= st.collectAt && st.collectHere(g) {
		return st.collect(g, blank, state, h)
	}
	st.expanded++
	if st.expanded&(pollEvery-1) == 0 && st.poll() {
		return true, h
	}
	t := st.t
	s := t.set
	reflect := s.lookups.reflect()
	var ch [4]child
	nc := 0
	fsm := t.fsm
	// 1. The children's indices.
	for i := uint8(0); i < t.nmoves[blank]; i++ {
		mv := t.moves[blank][i]
		ns := fsm[state*4+uint32(mv.dir)]
		if ns == prune.Pruned {
			continue
		}
		if st.nodes >= st.nodeCap && st.overBudget() {
			return true, h
		}
		st.nodes++
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
		kr, kf := s.regOf[tile]&(maxLookups-1), s.refOf[tile]&(maxLookups-1)
		c.ir, c.zr = s.reg[kr].step(st.set.zReg[kr], q, blank, &st.pos, &st.board)
		c.ir = s.reg[kr].indexOf(c.ir, c.zr, q)
		if reflect {
			c.ifl, c.zf = s.ref[kf].step(st.set.zRef[kf], q, blank, &st.pos, &st.board)
			c.ifl = s.ref[kf].indexOf(c.ifl, c.zf, q)
		}
		st.pos[tile], st.pos[0] = q, blank
	}
	if len(fsm) > prefetchRowsAbove {
		prefetchRows(st, ch[:nc])
	}
	// 2. Their entries, read together.
	for j := 0; j < nc; j++ {
		c := &ch[j]
		c.er = s.reg[s.regOf[c.tile]].nibble(c.ir)
		if reflect {
			c.ef = s.ref[s.refOf[c.tile]].nibble(c.ifl)
		}
	}
	// 3. Their values; BPMX: a child's value less one bounds this node's.
	hb := h
	for j := 0; j < nc; j++ {
		c := &ch[j]
		if c.er == pdb.EscapeNibble || c.ef == pdb.EscapeNibble {
			st.pos[c.tile], st.pos[0] = blank, c.q
			c.er = s.reg[s.regOf[c.tile]].excess(c.ir, c.er, &st.pos)
			if reflect {
				c.ef = s.ref[s.refOf[c.tile]].excess(c.ifl, c.ef, &st.pos)
			}
			st.pos[c.tile], st.pos[0] = c.q, blank
		}
		sr := st.set.sumReg - int(st.set.reg[s.regOf[c.tile]]) + int(c.er)
		sf := 0
		if reflect {
			sf = st.set.sumRef - int(st.set.ref[s.refOf[c.tile]]) + int(c.ef)
		}
		c.h = c.md + 2*max(sr, sf)
		if s.wd {
			c.h = max(c.h, t.wdOf(c.wdRow, c.wdCol))
		}
		hb = max(hb, c.h-1)
	}
	if g+hb > st.bound {
		return false, hb
	}
	// 4. Search below the children in order.
	dual := s.lookups.dual()
	for j := 0; j < nc; j++ {
		c := &ch[j]
		if g+1+c.h > st.bound {
			continue
		}
		saved, savedMD, savedRow, savedCol := st.set, st.md, st.wdRow, st.wdCol
		st.wdRow, st.wdCol = c.wdRow, c.wdCol
		st.board[blank] = c.tile
		st.pos[c.tile], st.pos[0] = blank, c.q
		st.md = c.md
		rr, rf := s.regOf[c.tile], s.refOf[c.tile]
		st.set.sumReg += int(c.er) - int(st.set.reg[rr])
		st.set.reg[rr], st.set.zReg[rr] = c.er, c.zr
		if reflect {
			st.set.sumRef += int(c.ef) - int(st.set.ref[rf])
			st.set.ref[rf], st.set.zRef[rf] = c.ef, c.zf
		}
		if debugCheck {
			st.checkSet(c.h)
		}
		hc := c.h
		if dual && hc > 0 && int(st.t.md[0][st.pos[0]]) <= dualReach {
			hc = max(hc, st.dualH())
		}
		found := false
		switch {
		case g+1+hc > st.bound:
		case hc == 0:
			st.path[g] = c.dir
			st.depth = g + 1
			found = true
		default:
			st.path[g] = c.dir
			found, hc = st.dfsSet(g+1, hc, c.q, c.state)
		}
		st.board[c.q] = c.tile
		st.pos[c.tile], st.pos[0] = c.q, blank
		st.md, st.set, st.wdRow, st.wdCol = savedMD, saved, savedRow, savedCol
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

// checkSet compares the incrementally updated regular and reflected value of the current
// node with one computed from scratch.
func (st *search) checkSet(h int) {
	fresh := *st
	fresh.initSet()
	want := fresh.md + 2*max(fresh.set.sumReg, fresh.set.sumRef)
	if want != h || fresh.set != st.set {
		panic(fmt.Sprintf("ida: incremental set value %d, from scratch %d, board %v", h, want, st.board))
	}
}
