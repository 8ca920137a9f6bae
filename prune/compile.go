package prune

import (
	"context"
	"fmt"
	"slices"

	"github.com/tilekit/tilekit/board"
)

// Build finds the duplicate strings of at most depth moves on the board and compiles them
// into a minimal automaton. Depth 0 and 1 give the move-back rule (Parent). The result
// does not depend on the machine: the same depth gives the same automaton. A depth whose
// build would not fit the memory available (BuildBytes) is refused before it starts, with
// an error matching ErrMemory.
func Build(ctx context.Context, size board.Size, depth int) (*Automaton, error) {
	return BuildProgress(ctx, size, depth, nil)
}

// Progress hears how far a build is: done of total steps, a breadth-first search from each
// cell of the board and then the compilation. Calls do not overlap.
type Progress func(done, total int)

// StepNote says what a build does after done of total steps: searching from the cells,
// or compiling.
func StepNote(done, total int) string {
	if done < total-1 {
		return fmt.Sprintf("searched from %d of %d cells", done, total-1)
	}
	if done == total-1 {
		return "compiling"
	}
	return "compiled"
}

// BuildProgress is Build, telling progress (if not nil) of each step as it ends.
func BuildProgress(ctx context.Context, size board.Size, depth int, progress Progress) (*Automaton, error) {
	if err := size.Check(); err != nil {
		return nil, err
	}
	if err := CheckDepth(depth); err != nil {
		return nil, err
	}
	if depth < 2 {
		return Parent(size), nil
	}
	if err := checkMemory(size, depth); err != nil {
		return nil, err
	}
	dups, err := duplicates(ctx, size, depth, progress)
	if err != nil {
		return nil, err
	}
	a := compile(size, dups)
	a.depth = depth
	if progress != nil {
		progress(size.Cells()+1, size.Cells()+1)
	}
	return a, ctx.Err()
}

// Compile turns duplicate strings into a minimal automaton that prunes every string
// containing one of them (Aho & Corasick's construction over (cell, direction) symbols,
// then Moore's minimisation). Each duplicate must start on a cell of the board and stay on
// it.
func Compile(size board.Size, dups []Duplicate) *Automaton {
	packed := make([]dup, len(dups))
	for i, d := range dups {
		p := dup{n: uint8(len(d.Pruned)), cell: uint8(d.Cell)}
		for j, m := range d.Pruned {
			p.moves |= uint64(m) << (2 * j)
		}
		packed[i] = p
	}
	return compile(size, packed)
}

// essential returns the duplicates, in their order, less those with a proper suffix that
// is a duplicate from the cell where it starts: every string that contains such a one
// contains its suffix, so the automaton prunes the same strings without it, and its trie
// is several times smaller (at depth 16 on 5x5, 301,481 of 2,269,342 duplicates are
// essential). A duplicate contains no other as a proper prefix or in its middle (every
// proper prefix is the first string of its effect), so suffixes are all there is to test.
func essential(size board.Size, dups []dup) []dup {
	key := func(moves uint64, n, cell int) uint64 { return moves | uint64(n)<<48 | uint64(cell)<<54 }
	byLength := make([]int32, len(dups))
	for i := range byLength {
		byLength[i] = int32(i)
	}
	slices.SortStableFunc(byLength, func(a, b int32) int { return int(dups[a].n) - int(dups[b].n) })
	kept := make(map[uint64]struct{})
	keep := make([]bool, len(dups))
	for _, j := range byLength {
		d := dups[j]
		c, n := int(d.cell), int(d.n)
		redundant := false
		for i := 1; n-i >= 2 && !redundant; i++ {
			c = size.Step(c, board.Dir(d.moves>>(2*(i-1))&3))
			_, redundant = kept[key(d.moves>>(2*i), n-i, c)]
		}
		if !redundant {
			keep[j] = true
			kept[key(d.moves, n, int(d.cell))] = struct{}{}
		}
	}
	out := dups[:0:0]
	for j, d := range dups {
		if keep[j] {
			out = append(out, d)
		}
	}
	return out
}

