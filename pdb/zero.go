package pdb

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/zindex"
)

// Zero-aware tables (Clausecker & Reinefeld 2017) keep, for each placement of the pattern
// tiles, the distance of every region of free cells the blank may be in, where Korf &
// Felner's keep the least of them. The search that builds the one finds the other on the
// way: it reaches (placement, region) states, and a region's distance is the layer in
// which its bit is first set. Their index is package zindex's.
//
// A zero-aware table is consistent: a move of a pattern tile is one edge of cost 1 between
// (placement, region) states, and a move of another tile keeps both, so its value changes
// by one or not at all. The minimum over regions is not: one move can raise it by more.
// Entries minus the pattern's Manhattan distance are even, and tables are packed into half
// excesses as the others are (Packed).

// advanceZero is advance for a zero-aware build, over placements lo to hi: each region
// reached for the first time gets the distance depth.
func (s *additive) advanceZero(lo, hi int, depth uint8) layerCount {
	var c layerCount
	var cells [32]uint8
	for i := lo; i < hi; i++ {
		x := s.sn[i]
		if x < 0x100 {
			s.cur[i] = 0
			continue
		}
		seen := uint8(x)
		fresh := uint8(x>>8) &^ seen
		s.cur[i] = fresh
		s.sn[i] = uint16(seen | fresh)
		if fresh == 0 {
			continue
		}
		c.frontier++
		if seen == 0 {
			c.placements++
		}
		s.p.Unrank(uint32(i), cells[:])
		for m := fresh; m != 0; m &= m - 1 {
			s.za[s.zero.Index(cells[:s.k], bits.TrailingZeros8(m))] = depth
		}
	}
	return c
}

// ZeroAware builds the zero-aware table of p (without the blank in its index), packed.
// It takes what the Korf-Felner build takes (three bytes a placement) plus a byte per
// zero-aware entry while it runs.
func ZeroAware(ctx context.Context, p *Pattern, opt Options) (*Packed, error) {
	z, values, err := zeroValues(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	packed, err := packZero(ctx, p, z, values)
	collect(len(values))
	return packed, err
}

// zeroValues runs the search of a zero-aware table: a byte per entry.
func zeroValues(ctx context.Context, p *Pattern, opt Options) (*zindex.Scheme, []uint8, error) {
	if p.blank {
		return nil, nil, fmt.Errorf("pdb: %s has the blank in its index; a zero-aware table has regions instead", p.Name())
	}
	z, err := zindex.For(p.goal.Size(), p.m)
	if err != nil {
		return nil, nil, err
	}
	values, err := newSearch(p, opt.Workers, z).run(ctx, opt.Progress)
	return z, values, err
}

// packZero packs the values of a zero-aware table into half excesses.
func packZero(ctx context.Context, p *Pattern, z *zindex.Scheme, values []uint8) (*Packed, error) {
	out := &Packed{Pattern: p, Zero: z}
	return out, out.fill(ctx, len(values), func(i uint32, _ []uint8) (int, bool) { return int(values[i]), true })
}

// NewZeroAware makes a zero-aware packed table from its parts, checking that the nibbles
// and the escape list agree.
func NewZeroAware(p *Pattern, nibbles []byte, escapes []Escape) (*Packed, error) {
	if p.blank {
		return nil, fmt.Errorf("pdb: %s has the blank in its index", p.Name())
	}
	z, err := zindex.For(p.goal.Size(), p.m)
	if err != nil {
		return nil, err
	}
	t := &Packed{Pattern: p, Zero: z, Nibbles: nibbles, Escapes: escapes}
	if err := tablefile.CheckHalfExcess(z.Entries(), nibbles, escapes); err != nil {
		return nil, fmt.Errorf("pdb: %s (zero-aware): %w", p.Name(), err)
	}
	t.initMD()
	return t, nil
}

// Entries returns the number of entries: the placements, or for a zero-aware table the
// (placement, region) states.
func (t *Packed) Entries() int {
	if t.Zero != nil {
		return int(t.Zero.Entries())
	}
	return t.Len()
}

// unrankEntry fills cells with the tiles' cells of entry i.
func (t *Packed) unrankEntry(i uint32, cells []uint8) {
	if t.Zero != nil {
		t.Zero.Unrank(i, cells)
		return
	}
	t.Unrank(i, cells)
}
