package prune

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/tilekit/tilekit/board"
)

// MaxDepth is the deepest search for duplicates Build takes: beyond it the number of
// strings (about 2.4^depth from each cell on 5x5) outgrows the memory of a machine.
const MaxDepth = 24

// A Duplicate is a string of blank moves from a cell that has the same effect as an
// earlier string (Kept) from the same cell: shorter, or as long and first in the order
// U < D < L < R. Every proper prefix of Pruned is the first string of its effect.
type Duplicate struct {
	Cell   int
	Pruned []board.Dir
	Kept   []board.Dir
}

// effect is a position reached from the identity by a string of blank moves: the cell each
// cell's content came from, five bits a cell, twelve cells a word, the blank's own cell
// left out (its content is the one missing), and the blank's cell in the top bits.
type effect [2]uint64

// node is a string the search keeps: its effect, where its blank is, and how it was
// reached (the index of its parent in the level above, and the last direction).
type node struct {
	key    effect
	blank  uint8
	dir    uint8
	parent int32
}

// Duplicates finds the duplicate strings of at most depth moves from every cell of the
// board, in the order of cells and, within a cell, in shortlex order, searching from
// several cells at once (GOMAXPROCS): the result does not depend on how many. It stops
// early with ctx's error.
func Duplicates(ctx context.Context, size board.Size, depth int) ([]Duplicate, error) {
	if err := size.Check(); err != nil {
		return nil, err
	}
	if depth < 0 || depth > MaxDepth {
		return nil, fmt.Errorf("prune: depth %d out of range 0 to %d", depth, MaxDepth)
	}
	n := size.Cells()
	per := make([][]Duplicate, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				per[c], errs[c] = duplicatesFrom(ctx, size, c, depth)
			}
		}()
	}
	for c := 0; c < n; c++ {
		next <- c
	}
	close(next)
	wg.Wait()
	var out []Duplicate
	for c := 0; c < n; c++ {
		if errs[c] != nil {
			return nil, errs[c]
		}
		out = append(out, per[c]...)
	}
	return out, nil
}

// duplicatesFrom runs the breadth-first search from one cell.
func duplicatesFrom(ctx context.Context, size board.Size, cell, depth int) ([]Duplicate, error) {
	n := size.Cells()
	var cells [board.MaxCells]uint8
	for i := range n {
		cells[i] = uint8(i)
	}
	root := node{key: pack(&cells, n, cell), blank: uint8(cell), parent: -1}
	// seen holds the depth and index of the first string of each effect.
	seen := map[effect]uint64{root.key: 0}
	levels := [][]node{{root}}
	var out []Duplicate
	for k := 1; k <= depth; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		levels = append(levels, nil)
		for i, p := range levels[k-1] {
			unpack(&cells, p.key, n, int(p.blank))
			for d := board.Up; d <= board.Right; d++ {
				q := size.Step(int(p.blank), d)
				if q < 0 || k > 2 && d == board.Dir(p.dir).Opposite() {
					// The move straight back is the duplicate of two moves found at depth
					// 2 from every cell; a string that ends with it needs no word of its own.
					continue
				}
				cells[p.blank], cells[q] = cells[q], cells[p.blank]
				key := pack(&cells, n, q)
				cells[p.blank], cells[q] = cells[q], cells[p.blank]
				child := node{key: key, blank: uint8(q), dir: uint8(d), parent: int32(i)}
				if at, dup := seen[key]; dup {
					kd := int(at >> 32)
					var kept []board.Dir
					if kd > 0 {
						kept = pathOf(levels, kd, levels[kd][uint32(at)])
					}
					out = append(out, Duplicate{Cell: cell, Pruned: pathOf(levels, k, child), Kept: kept})
					continue
				}
				seen[key] = uint64(k)<<32 | uint64(len(levels[k]))
				levels[k] = append(levels[k], child)
			}
		}
	}
	return out, nil
}

// pathOf returns the string of a node at depth k whose parent is in levels[k-1].
func pathOf(levels [][]node, k int, nd node) []board.Dir {
	path := make([]board.Dir, k)
	for i := k - 1; i >= 0; i-- {
		path[i] = board.Dir(nd.dir)
		if i > 0 {
			nd = levels[i][nd.parent]
		}
	}
	return path
}

// pack encodes the cells' contents, the blank's cell left out, five bits a cell.
func pack(cells *[board.MaxCells]uint8, n, blank int) effect {
	var e effect
	j := 0
	for i := 0; i < n; i++ {
		if i == blank {
			continue
		}
		e[j/12] |= uint64(cells[i]) << (5 * (j % 12))
		j++
	}
	// The blank's cell in the four bits left at the top of each word.
	e[0] |= uint64(blank&15) << 60
	e[1] |= uint64(blank>>4) << 60
	return e
}

// unpack decodes an effect whose blank is on blank; the blank's content is the one label
// missing.
func unpack(cells *[board.MaxCells]uint8, e effect, n, blank int) {
	var present uint32
	j := 0
	for i := 0; i < n; i++ {
		if i == blank {
			continue
		}
		v := uint8(e[j/12] >> (5 * (j % 12)) & 31)
		cells[i] = v
		present |= 1 << v
		j++
	}
	for v := 0; v < n; v++ {
		if present&(1<<v) == 0 {
			cells[blank] = uint8(v)
		}
	}
}
