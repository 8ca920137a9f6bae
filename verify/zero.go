package verify

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// zeroTable is a zero-aware pattern database (index zperm-v1) under verification.
//
// Its entries are distances between (placement, region of the blank) states, and a move of
// a pattern tile is an edge of cost 1 between them, so the table is proven exact by the
// distance equation, entry by entry, as the tables with the blank in the index are: the
// goal state's entry is 0, and every other entry is 1 + the least entry one pattern-tile
// move away (a tile next to the blank's region stepping into it, the blank taking the
// tile's cell), with 255 (unreachable) exactly where every neighbour is 255. Values that
// satisfy these equations are the distances: the goal is the only 0, a value d is reached
// from a neighbour with d-1, and by induction no value is below the distance.
//
// Its other checks are those of the Korf-Felner tables (additive.go).
type zeroTable struct {
	*additiveTable
	t    *pdb.Packed
	size board.Size
	nbr  [board.MaxCells][4]int8
}

func newZeroTable(f *tablefile.Table) (*zeroTable, error) {
	a, err := newAdditiveTable(f)
	if err != nil {
		return nil, err
	}
	t := a.packed
	if t == nil || t.Zero == nil {
		return nil, fmt.Errorf("verify: a zero-aware table must be in the %s encoding", tablefile.EncodingHalfExcess)
	}
	v := &zeroTable{additiveTable: a, t: t, size: t.Goal().Size()}
	for c := 0; c < v.size.Cells(); c++ {
		for d, dir := range board.Dirs {
			v.nbr[c][d] = int8(v.size.Step(c, dir))
		}
	}
	return v, nil
}

func (v *zeroTable) describe(idx uint32) string {
	z := v.t.Zero
	cells := make([]uint8, z.Tiles())
	m, r := z.Unrank(idx, cells)
	return fmt.Sprintf("entry %d (tiles %v on cells %v, the blank in region %d of %d)", idx, v.t.Tiles(), cells, r, z.Regions(m))
}

func (v *zeroTable) exactness(ctx context.Context, opt Options) Check {
	z := v.t.Zero
	k := z.Tiles()
	n := v.size.Cells()
	var home [board.MaxCells]uint8
	var homeMask uint32
	for i, t := range v.t.Tiles() {
		home[i] = uint8(v.goal.Home(t))
		homeMask |= 1 << home[i]
	}
	goalIdx := z.IndexMask(home[:k], homeMask, v.goal.Home(0))
	keep := opt.maxExamples()
	entries := int(z.Entries())
	parts := parallel(ctx, entries, opt.workers(), opt.entriesProgress(Exactness), func(lo, hi int, b *bad) {
		cells := make([]uint8, board.MaxCells)
		var owner [board.MaxCells]int8
		for i := range owner {
			owner[i] = -1
		}
		for idx := uint32(lo); idx < uint32(hi); idx++ {
			m, r := z.Unrank(idx, cells)
			val := v.t.Value(idx, cells)
			var mask uint32
			for i := 0; i < k; i++ {
				mask |= 1 << cells[i]
				owner[cells[i]] = int8(i)
			}
			want := 0
			if idx != goalIdx {
				least := 255
				// The cells of the blank's region, and the tiles next to them.
				for c := 0; c < n; c++ {
					if z.Region(m, c) != uint8(r) {
						continue
					}
					for _, q := range v.nbr[c] {
						if q < 0 || owner[q] < 0 {
							continue
						}
						i := owner[q]
						cells[i] = uint8(c)
						after := mask&^(1<<uint(q)) | 1<<uint(c)
						j := z.IndexMask(cells[:k], after, int(q))
						least = min(least, v.t.Value(j, cells))
						cells[i] = uint8(q)
					}
				}
				want = min(least+1, 255)
			}
			for x := mask; x != 0; x &= x - 1 {
				owner[bits.TrailingZeros32(x)] = -1
			}
			if val != want {
				b.add(idx, func() string {
					return fmt.Sprintf("%s: value %d, expected %d (0 at the goal, else 1 + the least value one pattern-tile move away)", v.describe(idx), val, want)
				}, keep)
			}
		}
	})
	return exactnessResult(ctx, parts, opt, entries, "distance equation over (placement, region) states")
}

func (v *zeroTable) rebuild(ctx context.Context, opt Options) Check {
	if !opt.Deep && !opt.Rebuild {
		return skip(Rebuild, "the distance equation proves the table; --deep or --rebuild also rebuilds it")
	}
	if c := opt.afford(Rebuild, v.p, pdb.HalfExcess, true, 0); c != nil {
		return *c
	}
	fresh, err := pdb.ZeroAware(ctx, v.t.Pattern, opt.pdbOptions(Rebuild))
	if err != nil {
		return Check{Name: Rebuild, Status: Fail, Detail: "rebuilding: " + err.Error()}
	}
	if string(fresh.Nibbles) == string(v.t.Nibbles) && fmt.Sprint(fresh.Escapes) == fmt.Sprint(v.t.Escapes) {
		return Check{Name: Rebuild, Status: Pass, Detail: fmt.Sprintf("a rebuild equals the file in all %d entries", v.t.Entries())}
	}
	return Check{Name: Rebuild, Status: Fail, Detail: "a rebuild differs from the file"}
}
