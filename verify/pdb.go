package verify

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// pdbTable is a pattern database with the blank in its index under verification (those
// without are additiveTable).
type pdbTable struct {
	t    *pdb.Table
	goal board.Goal
	size board.Size

	full, notCol0, notColLast uint32 // cell masks for flood fills
	nbr                       [board.MaxCells][4]int8
}

func newPDBTable(f *tablefile.Table) (*pdbTable, error) {
	t, err := pdb.Load(f)
	if err != nil {
		return nil, err
	}
	v := &pdbTable{t: t, goal: t.Goal(), size: t.Goal().Size()}
	n := v.size.Cells()
	v.full = 1<<n - 1
	for c := 0; c < n; c++ {
		if v.size.Col(c) != 0 {
			v.notCol0 |= 1 << c
		}
		if v.size.Col(c) != v.size.W-1 {
			v.notColLast |= 1 << c
		}
		for d, dir := range board.Dirs {
			v.nbr[c][d] = int8(v.size.Step(c, dir))
		}
	}
	return v, nil
}

// region returns the cells the blank reaches from cell b without moving pattern tiles.
func (v *pdbTable) region(b uint8, free uint32) uint32 {
	r := uint32(1) << b
	w := uint(v.size.W)
	for {
		grown := r | (r<<1)&v.notCol0 | (r>>1)&v.notColLast | r<<w | r>>w
		grown &= free
		if grown == r {
			return r
		}
		r = grown
	}
}

// describe renders an abstract state: pattern tiles and the blank on a board of dots.
func (v *pdbTable) describe(idx uint32) string { return describeAbstract(v.t.Pattern, idx) }

// describeAbstract renders entry idx of a pattern's table: its tiles, and the blank when
// the index holds it, on a board of dots.
func describeAbstract(p *pdb.Pattern, idx uint32) string {
	cells := make([]uint8, p.Elems())
	p.Unrank(idx, cells)
	shown := make([]string, p.Goal().Size().Cells())
	for i := range shown {
		shown[i] = "."
	}
	tiles := p.Tiles()
	for i, t := range tiles {
		shown[cells[i]] = fmt.Sprint(t)
	}
	if p.BlankInIndex() {
		shown[cells[len(tiles)]] = "0"
	}
	return fmt.Sprintf("index %d [%s]", idx, p.Goal().Size().Layout(shown))
}

func (v *pdbTable) exactness(ctx context.Context, opt Options) Check {
	p := v.t.Pattern
	entries := v.t.Entries
	k := len(p.Tiles())
	var home [board.MaxCells]uint8
	for i, t := range p.Tiles() {
		home[i] = uint8(v.goal.Home(t))
	}
	goalBlank := uint32(1) << v.goal.Home(0)
	keep := opt.maxExamples()
	report := func(b *bad, idx uint32, got uint8, want int, why string) {
		b.add(idx, func() string {
			return fmt.Sprintf("%s: entry %d, expected %s", v.describe(idx), got, why)
		}, keep)
	}
	parts := parallel(ctx, p.Len(), opt.workers(), opt.entriesProgress(Exactness), func(lo, hi int, b *bad) {
		cells := make([]uint8, p.Elems())
		for idx := uint32(lo); idx < uint32(hi); idx++ {
			p.Unrank(idx, cells)
			var occupied uint32
			atHome := true
			var owner [board.MaxCells]int8
			for i := 0; i < k; i++ {
				occupied |= 1 << cells[i]
				owner[cells[i]] = int8(i + 1)
				atHome = atHome && cells[i] == home[i]
			}
			val := entries[idx]
			blank := cells[k]
			region := v.region(blank, v.full&^occupied)
			rep := uint8(bits.TrailingZeros32(region))
			if blank != rep {
				// Every state of a group carries its representative's value.
				cells[k] = rep
				rv := entries[p.Rank(cells)]
				if rv != val {
					report(b, idx, val, int(rv), fmt.Sprintf("%d, the value of its group (the blank anywhere in its free region)", rv))
				}
				continue
			}
			// The representative checks the group: 0 if it holds the goal, else 1 + the
			// least value one pattern-tile move away from any cell of the region.
			want := 0
			if !atHome || region&goalBlank == 0 {
				least := 255
				for rest := region; rest != 0; rest &= rest - 1 {
					x := uint8(bits.TrailingZeros32(rest))
					for _, q := range v.nbr[x] {
						if q < 0 || owner[q] == 0 {
							continue
						}
						i := owner[q] - 1
						cells[i], cells[k] = x, uint8(q)
						least = min(least, int(entries[p.Rank(cells)]))
						cells[i] = uint8(q)
					}
				}
				cells[k] = blank
				want = min(least+1, 255)
			}
			if int(val) != want {
				report(b, idx, val, want, fmt.Sprintf("%d (its group: 0 if it holds the goal, else 1 + least group one pattern-tile move away)", want))
			}
		}
	})
	return exactnessResult(ctx, parts, opt, p.Len(), "group distance equation over zero-cost regions")
}

