package search

import (
	"context"
	"math"
	"slices"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/prune"
)

// dfs holds what IDA* and RBFS share: the state being searched, changed in place.
type dfs struct {
	ctx   context.Context
	h     *heuristic.Heuristic
	moves *neighbours
	goal  board.State
	s     board.State
	path  []board.Dir
	res   *Result
	opt   Options
	err   error
	rep   *reporter
	f     int // the f-value being expanded, for progress reports
	fsm   *prune.Automaton
}

func newDFS(ctx context.Context, h *heuristic.Heuristic, start board.State, opt Options, res *Result) *dfs {
	fsm := opt.Pruning
	if fsm == nil || fsm.Size() != h.Goal.Size() {
		fsm = prune.Parent(h.Goal.Size())
	}
	return &dfs{ctx: ctx, h: h, moves: movesOf(h.Goal.Size()), goal: h.Goal.Tiles(), s: start.Clone(), res: res, opt: opt, rep: opt.reporter(), fsm: fsm}
}

// expandOK counts an expansion and reports whether the search may go on.
func (d *dfs) expandOK() bool {
	if d.err != nil {
		return false
	}
	if err := d.opt.limit(d.res); err != nil {
		d.err = err
		return false
	}
	if d.res.Expanded%4096 == 0 {
		if d.ctx.Err() != nil {
			d.err = d.ctx.Err()
			return false
		}
		d.rep.tick(d.f, d.res.Nodes)
	}
	d.res.Expanded++
	d.res.PeakStored = max(d.res.PeakStored, len(d.path)+1)
	return true
}

func (d *dfs) apply(blank int, mv move) {
	d.s[blank], d.s[mv.cell] = d.s[mv.cell], 0
	d.path = append(d.path, mv.dir)
}

func (d *dfs) undo(blank int, mv move) {
	d.s[mv.cell], d.s[blank] = d.s[blank], 0
	d.path = d.path[:len(d.path)-1]
}

func idaStar(ctx context.Context, h *heuristic.Heuristic, start board.State, opt Options) (*Result, error) {
	res := &Result{Algorithm: "idastar"}
	d := newDFS(ctx, h, start, opt, res)
	bound := h.Eval(start)
	for {
		if opt.Progress != nil {
			opt.Progress(bound, res.Nodes)
		}
		d.f = bound
		next := d.ida(0, bound, d.s.Blank(), d.fsm.Start(d.s.Blank()))
		if d.err != nil {
			return res, d.err
		}
		if next < 0 {
			res.Solved, res.Moves = true, slices.Clone(d.path)
			return res, nil
		}
		if next == math.MaxInt {
			return res, ErrNoSolution
		}
		bound = next
	}
}

// ida searches below the current state with the bound and returns -1 when it found the
// goal (d.path is then the solution), else the least f that exceeded the bound.
func (d *dfs) ida(g, bound, blank int, state uint32) int {
	f := g + d.h.Eval(d.s)
	if f > bound {
		return f
	}
	if d.s.Equal(d.goal) {
		return -1
	}
	if !d.expandOK() {
		return math.MaxInt
	}
	least := math.MaxInt
	for _, mv := range d.moves[blank] {
		next := d.fsm.Next(state, mv.dir)
		if next == prune.Pruned {
			continue
		}
		d.res.Nodes++
		d.apply(blank, mv)
		t := d.ida(g+1, bound, mv.cell, next)
		if t < 0 {
			return -1
		}
		d.undo(blank, mv)
		if d.err != nil {
			return math.MaxInt
		}
		least = min(least, t)
	}
	return least
}

func rbfs(ctx context.Context, h *heuristic.Heuristic, start board.State, opt Options) (*Result, error) {
	res := &Result{Algorithm: "rbfs"}
	d := newDFS(ctx, h, start, opt, res)
	f0 := h.Eval(start)
	found, _ := d.rbfs(0, f0, f0, math.MaxInt, d.s.Blank(), d.fsm.Start(d.s.Blank()))
	switch {
	case d.err != nil:
		return res, d.err
	case !found:
		return res, ErrNoSolution
	}
	res.Solved, res.Moves = true, slices.Clone(d.path)
	return res, nil
}

// rbfs is Korf's recursive best-first search: explore the best child while its backed-up
// value stays within the best alternative elsewhere (limit), and return the new backed-up
// value of this node when it does not.
func (d *dfs) rbfs(g, f, backed, limit, blank int, state uint32) (bool, int) {
	if d.s.Equal(d.goal) {
		return true, f
	}
	d.f = backed
	if !d.expandOK() {
		return false, math.MaxInt
	}
	type child struct {
		mv    move
		state uint32 // the automaton's
		f     int    // backed-up value
	}
	var kids [4]child
	n := 0
	for _, mv := range d.moves[blank] {
		next := d.fsm.Next(state, mv.dir)
		if next == prune.Pruned {
			continue
		}
		d.res.Nodes++
		d.apply(blank, mv)
		fc := g + 1 + d.h.Eval(d.s)
		d.undo(blank, mv)
		// A node whose value was backed up passes the backed-up value down.
		if f < backed {
			fc = max(fc, backed)
		}
		kids[n] = child{mv, next, fc}
		n++
	}
	if n == 0 {
		return false, math.MaxInt
	}
	for {
		slices.SortStableFunc(kids[:n], func(a, b child) int { return a.f - b.f })
		best := &kids[0]
		if best.f > limit || best.f == math.MaxInt {
			return false, best.f
		}
		alt := math.MaxInt
		if n > 1 {
			alt = kids[1].f
		}
		d.apply(blank, best.mv)
		childF := g + 1 + d.h.Eval(d.s)
		found, v := d.rbfs(g+1, childF, best.f, min(limit, alt), best.mv.cell, best.state)
		if found {
			return true, v
		}
		d.undo(blank, best.mv)
		if d.err != nil {
			return false, math.MaxInt
		}
		best.f = v
	}
}
