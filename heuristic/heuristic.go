// Package heuristic gives estimates of the moves left for any board from 2x2 to 5x5 and any
// goal, by name, for the general search algorithms and the audit (see the README for the papers):
//
//	hamming     tiles not on their goal cell                        admissible
//	md          Manhattan distance                                  admissible
//	lc          md + linear conflicts (2 x tiles that must leave    admissible
//	            a line so that no reversed pair remains)
//	chebyshev2  2 x sum of max(|drow|, |dcol|)                      NOT admissible
//	wd          walking distance, rows + columns                    admissible
//	pdb         disjoint additive pattern databases: IDA15's set    admissible
//	            on 4x4 goals with the blank in a corner, elsewhere
//	            groups of up to four tiles built on the fly
//	max         max(pdb, wd)                                        admissible
//	hh          Hasan et al.'s hybrid wd + conflicts + md/3         NOT admissible
//
// These evaluate a whole state per call: they are the general, readable versions. The 4x4
// IDA* of package fifteen keeps its own incremental ones and is cross-checked against these.
package heuristic

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/wd"
)

// Names lists every heuristic, in the order of the table above.
var Names = []string{"hamming", "md", "lc", "chebyshev2", "wd", "pdb", "max", "hh"}

// A Heuristic estimates the moves from a state to its goal.
type Heuristic struct {
	Name       string
	Admissible bool // never above the true distance
	Goal       board.Goal
	eval       func(board.State) int
}

// Eval returns the estimate for s, which must be a valid state of the goal's board.
func (h *Heuristic) Eval(s board.State) int { return h.eval(s) }

// New returns the named heuristic for the goal. tables is used by pdb and max on the 4x4
// board (nil for the embedded ones).
func New(name string, goal board.Goal, tables *data.Tables) (*Heuristic, error) {
	return NewContext(context.Background(), name, goal, tables)
}

