package verify

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// bitTable is a zero-aware pattern database in the bit encoding under verification. Its
// bits hold no values, so no equation over neighbouring entries can be checked one entry
// at a time: exactness is proven by rebuilding the table (the same search that builds the
// half-excess one, whose distance equation package pdb's tests and this package check)
// and comparing every bit. That costs one build, as Korf & Felner's tables do.
type bitTable struct {
	*additiveTable
	t *pdb.Packed
}

func newBitTable(f *tablefile.Table) (*bitTable, error) {
	a, err := newAdditiveTable(f)
	if err != nil {
		return nil, err
	}
	if a.packed == nil || a.packed.Bitmap == nil {
		return nil, fmt.Errorf("verify: not a table in the %s encoding", tablefile.EncodingBit)
	}
	return &bitTable{additiveTable: a, t: a.packed}, nil
}

func (v *bitTable) exactness(ctx context.Context, opt Options) Check {
	if c := opt.afford(Exactness, v.p, pdb.Bit, true, 0); c != nil {
		return *c
	}
	fresh, err := pdb.ZeroAwareBits(ctx, v.p, opt.pdbOptions(Exactness))
	if err != nil {
		return Check{Name: Exactness, Status: Fail, Detail: "rebuilding: " + err.Error()}
	}
	keep := opt.maxExamples()
	var b bad
	for i := range v.t.Bitmap {
		if x := v.t.Bitmap[i] ^ fresh.Bitmap[i]; x != 0 {
			for j := 0; j < 8; j++ {
				if x>>j&1 == 1 {
					idx := uint32(8*i + j)
					b.add(idx, func() string {
						return fmt.Sprintf("entry %d: bit %d, a rebuild has %d", idx, v.t.Bit(idx), fresh.Bit(idx))
					}, keep)
				}
			}
		}
	}
	return exactnessResult(ctx, []bad{b}, opt, v.t.Entries(), "comparison with a rebuild (each bit is (distance / 2) mod 2, the distances over (placement, region) states)")
}

func (v *bitTable) rebuild(context.Context, Options) Check {
	return Check{Name: Rebuild, Status: Pass, Detail: "the exactness check rebuilt the table and compared every bit"}
}
