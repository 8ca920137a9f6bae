package gpu

import (
	"encoding/binary"
	"fmt"
)

// The frontier grown on the card (kernel/grow.h): a pass's first launch hands the threads
// the top the host made (a few thousand subtrees, in the order to take them), which the
// kind's growth kernels expand breadth first, a few depths a launch and in serial order,
// until a level holds the target's roots (Tune.Roots: by default rootsPerThread a thread)
// or the tree narrows; the last level is then ordered by slack, the largest subtrees
// first. The host reads a few words a level (the next level's size) and none a root: the
// roots' work is counted in their top subtree's counts, on the card.

// rootsPerThread is the roots a thread the frontier grows to by default: the probe of
// docs/RESULTS.md grew about four a thread, and a thread that finishes its first root
// takes another rather than waiting for a donation.
const rootsPerThread = 4

// The launches of a growth (kernel/grow.h), as the host build numbers them.
const (
	growCount = 1
	growWrite = 2
	growOrder = 3
)

// growBlock is a growth launch's threads a block (tk::kGrowBlock), blockThreads on the
// GPU; maxGrowDepth the most depths a launch grows (tk::kGrowDepth); slacks the slacks the
// last level's order tells apart (tk::kSlacks).
const (
	growBlock    = 256
	maxGrowDepth = 8
	slacks       = 256
)

// growth is what a pass's growth did: the levels grown and the launches, the roots it
// handed the search, and whether the node limit stopped it.
type growth struct {
	levels, launches int
	roots            int
	stopped          bool
}

// levels are a growth's buffers in a memory: two levels of room roots each (the level
// grown from and the next, in turn), with their lookups for a catalogue (seeds: stride
// bytes a root), each node's and each block's count, the last level's count of each slack
// and places taken, and the kernel's Grow.
type levels struct {
	lv                                [2]rootsAt
	sums, counts, slacks, taken, grow uint64
	room                              int
}

// rootsAt is where a level's roots lie in a memory, and their lookups (a catalogue's;
// 0: none).
type rootsAt struct{ roots, seeds uint64 }

// growAt is one launch's Grow (kernel/grow.h) as the host sets it: the level grown from
// and the one written (or, for the order, the last level and its place by slack), the
// buffers of the counts and of the slacks (0: none), the level's nodes, the next level's
// room and the depths grown.
type growAt struct {
	from, to                    rootsAt
	sums, counts, slacks, taken uint64
	n, cap, depth               int
}

// bytes is g as the kernel reads it.
func (g growAt) bytes() []byte {
	le := binary.LittleEndian
	b := make([]byte, growSize)
	le.PutUint64(b[growFrom:], g.from.roots)
	le.PutUint64(b[growTo:], g.to.roots)
	le.PutUint64(b[growFromSeeds:], g.from.seeds)
	le.PutUint64(b[growToSeeds:], g.to.seeds)
	le.PutUint64(b[growSums:], g.sums)
	le.PutUint64(b[growCounts:], g.counts)
	le.PutUint64(b[growSlacks:], g.slacks)
	le.PutUint64(b[growTaken:], g.taken)
	le.PutUint32(b[growN:], uint32(g.n))
	le.PutUint32(b[growCap:], uint32(g.cap))
	le.PutUint32(b[growDepth:], uint32(g.depth))
	return b
}

// reserveLevels makes the buffers hold levels of room roots.
func (b *buffers) reserveLevels(mem memory, room int) error {
	if b.levels.room >= room {
		return nil
	}
	b.freeLevels(mem)
	blocks := (room + growBlock - 1) / growBlock
	for _, part := range []struct {
		to   *uint64
		size int
	}{
		{&b.levels.lv[0].roots, room * rootSize}, {&b.levels.lv[1].roots, room * rootSize},
		{&b.levels.lv[0].seeds, room * b.stride}, {&b.levels.lv[1].seeds, room * b.stride},
		{&b.levels.sums, 4 * blocks}, {&b.levels.counts, 4 * room},
		{&b.levels.slacks, 4 * slacks}, {&b.levels.taken, 4 * slacks}, {&b.levels.grow, growSize},
	} {
		if part.size == 0 {
			continue // no lookups: not a catalogue
		}
		var err error
		if *part.to, err = mem.alloc(uint64(part.size), fmt.Sprintf("a frontier of %d roots grown on the card", room)); err != nil {
			return err
		}
	}
	b.levels.room = room
	return nil
}

// freeLevels releases the growth's buffers.
func (b *buffers) freeLevels(mem memory) {
	l := &b.levels
	for _, p := range []*uint64{&l.lv[0].roots, &l.lv[1].roots, &l.lv[0].seeds, &l.lv[1].seeds, &l.sums, &l.counts, &l.slacks, &l.taken, &l.grow} {
		if *p != 0 {
			mem.free(*p)
			*p = 0
		}
	}
	l.room = 0
}

