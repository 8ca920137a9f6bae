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

// CheckDepth reports whether Build takes depth: 0 to MaxDepth (below 2, the move back
// alone). It is the one check of a depth's range; a depth in range may still be refused
// by Build when its build would not fit the memory available (BuildBytes).
func CheckDepth(depth int) error {
	if depth < 0 || depth > MaxDepth {
		return fmt.Errorf("prune: depth %d out of range 0 to %d", depth, MaxDepth)
	}
	return nil
}

// DefaultDepth returns the depth of the automaton a board's searches take when no deeper
// one is installed (built in memory when not installed), and the page takes with a set:
// 14 on 5x5, 12 on every other board. docs/RESULTS.md ("Pruning duplicate paths")
// measures the depths: on 4x4 deeper automata leave the caches and each node costs more;
// on 5x5 this is the deepest built in seconds.
func DefaultDepth(size board.Size) int {
	if size == board.Size5x5 {
		return 14
	}
	return 12
}

// InstallDepth returns the depth of the automaton pdbgen build installs for a board by
// default: 18 on 5x5 (1.5 minutes and 2.7 GB to build, 69 MB in memory; 14% fewer
// expanded nodes than depth 14 on twelve of Korf's instances, though each costs more),
// DefaultDepth on the others.
func InstallDepth(size board.Size) int {
	if size == board.Size5x5 {
		return 18
	}
	return DefaultDepth(size)
}

// InstallDepths returns the depths of the automata pdbgen build installs for a board when
// not told one: InstallDepth for the searches and, when it differs, DefaultDepth for the
// page, which takes that one with a set.
func InstallDepths(size board.Size) []int {
	if d := InstallDepth(size); d != DefaultDepth(size) {
		return []int{d, DefaultDepth(size)}
	}
	return []int{DefaultDepth(size)}
}

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

// blankOf returns the cell of the blank of an effect.
func (e effect) blankOf() int { return int(e[0]>>60 | e[1]>>60<<4) }

// A dup is a duplicate string in the form the compiler takes: its moves two bits each,
// the first in the lowest bits, its length and the cell it starts from.
type dup struct {
	moves uint64
	n     uint8
	cell  uint8
}

// maxLevel is the most strings one level of the search keeps: a string's parent is
// an index of 30 bits.
const maxLevel = 1 << 30

// Duplicates finds the duplicate strings of at most depth moves from every cell of the
// board, in the order of cells and, within a cell, in shortlex order, searching from
// several cells at once (GOMAXPROCS): the result does not depend on how many. It stops
// early with ctx's error.
func Duplicates(ctx context.Context, size board.Size, depth int) ([]Duplicate, error) {
	var out []Duplicate
	err := eachCell(ctx, size, depth, true, nil, func(cell int, pruned, kept []dup) {
		for i := range pruned {
			out = append(out, Duplicate{Cell: cell, Pruned: pruned[i].dirs(), Kept: kept[i].dirs()})
		}
	})
	return out, err
}

// duplicates is Duplicates in the compiler's form, without the strings kept: what Build
// needs, in about half the memory.
func duplicates(ctx context.Context, size board.Size, depth int, progress Progress) ([]dup, error) {
	var out []dup
	err := eachCell(ctx, size, depth, false, progress, func(cell int, pruned, _ []dup) {
		out = append(out, pruned...)
	})
	return out, err
}

// dirs unpacks a string's moves.
func (d dup) dirs() []board.Dir {
	out := make([]board.Dir, d.n)
	for i := range out {
		out[i] = board.Dir(d.moves >> (2 * i) & 3)
	}
	return out
}

