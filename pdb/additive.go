package pdb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/zindex"
)

// This file builds the no-blank ("additive") pattern databases of Korf & Felner (2002).
//
// An entry is, for one placement of the pattern tiles, the fewest moves of pattern tiles
// that bring them home, where the blank must travel to make each move and moves of other
// tiles are free. The search therefore runs over (placement, blank) states, and the entry
// is the least distance over the blank's positions. Within a placement the blank moves at
// no cost inside the connected region of free cells it is in, so the region, not the cell,
// is what a state must record: a state is (placement, region number), with regions
// numbered as type geometry does.
//
// The search goes layer by layer from the goal (the pattern home, the blank in the region
// of its home cell). It keeps three bytes per placement, one bit per region:
//
//	seen  the regions reached so far;
//	next  the regions reached from the frontier by one move of a pattern tile;
//	cur   the regions reached at the current distance d (the frontier).
//
// seen and next of a placement share a 16-bit word, so that a move reads and writes one
// cache line.
//
// A placement's entry is the distance at which its first region is reached. To expand the
// frontier, the placements are taken in blocks by the cell of the first pattern tile (the
// first digit of the index): a move of any other tile stays in its block, and a move of
// the first tile reaches a block next to it. A worker takes a block only when no other
// worker holds that block or a neighbour of it, so that every byte of next is written by
// one worker at a time, without atomic operations. The result is the same for any number
// of workers: each layer is a set, whatever the order of its discovery.
//
// Cost: three bytes per placement plus the entries (one byte each), and one pass over the
// frontier and one over all placements per layer. The 8-tile table of the 7-8 partition
// (518,918,400 placements, 4,151,347,200 (placement, cell) states) takes 2.1 GB.

// ErrRegions reports a pattern whose placements leave more than eight regions of free
// cells, which the search cannot record (it never happens for tables of at most 2^32
// entries on boards up to 5x5 with two or more tiles left out).
var ErrRegions = errors.New("pdb: a placement splits the free cells into more than 8 regions")

// buildAdditive computes the Korf-Felner table of p, which must not have the blank in its
// index.
func buildAdditive(ctx context.Context, p *Pattern, opt Options) ([]uint8, error) {
	if p.blank {
		return nil, fmt.Errorf("pdb: %s has the blank in its index", p.Name())
	}
	return newSearch(p, opt.Workers, nil).run(ctx, opt.Progress)
}

type additive struct {
	p       *Pattern
	g       *geometry
	k       int      // pattern tiles
	weight  []uint32 // weight[i]: the index step of digit i
	block   uint32   // placements per block (weight[0])
	nblocks int
	workers int

	sn           []uint16 // seen (low byte) and next (high byte) of each placement
	cur, entries []uint8
	// zero-aware builds (zero.go): the distance of each (placement, region), by zindex
	// index; entries is then not kept.
	zero     *zindex.Scheme
	za       []uint8
	conn     []uint64    // boards above 16 cells: which free-cell masks are connected
	overflow atomic.Bool // a placement with more than maxRegions regions
}

// newSearch prepares the search of p on workers goroutines (0: all cores), for a
// zero-aware table when zero is set.
func newSearch(p *Pattern, workers int, zero *zindex.Scheme) *additive {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &additive{p: p, g: newGeometryCached(p.goal.Size()), k: p.m, workers: workers}
	s.weight = make([]uint32, s.k)
	w := uint32(1)
	for i := s.k - 1; i >= 0; i-- {
		s.weight[i] = w
		w *= uint32(p.n - i)
	}
	s.block = s.weight[0]
	s.nblocks = p.n
	n := p.Len()
	if s.g.ord == nil {
		s.conn = s.g.connectedFor(p.n - s.k)
	}
	s.sn = make([]uint16, n)
	s.cur = make([]uint8, n)
	if zero == nil {
		s.entries = make([]uint8, n)
	} else {
		s.zero, s.za = zero, make([]uint8, zero.Entries())
	}
	return s
}

var (
	geometriesMu sync.Mutex
	geometries   = map[board.Size]*geometry{}
)

// newGeometryCached shares the (1 MB) region tables of a board size.
func newGeometryCached(size board.Size) *geometry {
	geometriesMu.Lock()
	defer geometriesMu.Unlock()
	g := geometries[size]
	if g == nil {
		g = newGeometry(size)
		geometries[size] = g
	}
	return g
}

