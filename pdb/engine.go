package pdb

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/par"
	"github.com/tilekit/tilekit/internal/sysmem"
	"github.com/tilekit/tilekit/zindex"
)

// The tables without the blank in their index, zero-aware or not, are built by one
// search: package bfs's block search over the (placement, blank region) states in
// zindex's map-major order, where a move of a tile sends a slot's k! orders to another
// slot by a small permutation. The search keeps two bits a state; what it hears of each
// layer is written straight into the table being made (an emitter):
//
//   - a zero-aware table in half-excess nibbles: each state's nibble, at its own index;
//   - a zero-aware table in the bit encoding: each state's bit, (distance / 2) mod 2;
//   - Korf & Felner's table: a placement's entry is the distance of the first of its
//     regions reached, written at the placement's index (kperm-v1), as a byte or as half
//     its excess; a bit a placement, in map-major order, says which placements are done.
//
// A slot's entries are emitted by the worker that owns its unit, and units are whole maps,
// eight at a time, so that every byte an emitter writes (a zero-aware slot's nibbles and
// bits, a placement's done bit) is written by one worker.

// zgraph is the block graph of a pattern's (placement, blank region) states.
type zgraph struct {
	p       *Pattern
	z       *zindex.Scheme
	g       bfs.BlockGraph
	slotMap []uint32 // the map of each slot
	masks   []uint32 // the occupied cells of each map
	goal    int64    // the goal's entry
	home    [8]uint8 // the pattern tiles' home cells
}

// unitEntries is about how many entries a unit of work holds: small enough that 64
// workers share a 6-tile table's layer (690 units), large enough to amortise taking one.
const unitEntries = 1 << 18

