package ida

import (
	"fmt"

	"github.com/tilekit/tilekit/prune"
)

// The loop of the Manhattan distance and its refinements on 4x4: lc, wd, pdb (IDA15's
// tables) and max.

// comps are the components of a heuristic that a move updates: the Manhattan distance
// (which the sets' loop keeps too, with the walking-distance ids), each row's and column's
// code of tiles in their goal line and their linear conflicts, the walking-distance
// pattern ids, and IDA15's four lookups and their sum.
type comps struct {
	md, lc           int
	rowCode, colCode [4]uint16
	wdRow, wdCol     uint16
	part             [4]uint8
	pdbSum           int
}

// dfs is the pass of a node at depth g of value h whose blank is on cell blank, the
// automaton in state, for the Manhattan distance and these heuristics: a child's
// Manhattan distance alone is its parent's and one table difference; the others update
// only the components the heuristic uses (move), saved before the move and restored after
// it (undo). It reports whether the search found the goal or must stop.
func (st *walk) dfs(g, h int, blank uint8, state uint32) bool {
	if st.atFrontier(g) {
		found, _ := st.collect(g, blank, state, h, nil)
		return found
	}
	if st.expand() {
		return true
	}
	t := st.t
	md := st.kind == MD
	for i := uint8(0); i < t.nmoves[blank]; i++ {
		mv, ns := t.step(blank, state, i)
		if ns == prune.Pruned {
			continue
		}
		if !st.generate() {
			return true
		}
		q := mv.cell
		tile := st.board[q]
		var nh int
		if md {
			nh = h + int(t.md[tile][blank]) - int(t.md[tile][q])
		} else {
			st.undo[g] = st.comps
			st.pos[tile], st.pos[0] = blank, q
			st.move(tile, blank, q, mv.dir)
			if nh = st.h(); debugCheck {
				st.check(nh, tile, blank, q)
			}
		}
		if g+1+nh <= st.bound {
			st.path[g] = mv.dir
			if nh == 0 {
				st.depth = g + 1
				return true
			}
			st.board[blank] = tile
			if st.dfs(g+1, nh, q, ns) {
				return true
			}
			st.board[q] = tile
		}
		if !md {
			st.pos[tile], st.pos[0] = q, blank
			st.comps = st.undo[g]
		}
	}
	return false
}

// move updates the components the heuristic uses after the tile on cell q moved (the
// blank in direction dir) to cell blank; pos is the child's.
func (st *walk) move(tile, blank, q, dir uint8) {
	t := st.t
	switch st.kind {
	case hLC:
		st.md += int(t.md[tile][blank]) - int(t.md[tile][q])
		// A vertical move changes the codes of two rows and of the tile's column, whose
		// order of tiles it keeps; a horizontal one two columns and the tile's row.
		lines, cross, in, across := &st.rowCode, &st.colCode, &t.rowContrib, &t.colContrib
		a, b, c := q/4, blank/4, q%4
		if dir >= 2 {
			lines, cross, in, across = &st.colCode, &st.rowCode, &t.colContrib, &t.rowContrib
			a, b, c = q%4, blank%4, q/4
		}
		oa, ob := lines[a], lines[b]
		lines[a] -= in[tile][q]
		lines[b] += in[tile][blank]
		cross[c] += across[tile][blank] - across[tile][q]
		st.lc += int(t.lcLine[lines[a]]) + int(t.lcLine[lines[b]]) - int(t.lcLine[oa]) - int(t.lcLine[ob])
	case hWD, hMax:
		st.wdRow, st.wdCol = t.wdStep(st.wdRow, st.wdCol, dir, tile)
	}
	if st.kind == hPDB || st.kind == hMax {
		k := int(t.patOf[tile])
		old := st.part[k]
		st.part[k] = st.lookup(k)
		st.pdbSum += int(st.part[k]) - int(old)
	}
}

// check compares an incrementally updated heuristic value with one computed from scratch
// after the tile on q moved to blank.
func (st *walk) check(nh int, tile, blank, q uint8) {
	fresh := *st
	fresh.board[blank], fresh.board[q] = tile, 0
	fresh.pos[tile], fresh.pos[0] = blank, q
	fresh.init()
	if fresh.h() != nh {
		panic(fmt.Sprintf("ida: incremental %v heuristic %d, from scratch %d, board %v", st.kind, nh, fresh.h(), fresh.board))
	}
}