func (s *additive) run(ctx context.Context, progress func(bfs.Layer)) ([]uint8, error) {
	p := s.p
	if progress != nil {
		// Said before the table is filled: a large one takes seconds to fill.
		progress(bfs.Layer{Depth: 0, Total: int64(p.Len())})
	}
	for i := range s.entries {
		s.entries[i] = Unreachable
	}
	for i := range s.za {
		s.za[i] = Unreachable
	}
	// The goal: the pattern home, the blank in the region of its home.
	var cells [32]uint8
	var occ uint32
	for i, t := range p.tiles {
		cells[i] = uint8(p.goal.Home(t))
		occ |= 1 << cells[i]
	}
	goal := p.Rank(cells[:])
	free := s.g.full &^ occ
	r := s.g.region(free, p.goal.Home(0))
	if r >= maxRegions {
		return nil, ErrRegions
	}
	s.sn[goal], s.cur[goal] = 1<<r, 1<<r
	if s.zero != nil {
		s.za[s.zero.Index(cells[:p.m], r)] = 0
	} else {
		s.entries[goal] = 0
	}
	reached := int64(1)
	if progress != nil {
		progress(bfs.Layer{Depth: 0, States: 1, Reached: 1, Total: int64(p.Len())})
	}
	for depth := 0; ; depth++ {
		if depth >= bfs.MaxDepth {
			return nil, bfs.ErrTooDeep
		}
		if err := s.expand(ctx); err != nil {
			return nil, err
		}
		if s.overflow.Load() {
			return nil, ErrRegions
		}
		found := s.advance(uint8(depth + 1))
		if found.frontier == 0 {
			break
		}
		reached += found.placements
		if progress != nil {
			progress(bfs.Layer{Depth: depth + 1, States: found.placements, Reached: reached, Total: int64(p.Len())})
		}
	}
	entries := s.entries
	if s.zero != nil {
		entries = s.za
	}
	s.sn, s.cur, s.entries, s.za = nil, nil, nil, nil
	collect(len(entries))
	return entries, nil
}

// collect runs the garbage collector after a large table's step (its search, its
// packing), when what that step alone needed is garbage, so that the next step's arrays
// reuse its memory: left to the pacer, the heap would grow to twice the live bytes first.
// It more than halves the peak of the largest builds (7-8z: 2.9 GB instead of 6.5).
func collect(entries int) {
	if entries >= 1<<26 {
		runtime.GC()
	}
}