// published compares entry counts with the published ones on the 4x4 board (Hilchie's IDA15; Korf & Felner 2002).
func (v *pdbTable) published() Check {
	if v.size != board.Size4x4 {
		return skip(Published, fmt.Sprintf("no published figures for %s boards", v.size))
	}
	k, blank := len(v.t.Tiles()), v.t.BlankInIndex()
	figures := map[[2]int]int{
		{3, 1}: 43680,     // IDA15's {11, 12, 15} + blank
		{4, 1}: 524160,    // IDA15's {1, 2, 5, 6} + blank
		{6, 1}: 57657600,  // 6 tiles + blank
		{5, 0}: 524160,    // 5-5-5
		{6, 0}: 5765760,   // 6-6-3
		{7, 0}: 57657600,  // 7-8
		{8, 0}: 518918400, // 7-8
	}
	key := [2]int{k, 0}
	if blank {
		key[1] = 1
	}
	want, ok := figures[key]
	if !ok {
		return skip(Published, fmt.Sprintf("no published figure for %d tiles%s", k, map[bool]string{true: " + blank"}[blank]))
	}
	if v.t.Len() != want {
		return Check{Name: Published, Status: Fail, Detail: fmt.Sprintf("%d entries; the literature has %d", v.t.Len(), want)}
	}
	return Check{Name: Published, Status: Pass, Detail: fmt.Sprintf("%d entries, as published", want)}
}

// isIDA15Large reports whether the table is {1,2,5,6} + blank for the blank-last 4x4 goal,
// the one solvers reuse through mirrors.
func (v *pdbTable) isIDA15Large() bool {
	return v.goal.Equal(board.BlankLast(board.Size4x4)) && v.t.BlankInIndex() && slices.Equal(v.t.Tiles(), pdb.IDA15Large)
}

// symmetry compares the mirrored lookups of IDA15's large table with direct builds of
// {4,3,8,7} and {13,14,9,10}.
func (v *pdbTable) symmetry(ctx context.Context, opt Options) Check {
	if !v.isIDA15Large() {
		return skip(Symmetry, "the table is not used through a mirror")
	}
	var badN, checked int64
	var examples []string
	for _, m := range []struct {
		tiles []int
		cell  func(int) int
	}{{pdb.IDA15MirrorCols, pdb.MirrorCols}, {pdb.IDA15MirrorRows, pdb.MirrorRows}} {
		p, err := pdb.NewPattern(v.goal, m.tiles, true)
		if err != nil {
			return Check{Name: Symmetry, Status: Fail, Detail: err.Error()}
		}
		direct, err := opt.build(ctx, Symmetry, p)
		if err != nil {
			return Check{Name: Symmetry, Status: Fail, Detail: err.Error()}
		}
		cells := make([]uint8, 5)
		rng := rand.New(rand.NewPCG(1, 2))
		n := p.Len()
		count := n
		if !opt.Deep {
			count = min(n, opt.samples())
		}
		for j := 0; j < count; j++ {
			idx := uint32(j)
			if count < n {
				idx = uint32(rng.IntN(n))
			}
			p.Unrank(idx, cells)
			for i := range cells {
				cells[i] = uint8(m.cell(int(cells[i])))
			}
			mirrored := v.t.Entries[v.t.Rank(cells)]
			checked++
			if mirrored != direct.Entries[idx] {
				badN++
				if len(examples) < 5 {
					examples = append(examples, fmt.Sprintf("tiles %v at index %d: mirrored lookup %d, direct build %d", m.tiles, idx, mirrored, direct.Entries[idx]))
				}
			}
		}
	}
	how := "a sample of"
	if opt.Deep {
		how = "all"
	}
	if badN > 0 {
		return Check{Name: Symmetry, Status: Fail, Bad: badN, Examples: examples,
			Detail: fmt.Sprintf("%d of %d mirrored lookups differ from direct builds of {4,3,8,7} and {13,14,9,10}", badN, checked)}
	}
	return Check{Name: Symmetry, Status: Pass,
		Detail: fmt.Sprintf("mirrored lookups equal direct builds of {4,3,8,7} and {13,14,9,10} on %s %d states", how, checked)}
}

func (v *pdbTable) admissibility(opt Options) Check {
	if !opt.Deep || len(opt.Instances) == 0 {
		return skip(Admissibility, "needs deep mode and instances with known optima")
	}
	return checkAdmissible(opt.Instances, v.goal, false, "the entry", v.t.Lookup)
}

func (v *pdbTable) rebuild(ctx context.Context, opt Options) Check {
	if !opt.Deep && !opt.Rebuild {
		return skip(Rebuild, "deep mode only")
	}
	if c := opt.afford(Rebuild, v.t.Pattern, pdb.Bytes, false, 0); c != nil {
		return *c
	}
	fresh, err := opt.build(ctx, Rebuild, v.t.Pattern)
	if err != nil {
		return Check{Name: Rebuild, Status: Fail, Detail: err.Error()}
	}
	return compare(fresh.Entries, v.t.Entries, func(i int) string { return v.describe(uint32(i)) })
}
