package gpu

import (
	"encoding/binary"
	"fmt"

	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
)

// memory is where an engine's tables and buffers live: a GPU's memory (Device), or the
// arena that the host build of the kernel maps at the same addresses (the tests'). Both
// get the same bytes, laid out by the same code (putModel, buffers.stage).
type memory interface {
	alloc(n uint64, what string) (uint64, error)
	free(p uint64)
	upload(p uint64, b []byte) error
	download(b []byte, p uint64) error
	zero(p, n uint64) error
}

// modelAt is where a model's tables lie in a memory: the kernel's Tables, the automaton's
// transitions, and a set's tables and index schemes.
type modelAt struct {
	tables, fsm uint64
	parts       []uint64
}

// putModel lays m's tables out in mem as the kernel reads them: each of a set's tables
// once however many lookups read it, the zero-aware tables' index schemes, the automaton,
// and Tables (encodeTables) pointing at them.
func putModel(mem memory, m *ida.Model) (at modelAt, err error) {
	defer func() {
		if err != nil {
			at.free(mem)
		}
	}()
	put := func(data []byte, what string) (uint64, error) {
		p, err := mem.alloc(uint64(len(data)), what)
		if err != nil {
			return 0, err
		}
		at.parts = append(at.parts, p)
		return p, mem.upload(p, data)
	}
	var tabs []tableAt
	if m.Set != nil {
		zs, of := schemes(m.Set)
		zat := make([]uint64, len(zs))
		for i, z := range zs {
			_, info, regions := encodeScheme(z, 0, 0)
			mi, err := put(info, "an index scheme")
			if err != nil {
				return at, err
			}
			rg, err := put(regions, "an index scheme")
			if err != nil {
				return at, err
			}
			head, _, _ := encodeScheme(z, mi, rg)
			if zat[i], err = put(head, "an index scheme"); err != nil {
				return at, err
			}
		}
		up := map[*pdb.Packed]tableAt{}
		for k, l := range m.Set.Lookups {
			if _, ok := up[l.Table]; !ok {
				var a tableAt
				idx, val := escapes(l.Table)
				for _, part := range []struct {
					to   *uint64
					data []byte
				}{{&a.nib, l.Table.Nibbles}, {&a.escIdx, idx}, {&a.escVal, val}, {&a.bits, l.Bits()}} {
					if len(part.data) == 0 {
						continue
					}
					if *part.to, err = put(part.data, "table "+l.Table.Name()); err != nil {
						return at, err
					}
				}
				up[l.Table] = a
			}
			a := up[l.Table]
			if of[k] >= 0 {
				a.scheme = zat[of[k]]
			}
			tabs = append(tabs, a)
		}
	}
	fsm := make([]byte, 4*len(m.Pruning))
	for i, x := range m.Pruning {
		binary.LittleEndian.PutUint32(fsm[4*i:], x)
	}
	if at.fsm, err = put(fsm, "the pruning automaton"); err != nil {
		return at, err
	}
	at.tables, err = put(encodeTables(m, at.fsm, tabs), "the tables")
	return at, err
}

// free releases what putModel placed.
func (at *modelAt) free(mem memory) {
	for _, p := range at.parts {
		mem.free(p)
	}
	*at = modelAt{}
}

// buffers are a launch's buffers in a memory: the frontier's roots and, for each subtree,
// its counts, value, place in the order and seed (capacity subtrees each, grown by
// reserve); the queue of donated roots with their serial indices and seeds; the pass; and
// the host tests' sums of the boards expanded below each subtree (hash, never on a GPU).
type buffers struct {
	roots, gen, exp, value, seeds, hash uint64
	queue, seq, qseeds, pass            uint64
	levels                              levels // the frontier's growth (grow.go)
	capacity, queueCap                  int
	nl, np, stride                      int // a catalogue's roots' lookups (seeds): lookups, partitions, bytes
	hashes                              bool
}

