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
// These evaluate a whole state per call: they are the general, readable versions. The IDA*
// of package ida keeps its own incremental ones and is cross-checked against these.
//
// The registry (registry.go) is the one list of heuristics: names, admissibility, which
// search engine computes each and on which boards. Every list that a user sees (solve15's
// help, the page's menu, the audit) comes from it.
package heuristic

import (
	"context"
	"fmt"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/wd"
)

// A Heuristic estimates the moves from a state to its goal.
type Heuristic struct {
	Name       string
	Admissible bool // never above the true distance
	Goal       board.Goal
	eval       func(board.State) int
}

// Eval returns the estimate for s, which must be a valid state of the goal's board.
func (h *Heuristic) Eval(s board.State) int { return h.eval(s) }

// New returns the named heuristic for the goal: one of the General engine's (Names(General)).
// ida15, when not nil, gives pdb and max on 4x4 goals with the blank's home in a corner
// IDA15's tables; without it, and on other goals and boards, pdb takes the tiles in goal
// order in groups of four, built now.
func New(name string, goal board.Goal, ida15 *pdb.IDA15) (*Heuristic, error) {
	return NewContext(context.Background(), name, goal, ida15)
}

// NewContext is New with a context that cancels the building of tables (walking distance
// and pattern databases are built on first use for most boards and goals).
func NewContext(ctx context.Context, name string, goal board.Goal, ida15 *pdb.IDA15) (*Heuristic, error) {
	info, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if info.Engines&General == 0 {
		return nil, fmt.Errorf("%s is served by the fast IDA* alone, not by the general search", info.Name)
	}
	geo := newGeometry(goal)
	h := &Heuristic{Name: info.Name, Goal: goal, Admissible: info.Admissible}
	switch h.Name {
	case Hamming:
		h.eval = geo.hamming
	case MD:
		h.eval = geo.manhattan
	case LC:
		h.eval = func(s board.State) int { return geo.manhattan(s) + geo.conflicts(s) }
	case Chebyshev2:
		h.eval = geo.chebyshev2
	case WD, Max, HH:
		w, err := Walking(ctx, goal)
		if err != nil {
			return nil, err
		}
		wd := func(s board.State) int { r, c := w(s); return r + c }
		switch h.Name {
		case WD:
			h.eval = wd
		case HH:
			h.eval = func(s board.State) int { return wd(s) + geo.conflicts(s) + geo.manhattan(s)/3 }
		default:
			p, err := patterns(ctx, goal, ida15)
			if err != nil {
				return nil, err
			}
			h.eval = func(s board.State) int { return max(wd(s), p(s)) }
		}
	case PDB:
		p, err := patterns(ctx, goal, ida15)
		if err != nil {
			return nil, err
		}
		h.eval = p
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

// Walking returns the walking distance of the goal's board in its two halves: the rows'
// and the columns' (Takahashi). wd is their sum.
func Walking(ctx context.Context, goal board.Goal) (func(board.State) (rows, cols int), error) {
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
	return w.Eval, nil
}

// patterns returns the additive PDB heuristic of the goal.
func patterns(ctx context.Context, goal board.Goal, ida15 *pdb.IDA15) (func(board.State) int, error) {
	if f, ok := pdb.NewFrame(goal, board.BlankLast(board.Size4x4)); ok && ida15 != nil {
		return func(s board.State) int {
			var buf [board.MaxCells]uint8 // on the stack: the closure is shared by goroutines
			return ida15.Eval(f.MapTo(buf[:len(s)], s))
		}, nil
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
