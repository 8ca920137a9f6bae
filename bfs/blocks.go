package bfs

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tilekit/tilekit/internal/sysmem"
)

// This file is the engine of the pattern databases without the blank in their index
// (zero-aware tables, Clausecker & Reinefeld 2017, and Korf & Felner's 2002 minimum over
// the blank's regions): a breadth-first search over a graph cut into blocks.
//
// Their index is map-major: the k! orders of the pattern tiles on one set of cells with the
// blank in one region are one block, and a move of a tile sends a whole block to one other
// block, each entry to the entry a small permutation names (package zindex). The search
// therefore never ranks a state. It keeps two bits an entry,
//
//	00  not reached,
//	10  reached in the layer being expanded, or in the one being made,
//	01  reached earlier,
//
// in 64-bit words, each block's entries in words of their own; a block's words are padded
// to a multiple of 32 entries. The graph is bipartite, its blocks on two sides (the
// colour of the tiles' cells on a checkerboard, summed): a layer's entries all lie on one
// side, and its neighbours on the other. Expanding layer d reads the blocks of d's side
// and writes those of the other, so a layer's writers never meet its readers.
//
// Each layer is expanded one of two ways, whichever scans less (Beamer, Asanović &
// Patterson, "Direction-optimizing breadth-first search", SC 2012):
//
//   - push, from the frontier: each reached entry of a block marks its neighbours in the
//     other blocks, by an atomic OR of a word that only ever gains the same bits in a
//     layer (no compare-and-swap);
//   - pull, from the unreached: each block looks for its unreached entries' neighbours in
//     the frontier and marks them itself, with plain stores.
//
// An edge whose permutation is the identity (a tile moving sideways, or up or down past
// no other pattern tile: most moves) is taken 32 entries at a time, by word operations.
//
// Between two layers, one pass over every block ends the layer: the entries just reached
// (10 on the new layer's side) are handed to the caller (Emit), who writes them into its
// table, while on the other side the previous layer's entries become 01. The search keeps
// no values: a table is whatever the caller makes of the layers it hears of, so the same
// search builds tables of bytes, of half-excess nibbles, of one bit an entry, and the
// minimum over regions.
//
// Work is split into units of blocks that workers take from a counter, many more units
// than workers, and every result is a set: the bytes are the same for any number of
// workers.

// A BlockGraph is a bipartite graph whose entries are numbered block by block: entry o
// of block b is number b*Len + o. An edge of block b joins each entry o of b to entry
// Perms[e.Perm][o] of block e.To (entry o itself where the permutation is nil), and b is
// among the neighbours of e.To by the inverse permutation.
type BlockGraph struct {
	Blocks int // number of blocks
	Len    int // entries a block, 1 to 65536
	// Side holds a bit for each block: its side. Every edge joins blocks of the two sides.
	Side []uint64
	// The edges of block b are Edges[Start[b]:Start[b+1]].
	Start []uint32
	Edges []Edge
	// Perms are the permutations of the edges; Perms[0] must be nil, the identity.
	Perms [][]uint16
	// Units holds the block numbers where units of work start, ascending from 0, and
	// Blocks at the end. A unit's blocks are emitted by one worker.
	Units []int
}

// An Edge joins a block to block To by permutation Perm.
type Edge struct {
	To   uint32
	Perm uint16
}

// Emit hears of the entries of a block reached at a distance: bit 2i of fresh[j] is set
// for entry 32j+i of the block. It is called from several goroutines at once, with the
// number w (0 to workers-1) of the calling one, but for all blocks of one unit from the
// same goroutine; the last call of each block, with depth Unknown, gives the entries no
// goal reaches. fresh is only valid during the call.
type Emit func(w, block, depth int, fresh []uint64)

// BlockOptions tune RunBlocks. The zero value uses all cores and reports nothing.
type BlockOptions struct {
	Options
	// Took, if set, hears of each unit of work a worker takes in a layer's expansion,
	// before the worker does it.
	Took func(depth, worker, unit int)
}

const (
	lo2 = 0x5555555555555555 // the low bit of each entry's two
)

// ErrGraph reports a block graph whose parts disagree.
var ErrGraph = errors.New("bfs: inconsistent block graph")