// expand generates the successors of the frontier (cur) into next.
func (s *additive) expand(ctx context.Context) error {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var held [32]int // how many locks each block's cell has (itself or as a neighbour)
	done := make([]bool, s.nblocks)
	left := s.nblocks
	lockSet := func(b int) uint32 { return 1<<b | s.g.nbr[b] }
	free := func(b int) bool {
		for m := lockSet(b); m != 0; m &= m - 1 {
			if held[bits.TrailingZeros32(m)] > 0 {
				return false
			}
		}
		return true
	}
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < s.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ex expander
			ex.init(s)
			for {
				mu.Lock()
				b := -1
				for b < 0 && left > 0 && firstErr == nil {
					for c := 0; c < s.nblocks; c++ {
						if !done[c] && free(c) {
							b = c
							break
						}
					}
					if b < 0 {
						cond.Wait()
					}
				}
				if b < 0 {
					mu.Unlock()
					return
				}
				done[b] = true
				left--
				for m := lockSet(b); m != 0; m &= m - 1 {
					held[bits.TrailingZeros32(m)]++
				}
				mu.Unlock()

				err := ex.block(ctx, b)

				mu.Lock()
				for m := lockSet(b); m != 0; m &= m - 1 {
					held[bits.TrailingZeros32(m)]--
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
				cond.Broadcast()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// layerCount is what one layer reached.
type layerCount struct {
	placements int64 // placements whose first region was reached at this depth
	frontier   int64 // placements with a region reached at this depth
}

// advance ends a layer: the regions in next not seen before become the frontier, and
// placements reached for the first time get the entry depth. It runs on all workers over
// disjoint ranges.
func (s *additive) advance(depth uint8) layerCount {
	var placements, frontier atomic.Int64
	parallelRanges(s.workers, len(s.sn), func(lo, hi int) {
		var c layerCount
		if s.zero != nil {
			c = s.advanceZero(lo, hi, depth)
			placements.Add(c.placements)
			frontier.Add(c.frontier)
			return
		}
		sn, cur, entries := s.sn[lo:hi], s.cur[lo:hi], s.entries[lo:hi]
		for i, x := range sn {
			if x < 0x100 { // nothing next
				cur[i] = 0
				continue
			}
			seen := uint8(x)
			fresh := uint8(x>>8) &^ seen
			cur[i] = fresh
			sn[i] = uint16(seen | fresh)
			if fresh != 0 {
				c.frontier++
				if seen == 0 {
					entries[i] = depth
					c.placements++
				}
			}
		}
		placements.Add(c.placements)
		frontier.Add(c.frontier)
	})
	return layerCount{placements: placements.Load(), frontier: frontier.Load()}
}

// expander is one worker's scratch space.
type expander struct {
	s       *additive
	cells   [32]uint8
	owner   [32]int8   // index of the pattern tile on each cell, -1 for none
	earlier [32]uint32 // earlier[i]: the cells of tiles 0..i-1
}

func (ex *expander) init(s *additive) {
	ex.s = s
	for i := range ex.owner {
		ex.owner[i] = -1
	}
}

// pollEvery is how many frontier placements pass between checks for cancellation.
const pollEvery = 1 << 14

// block expands the frontier placements whose first tile is on cell b.
func (ex *expander) block(ctx context.Context, b int) error {
	s := ex.s
	lo := uint32(b) * s.block
	hi := lo + s.block
	polled := 0
	for i := lo; i < hi; {
		// Skip eight placements at a time where the frontier is empty.
		if i&7 == 0 && i+8 <= hi && binary.LittleEndian.Uint64(s.cur[i:]) == 0 {
			i += 8
			continue
		}
		if f := s.cur[i]; f != 0 {
			ex.expand(i, f)
			if polled++; polled%pollEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
		}
		i++
	}
	return ctx.Err()
}

// expand generates the successors of placement idx with the blank in the regions of mask f.
func (ex *expander) expand(idx uint32, f uint8) {
	s := ex.s
	g := s.g
	k := s.k
	s.p.Unrank(idx, ex.cells[:])
	var occ uint32
	for i := 0; i < k; i++ {
		ex.earlier[i] = occ
		occ |= 1 << ex.cells[i]
		ex.owner[ex.cells[i]] = int8(i)
	}
	free := g.full &^ occ
	var blank uint32 // the cells the blank may be on: the frontier's regions
	if s.conn != nil && s.conn[free>>6]&(1<<(free&63)) != 0 {
		blank = free // one region: the common case on large boards
	} else {
		for m := uint32(f); m != 0; m &= m - 1 {
			blank |= g.regionMask(free, bits.TrailingZeros32(m))
		}
	}
	w := uint32(g.w)
	sn := s.sn
	for i := 0; i < k; i++ {
		c := uint32(ex.cells[i])
		for targets := g.nbr[c] & blank; targets != 0; targets &= targets - 1 {
			b := uint32(bits.TrailingZeros32(targets))
			next := idx + ex.delta(i, c, b, w, occ)
			after := free ^ (1 << b) ^ (1 << c)
			r := 0
			if s.conn == nil || s.conn[after>>6]&(1<<(after&63)) == 0 {
				r = g.region(after, int(c))
			}
			if r >= maxRegions {
				s.overflow.Store(true)
				continue
			}
			bit := uint16(1) << r
			if x := sn[next]; x&bit == 0 {
				sn[next] = x | bit<<8
			}
		}
	}
	for i := 0; i < k; i++ {
		ex.owner[ex.cells[i]] = -1
	}
}

// delta returns the change of the index (mod 2^32) when pattern tile i moves from cell c to
// the neighbouring free cell b; occ holds the cells of all pattern tiles. Digit i is c
// minus the earlier tiles on smaller cells, so a sideways move changes it by one and
// nothing else; a move by a row changes it by the row length less the earlier tiles
// between c and b, and each later tile between them changes its own digit by one.
func (ex *expander) delta(i int, c, b, w, occ uint32) uint32 {
	s := ex.s
	switch {
	case b == c+1:
		return s.weight[i]
	case b+1 == c:
		return -s.weight[i]
	}
	lo := min(c, b)
	between := (uint32(1)<<(w-1) - 1) << (lo + 1)
	early := ex.earlier[i] & between
	d := (w - uint32(bits.OnesCount32(early))) * s.weight[i]
	for later := occ & between &^ early; later != 0; later &= later - 1 {
		d += s.weight[ex.owner[bits.TrailingZeros32(later)]]
	}
	if b < c {
		return -d
	}
	return d
}