// grow grows the n roots staged (stage) until a level holds target roots or more, or the
// tree narrows (a level less than a quarter larger than the one before: deeper ones only
// thin out), or holds none (the pass below the top is all searched), and points the pass at the last
// level, ordered by slack unless serial: launch runs a growth's launch (growCount,
// growWrite, growOrder) on the blocks given. It stops where the node limit stopped the
// pass.
func (b *buffers) grow(mem memory, launch func(which int, blocks uint32) error, n, target int, serial bool) (growth, error) {
	g := growth{roots: n}
	if n >= target || n == 0 {
		return g, nil
	}
	// A level of fewer than target nodes has fewer than 4 * target nodes a depth below.
	if err := b.reserveLevels(mem, 4*target); err != nil {
		return g, err
	}
	le := binary.LittleEndian
	var at [8]byte
	le.PutUint64(at[:], b.levels.grow)
	if err := mem.upload(b.pass+passGrow, at[:]); err != nil {
		return g, err
	}
	from, count := rootsAt{b.roots, b.seeds}, n
	var total [4]byte
	ordered := false
	for count > 0 && count < target {
		// As many depths as take the level to the target at two nodes a node a depth, and
		// no more than fit the room at three (a node has at most three children within
		// the automaton, but for the start's four: a level that overflows is counted
		// again a depth less).
		depth := 1
		for depth < maxGrowDepth && count<<depth < target && count*pow3(depth+1) <= b.levels.room {
			depth++
		}
		gr := growAt{from: from, to: b.levels.lv[g.levels%2], sums: b.levels.sums, counts: b.levels.counts, n: count, cap: b.levels.room}
		blocks := uint32((count + growBlock - 1) / growBlock)
		next := 0
		for {
			gr.depth = depth
			if err := mem.upload(b.levels.grow, gr.bytes()); err != nil {
				return g, err
			}
			if err := launch(growCount, blocks); err != nil {
				return g, err
			}
			g.launches++
			if err := mem.download(total[:], b.levels.grow+growTotal); err != nil {
				return g, err
			}
			if next = int(le.Uint32(total[:])); next <= b.levels.room || depth == 1 {
				break
			}
			depth--
		}
		if next > b.levels.room {
			return g, fmt.Errorf("%w: a level of %d nodes grew %d nodes a move below, more than its room of %d", ErrLaunch, count, next, b.levels.room)
		}
		// The last level: the target's, or one that grew by less than a quarter (the tree
		// thins out towards the bound: deeper levels would cost launches and give the
		// threads hardly more roots).
		last := next >= target || next < count+count/4
		if last && !serial {
			// The last level: its write counts its nodes by slack, for the order.
			gr.slacks = b.levels.slacks
			if err := mem.upload(b.levels.grow, gr.bytes()); err != nil {
				return g, err
			}
			for _, p := range []uint64{b.levels.slacks, b.levels.taken} {
				if err := mem.zero(p, 4*slacks); err != nil {
					return g, err
				}
			}
			ordered = next > 0
		}
		if err := launch(growWrite, blocks); err != nil {
			return g, err
		}
		g.levels++
		g.launches++
		from, count = gr.to, next
		var stop [4]byte
		if err := mem.download(stop[:], b.pass+passStop); err != nil {
			return g, err
		}
		if le.Uint32(stop[:]) != 0 {
			g.stopped = true
			return g, nil
		}
		if last {
			break
		}
	}
	if ordered {
		// The last level, by slack, into the other level's room.
		gr := growAt{from: from, to: b.levels.lv[g.levels%2], slacks: b.levels.slacks, taken: b.levels.taken, n: count, cap: b.levels.room}
		if err := mem.upload(b.levels.grow, gr.bytes()); err != nil {
			return g, err
		}
		if err := launch(growOrder, uint32((count+growBlock-1)/growBlock)); err != nil {
			return g, err
		}
		g.launches++
		from = gr.to
	}
	g.roots = count
	le.PutUint64(at[:], from.roots)
	if err := mem.upload(b.pass+passRoots, at[:]); err != nil {
		return g, err
	}
	if b.stride > 0 {
		le.PutUint64(at[:], from.seeds)
		if err := mem.upload(b.pass+passSeeds, at[:]); err != nil {
			return g, err
		}
	}
	var word [4]byte
	le.PutUint32(word[:], uint32(count))
	return g, mem.upload(b.pass+passNroots, word[:])
}

// pow3 is 3 to the k.
func pow3(k int) int {
	n := 1
	for range k {
		n *= 3
	}
	return n
}
