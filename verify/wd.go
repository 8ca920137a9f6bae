package verify

import (
	"bytes"
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/wd"
)

// wdTable is a walking-distance table under verification.
type wdTable struct {
	goal board.Goal
	t    *wd.Table
}

func newWDTable(f *tablefile.Table) (*wdTable, error) {
	t, goal, err := wd.Load(f)
	if err != nil {
		return nil, err
	}
	return &wdTable{goal: goal, t: t}, nil
}

func (v *wdTable) describe(id uint32) string {
	p := v.t.Pattern(id)
	rows := make([][]uint8, v.t.Lines)
	for l := range rows {
		rows[l] = p.M[l][:v.t.Lines]
	}
	return fmt.Sprintf("pattern %d (blank in row %d, tiles by row and goal row %v)", id, p.Blank, rows)
}

// exactness: 0 exactly at the goal pattern, elsewhere 1 + the least neighbour.
func (v *wdTable) exactness(ctx context.Context, opt Options) Check {
	t := v.t
	goal := t.Goal()
	dist := t.Dists()
	parts := parallel(ctx, t.Len(), opt.workers(), opt.entriesProgress(Exactness), func(lo, hi int, b *bad) {
		for id := uint32(lo); id < uint32(hi); id++ {
			want := 0
			if id != goal {
				least := 255
				for dir := 0; dir < 2; dir++ {
					for g := 0; g < t.Lines; g++ {
						if n := t.Next(id, dir, g); n != wd.None {
							least = min(least, int(dist[n]))
						}
					}
				}
				want = min(least+1, 255)
			}
			if int(dist[id]) != want {
				b.add(id, func() string {
					return fmt.Sprintf("%s: entry %d, expected %d", v.describe(id), dist[id], want)
				}, opt.maxExamples())
			}
		}
	})
	return exactnessResult(ctx, parts, opt, t.Len(), "walking-distance equation (0 at the goal, else 1 + least neighbour)")
}

func (v *wdTable) published() Check {
	if v.goal.Size() != board.Size4x4 {
		return skip(Published, fmt.Sprintf("no published figures for %s boards", v.goal.Size()))
	}
	largest := 0
	for _, d := range v.t.Dists() {
		largest = max(largest, int(d))
	}
	if v.t.Len() != 24964 || largest != 35 {
		return Check{Name: Published, Status: Fail,
			Detail: fmt.Sprintf("%d patterns and largest distance %d; the 4x4 table has 24,964 and 35", v.t.Len(), largest)}
	}
	return Check{Name: Published, Status: Pass, Detail: "24,964 patterns, largest distance 35 (Takahashi)"}
}

// symmetry: read upside down, the table must equal a direct build for the goal whose blank
// row is mirrored (blank-last and blank-first are such a pair); solvers use one through
// the other.
func (v *wdTable) symmetry(ctx context.Context, _ Options) Check {
	t := v.t
	mirror, err := wd.Build(ctx, t.Lines, t.LineLen, t.Lines-1-t.BlankHome, 0)
	if err != nil {
		return Check{Name: Symmetry, Status: Fail, Detail: err.Error()}
	}
	var badN int64
	var examples []string
	for id := uint32(0); id < uint32(t.Len()); id++ {
		p := t.Pattern(id)
		var m wd.Pattern
		m.Blank = t.Lines - 1 - p.Blank
		for l := 0; l < t.Lines; l++ {
			for g := 0; g < t.Lines; g++ {
				m.M[t.Lines-1-l][t.Lines-1-g] = p.M[l][g]
			}
		}
		mid, ok := mirror.ID(&m)
		if !ok || mirror.Dist(mid) != t.Dist(id) {
			badN++
			if len(examples) < 5 {
				examples = append(examples, fmt.Sprintf("%s: entry %d, the mirrored goal's table says %d", v.describe(id), t.Dist(id), mirror.Dist(mid)))
			}
		}
	}
	if badN > 0 {
		return Check{Name: Symmetry, Status: Fail, Bad: badN, Examples: examples,
			Detail: fmt.Sprintf("%d entries differ from a direct build of the mirrored goal's table", badN)}
	}
	return Check{Name: Symmetry, Status: Pass, Detail: fmt.Sprintf("all %d entries equal a direct build for the goal with the blank in row %d, read upside down", t.Len(), t.Lines-1-t.BlankHome)}
}