// Check reports what is wrong with g's shape (not its edges' symmetry).
func (g *BlockGraph) Check() error {
	switch {
	case g.Blocks < 1 || g.Len < 1 || g.Len > 1<<16:
		return fmt.Errorf("%w: %d blocks of %d entries", ErrGraph, g.Blocks, g.Len)
	case len(g.Side) < (g.Blocks+63)/64:
		return fmt.Errorf("%w: %d words of sides for %d blocks", ErrGraph, len(g.Side), g.Blocks)
	case len(g.Start) != g.Blocks+1 || int(g.Start[g.Blocks]) != len(g.Edges):
		return fmt.Errorf("%w: the edges' starts", ErrGraph)
	case len(g.Perms) == 0 || g.Perms[0] != nil:
		return fmt.Errorf("%w: permutation 0 must be the identity", ErrGraph)
	case len(g.Units) < 2 || g.Units[0] != 0 || g.Units[len(g.Units)-1] != g.Blocks:
		return fmt.Errorf("%w: units must run from 0 to %d", ErrGraph, g.Blocks)
	}
	for i := 1; i < len(g.Units); i++ {
		if g.Units[i] <= g.Units[i-1] {
			return fmt.Errorf("%w: units not ascending", ErrGraph)
		}
	}
	for _, p := range g.Perms[1:] {
		if len(p) != g.Len {
			return fmt.Errorf("%w: a permutation of %d entries for blocks of %d", ErrGraph, len(p), g.Len)
		}
	}
	for _, e := range g.Edges {
		if int(e.To) >= g.Blocks || int(e.Perm) >= len(g.Perms) {
			return fmt.Errorf("%w: an edge to block %d by permutation %d", ErrGraph, e.To, e.Perm)
		}
	}
	return nil
}

// BlockBytes is the memory RunBlocks takes for a graph of the given blocks and entries a
// block, beyond the graph itself: two bits an entry, and three counts a block.
func BlockBytes(blocks, length int) int64 {
	return int64(blocks)*int64((length+31)/32)*8 + int64(blocks)*12
}

// RunBlocks searches g breadth-first from the goal entries (numbered b*Len + o) and hands
// every entry to emit with its distance, layer by layer; entries no goal reaches last,
// with Unknown. It returns the number of entries at each distance. It stops early with
// ctx's error when ctx is cancelled.
func RunBlocks(ctx context.Context, g *BlockGraph, goals []int64, emit Emit, opt BlockOptions) ([]int64, error) {
	return runBlocks(ctx, g, goals, emit, opt, auto)
}

// direction chooses how layers are expanded: by the counts, or always one way (tests).
type direction int

const (
	auto direction = iota
	alwaysPush
	alwaysPull
)