// newBuffers allocates the buffers whose size does not depend on the frontier: a queue of
// queue donated roots, which carry the lookups of a catalogue of nl lookups in np
// partitions (0, 0: none).
func newBuffers(mem memory, queue, nl, np int) (*buffers, error) {
	b := &buffers{nl: nl, np: np, queueCap: queue}
	q := uint64(queue)
	if nl > 0 {
		b.stride = seedStride(nl, np)
	}
	stride := b.stride
	var err error
	if b.queue, err = mem.alloc(q*rootSize, "the queue of donated nodes"); err != nil {
		return b, err
	}
	if stride > 0 {
		if b.qseeds, err = mem.alloc(q*uint64(stride), "the lookups of the queue of donated nodes"); err != nil {
			return b, err
		}
	}
	if b.seq, err = mem.alloc(q*4, "the queue of donated nodes"); err != nil {
		return b, err
	}
	b.pass, err = mem.alloc(passSize, "the pass")
	return b, err
}

// reserve makes the frontier's buffers hold n subtrees.
func (b *buffers) reserve(mem memory, n int) error {
	if n <= b.capacity {
		return nil
	}
	b.freeFrontier(mem)
	var err error
	for _, part := range []struct {
		to         *uint64
		size, want uint64
		what       string
	}{
		{&b.roots, rootSize, 1, fmt.Sprintf("a frontier of %d subtrees", n)},
		{&b.gen, 8, 1, "the subtrees' counts"}, {&b.exp, 8, 1, "the subtrees' counts"},
		{&b.value, 4, 1, "the subtrees' values"},
		{&b.seeds, uint64(b.stride), uint64(min(b.stride, 1)), "the subtrees' lookups"},
		{&b.hash, 8, map[bool]uint64{true: 1}[b.hashes], "the subtrees' hashes"},
	} {
		if part.want == 0 {
			continue
		}
		if *part.to, err = mem.alloc(uint64(n)*part.size, part.what); err != nil {
			return err
		}
	}
	b.capacity = n
	return nil
}

// freeFrontier releases the frontier's buffers.
func (b *buffers) freeFrontier(mem memory) {
	for _, p := range []*uint64{&b.roots, &b.gen, &b.exp, &b.value, &b.seeds, &b.hash} {
		if *p != 0 {
			mem.free(*p)
			*p = 0
		}
	}
	b.capacity = 0
}

// free releases every buffer.
func (b *buffers) free(mem memory) {
	b.freeFrontier(mem)
	b.freeLevels(mem)
	for _, p := range []*uint64{&b.queue, &b.qseeds, &b.seq, &b.pass} {
		if *p != 0 {
			mem.free(*p)
			*p = 0
		}
	}
}

// passKnobs are a launch's settings in its Pass: a node limit, the nodes below a root
// after which a thread gives it up (0: never), the device address of the cancel flag,
// and the scheduler's knobs (0: the kernel's defaults; keep 0: none) as Tune has them; donates false:
// the threads give no work away; values: the roots' values come back (a set's).
type passKnobs struct {
	limit, giveUp, cancel                                    uint64
	donateAfter, pollEvery, waitMax, turn, most, above, keep uint32
	donates, values                                          bool
}

