package verify

import (
	"bytes"
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// additiveTable is a pattern database without the blank (Korf & Felner 2002), raw or
// packed, under verification. Its published, symmetry and admissibility checks serve the
// zero-aware tables too (zero.go).
//
// Its entries are the least distance over the blank's regions of free cells, which is
// admissible but not consistent: one move of a pattern tile can change an entry by more
// than one (on the 6-tile table of 6-6-3, 1,549,392 of its moves do, by up to 7), because
// the region that attains the least distance may be out of the blank's reach. So no
// placement-level equation certifies such a table; exactness is proven by recomputing it
// with the region search of package pdb (itself tested against a brute-force search over
// the tiles and the blank) and comparing every entry. That costs one build.
type additiveTable struct {
	p      *pdb.Pattern
	raw    *pdb.Table  // raw files
	packed *pdb.Packed // half-excess files
	goal   board.Goal
}

func newAdditiveTable(f *tablefile.Table) (*additiveTable, error) {
	v := &additiveTable{}
	if f.Encoding == tablefile.EncodingHalfExcess || f.Encoding == tablefile.EncodingBit {
		t, err := pdb.LoadPacked(f)
		if err != nil {
			return nil, err
		}
		v.packed, v.p = t, t.Pattern
	} else {
		t, err := pdb.Load(f)
		if err != nil {
			return nil, err
		}
		v.raw, v.p = t, t.Pattern
	}
	v.goal = v.p.Goal()
	return v, nil
}

// value returns entry i.
func (v *additiveTable) value(i uint32, cells []uint8) int {
	if v.raw != nil {
		return int(v.raw.Entries[i])
	}
	return v.packed.Value(i, cells)
}

func (v *additiveTable) exactness(ctx context.Context, opt Options) Check {
	form := pdb.Bytes
	if v.packed != nil {
		form = pdb.HalfExcess
	}
	if c := opt.afford(Exactness, v.p, form, false, 0); c != nil {
		return *c
	}
	what := "entries equal a recomputation by the Korf-Felner search (least distance over the blank's regions)"
	pass := Check{Name: Exactness, Status: Pass, Detail: fmt.Sprintf("all %d %s", v.p.Len(), what)}
	var recomputed func(i uint32, cells []uint8) int
	if v.packed != nil {
		// Recomputed packed as pdbgen packs (mirror, escapes), and compared byte for byte.
		fresh, err := pdb.BuildPacked(ctx, v.p, opt.pdbOptions(Exactness))
		if err != nil {
			return Check{Name: Exactness, Status: Fail, Detail: "recomputing: " + err.Error()}
		}
		// The mirror decides how the nibbles decode: equal nibbles under another mirror
		// are other values, which the comparison entry by entry below names.
		if fresh.Mirror == v.packed.Mirror && bytes.Equal(fresh.Nibbles, v.packed.Nibbles) &&
			fmt.Sprint(fresh.Escapes) == fmt.Sprint(v.packed.Escapes) {
			return pass
		}
		recomputed = fresh.Value
	} else {
		fresh, err := opt.build(ctx, Exactness, v.p)
		if err != nil {
			return Check{Name: Exactness, Status: Fail, Detail: "recomputing: " + err.Error()}
		}
		if bytes.Equal(fresh.Entries, v.raw.Entries) {
			return pass
		}
		recomputed = func(i uint32, _ []uint8) int { return int(fresh.Entries[i]) }
	}
	// Name the entries that differ.
	parts := parallel(ctx, v.p.Len(), opt.workers(), opt.entriesProgress(Exactness), func(lo, hi int, b *bad) {
		cells := make([]uint8, v.p.Elems())
		for i := uint32(lo); i < uint32(hi); i++ {
			v.p.Unrank(i, cells)
			got, want := v.value(i, cells), recomputed(i, cells)
			if got != want {
				b.add(i, func() string {
					return fmt.Sprintf("%s: entry %d, recomputed %d", describeAbstract(v.p, i), got, want)
				}, opt.maxExamples())
			}
		}
	})
	n, ex := merge(parts, opt.maxExamples())
	return Check{Name: Exactness, Status: Fail, Bad: n, Examples: ex,
		Detail: fmt.Sprintf("%d of %d entries differ from a recomputation by the Korf-Felner search", n, v.p.Len())}
}

func (v *additiveTable) published() Check {
	zero := v.packed != nil && v.packed.Zero != nil
	entries := v.p.Len()
	if zero {
		entries = v.packed.Entries()
	}
	for _, set := range pdb.Sets {
		for t, tiles := range set.Tables {
			if set.ZeroAware == zero && set.Goal.Equal(v.goal) && fmt.Sprint(tiles) == fmt.Sprint(v.p.Tiles()) {
				return Check{Name: Published, Status: Pass,
					Detail: fmt.Sprintf("table %d of the %s set: %d entries, as published (%s)", t+1, set.Name, entries, set.About)}
			}
		}
	}
	return skip(Published, "not a table of a published set")
}

func (v *additiveTable) symmetry(context.Context, Options) Check {
	return skip(Symmetry, "a set that reads a table through a symmetry is checked when the set is defined, before any table is built")
}

func (v *additiveTable) admissibility(opt Options) Check {
	if !opt.Deep || len(opt.Instances) == 0 {
		return skip(Admissibility, "needs deep mode and instances with known optima")
	}
	lookup := func(s board.State) int {
		if v.raw != nil {
			return v.raw.Lookup(s)
		}
		return v.packed.Lookup(s)
	}
	return checkAdmissible(opt.Instances, v.goal, false, "the entry", lookup)
}

func (v *additiveTable) rebuild(context.Context, Options) Check {
	return Check{Name: Rebuild, Status: Pass, Detail: "the exactness check rebuilt the table and compared every entry"}
}