// newZGraph makes the block graph of p's states on workers goroutines (0: all cores).
func newZGraph(p *Pattern, workers int) (*zgraph, error) {
	if p.blank {
		return nil, fmt.Errorf("pdb: %s has the blank in its index; its search is package bfs's Run", p.Name())
	}
	z, err := zindex.For(p.goal.Size(), p.m)
	if err != nil {
		return nil, fmt.Errorf("pdb: %s: %w", p.Name(), err)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// What a previous table left (its search, its file) is garbage by now: collected
	// before this one's arrays are made, so that the two never add up.
	collect(int(z.Entries()))
	zg := &zgraph{p: p, z: z}
	maps, slots := z.Maps(), z.Slots()
	zg.masks = make([]uint32, maps)
	zg.slotMap = make([]uint32, slots)
	g := &zg.g
	g.Blocks, g.Len = slots, z.Fact()
	g.Side = make([]uint64, (slots+63)/64)
	g.Start = make([]uint32, slots+1)
	// Map by map: the cells, the slots' maps and their moves' counts.
	par.Ranges(workers, maps, 1<<12, func(lo, hi int) {
		for m := lo; m < hi; m++ {
			mask := z.Mask(uint32(m))
			zg.masks[m] = mask
			first := int(z.FirstSlot(uint32(m)))
			for r := 0; r < z.Regions(uint32(m)); r++ {
				zg.slotMap[first+r] = uint32(m)
				g.Start[first+r+1] = uint32(z.CountMoves(uint32(m), mask, r))
			}
		}
	})
	var edges uint64
	for s := 1; s <= slots; s++ {
		edges += uint64(g.Start[s])
		if edges >= 1<<32 {
			return nil, fmt.Errorf("pdb: %s: more than 2^32 moves between slots", p.Name())
		}
		g.Start[s] = uint32(edges)
		if z.Parity(zg.masks[zg.slotMap[s-1]]) == 1 {
			g.Side[(s-1)/64] |= 1 << ((s - 1) % 64)
		}
	}
	g.Edges = make([]bfs.Edge, edges)
	k := p.m
	par.Ranges(workers, maps, 1<<12, func(lo, hi int) {
		var moves []zindex.Move
		for m := lo; m < hi; m++ {
			first := int(z.FirstSlot(uint32(m)))
			for r := 0; r < z.Regions(uint32(m)); r++ {
				moves = z.Moves(uint32(m), zg.masks[m], r, moves[:0])
				out := g.Edges[g.Start[first+r]:g.Start[first+r+1]]
				for i, mv := range moves {
					perm := 0
					if mv.From != mv.Into {
						perm = 1 + int(mv.From)*k + int(mv.Into)
					}
					out[i] = bfs.Edge{To: mv.To, Perm: uint16(perm)}
				}
			}
		}
	})
	g.Perms = make([][]uint16, 1+k*k)
	for from := 0; from < k; from++ {
		for into := 0; into < k; into++ {
			g.Perms[1+from*k+into] = z.Shift(from, into)
		}
	}
	// Units: whole maps, eight at a time, so that a unit's entries are whole bytes of
	// every emitter's output; where a slot is not (k! not a multiple of 8), one unit.
	g.Units = []int{0}
	if z.Fact()%8 == 0 {
		per := max(1, unitEntries/z.Fact())
		for m := 8; m < maps; m += 8 {
			if s := int(z.FirstSlot(uint32(m))); s-g.Units[len(g.Units)-1] >= per {
				g.Units = append(g.Units, s)
			}
		}
	}
	g.Units = append(g.Units, slots)
	// The goal: the pattern home, the blank in the region of its home.
	for i, t := range p.tiles {
		zg.home[i] = uint8(p.goal.Home(t))
	}
	var mask uint32
	for _, c := range zg.home[:k] {
		mask |= 1 << c
	}
	region := int(z.Region(z.Map(mask), p.goal.Home(0)))
	zg.goal = int64(z.Index64(zg.home[:k], region))
	return zg, nil
}

// graphBytes estimates the memory of p's block graph: the edges (about 2.5 a tile and
// slot), and a slot's map and count.
func graphBytes(z *zindex.Scheme) int64 {
	slots := int64(z.Slots())
	return slots*int64(z.Tiles())*5/2*8 + slots*16 + int64(z.Maps())*4
}

// run searches the graph, handing each slot's layers to emit.
func (zg *zgraph) run(ctx context.Context, opt Options, emit bfs.Emit) ([]int64, error) {
	return bfs.RunBlocks(ctx, &zg.g, []int64{zg.goal}, emit, bfs.BlockOptions{Options: opt})
}

// slotView is what an emitter needs of one slot: its entries' first index, its map, and
// the pattern tiles' Manhattan distance by tile and place.
type slotView struct {
	base int64    // index of the slot's order 0
	m    uint32   // the map
	occ  [8]uint8 // the occupied cells, ascending
	md   [8][8]uint8
}

// view fills v for slot b.
func (zg *zgraph) view(v *slotView, b int) {
	v.base = int64(b) * int64(zg.g.Len)
	v.m = zg.slotMap[b]
	size := zg.p.goal.Size()
	j := 0
	for x := zg.masks[v.m]; x != 0; x &= x - 1 {
		v.occ[j] = uint8(bits.TrailingZeros32(x))
		j++
	}
	for i := 0; i < zg.p.m; i++ {
		h := int(zg.home[i])
		for q := 0; q < zg.p.m; q++ {
			c := int(v.occ[q])
			v.md[i][q] = uint8(abs(size.Row(c)-size.Row(h)) + abs(size.Col(c)-size.Col(h)))
		}
	}
}

// mdOf returns the Manhattan distance of the tiles at places w (Places' word).
func (v *slotView) mdOf(w uint32, k int) int {
	md := 0
	for i := 0; i < k; i++ {
		md += int(v.md[i][w>>(3*i)&7])
	}
	return md
}

// each calls fn for each entry marked in fresh (the block search's format).
func each(fresh []uint64, fn func(o int)) {
	for i, x := range fresh {
		for ; x != 0; x &= x - 1 {
			fn(i*32 + bits.TrailingZeros64(x)>>1)
		}
	}
}

// escapeList collects escapes on several goroutines.
type escapeList struct {
	by [][]Escape // by worker
}

func newEscapeList(workers int) *escapeList {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &escapeList{by: make([][]Escape, workers)}
}

// sorted returns every escape, by index.
func (l *escapeList) sorted() []Escape {
	var all []Escape
	for _, e := range l.by {
		all = append(all, e...)
	}
	slices.SortFunc(all, func(a, b Escape) int { return int(int64(a.Index) - int64(b.Index)) })
	return all
}

// halfExcess returns the nibble of value v (Unknown: unreachable) for Manhattan distance
// md, and whether it is an escape.
func halfExcess(v, md int) (byte, bool) {
	e := (v - md) / 2
	if v == bfs.Unknown || v < md || (v-md)%2 != 0 || e >= EscapeNibble {
		return EscapeNibble, true
	}
	return byte(e), false
}

// newZeroGraph is newZGraph for a zero-aware table, which a file holds only below 2^32
// entries.
func newZeroGraph(p *Pattern, workers int) (*zgraph, error) {
	zg, err := newZGraph(p, workers)
	if err == nil && !zg.z.Small() {
		return nil, fmt.Errorf("pdb: %s: %d zero-aware entries, more than a table file holds (2^32)", p.Name(), zg.z.Entries())
	}
	return zg, err
}

// zeroNibbles builds a zero-aware table in half-excess nibbles.
func zeroNibbles(ctx context.Context, p *Pattern, opt Options) (*Packed, error) {
	zg, err := newZeroGraph(p, opt.Workers)
	if err != nil {
		return nil, err
	}
	k := p.m
	places := zg.z.Places()
	nibbles := sysmem.Table(int((zg.z.Entries() + 1) / 2))
	esc := newEscapeList(opt.Workers)
	views := make([]slotView, len(esc.by))
	_, err = zg.run(ctx, opt, func(w, b, depth int, fresh []uint64) {
		v := &views[w]
		zg.view(v, b)
		each(fresh, func(o int) {
			i := v.base + int64(o)
			e, escaped := halfExcess(depth, v.mdOf(places[o], k))
			if escaped {
				esc.by[w] = append(esc.by[w], Escape{Index: uint32(i), Value: uint8(depth)})
			}
			nibbles[i/2] |= e << (4 * (i & 1))
		})
	})
	zg = nil
	collect(len(nibbles))
	if err != nil {
		return nil, err
	}
	return NewZeroAware(p, nibbles, esc.sorted())
}

// zeroBits builds a zero-aware table in the bit encoding: only the layers whose bit is 1
// write anything.
func zeroBits(ctx context.Context, p *Pattern, opt Options) (*Packed, error) {
	zg, err := newZeroGraph(p, opt.Workers)
	if err != nil {
		return nil, err
	}
	bitmap := sysmem.Table(int((zg.z.Entries() + 7) / 8))
	_, err = zg.run(ctx, opt, func(w, b, depth int, fresh []uint64) {
		if bitOf(depth) == 0 {
			return
		}
		base := int64(b) * int64(zg.g.Len)
		each(fresh, func(o int) {
			i := base + int64(o)
			bitmap[i>>3] |= 1 << (i & 7)
		})
	})
	zg = nil
	collect(8 * len(bitmap))
	if err != nil {
		return nil, err
	}
	return NewBitTable(p, bitmap)
}

// placements writes Korf & Felner's entries, the first region's distance, at each
// placement's kperm-v1 index.
type placements struct {
	zg     *zgraph
	done   []uint64  // a bit a placement, map-major: m*k! + order
	corr   []uint32  // by order: what the earlier tiles on smaller cells take off the rank
	weight [8]uint32 // the rank's weight of each tile's digit
	mirror *mirror   // when only the smaller of a placement and its image is stored
}

func newPlacements(zg *zgraph, mirror *mirror) *placements {
	p, z := zg.p, zg.z
	k := p.m
	pl := &placements{zg: zg, mirror: mirror}
	pl.done = make([]uint64, (int64(z.Maps())*int64(z.Fact())+63)/64)
	w := uint32(1)
	for i := k - 1; i >= 0; i-- {
		pl.weight[i] = w
		w *= uint32(p.n - i)
	}
	pl.corr = make([]uint32, z.Fact())
	for o, w := range z.Places() {
		var c uint32
		for i := 0; i < k; i++ {
			for l := 0; l < i; l++ {
				if w>>(3*l)&7 < w>>(3*i)&7 {
					c += pl.weight[i]
				}
			}
		}
		pl.corr[o] = c
	}
	return pl
}

// emit calls fn(rank, cells, md) for each placement of slot b marked in fresh whose first
// region this is.
func (pl *placements) emit(v *slotView, b int, fresh []uint64, fn func(rank uint32, v *slotView, w uint32)) {
	zg := pl.zg
	zg.view(v, b)
	k := zg.p.m
	fact := int64(zg.g.Len)
	places := zg.z.Places()
	var wo [8][8]uint32
	for i := 0; i < k; i++ {
		for q := 0; q < k; q++ {
			wo[i][q] = pl.weight[i] * uint32(v.occ[q])
		}
	}
	key := int64(v.m) * fact
	each(fresh, func(o int) {
		x := key + int64(o)
		if pl.done[x>>6]&(1<<(x&63)) != 0 {
			return
		}
		pl.done[x>>6] |= 1 << (x & 63)
		w := places[o]
		rank := -pl.corr[o]
		for i := 0; i < k; i++ {
			rank += wo[i][w>>(3*i)&7]
		}
		fn(rank, v, w)
	})
}

// stored reports whether the placement of rank with tiles at places w of v is where the
// entry of it and its image is kept: the smaller index of the two.
func (pl *placements) stored(rank uint32, v *slotView, w uint32) bool {
	if pl.mirror == nil {
		return true
	}
	var image [board.MaxCells]uint8
	for j := 0; j < pl.zg.p.m; j++ {
		image[pl.mirror.perm[j]] = pl.mirror.cell[v.occ[w>>(3*j)&7]]
	}
	return rank <= pl.zg.p.Rank(image[:])
}

// additiveValues builds Korf & Felner's table of p, a byte an entry.
func additiveValues(ctx context.Context, p *Pattern, opt Options) ([]uint8, error) {
	zg, err := newZGraph(p, opt.Workers)
	if err != nil {
		return nil, err
	}
	pl := newPlacements(zg, nil)
	entries := sysmem.Table(p.Len())
	parallelRanges(opt.Workers, len(entries), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			entries[i] = Unreachable
		}
	})
	views := make([]slotView, len(newEscapeList(opt.Workers).by))
	_, err = zg.run(ctx, opt, func(w, b, depth int, fresh []uint64) {
		pl.emit(&views[w], b, fresh, func(rank uint32, _ *slotView, _ uint32) { entries[rank] = uint8(depth) })
	})
	zg, pl = nil, nil
	collect(len(entries))
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// additivePacked builds Korf & Felner's table of p in half-excess nibbles, storing only
// one entry of each mirror pair when the pattern is its own mirror image (as Pack does).
// It writes each placement's nibble into a byte, then packs the bytes in place.
func additivePacked(ctx context.Context, p *Pattern, opt Options) (*Packed, error) {
	zg, err := newZGraph(p, opt.Workers)
	if err != nil {
		return nil, err
	}
	out := &Packed{Pattern: p}
	var mirror *mirror
	if sym, ok := p.Mirror(); ok {
		out.Mirror, out.mirror = sym, p.newMirror(sym)
		mirror = &out.mirror
	}
	pl := newPlacements(zg, mirror)
	k := p.m
	half := sysmem.Table(p.Len() + 1)
	esc := newEscapeList(opt.Workers)
	views := make([]slotView, len(esc.by))
	_, err = zg.run(ctx, opt, func(w, b, depth int, fresh []uint64) {
		pl.emit(&views[w], b, fresh, func(rank uint32, v *slotView, places uint32) {
			if !pl.stored(rank, v, places) {
				return
			}
			e, escaped := halfExcess(depth, v.mdOf(places, k))
			if escaped {
				esc.by[w] = append(esc.by[w], Escape{Index: rank, Value: uint8(depth)})
			}
			half[rank] = e
		})
	})
	zg, pl = nil, nil
	collect(len(half))
	if err != nil {
		return nil, err
	}
	out.Nibbles = packInPlace(half, p.Len(), opt.Workers)
	out.Escapes = esc.sorted()
	out.initMD()
	return out, nil
}

// packInPlace packs the first n bytes of b, each a nibble, two to a byte, into b's first
// (n+1)/2 bytes, and returns them. Byte i goes to byte i/2, so a chunk's output overlaps
// only the input of chunks before it: the chunks run in waves, each wave's outputs in
// the inputs of waves done.
func packInPlace(b []byte, n, workers int) []byte {
	const chunk = 1 << 20 // output bytes
	out := (n + 1) / 2
	if n%2 == 1 {
		b[n] = 0
	}
	pack := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			b[i] = b[2*i] | b[2*i+1]<<4
		}
	}
	pack(0, min(chunk, out))
	for lo := 1; lo*chunk < out; lo *= 2 {
		hi := min(2*lo*chunk, out)
		// Chunks lo..2lo-1 write [lo*chunk, 2lo*chunk) and read from 2lo*chunk on.
		par.Ranges(workers, hi-lo*chunk, chunk, func(a, z int) { pack(lo*chunk+a, lo*chunk+z) })
	}
	return b[:out:out]
}
