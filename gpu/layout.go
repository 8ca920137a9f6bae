package gpu

import (
	"encoding/binary"
	"slices"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/zindex"
)

// The kernel's limits (pass.h): a set or catalogue's lookups, partitions and lookups
// of one tile in Tables, and a set's that is not zero-aware (its frames hold them all).
// The structures' sizes and offsets are in layout_gen.go (go generate).
const (
	maxLook, maxPart, maxTouch = 64, 32, 16
	setLook, setPart, setTouch = 8, 4, 4
)

// The values (tk::kGivenUp, tk::kRaised) of a subtree whose search on the device is not
// the serial one, which the engine splits further: its thread gave it up (passGiveUpAt),
// or a part of it donated would have cut its donor's node (BPMX).
const (
	givenUp = -1
	raised  = -2
)

// kOwner is a frontier node's Root.thr (tk::kOwner).
const kOwner = 0xFF

// donateAfter is the GPU's Pass.donateAfter: a thread donates only from roots that have
// proved large (run 3 of docs/RESULTS.md donated one node per 31 expanded, and the queue
// may have set the rate). On the fake driver with an H100's 135,168 threads, Korf #2's
// two GPU passes with md took 70 turns of a thread at 2,048, 34 at 512 and 11 at 128;
// with a warp's threads taking roots only between turns, as the kernel's do, 32 (with
// turns and polls of 32 expansions) took 2.4-3.4 times fewer steps than 128 (with 256
// and 128) on Korf's 100 (docs/RESULTS.md, "Shorter turns"); with the frontier grown on
// the card, whose roots are small, 8 (with polls of 16) took 1.25-1.55 times fewer
// rounds than 32 (with 32) (docs/RESULTS.md, "The frontier grown on the card").
const donateAfter = 8

const cells = board.MaxCells

// tableAt is where a set's table lies on the device: its nibbles, and its escapes' indices
// and values; a zero-aware table's bits (in the bit encoding) and index scheme.
type tableAt struct{ nib, escIdx, escVal, bits, scheme uint64 }

// encodeTables lays out a model's tables as the kernel's Tables: fsm is the device address
// of the automaton's transitions, at that of each of the set's lookups' tables.
func encodeTables(m *ida.Model, fsm uint64, at []tableAt) []byte {
	le := binary.LittleEndian
	b := make([]byte, tablesSize)
	le.PutUint32(b, uint32(m.Size.Cells()))
	copy(b[tablesNmoves:], m.NMoves[:])
	for c := 0; c < cells; c++ {
		copy(b[tablesMcell+4*c:], m.MoveCell[c][:])
		copy(b[tablesMdir+4*c:], m.MoveDir[c][:])
		copy(b[tablesMd+cells*c:], m.MD[c][:])
	}
	le.PutUint64(b[tablesFsm:], fsm)
	set := m.Set
	if set == nil {
		return b
	}
	le.PutUint32(b[tablesNl:], uint32(len(set.Lookups)))
	le.PutUint32(b[tablesNp:], uint32(set.Parts))
	for k := range set.Lookups {
		l := &set.Lookups[k]
		o := b[tablesLook+setLookSize*k:]
		le.PutUint64(o[setLookNib:], at[k].nib)
		le.PutUint64(o[setLookEscIdx:], at[k].escIdx)
		le.PutUint64(o[setLookEscVal:], at[k].escVal)
		le.PutUint32(o[setLookNesc:], uint32(len(l.Table.Escapes)))
		o[setLookK] = uint8(l.K)
		if l.Mirror {
			o[setLookMirror] = 1
		}
		if l.ZeroAware() {
			o[setLookZero] = 1
		}
		if l.InBits() {
			o[setLookInBits] = 1
		}
		copy(o[setLookTiles:], l.Tiles[:])
		copy(o[setLookMtiles:], l.MTiles[:])
		copy(o[setLookCell:setLookCell+cells], l.Cell[:])
		copy(o[setLookMcell:setLookMcell+cells], l.MCell[:])
		inv, num := l.Inverse()
		copy(o[setLookInv:setLookInv+cells], inv[:])
		copy(o[setLookNum:setLookNum+cells], num[:])
		le.PutUint64(o[setLookBits:], at[k].bits)
		le.PutUint64(o[setLookZs:], at[k].scheme)
	}
	for t := 0; t < cells; t++ {
		for p := 0; p < set.Parts; p++ {
			b[tablesOf+maxPart*t+p] = set.Of[t][p]
			b[tablesSlot+maxPart*t+p] = slotOf(set, t, p)
		}
		copy(b[tablesTouch+maxTouch*t:tablesTouch+maxTouch*(t+1)], set.Touch[t][:])
		b[tablesNtouch+t] = set.NTouch[t]
	}
	return b
}

