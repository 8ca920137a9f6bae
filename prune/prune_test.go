package prune

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

// shortlexLess reports whether a comes before b: shorter, or as long and first in the
// order of directions.
func shortlexLess(a, b []board.Dir) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return slices.Compare(a, b) < 0
}

// apply takes the identity board with the blank on cell through path and returns it.
func apply(t *testing.T, size board.Size, cell int, path []board.Dir) board.State {
	s := make(board.State, size.Cells())
	for i := range s {
		s[i] = uint8(i + 1)
	}
	s[cell] = 0
	for i, d := range path {
		require.True(t, size.Move(s, d), "move %d (%s) of %s from cell %d leaves %s", i+1, d, board.FormatDirs(path), cell, size)
	}
	return s
}

// TestDuplicatesHaveTwins applies every duplicate and the string it duplicates from the
// cell where the automaton assumes the pair holds: both must reach the same position, and
// the kept one must come first.
func TestDuplicatesHaveTwins(t *testing.T) {
	for _, tc := range []struct {
		size  board.Size
		depth int
	}{{board.Size{W: 3, H: 3}, 14}, {board.Size{W: 4, H: 3}, 12}, {board.Size4x4, 12}, {board.Size5x5, 10}} {
		t.Run(fmt.Sprintf("%s/depth=%d", tc.size, tc.depth), func(t *testing.T) {
			dups, err := Duplicates(context.Background(), tc.size, tc.depth)
			require.NoError(t, err)
			require.NotEmpty(t, dups)
			for _, dup := range dups {
				require.LessOrEqual(t, len(dup.Pruned), tc.depth)
				require.True(t, shortlexLess(dup.Kept, dup.Pruned), "%s does not come before %s", board.FormatDirs(dup.Kept), board.FormatDirs(dup.Pruned))
				a := apply(t, tc.size, dup.Cell, dup.Pruned)
				b := apply(t, tc.size, dup.Cell, dup.Kept)
				require.True(t, a.Equal(b), "from cell %d, %s gives %v and %s gives %v", dup.Cell, board.FormatDirs(dup.Pruned), a, board.FormatDirs(dup.Kept), b)
			}
		})
	}
}

// TestNoShortestPathLost proves on small boards, exhaustively, that the automaton keeps a
// shortest path to every position: from every cell of the blank, a breadth-first search
// that takes only the moves the automaton allows reaches every position at its distance.
// (Moves of the blank act the same whatever the tiles are, so this covers every pair of
// start and goal positions.)
func TestNoShortestPathLost(t *testing.T) {
	for _, tc := range []struct {
		size   board.Size
		depths []int
	}{
		{board.Size{W: 3, H: 3}, []int{12, 20}},
		{board.Size{W: 4, H: 2}, []int{0, 8, 14}},
	} {
		t.Run(tc.size.String(), func(t *testing.T) {
			var automata []*Automaton
			for _, depth := range tc.depths {
				a, err := Build(context.Background(), tc.size, depth)
				require.NoError(t, err)
				require.NoError(t, a.check())
				automata = append(automata, a)
			}
			for cell := 0; cell < tc.size.Cells(); cell++ {
				dist := distances(tc.size, cell)
				for _, a := range automata {
					provePaths(t, a, cell, dist)
				}
			}
		})
	}
}

// packedMove moves the blank of a position packed four bits a cell.
func packedMove(size board.Size, pos uint64, blank int, d board.Dir) (uint64, int) {
	q := size.Step(blank, d)
	tile := pos >> (4 * q) & 15
	return pos&^(15<<(4*q)) | tile<<(4*blank), q
}

// identity is the position with tile c+1 on cell c and the blank on cell, packed.
func identity(size board.Size, cell int) uint64 {
	var start uint64
	for c := 0; c < size.Cells(); c++ {
		if c != cell {
			start |= uint64(c+1) << (4 * c)
		}
	}
	return start
}

// distances returns the distance of every position from the identity with the blank on
// cell, by a breadth-first search over positions packed four bits a cell.
func distances(size board.Size, cell int) map[uint64]int32 {
	type item struct {
		pos   uint64
		blank int
	}
	start := identity(size, cell)
	dist := map[uint64]int32{start: 0}
	for level, k := []item{{start, cell}}, int32(1); len(level) > 0; k++ {
		var next []item
		for _, it := range level {
			for _, d := range board.Dirs {
				if size.Step(it.blank, d) < 0 {
					continue
				}
				p, q := packedMove(size, it.pos, it.blank, d)
				if _, ok := dist[p]; !ok {
					dist[p] = k
					next = append(next, item{p, q})
				}
			}
		}
		level = next
	}
	return dist
}

// provePaths runs a breadth-first search over (position, automaton state) pairs from the
// identity with the blank on cell that follows only the strings the automaton allows, and
// only those as short as the position's distance (a prefix of a shortest string is one):
// every position must be reached.
func provePaths(t *testing.T, a *Automaton, cell int, dist map[uint64]int32) {
	size := a.Size()
	require.Less(t, a.States(), 1<<20)
	type item struct {
		pos   uint64
		blank int
		state uint32
	}
	start := identity(size, cell)
	reached := map[uint64]bool{start: true}
	seen := map[uint64]bool{}
	for level, k := []item{{start, cell, a.Start(cell)}}, int32(1); len(level) > 0; k++ {
		var next []item
		for _, it := range level {
			for _, d := range board.Dirs {
				ns := a.Next(it.state, d)
				if ns == Pruned {
					continue
				}
				require.GreaterOrEqual(t, size.Step(it.blank, d), 0, "the automaton moves %s off the board", d)
				p, q := packedMove(size, it.pos, it.blank, d)
				require.Equal(t, q, a.Cell(ns))
				if dist[p] != k {
					continue
				}
				if key := p<<20 | uint64(ns); !seen[key] {
					seen[key] = true
					reached[p] = true
					next = append(next, item{p, q, ns})
				}
			}
		}
		level = next
	}
	if len(reached) != len(dist) {
		for pos, d := range dist {
			if !reached[pos] {
				t.Fatalf("%s from cell %d of %s: position %x is %d moves away, and no string of that length is allowed", a.Name(), cell, size, pos, d)
			}
		}
	}
}

