package ida

import (
	"fmt"

	"github.com/tilekit/tilekit/prune"
)

// The loop of IDA15's heuristics on 4x4: lc, wd, pdb and max.

// dfs is the pass for every other heuristic: each move updates only the components the
// heuristic uses, and restores them on the way back.
func (st *search) dfs(g int, blank uint8, state uint32) bool {
	if st.atFrontier(g) {
		found, _ := st.collect(g, blank, state, st.h(), nil)
		return found
	}
	if st.expand() {
		return true
	}
	t := st.t
	for i := uint8(0); i < t.nmoves[blank]; i++ {
		mv := t.moves[blank][i]
		ns := t.fsm[state*4+uint32(mv.dir)]
		if ns == prune.Pruned {
			continue
		}
		if !st.generate() {
			return true
		}
		q := mv.cell
		tile := st.board[q]
		vertical := mv.dir < 2

		// Save what the move changes, then update it.
		oldMD, oldLC := st.md, st.lc
		var oldCodes [3]uint16
		oldRow, oldCol := st.wdRow, st.wdCol
		var oldPart uint8
		var k int
		switch st.kind {
		case LC:
			st.md += int(t.md[tile][blank]) - int(t.md[tile][q])
			if vertical {
				rq, rb, c := q/4, blank/4, q%4
				oldCodes = [3]uint16{st.rowCode[rq], st.rowCode[rb], st.colCode[c]}
				st.rowCode[rq] -= t.rowContrib[tile][q]
				st.rowCode[rb] += t.rowContrib[tile][blank]
				st.colCode[c] += t.colContrib[tile][blank] - t.colContrib[tile][q]
				st.lc += int(t.lcLine[st.rowCode[rq]]) + int(t.lcLine[st.rowCode[rb]]) -
					int(t.lcLine[oldCodes[0]]) - int(t.lcLine[oldCodes[1]])
			} else {
				cq, cb, r := q%4, blank%4, q/4
				oldCodes = [3]uint16{st.colCode[cq], st.colCode[cb], st.rowCode[r]}
				st.colCode[cq] -= t.colContrib[tile][q]
				st.colCode[cb] += t.colContrib[tile][blank]
				st.rowCode[r] += t.rowContrib[tile][blank] - t.rowContrib[tile][q]
				st.lc += int(t.lcLine[st.colCode[cq]]) + int(t.lcLine[st.colCode[cb]]) -
					int(t.lcLine[oldCodes[0]]) - int(t.lcLine[oldCodes[1]])
			}
		case WD, Max:
			st.wdRow, st.wdCol = t.wdStep(st.wdRow, st.wdCol, mv.dir, tile)
		}
		if st.kind == PDB || st.kind == Max {
			st.pos[tile], st.pos[0] = blank, q
			k = int(t.patOf[tile])
			oldPart = st.part[k]
			st.part[k] = st.lookup(k)
			st.pdbSum += int(st.part[k]) - int(oldPart)
		}

		nh := st.h()
		if debugCheck {
			st.check(nh, tile, blank, q)
		}
		if g+1+nh <= st.bound {
			st.path[g] = mv.dir
			if nh == 0 {
				st.depth = g + 1
				return true
			}
			st.board[blank] = tile
			st.pos[tile], st.pos[0] = blank, q
			if st.dfs(g+1, q, ns) {
				return true
			}
			st.board[q] = tile
		}

		// Undo.
		st.pos[tile], st.pos[0] = q, blank
		switch st.kind {
		case LC:
			st.md, st.lc = oldMD, oldLC
			if vertical {
				st.rowCode[q/4], st.rowCode[blank/4], st.colCode[q%4] = oldCodes[0], oldCodes[1], oldCodes[2]
			} else {
				st.colCode[q%4], st.colCode[blank%4], st.rowCode[q/4] = oldCodes[0], oldCodes[1], oldCodes[2]
			}
		case WD, Max:
			st.wdRow, st.wdCol = oldRow, oldCol
		}
		if st.kind == PDB || st.kind == Max {
			st.pdbSum += int(oldPart) - int(st.part[k])
			st.part[k] = oldPart
		}
	}
	return false
}

// check compares an incrementally updated heuristic value with one computed from scratch
// after the tile on q moved to blank.
func (st *search) check(nh int, tile, blank, q uint8) {
	fresh := *st
	fresh.board[blank], fresh.board[q] = tile, 0
	fresh.pos[tile], fresh.pos[0] = blank, q
	fresh.init()
	if fresh.h() != nh {
		panic(fmt.Sprintf("ida: incremental %v heuristic %d, from scratch %d, board %v", st.kind, nh, fresh.h(), fresh.board))
	}
}