func (v *wdTable) admissibility(opt Options) Check {
	if !opt.Deep || len(opt.Instances) == 0 {
		return skip(Admissibility, "needs deep mode and instances with known optima")
	}
	size := v.goal.Size()
	if size.W != size.H || size.Col(v.goal.Home(0)) != v.t.BlankHome {
		return skip(Admissibility, "the table serves only the rows of its goal")
	}
	w, err := wd.FromTables(v.goal, v.t, v.t) // the same table serves the columns (checked above)
	if err != nil {
		return Check{Name: Admissibility, Status: Fail, Detail: err.Error()}
	}
	return checkAdmissible(opt.Instances, v.goal, false, "WD (rows + columns)", func(s board.State) int {
		r, c := w.Eval(s)
		return r + c
	})
}

func (v *wdTable) rebuild(ctx context.Context, opt Options) Check {
	if !opt.Deep {
		return skip(Rebuild, "deep mode only")
	}
	fresh, err := wd.BuildRows(ctx, v.goal, opt.workers())
	if err != nil {
		return Check{Name: Rebuild, Status: Fail, Detail: err.Error()}
	}
	return compare(fresh.Dists(), v.t.Dists(), func(i int) string { return v.describe(uint32(i)) })
}

// compare reports a rebuild's differences.
func compare(fresh, file []uint8, describe func(int) string) Check {
	if bytes.Equal(fresh, file) {
		return Check{Name: Rebuild, Status: Pass, Detail: fmt.Sprintf("an independent rebuild equals all %d entries", len(file))}
	}
	var n int64
	var examples []string
	for i := range file {
		if fresh[i] != file[i] {
			n++
			if len(examples) < 5 {
				examples = append(examples, fmt.Sprintf("%s: file %d, rebuild %d", describe(i), file[i], fresh[i]))
			}
		}
	}
	return Check{Name: Rebuild, Status: Fail, Bad: n, Examples: examples, Detail: fmt.Sprintf("%d entries differ from an independent rebuild", n)}
}

// checkAdmissible checks that h never exceeds the optimal length of the instances that
// map onto the goal (and, with parity, has the optimum's parity).
func checkAdmissible(instances []Instance, goal board.Goal, parity bool, what string, h func(board.State) int) Check {
	checked, badN := 0, int64(0)
	var examples []string
	for _, in := range instances {
		s, ok := toGoal(in, goal)
		if !ok {
			continue
		}
		checked++
		if v := h(s); v > in.Optimal || (parity && (in.Optimal-v)%2 != 0) {
			badN++
			if len(examples) < 5 {
				examples = append(examples, fmt.Sprintf("%s: %d, optimal %d", in.Goal.Size().Format(in.Start), v, in.Optimal))
			}
		}
	}
	return admissibilityResult(checked, badN, examples, what)
}

func admissibilityResult(checked int, badN int64, examples []string, what string) Check {
	if checked == 0 {
		return skip(Admissibility, "no instance has this table's goal (or its 180-degree turn)")
	}
	if badN > 0 {
		return Check{Name: Admissibility, Status: Fail, Bad: badN, Examples: examples,
			Detail: fmt.Sprintf("%s exceeds the optimal length on %d of %d instances", what, badN, checked)}
	}
	return Check{Name: Admissibility, Status: Pass, Detail: fmt.Sprintf("%s never exceeds the optimal length on %d instances", what, checked)}
}

// toGoal maps an instance onto the table's goal: as it is, or turned 180 degrees.
func toGoal(in Instance, goal board.Goal) (board.State, bool) {
	switch {
	case in.Goal.Equal(goal):
		return in.Start, true
	case in.Goal.Rotate180().Equal(goal):
		return board.Rotate180(in.Start), true
	}
	return nil, false
}