func runBlocks(ctx context.Context, g *BlockGraph, goals []int64, emit Emit, opt BlockOptions, dir direction) ([]int64, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	total := int64(g.Blocks) * int64(g.Len)
	if opt.Progress != nil {
		opt.Progress(Layer{Depth: 0, Total: total})
	}
	s := &blockSearch{g: g, width: (g.Len + 31) / 32, workers: workers, emit: emit, took: opt.Took, dir: dir}
	s.words = sysmem.Words(g.Blocks * s.width) // in huge pages: fewer faults, fewer TLB misses
	s.fresh = make([]uint32, g.Blocks)
	s.open = make([]uint32, g.Blocks)
	s.touched = make([]uint32, g.Blocks)
	for b := range s.open {
		s.open[b] = uint32(g.Len)
	}
	s.last = ^uint64(0)
	if r := g.Len % 32; r != 0 {
		s.last = 1<<(2*r) - 1
	}
	s.side = -1
	for _, x := range goals {
		if x < 0 || x >= total {
			return nil, fmt.Errorf("bfs: goal entry %d outside the graph's %d", x, total)
		}
		b, o := int(x/int64(g.Len)), int(x%int64(g.Len))
		side := g.sideOf(b)
		if s.side >= 0 && side != s.side {
			return nil, fmt.Errorf("bfs: goal entries on both sides of the graph")
		}
		s.side = side
		s.words[b*s.width+o/32] |= 2 << (2 * (o % 32))
		s.touched[b] = 1
	}
	if s.side < 0 {
		return nil, errors.New("bfs: no goal entries")
	}
	var hist []int64
	var reached int64
	for depth := 0; ; depth++ {
		st := s.between(ctx, depth)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if st.fresh == 0 {
			break
		}
		if depth > MaxDepth {
			return nil, ErrTooDeep
		}
		hist = append(hist, st.fresh)
		reached += st.fresh
		if opt.Progress != nil {
			opt.Progress(Layer{Depth: depth, States: st.fresh, Reached: reached, Total: total})
		}
		s.expand(ctx, depth, st)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	s.unreached(ctx)
	return hist, ctx.Err()
}

type blockSearch struct {
	g     *BlockGraph
	width int      // words a block
	words []uint64 // two bits an entry
	// Per block: the entries reached in its side's last layer, the entries not reached,
	// and whether the layer being made reached any.
	fresh, open, touched []uint32
	last                 uint64 // the valid bits of a block's last word
	side                 int    // the side of the goals, and of every even layer
	workers              int
	emit                 Emit
	took                 func(depth, worker, unit int)
	dir                  direction
}

func (g *BlockGraph) sideOf(b int) int { return int(g.Side[b>>6] >> (b & 63) & 1) }

// layerStats is what a pass between layers found.
type layerStats struct {
	fresh, frontierBlocks int64 // entries reached in the layer, and their blocks
	open, openBlocks      int64 // entries not reached on the other side, and their blocks
}

// scratch is a worker's space for one block.
type scratch struct {
	a, b []uint64 // a block's words each
	list []uint16 // a block's entries
}

// units runs fn on every unit of work, on all workers, each taking the next unit as it
// finishes one; fn gets scratch space of its own.
func (s *blockSearch) units(ctx context.Context, depth int, took bool, fn func(w, lo, hi int, buf *scratch)) {
	var next atomic.Int64
	n := len(s.g.Units) - 1
	var wg sync.WaitGroup
	for w := 0; w < min(s.workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := &scratch{a: make([]uint64, s.width), b: make([]uint64, s.width), list: make([]uint16, s.g.Len)}
			for {
				u := int(next.Add(1)) - 1
				if u >= n || ctx.Err() != nil {
					return
				}
				if took && s.took != nil {
					s.took(depth, w, u)
				}
				fn(w, s.g.Units[u], s.g.Units[u+1], buf)
			}
		}()
	}
	wg.Wait()
}

// between ends layer depth: the blocks on its side that the layer reached hand their
// fresh entries (10) to emit, and count them; on the other side the previous layer's
// (10) become earlier ones (01). Blocks with nothing to do are passed over by their
// counts alone.
func (s *blockSearch) between(ctx context.Context, depth int) layerStats {
	var total [4]atomic.Int64
	side := s.side ^ depth&1
	W := s.width
	s.units(ctx, depth, false, func(w, lo, hi int, buf *scratch) {
		var st layerStats
		fresh := buf.a
		for b := lo; b < hi; b++ {
			words := s.words[b*W : (b+1)*W]
			if s.g.sideOf(b) == side {
				s.fresh[b] = 0
				if s.touched[b] == 0 {
					continue
				}
				s.touched[b] = 0
				n := 0
				for i, x := range words {
					f := x >> 1 & lo2
					fresh[i] = f
					n += bits.OnesCount64(f)
				}
				if n > 0 {
					s.emit(w, b, depth, fresh)
					st.frontierBlocks++
				}
				st.fresh += int64(n)
				s.fresh[b] = uint32(n)
				s.open[b] -= uint32(n)
				continue
			}
			if s.fresh[b] > 0 {
				for i, x := range words {
					words[i] = (x | x>>1) & lo2
				}
			}
			if s.open[b] > 0 {
				st.openBlocks++
				st.open += int64(s.open[b])
			}
		}
		total[0].Add(st.fresh)
		total[1].Add(st.frontierBlocks)
		total[2].Add(st.open)
		total[3].Add(st.openBlocks)
	})
	return layerStats{fresh: total[0].Load(), frontierBlocks: total[1].Load(), open: total[2].Load(), openBlocks: total[3].Load()}
}

// expand makes layer depth+1 from layer depth, pushing or pulling, whichever the counts
// say scans less.
func (s *blockSearch) expand(ctx context.Context, depth int, st layerStats) {
	side := s.side ^ depth&1
	// A block's identity edges cost a pass over its words either way; the others cost a
	// lookup an entry of the frontier (push) or an unreached entry (pull), which pulls
	// mostly stop early.
	push := st.frontierBlocks*int64(s.width)+st.fresh < st.openBlocks*int64(s.width)+st.open/2
	if s.dir != auto {
		push = s.dir == alwaysPush
	}
	s.units(ctx, depth, true, func(w, lo, hi int, buf *scratch) {
		for b := lo; b < hi; b++ {
			if s.g.sideOf(b) == side {
				if push && s.fresh[b] > 0 {
					s.push(b, buf)
				}
			} else if !push && s.open[b] > 0 {
				s.pull(b, buf)
			}
		}
	})
}