// eachCell runs the breadth-first search from every cell, several at once, and hands each
// cell's duplicates to each in the order of cells, with the strings they duplicate when
// kept is asked for (nil otherwise). progress, if not nil, hears of each cell searched, as
// done of the cells and one more step (the compilation that follows).
func eachCell(ctx context.Context, size board.Size, depth int, kept bool, progress Progress, each func(cell int, pruned, kept []dup)) error {
	if err := size.Check(); err != nil {
		return err
	}
	if err := CheckDepth(depth); err != nil {
		return err
	}
	n := size.Cells()
	pruned, firsts := make([][]dup, n), make([][]dup, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	searched := 0
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				pruned[c], firsts[c], errs[c] = duplicatesFrom(ctx, size, c, depth, kept)
				if progress != nil {
					mu.Lock()
					searched++
					progress(searched, n+1)
					mu.Unlock()
				}
			}
		}()
	}
	for c := 0; c < n; c++ {
		next <- c
	}
	close(next)
	wg.Wait()
	for c := 0; c < n; c++ {
		if errs[c] != nil {
			return errs[c]
		}
		each(c, pruned[c], firsts[c])
		pruned[c], firsts[c] = nil, nil
	}
	return nil
}

// duplicatesFrom runs the breadth-first search from one cell and returns its duplicates
// and, when kept is asked for, the first string of each one's effect. It keeps, for each
// string, only its parent and last move (levels) and, for the last level, its effect
// (frontier); seen holds the effect of every string kept, and where it is when kept is
// asked for.
func duplicatesFrom(ctx context.Context, size board.Size, cell, depth int, kept bool) (pruned, firsts []dup, err error) {
	n := size.Cells()
	var cells [board.MaxCells]uint8
	for i := range n {
		cells[i] = uint8(i)
	}
	root := pack(&cells, n, cell)
	// seen maps the effect of each first string to its depth and index, when the strings
	// kept are asked for; first records only the effects.
	var seen map[effect]uint64
	var first map[effect]struct{}
	if kept {
		seen = map[effect]uint64{root: 0}
	} else {
		first = map[effect]struct{}{root: {}}
	}
	// levels[k][i] is the i-th string of depth k: its parent's index << 2 | its last move.
	levels := [][]uint32{{0}}
	frontier := []effect{root}
	for k := 1; k <= depth; k++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var level []uint32
		var keys []effect
		for i, key := range frontier {
			blank := key.blankOf()
			unpack(&cells, key, n, blank)
			last := board.Dir(levels[k-1][i] & 3)
			for d := board.Up; d <= board.Right; d++ {
				q := size.Step(blank, d)
				if q < 0 || k > 2 && d == last.Opposite() {
					// The move straight back is the duplicate of two moves found at depth
					// 2 from every cell; a string that ends with it needs no word of its own.
					continue
				}
				cells[blank], cells[q] = cells[q], cells[blank]
				child := pack(&cells, n, q)
				cells[blank], cells[q] = cells[q], cells[blank]
				var at uint64
				var again bool
				if kept {
					at, again = seen[child]
				} else {
					_, again = first[child]
				}
				if again {
					pruned = append(pruned, pathOf(levels, k-1, i, d, cell))
					if kept {
						var first dup // the empty string, of the root
						if kd := int(at >> 32); kd > 0 {
							lv := level // the same depth: this level, not yet in levels
							if kd < k {
								lv = levels[kd]
							}
							v := lv[uint32(at)]
							first = pathOf(levels, kd-1, int(v>>2), board.Dir(v&3), cell)
						}
						firsts = append(firsts, first)
					}
					continue
				}
				if len(level) == maxLevel {
					return nil, nil, fmt.Errorf("prune: more than %d strings of %d moves from cell %d: too deep for this search", maxLevel, k, cell)
				}
				if kept {
					seen[child] = uint64(k)<<32 | uint64(len(level))
				} else {
					first[child] = struct{}{}
				}
				level = append(level, uint32(i)<<2|uint32(d))
				keys = append(keys, child)
			}
		}
		levels = append(levels, level)
		frontier = keys
	}
	return pruned, firsts, nil
}

// pathOf returns the string whose parent is the i-th string of depth k, followed by d.
func pathOf(levels [][]uint32, k, i int, d board.Dir, cell int) dup {
	out := dup{n: uint8(k + 1), cell: uint8(cell), moves: uint64(d) << (2 * k)}
	for ; k > 0; k-- {
		v := levels[k][i]
		out.moves |= uint64(v&3) << (2 * (k - 1))
		i = int(v >> 2)
	}
	return out
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
