package pdb

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/zindex"
)

// A zero-aware table in the bit encoding keeps one bit per entry, (value / 2) mod 2: a
// quarter of the half-excess nibbles. It needs no more because the table is consistent in a
// strong way: a move of a pattern tile is one edge of the abstract graph, so it changes the
// value by one, and the value has the parity of the pattern's Manhattan distance, so it
// cannot stay the same. A neighbour's value is therefore v-1 or v+1, whose halves differ
// by one: the neighbour's bit says which. A search that knows a node's value reads its
// children's values this way (ida keeps each lookup's value modulo 4); a value from
// nothing is found by walking down to the abstract goal, each step to a neighbour whose
// value is one less, and counting the steps (Descend).

// Bit returns entry i's bit, (value / 2) mod 2.
func (t *Packed) Bit(i uint32) uint8 { return t.Bitmap[i>>3] >> (i & 7) & 1 }

// bitOf is the bit of value v: (v / 2) mod 2, and 0 for an entry no state reaches.
func bitOf(v int) byte {
	if v == int(Unreachable) {
		return 0
	}
	return byte(v>>1) & 1
}

// NextValue returns the value of a neighbour of an entry of value v (mod 4 is enough)
// whose bit is b: v+1 or v-1, as a change of +1 or -1.
func NextValue(v, b uint8) int {
	if (v+1)>>1&1 == b {
		return +1
	}
	return -1
}

// ToBits returns the set with each of its tables in the bit encoding (Packed.ToBits).
func (s *Set) ToBits(ctx context.Context, workers int) (*Set, error) {
	out := &Set{SetSpec: s.SetSpec}
	for _, t := range s.Tables {
		b, err := t.ToBits(ctx, workers)
		if err != nil {
			return nil, err
		}
		out.Tables = append(out.Tables, b)
	}
	return out, nil
}

// ToBits returns the table in the bit encoding. It decodes every entry, on workers
// goroutines (0: all cores). Only zero-aware tables are consistent enough for it.
func (t *Packed) ToBits(ctx context.Context, workers int) (*Packed, error) {
	if t.Zero == nil {
		return nil, fmt.Errorf("pdb: %s is not zero-aware: the bit encoding needs neighbours that differ by exactly one", t.Name())
	}
	if t.Bitmap != nil {
		return t, nil
	}
	bitmap := make([]byte, (t.Entries()+7)/8)
	// Each chunk of decode is whole bytes of the bitmap, so goroutines write apart.
	err := t.decode(ctx, workers, func(_ int, i uint32, v int) {
		bitmap[i>>3] |= bitOf(v) << (i & 7)
	})
	if err != nil {
		return nil, err
	}
	return NewBitTable(t.Pattern, bitmap)
}

// ZeroAwareBits builds the zero-aware table of p in the bit encoding, straight from the
// search's layers (ToBits of ZeroAware's table gives the same bits, decoding every entry).
// It takes two bits an entry while it searches, beside the table's one.
func ZeroAwareBits(ctx context.Context, p *Pattern, opt Options) (*Packed, error) {
	if p.blank {
		return nil, fmt.Errorf("pdb: %s has the blank in its index; a zero-aware table has regions instead", p.Name())
	}
	return zeroBits(ctx, p, opt)
}

// NewBitTable makes a zero-aware table in the bit encoding from its bitmap.
func NewBitTable(p *Pattern, bitmap []byte) (*Packed, error) {
	if p.blank {
		return nil, fmt.Errorf("pdb: %s has the blank in its index", p.Name())
	}
	z, err := zindex.For(p.goal.Size(), p.m)
	if err != nil {
		return nil, err
	}
	t := &Packed{Pattern: p, Zero: z, Bitmap: bitmap}
	if want := (t.Entries() + 7) / 8; len(bitmap) != want {
		return nil, fmt.Errorf("pdb: %s: a bitmap of %d bytes, want %d", p.Name(), len(bitmap), want)
	}
	t.initMD()
	return t, nil
}

// Descend returns the value of entry i of a bit table: the number of steps down to the
// abstract goal. It reports false when some step finds no neighbour one lower before the
// goal, which a correct table never does.
func (t *Packed) Descend(i uint32) (int, bool) {
	z, k := t.Zero, t.m
	size := t.goal.Size()
	var cur [8]uint8
	m, r := z.Unrank(i, cur[:k])
	region := uint8(r)
	var mask uint32
	for _, c := range cur[:k] {
		mask |= 1 << c
	}
	goal := t.goalEntry()
	b := t.Bit(i)
	parity := uint8(t.MD(cur[:k]) & 1)
	for h := 0; ; h++ {
		if i == goal {
			return h, true
		}
		if h > 255 {
			return 0, false
		}
		found := false
		for j := 0; j < k && !found; j++ {
			from := int(cur[j])
			for _, d := range board.Dirs {
				c := size.Step(from, d)
				if c < 0 || mask&(1<<c) != 0 || z.Region(m, c) != region {
					continue // not a free cell the blank can reach
				}
				cur[j] = uint8(c)
				next := mask&^(1<<from) | 1<<c
				nm := z.Map(next)
				nr := z.Region(nm, from)
				ni := z.IndexMask(cur[:k], next, from)
				nb := t.Bit(ni)
				if nb^b^parity == 1 { // one lower (see NextValue)
					i, b, m, mask, region = ni, nb, nm, next, nr
					parity ^= 1
					found = true
					break
				}
				cur[j] = uint8(from)
			}
		}
		if !found {
			return 0, false
		}
	}
}

// goalEntry is the index of the abstract goal: the pattern home, the blank in the region
// of its home.
func (t *Packed) goalEntry() uint32 {
	var cells [board.MaxCells]uint8
	goal := t.goal.Tiles()
	t.Cells(goal, cells[:])
	return t.Zero.IndexBlank(cells[:t.m], goal.Blank())
}

// bitFile returns a bit table as a table file.
func (t *Packed) bitFile() (*tablefile.Table, error) {
	return tablefile.NewBitmap(t.goal, t.tiles, t.Bitmap)
}
