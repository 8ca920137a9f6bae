package tablefile

import "github.com/tilekit/tilekit/board"

// MaxEntries is the most entries a table may have: state ranks are 32-bit.
const MaxEntries = 1 << 32

// PDBEntries returns the number of entries of a pattern database on a board of the given
// number of cells, with k pattern tiles, plus the blank when blank is true:
// cells!/(cells-m)! with m = k or k+1. It returns -1 when that exceeds MaxEntries.
func PDBEntries(cells, k int, blank bool) int64 {
	m := k
	if blank {
		m++
	}
	if m > cells {
		return -1
	}
	n := int64(1)
	for i := 0; i < m; i++ {
		n *= int64(cells - i)
		if n > MaxEntries {
			return -1
		}
	}
	return n
}

// WDEntries returns the number of walking-distance patterns for the rows of a board of the
// given size whose goal has the blank in row blankRow: the number of pairs (blank row b,
// matrix m) where m is H x H, row l sums to W (W-1 when l = b), and column g sums to W
// (W-1 when g = blankRow). All such pairs are reachable from the goal pattern.
func WDEntries(size board.Size, blankRow int) int64 {
	lines, lineLen := size.H, size.W
	total := int64(0)
	for b := 0; b < lines; b++ {
		rows := make([]int, lines)
		cols := make([]int, lines)
		for l := range rows {
			rows[l] = lineLen
			cols[l] = lineLen
		}
		rows[b]--
		cols[blankRow]--
		total += countMatrices(rows, cols, 0, map[string]int64{})
	}
	return total
}

// countMatrices counts the non-negative integer matrices with the given row sums (from
// row l on) and column sums, memoised on the remaining column sums.
func countMatrices(rows, cols []int, l int, memo map[string]int64) int64 {
	if l == len(rows) {
		for _, c := range cols {
			if c != 0 {
				return 0
			}
		}
		return 1
	}
	key := string(rune(l)) + string(intsToBytes(cols))
	if n, ok := memo[key]; ok {
		return n
	}
	var n int64
	var fill func(g, left int)
	fill = func(g, left int) {
		if g == len(cols)-1 {
			if left <= cols[g] {
				cols[g] -= left
				n += countMatrices(rows, cols, l+1, memo)
				cols[g] += left
			}
			return
		}
		for v := 0; v <= left && v <= cols[g]; v++ {
			cols[g] -= v
			fill(g+1, left-v)
			cols[g] += v
		}
	}
	fill(0, rows[l])
	memo[key] = n
	return n
}

func intsToBytes(xs []int) []byte {
	b := make([]byte, len(xs))
	for i, x := range xs {
		b[i] = byte(x)
	}
	return b
}