// push marks the unreached neighbours of block b's frontier entries.
func (s *blockSearch) push(b int, buf *scratch) {
	g, W := s.g, s.width
	src := s.words[b*W : (b+1)*W]
	// The frontier's entries, for the edges that permute.
	var list []uint16
	for _, e := range g.Edges[g.Start[b]:g.Start[b+1]] {
		dst := s.words[int(e.To)*W : int(e.To+1)*W]
		reached := false
		if e.Perm == 0 {
			for i, x := range src {
				f := x >> 1 & lo2
				if f == 0 {
					continue
				}
				d := atomic.LoadUint64(&dst[i])
				if n := f &^ (d | d>>1); n != 0 {
					atomic.OrUint64(&dst[i], n<<1)
					reached = true
				}
			}
			if reached {
				atomic.StoreUint32(&s.touched[e.To], 1)
			}
			continue
		}
		if list == nil {
			list = frontierList(src, buf.list)
		}
		perm := g.Perms[e.Perm]
		for _, o := range list {
			x := perm[o]
			p := &dst[x>>5]
			sh := 2 * (x & 31)
			if atomic.LoadUint64(p)>>sh&3 == 0 {
				atomic.OrUint64(p, 2<<sh)
				reached = true
			}
		}
		if reached {
			atomic.StoreUint32(&s.touched[e.To], 1)
		}
	}
}

// frontierList returns the block's frontier entries, in buf's memory.
func frontierList(words []uint64, list []uint16) []uint16 {
	n := 0
	for i, x := range words {
		for f := x >> 1 & lo2; f != 0; f &= f - 1 {
			list[n] = uint16(i*32 + bits.TrailingZeros64(f)>>1)
			n++
		}
	}
	return list[:n:n]
}

// pull marks block b's unreached entries that have a neighbour in the frontier.
func (s *blockSearch) pull(b int, buf *scratch) {
	g, W := s.g, s.width
	own := s.words[b*W : (b+1)*W]
	open, found := buf.a, buf.b
	for i, x := range own {
		open[i] = ^(x | x>>1) & lo2
		found[i] = 0
	}
	open[W-1] &= s.last
	edges := g.Edges[g.Start[b]:g.Start[b+1]]
	for _, e := range edges {
		if e.Perm != 0 || s.fresh[e.To] == 0 {
			continue
		}
		src := s.words[int(e.To)*W : int(e.To+1)*W]
		for i, x := range src {
			found[i] |= open[i] & (x >> 1)
		}
	}
	left := 0
	for i := range open {
		open[i] &^= found[i]
		left += bits.OnesCount64(open[i])
	}
	for _, e := range edges {
		if left == 0 {
			break
		}
		if e.Perm == 0 || s.fresh[e.To] == 0 {
			continue
		}
		src := s.words[int(e.To)*W : int(e.To+1)*W]
		perm := g.Perms[e.Perm]
		for i, u := range open {
			for ; u != 0; u &= u - 1 {
				t := bits.TrailingZeros64(u)
				x := perm[i*32+t>>1]
				if src[x>>5]>>(2*(x&31)+1)&1 != 0 {
					found[i] |= 1 << t
					open[i] &^= 1 << t
					left--
				}
			}
		}
	}
	reached := false
	for i, f := range found {
		if f != 0 {
			own[i] |= f << 1
			reached = true
		}
	}
	if reached {
		atomic.StoreUint32(&s.touched[b], 1)
	}
}

// unreached hands every block's unreached entries to emit with Unknown.
func (s *blockSearch) unreached(ctx context.Context) {
	W := s.width
	s.units(ctx, Unknown, false, func(w, lo, hi int, buf *scratch) {
		open := buf.a
		for b := lo; b < hi; b++ {
			for i, x := range s.words[b*W : (b+1)*W] {
				open[i] = ^(x | x>>1) & lo2
			}
			open[W-1] &= s.last
			for _, x := range open {
				if x != 0 {
					s.emit(w, b, Unknown, open)
					break
				}
			}
		}
	})
}