// compile is Compile of duplicates in the compiler's form.
func compile(size board.Size, dups []dup) *Automaton {
	dups = essential(size, dups)
	n := size.Cells()
	// The trie of the duplicates: node c (< n) is the empty string on cell c.
	child := make([][4]int32, n)
	cell := make([]uint8, n)
	word := make([]bool, n)
	for c := range n {
		cell[c] = uint8(c)
		child[c] = [4]int32{-1, -1, -1, -1}
	}
	for _, dup := range dups {
		v, c := int32(dup.cell), int(dup.cell)
		for i := range int(dup.n) {
			d := board.Dir(dup.moves >> (2 * i) & 3)
			c = size.Step(c, d)
			if child[v][d] < 0 {
				child[v][d] = int32(len(child))
				child = append(child, [4]int32{-1, -1, -1, -1})
				cell = append(cell, uint8(c))
				word = append(word, false)
			}
			v = child[v][d]
		}
		word[v] = true
	}

	// Failure links and transitions, breadth first. goto_[v][d] is the node of the longest
	// suffix of v's string followed by d that is a prefix of a duplicate; a node is pruned
	// when its string ends with a duplicate (word, or a pruned failure link).
	m := len(child)
	fail := make([]int32, m)
	next := make([][4]int32, m)
	pruned := slices.Clone(word)
	queue := make([]int32, 0, m)
	for c := range n {
		for d := board.Up; d <= board.Right; d++ {
			q := size.Step(c, d)
			switch {
			case q < 0:
				next[c][d] = -1
			case child[c][d] >= 0:
				u := child[c][d]
				next[c][d] = u
				fail[u] = int32(q)
				queue = append(queue, u)
			default:
				next[c][d] = int32(q)
			}
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if pruned[fail[v]] {
			pruned[v] = true
		}
		for d := board.Up; d <= board.Right; d++ {
			if size.Step(int(cell[v]), d) < 0 {
				next[v][d] = -1
				continue
			}
			if u := child[v][d]; u >= 0 {
				next[v][d] = u
				fail[u] = next[fail[v]][d]
				queue = append(queue, u)
			} else {
				next[v][d] = next[fail[v]][d]
			}
		}
	}

	// The states: nodes reachable from the roots without passing through a pruned one.
	id := make([]int32, m)
	for i := range id {
		id[i] = -1
	}
	var order []int32
	for c := range n {
		id[c] = int32(len(order))
		order = append(order, int32(c))
	}
	for i := 0; i < len(order); i++ {
		v := order[i]
		for d := 0; d < 4; d++ {
			if u := next[v][d]; u >= 0 && !pruned[u] && id[u] < 0 {
				id[u] = int32(len(order))
				order = append(order, u)
			}
		}
	}
	a := &Automaton{size: size, next: make([]uint32, 4*len(order)), cell: make([]uint8, len(order)), start: make([]uint32, n)}
	for s, v := range order {
		a.cell[s] = cell[v]
		for d := 0; d < 4; d++ {
			u := next[v][d]
			if u < 0 || pruned[u] {
				a.next[s*4+d] = Pruned
			} else {
				a.next[s*4+d] = uint32(id[u])
			}
		}
	}
	for c := range n {
		a.start[c] = uint32(c)
	}
	return minimise(a)
}

// minimise merges the states that no string tells apart (Moore's algorithm: split classes
// by the classes of their successors until nothing splits), keeping states of different
// cells apart. Classes are numbered by their first state, so the start states keep their
// numbers' order and the result is deterministic.
func minimise(a *Automaton) *Automaton {
	k := len(a.cell)
	class := make([]uint32, k)
	for s := range class {
		class[s] = uint32(a.cell[s])
	}
	classes := a.size.Cells()
	for {
		type sig struct{ self, d0, d1, d2, d3 uint32 }
		at := make(map[sig]uint32, classes)
		fresh := make([]uint32, k)
		of := func(t uint32) uint32 {
			if t == Pruned {
				return Pruned
			}
			return class[t]
		}
		for s := range k {
			x := sig{class[s], of(a.next[s*4]), of(a.next[s*4+1]), of(a.next[s*4+2]), of(a.next[s*4+3])}
			c, ok := at[x]
			if !ok {
				c = uint32(len(at))
				at[x] = c
			}
			fresh[s] = c
		}
		class = fresh
		if len(at) == classes {
			break
		}
		classes = len(at)
	}
	out := &Automaton{size: a.size, depth: a.depth, next: make([]uint32, 4*classes), cell: make([]uint8, classes), start: make([]uint32, len(a.start))}
	for s := range k {
		c := class[s]
		out.cell[c] = a.cell[s]
		for d := 0; d < 4; d++ {
			t := a.next[s*4+d]
			if t != Pruned {
				t = class[t]
			}
			out.next[int(c)*4+d] = t
		}
	}
	for c, s := range a.start {
		out.start[c] = class[s]
	}
	return out
}