// slotOf is the place of partition p's lookup of tile t among the lookups that hold t.
func slotOf(set *ida.SetModel, t, p int) uint8 {
	for j := 0; j < int(set.NTouch[t]); j++ {
		if set.Touch[t][j] == set.Of[t][p] {
			return uint8(j)
		}
	}
	return 0
}

// schemes returns the distinct index schemes of a set's zero-aware lookups, and each
// lookup's place among them (-1: not zero-aware).
func schemes(set *ida.SetModel) ([]*zindex.Scheme, []int) {
	var out []*zindex.Scheme
	of := make([]int, len(set.Lookups))
	for k := range set.Lookups {
		of[k] = -1
		zs := set.Lookups[k].Scheme()
		if zs == nil {
			continue
		}
		of[k] = slices.Index(out, zs)
		if of[k] < 0 {
			of[k] = len(out)
			out = append(out, zs)
		}
	}
	return out, of
}

// encodeScheme lays out an index scheme as the kernel's ZScheme, its maps' information
// and regions at the device addresses mapInfo and region; encodeScheme's second and third
// results are those arrays' bytes.
func encodeScheme(zs *zindex.Scheme, mapInfo, region uint64) (head, info, regions []byte) {
	le := binary.LittleEndian
	l := zs.Layout()
	head = make([]byte, zSchemeSize)
	le.PutUint32(head, uint32(l.N))
	le.PutUint32(head[zSchemeK:], uint32(l.K))
	le.PutUint32(head[zSchemeFact:], l.Fact)
	for i, w := range l.Weight {
		le.PutUint32(head[zSchemeWeight+4*i:], w)
	}
	for a := range l.Binom {
		for c := range l.Binom[a] {
			le.PutUint32(head[zSchemeBinom+4*(a*(cells+1)+c):], l.Binom[a][c])
		}
	}
	le.PutUint64(head[zSchemeMapInfo:], mapInfo)
	le.PutUint64(head[zSchemeRegion:], region)
	info = make([]byte, 8*len(l.MapInfo))
	for i, x := range l.MapInfo {
		le.PutUint64(info[8*i:], x)
	}
	return head, info, l.Region
}

// seedStride is the bytes of one root's seed (cat.h).
func seedStride(nl, np int) int { return (10*nl + 2*np + 7) &^ 7 }

// encodeSeeds lays out the roots' lookups under a catalogue as the kernel reads them
// (cat.h, start), in the order given (encodeRoots): each lookup's ranks, half excess and
// value modulo 4, each partition's sum.
func encodeSeeds(seeds []ida.Seed, order []uint32, nl, np int) []byte {
	stride := seedStride(nl, np)
	b := make([]byte, stride*len(order))
	for i, k := range order {
		sd := seeds[k]
		o := b[stride*i:]
		for k := range nl {
			binary.LittleEndian.PutUint64(o[8*k:], sd.Z[k].Word())
			o[8*nl+k] = sd.Ex[k]
			o[9*nl+k] = sd.Hm[k]
		}
		for p := range np {
			binary.LittleEndian.PutUint16(o[10*nl+2*p:], uint16(sd.Sum[p]))
		}
	}
	return b
}

// escapes returns a table's escapes as the kernel reads them: indices, then values.
func escapes(t *pdb.Packed) ([]byte, []byte) {
	idx := make([]byte, 4*len(t.Escapes))
	val := make([]byte, len(t.Escapes))
	for i, e := range t.Escapes {
		binary.LittleEndian.PutUint32(idx[4*i:], e.Index)
		val[i] = e.Value
	}
	return idx, val
}

// encodeRoots lays out the frontier as the kernel's Roots in the order the threads take
// them (order: their serial indices), each with its serial index.
func encodeRoots(roots []ida.Root, order []uint32) []byte {
	b := make([]byte, rootSize*len(order))
	for i, k := range order {
		r := &roots[k]
		o := b[rootSize*i:]
		copy(o, r.Board[:])
		o[rootBlank], o[rootG], o[rootH] = r.Blank, r.G, r.H
		binary.LittleEndian.PutUint32(o[rootState:], r.State)
		binary.LittleEndian.PutUint32(o[rootSub:], k)
		o[rootThr] = kOwner
	}
	return b
}

// maxBound is the deepest pass the kernel's stack holds (kMaxDepth - 1).
const maxBound = 255

// launch is what one launch of a pass reports: each subtree's counts, the earliest solving
// subtree (len(gen): none) and whether it stopped early.
type launch struct {
	gen, exp []uint64
	value    []int32 // each subtree's root's value as BPMX left it (sets; nil: md)
	best     int
	stopped  bool
}
