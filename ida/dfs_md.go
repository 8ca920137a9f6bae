package ida

import (
	"github.com/tilekit/tilekit/prune"
)

// The loop of the Manhattan distance alone.

// dfsMD is the pass for the Manhattan distance alone, kept apart because it is the
// baseline whose speed (nodes per second) the benchmarks report.
func (st *search) dfsMD(g, h int, blank uint8, state uint32) bool {
	if st.atFrontier(g) {
		found, _ := st.collect(g, blank, state, h, nil)
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
		nh := h + int(t.md[tile][blank]) - int(t.md[tile][q])
		if g+1+nh > st.bound {
			continue
		}
		st.path[g] = mv.dir
		if nh == 0 {
			st.depth = g + 1
			return true
		}
		st.board[blank] = tile
		if st.dfsMD(g+1, nh, q, ns) {
			return true
		}
		st.board[q] = tile
	}
	return false
}