// Known reports whether name is the name of a heuristic (whether or not it applies to a
// given board: New says that).
func Known(name string) bool {
	for _, n := range Names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// NewContext is New with a context that cancels the building of tables (walking distance
// and pattern databases are built on first use for most boards and goals).
func NewContext(ctx context.Context, name string, goal board.Goal, tables *data.Tables) (*Heuristic, error) {
	g := goal
	geo := newGeometry(goal)
	h := &Heuristic{Name: strings.ToLower(name), Goal: goal, Admissible: true}
	switch h.Name {
	case "hamming":
		h.eval = geo.hamming
	case "md":
		h.eval = geo.manhattan
	case "lc":
		h.eval = func(s board.State) int { return geo.manhattan(s) + geo.conflicts(s) }
	case "chebyshev2":
		h.Admissible = false
		h.eval = geo.chebyshev2
	case "wd":
		w, err := walking(ctx, g)
		if err != nil {
			return nil, err
		}
		h.eval = w
	case "pdb":
		p, err := patterns(ctx, g, tables)
		if err != nil {
			return nil, err
		}
		h.eval = p
	case "max":
		w, err := walking(ctx, g)
		if err != nil {
			return nil, err
		}
		p, err := patterns(ctx, g, tables)
		if err != nil {
			return nil, err
		}
		h.eval = func(s board.State) int { return max(w(s), p(s)) }
	case "hh":
		w, err := walking(ctx, g)
		if err != nil {
			return nil, err
		}
		h.Admissible = false
		h.eval = func(s board.State) int { return w(s) + geo.conflicts(s) + geo.manhattan(s)/3 }
	default:
		return nil, fmt.Errorf("unknown heuristic %q (choose from %s)", name, strings.Join(Names, ", "))
	}
	return h, nil
}

// geometry holds a goal's home rows and columns.
type geometry struct {
	size     board.Size
	row, col [board.MaxCells]int // goal row and column of each tile
}

func newGeometry(goal board.Goal) *geometry {
	g := &geometry{size: goal.Size()}
	for t := 0; t < goal.Size().Cells(); t++ {
		g.row[t], g.col[t] = goal.Size().Row(goal.Home(t)), goal.Size().Col(goal.Home(t))
	}
	return g
}

func (g *geometry) hamming(s board.State) int {
	n := 0
	for c, t := range s {
		if t != 0 && (g.row[t] != g.size.Row(c) || g.col[t] != g.size.Col(c)) {
			n++
		}
	}
	return n
}

func (g *geometry) manhattan(s board.State) int {
	n := 0
	for c, t := range s {
		if t != 0 {
			n += abs(g.row[t]-g.size.Row(c)) + abs(g.col[t]-g.size.Col(c))
		}
	}
	return n
}

func (g *geometry) chebyshev2(s board.State) int {
	n := 0
	for c, t := range s {
		if t != 0 {
			n += max(abs(g.row[t]-g.size.Row(c)), abs(g.col[t]-g.size.Col(c)))
		}
	}
	return 2 * n
}

// conflicts returns the linear-conflict addition to md: for each row and column, 2 x the
// tiles that must leave it so that no two of its own tiles remain in reversed order (the
// tiles minus the longest increasing run of their goal positions).
func (g *geometry) conflicts(s board.State) int {
	total := 0
	var seq [board.MaxSide]int
	for r := 0; r < g.size.H; r++ {
		n := 0
		for c := 0; c < g.size.W; c++ {
			if t := s[g.size.Cell(r, c)]; t != 0 && g.row[t] == r {
				seq[n] = g.col[t]
				n++
			}
		}
		total += 2 * (n - longestIncreasing(seq[:n]))
	}
	for c := 0; c < g.size.W; c++ {
		n := 0
		for r := 0; r < g.size.H; r++ {
			if t := s[g.size.Cell(r, c)]; t != 0 && g.col[t] == c {
				seq[n] = g.row[t]
				n++
			}
		}
		total += 2 * (n - longestIncreasing(seq[:n]))
	}
	return total
}

func longestIncreasing(xs []int) int {
	var lis [board.MaxSide]int
	best := 0
	for i := range xs {
		lis[i] = 1
		for j := 0; j < i; j++ {
			if xs[j] < xs[i] {
				lis[i] = max(lis[i], lis[j]+1)
			}
		}
		best = max(best, lis[i])
	}
	return best
}

// WD tables are cached by shape: backward searches ask for many goals with few shapes.
// The cache holds at most wdCacheBytes; a table larger than that is built for its caller
// and not kept (a 4x5 table takes about 300 MB).
var (
	wdMu    sync.Mutex
	wdCache []wdEntry // most recently used last
)

type wdEntry struct {
	key [3]int
	t   *wd.Table
}

const wdCacheBytes = 64 << 20

// wdBytes estimates the memory of a WD table: a key, a distance and a transition per
// direction and goal line for each pattern.
func wdBytes(t *wd.Table) int { return t.Len() * (8 + 1 + 4*2*t.Lines) }

func wdTable(ctx context.Context, lines, lineLen, home int) (*wd.Table, error) {
	key := [3]int{lines, lineLen, home}
	wdMu.Lock()
	for i, e := range wdCache {
		if e.key == key {
			wdCache = append(append(wdCache[:i:i], wdCache[i+1:]...), e)
			wdMu.Unlock()
			return e.t, nil
		}
	}
	wdMu.Unlock()
	t, err := wd.Build(ctx, lines, lineLen, home, 0)
	if err != nil {
		return nil, err
	}
	if size := wdBytes(t); size <= wdCacheBytes {
		wdMu.Lock()
		defer wdMu.Unlock()
		wdCache = append(wdCache, wdEntry{key, t})
		for total := cacheBytes(); total > wdCacheBytes; total = cacheBytes() {
			wdCache = wdCache[1:]
		}
	}
	return t, nil
}

func cacheBytes() int {
	n := 0
	for _, e := range wdCache {
		n += wdBytes(e.t)
	}
	return n
}

func walking(ctx context.Context, goal board.Goal) (func(board.State) int, error) {
	size := goal.Size()
	rows, err := wdTable(ctx, size.H, size.W, size.Row(goal.Home(0)))
	if err != nil {
		return nil, err
	}
	cols, err := wdTable(ctx, size.W, size.H, size.Col(goal.Home(0)))
	if err != nil {
		return nil, err
	}
	w, err := wd.FromTables(goal, rows, cols)
	if err != nil {
		return nil, err
	}
	return func(s board.State) int {
		r, c := w.Eval(s)
		return r + c
	}, nil
}

// patterns returns the additive PDB heuristic of the goal.
func patterns(ctx context.Context, goal board.Goal, tables *data.Tables) (func(board.State) int, error) {
	if goal.Size() == board.Size4x4 {
		if ev, err := ida.NewEvaluator(goal, tables); err == nil {
			if v, err := ev.Eval(goal.Tiles()); err == nil && v.PDB >= 0 {
				return func(s board.State) int {
					v, _ := ev.Eval(s)
					return v.PDB
				}, nil
			}
		}
	}
	// Elsewhere: tiles in goal order, in groups of at most four, without the blank (the
	// classic additive form), built now.
	var order []int
	for _, t := range goal.Tiles() {
		if t != 0 {
			order = append(order, int(t))
		}
	}
	var groups []*pdb.Table
	for lo := 0; lo < len(order); lo += 4 {
		p, err := pdb.NewPattern(goal, order[lo:min(lo+4, len(order))], false)
		if err != nil {
			return nil, err
		}
		t, err := pdb.Build(ctx, p, pdb.Options{})
		if err != nil {
			return nil, err
		}
		groups = append(groups, t)
	}
	return func(s board.State) int {
		sum := 0
		for _, t := range groups {
			sum += t.Lookup(s)
		}
		return sum
	}, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
