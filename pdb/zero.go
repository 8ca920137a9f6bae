package pdb

import (
	"context"
	"fmt"

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

// ZeroAware builds the zero-aware table of p (without the blank in its index), packed.
// It takes two bits an entry while it searches, beside the table's half a byte (engine.go).
func ZeroAware(ctx context.Context, p *Pattern, opt Options) (*Packed, error) {
	if p.blank {
		return nil, fmt.Errorf("pdb: %s has the blank in its index; a zero-aware table has regions instead", p.Name())
	}
	return zeroNibbles(ctx, p, opt)
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