// stage puts w's roots (and their seeds) and the launch's Pass into mem, the counts and
// the queue's indices zeroed: the roots in the order the threads are to take them (nil:
// serial order), each with its serial index.
func (b *buffers) stage(mem memory, w work, order []uint32, k passKnobs) error {
	n := len(w.roots)
	le := binary.LittleEndian
	if w.bound > maxBound {
		return fmt.Errorf("gpu: a pass of bound %d is deeper than the kernel's %d", w.bound, maxBound)
	}
	if err := b.reserve(mem, n); err != nil {
		return err
	}
	if order == nil {
		order = make([]uint32, n)
		for i := range order {
			order[i] = uint32(i)
		}
	} else if err := permutation(order, n); err != nil {
		return err
	}
	if err := mem.upload(b.roots, encodeRoots(w.roots, order)); err != nil {
		return err
	}
	if b.stride > 0 {
		if len(w.seeds) != n {
			return fmt.Errorf("gpu: a batch of %d subtrees with %d roots' lookups", n, len(w.seeds))
		}
		if err := mem.upload(b.seeds, encodeSeeds(w.seeds, order, b.nl, b.np)); err != nil {
			return err
		}
	}
	for _, z := range []struct{ p, n uint64 }{{b.gen, 8 * uint64(n)}, {b.exp, 8 * uint64(n)}, {b.value, 4 * uint64(n)}, {b.hash, 8 * uint64(n)}, {b.seq, 4 * uint64(b.queueCap)}} {
		if z.p == 0 {
			continue
		}
		if err := mem.zero(z.p, z.n); err != nil {
			return err
		}
	}
	var p [passSize]byte
	le.PutUint32(p[passBound:], uint32(w.bound))
	le.PutUint64(p[passRoots:], b.roots)
	le.PutUint32(p[passNroots:], uint32(n))
	le.PutUint64(p[passGen:], b.gen)
	le.PutUint64(p[passExp:], b.exp)
	le.PutUint32(p[passBest:], uint32(n))
	le.PutUint64(p[passQueue:], b.queue)
	le.PutUint64(p[passSeq:], b.seq)
	le.PutUint32(p[passCap:], uint32(b.queueCap))
	le.PutUint64(p[passLimit:], w.limit)
	le.PutUint64(p[passCancel:], k.cancel)
	le.PutUint32(p[passDonateAfter:], k.donateAfter)
	if !k.donates {
		le.PutUint32(p[passDonateAfter:], 0xFFFFFFFF)
	}
	le.PutUint32(p[passPollEvery:], k.pollEvery)
	le.PutUint32(p[passWaitMax:], k.waitMax)
	le.PutUint32(p[passTurn:], k.turn)
	le.PutUint32(p[passDonateMost:], k.most)
	le.PutUint32(p[passDonateAbove:], k.above)
	le.PutUint32(p[passKeep:], k.keep)
	le.PutUint64(p[passGiveUpAt:], k.giveUp)
	le.PutUint64(p[passHash:], b.hash)
	if k.values {
		le.PutUint64(p[passValue:], b.value)
	}
	if b.stride > 0 {
		// A catalogue's roots, frontier and donated, carry their lookups (cat.h).
		le.PutUint64(p[passSeeds:], b.seeds)
		le.PutUint32(p[passSeedStride:], uint32(b.stride))
		le.PutUint64(p[passQseeds:], b.qseeds)
	}
	return mem.upload(b.pass, p[:])
}

// collect reads a launch of n subtrees back from mem: each subtree's counts and (values)
// value, and the pass as the threads left it.
func (b *buffers) collect(mem memory, n int, values bool) (*launch, [passSize]byte, error) {
	le := binary.LittleEndian
	var out [passSize]byte
	l := &launch{gen: make([]uint64, n), exp: make([]uint64, n)}
	if err := mem.download(out[:], b.pass); err != nil {
		return nil, out, err
	}
	buf := make([]byte, 8*n)
	for _, part := range []struct {
		to []uint64
		p  uint64
	}{{l.gen, b.gen}, {l.exp, b.exp}} {
		if err := mem.download(buf, part.p); err != nil {
			return nil, out, err
		}
		for i := range part.to {
			part.to[i] = le.Uint64(buf[8*i:])
		}
	}
	if values {
		l.value = make([]int32, n)
		if err := mem.download(buf[:4*n], b.value); err != nil {
			return nil, out, err
		}
		for i := range l.value {
			l.value[i] = int32(le.Uint32(buf[4*i:]))
		}
	}
	l.best = int(int32(le.Uint32(out[passBest:])))
	l.stopped = le.Uint32(out[passStop:]) != 0
	if l.best < 0 || l.best > n {
		return nil, out, fmt.Errorf("%w: the kernel reported subtree %d of %d as solving", ErrLaunch, l.best, n)
	}
	return l, out, nil
}

// permutation says what keeps order from being an order of n subtrees: each once.
func permutation(order []uint32, n int) error {
	if len(order) != n {
		return fmt.Errorf("gpu: an order of %d subtrees for a batch of %d", len(order), n)
	}
	seen := make([]bool, n)
	for _, k := range order {
		if int(k) >= n || seen[k] {
			return fmt.Errorf("gpu: the order names subtree %d of %d twice, or none such", k, n)
		}
		seen[k] = true
	}
	return nil
}