// TestParentIsMoveBack checks the depth-0 automaton against the rule it stands for on
// random strings.
func TestParentIsMoveBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []board.Size{{W: 3, H: 3}, board.Size4x4, board.Size5x5, {W: 2, H: 5}} {
		a := Parent(size)
		require.NoError(t, a.check())
		for range 2000 {
			cell := rng.IntN(size.Cells())
			var path []board.Dir
			want := true
			c := cell
			for range 1 + rng.IntN(12) {
				d := board.Dir(rng.IntN(4))
				q := size.Step(c, d)
				if q < 0 {
					continue
				}
				if len(path) > 0 && path[len(path)-1] == d.Opposite() {
					want = false
				}
				path = append(path, d)
				c = q
			}
			_, ok := a.Allows(cell, path)
			require.Equal(t, want, ok, "%s from cell %d on %s", board.FormatDirs(path), cell, size)
		}
	}
}

// TestBuildIsDeterministic builds the same automaton twice and checks that a deeper one
// prunes at least what a shallower one does.
func TestBuildIsDeterministic(t *testing.T) {
	ctx := context.Background()
	a, err := Build(ctx, board.Size4x4, 10)
	require.NoError(t, err)
	b, err := Build(ctx, board.Size4x4, 10)
	require.NoError(t, err)
	require.Equal(t, a.next, b.next)
	require.Equal(t, a.cell, b.cell)
	require.NoError(t, a.check())
	require.Equal(t, "automaton depth 10, 3233 states", a.Name())
}

// TestPrunesMore counts the strings of each length that automata of growing depth allow
// from the middle of the 4x4 board: a deeper one allows no more, and the counts are the
// numbers of distinct positions up to the depth it was built for.
func TestPrunesMore(t *testing.T) {
	ctx := context.Background()
	size := board.Size4x4
	cell := size.Cell(1, 1)
	count := func(a *Automaton, length int) []int {
		out := make([]int, length+1)
		var walk func(s uint32, g int)
		walk = func(s uint32, g int) {
			out[g]++
			if g == length {
				return
			}
			for _, d := range board.Dirs {
				if ns := a.Next(s, d); ns != Pruned {
					walk(ns, g+1)
				}
			}
		}
		walk(a.Start(cell), 0)
		return out
	}
	prev := count(Parent(size), 12)
	for _, depth := range []int{4, 8, 12} {
		a, err := Build(ctx, size, depth)
		require.NoError(t, err)
		got := count(a, 12)
		for g := range got {
			require.LessOrEqual(t, got[g], prev[g], "depth %d, strings of %d moves", depth, g)
		}
		// Up to its depth, the automaton allows exactly one string per position.
		positions := distinctWithin(t, size, cell, depth)
		require.Equal(t, positions, got[:depth+1], "depth %d", depth)
		prev = got
	}
}

// distinctWithin counts the positions first reached at each distance from the identity
// with the blank on cell, up to depth.
func distinctWithin(t *testing.T, size board.Size, cell, depth int) []int {
	start := apply(t, size, cell, nil)
	seen := map[string]bool{string(start): true}
	out := []int{1}
	level := []board.State{start}
	for k := 1; k <= depth; k++ {
		var next []board.State
		for _, s := range level {
			for _, d := range board.Dirs {
				c := s.Clone()
				if size.Move(c, d) && !seen[string(c)] {
					seen[string(c)] = true
					next = append(next, c)
				}
			}
		}
		out = append(out, len(next))
		level = next
	}
	return out
}

// TestBuildRefuses refuses depths out of range and stops when its context is cancelled.
func TestBuildRefuses(t *testing.T) {
	for _, depth := range []int{-1, MaxDepth + 1} {
		_, err := Build(context.Background(), board.Size4x4, depth)
		require.ErrorContains(t, err, "out of range", "depth %d", depth)
	}
	_, err := Build(context.Background(), board.Size{W: 6, H: 6}, 8)
	require.ErrorIs(t, err, board.ErrSize)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Build(ctx, board.Size5x5, 12)
	require.ErrorIs(t, err, context.Canceled)
}

// A build reports a step for each cell searched, then the compilation, in order, and
// builds the automaton it builds without a listener.
func TestBuildProgress(t *testing.T) {
	size := board.Size{W: 3, H: 3}
	var steps []string
	a, err := BuildProgress(context.Background(), size, 8, func(done, total int) {
		require.Equal(t, size.Cells()+1, total)
		require.Len(t, steps, done-1, "steps in order, none twice")
		steps = append(steps, StepNote(done, total))
	})
	require.NoError(t, err)
	require.Len(t, steps, 10)
	require.Equal(t, "searched from 1 of 9 cells", steps[0])
	require.Equal(t, "compiling", steps[8])
	require.Equal(t, "compiled", steps[9])
	b, err := Build(context.Background(), size, 8)
	require.NoError(t, err)
	require.Equal(t, b.Transitions(), a.Transitions())
}
