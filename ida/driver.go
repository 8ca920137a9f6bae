package ida

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/board"
)

// The pass driver: the one bounds loop of IDA*, whose passes are searched whole by the
// solver or split at a frontier into subtrees that a runner walks (this process's
// workers, the units of a cluster, a GPU). docs/SEARCH.md is the protocol every runner
// keeps; the driver turns what runners report into the serial search's solution and counts.

// A Runner walks the subtrees of a split pass.
//
// SearchSubtrees returns one result per subtree of b, in b's order. It must search every
// subtree up to the first one (in that order) that holds a solution, and that one; it may
// leave those after it unsearched, or report them partly searched (their work then counts
// in the search's total, not in its serial counts). It returns ErrNodeLimit once it has
// generated b.MaxNodes nodes (when set), and ctx's error when cancelled, with the results
// it has. Results with a solution give it from the start (Moves, b.Bound moves starting
// with the subtree's path): the first in serial order is the answer, whatever order the
// runner searched in.
type Runner interface {
	SearchSubtrees(ctx context.Context, b *Batch) ([]SubtreeResult, error)
}

// RunnerFunc makes a function a Runner.
type RunnerFunc func(ctx context.Context, b *Batch) ([]SubtreeResult, error)

// SearchSubtrees calls f.
func (f RunnerFunc) SearchSubtrees(ctx context.Context, b *Batch) ([]SubtreeResult, error) {
	return f(ctx, b)
}

// A Batch is the frontier of a split pass: the subtrees to search, numbered by their
// place in the serial search's order (their serial index).
type Batch struct {
	Start board.State
	Bound int
	// Paths are the subtrees' roots as blank directions from Start, in serial order.
	Paths [][]board.Dir
	// H is the heuristic value of each subtree's root, as the search met it.
	H []int
	// MaxNodes is how many nodes the runner may generate (0: no limit).
	MaxNodes uint64

	items *frontier // the frontier as this process's workers take it
	rep   *reporter // Options.Progress, which Did feeds
	base  uint64    // the search's nodes before the batch
}

// Did tells the search that the runner has generated nodes nodes below the batch so far,
// for Options.Progress: a runner whose walks do not report as they go (the GPU's)
// calls it as its work grows. It may be called from any goroutine.
func (b *Batch) Did(nodes uint64) {
	if b.rep == nil {
		return
	}
	for n := b.base + nodes; ; {
		old := b.rep.live.Load()
		if old >= n || b.rep.live.CompareAndSwap(old, n) {
			break
		}
	}
	b.rep.report(false)
}

// SubtreeResult is what the search below one subtree found.
type SubtreeResult struct {
	// Searched is set when the subtree was searched to its end, or to its first solution.
	Searched bool
	Work     Work
	// Value is the subtree root's value as its search left it: its heuristic value, or
	// more where BPMX raised it (docs/SEARCH.md); 0 stands for the root's own value.
	Value int
	// Moves is the subtree's first solution, from the start; nil if it has none.
	Moves []board.Dir

	path []uint8 // the solution in the solver's frame (this process's workers)
}

// A Plan says how a search's passes are searched: whole, here, or split at a frontier into
// subtrees that a runner walks. The zero Plan splits as Options.Workers asks.
type Plan struct {
	// Split is asked before each pass whether to split it. It returns how many subtrees
	// the frontier should hold at least (0: search the pass whole, here), and refine (nil:
	// none), asked of each frontier node whether to split it further (see Frontier).
	// nil: split the passes past 100,000 nodes among Options.Workers.
	Split func(p PassPlan) (want int, refine func(path []board.Dir) bool)
	// Runner walks the split passes' subtrees; nil: this process's workers.
	Runner Runner
	// OnPass, if set, hears of each pass once it ends: its work and, when it was split,
	// its frontier and the runner's results.
	OnPass func(p Pass, split *SplitPass)
}

// PassPlan is what a plan knows before a pass.
type PassPlan struct {
	Bound     int
	Passes    []Pass     // the passes before, with all their work
	LastSplit *SplitPass // the last pass that was split, or nil
}

// SplitPass is a split pass's frontier and what the runner found below it.
type SplitPass struct {
	Bound   int
	Paths   [][]board.Dir
	Results []SubtreeResult
	// Serial is the serial search's work in the pass; Replayed says that it was found by
	// searching the top of the tree again with the subtrees' results, because a subtree
	// raised its root's value (docs/SEARCH.md, section 6).
	Serial   Work
	Replayed bool
}

// Solve walks for a shortest solution of start, splitting its passes as Options.Workers
// asks. It returns the result, with an error when the search was cancelled (ctx's error)
// or hit the node limit (ErrNodeLimit); the result then carries the lower bound proven so
// far. The solution is replayed on start before it is returned; a mismatch is reported as
// an internal error.
func (s *Solver) Solve(ctx context.Context, start board.State) (*Result, error) {
	return s.Run(ctx, start, Plan{})
}

// Run walks for a shortest solution of start as Solve does, its passes split and
// searched as plan says. The solution and the serial counts (Result.Serial) are the serial
// search's whatever the plan; Nodes and Expanded count all the work done. An error of the
// runner that is neither a cancellation nor the node limit ends the search with it.
func (s *Solver) Run(ctx context.Context, start board.State, plan Plan) (*Result, error) {
	if err := s.goal.Check(start); err != nil {
		return nil, err
	}
	begin := time.Now()
	st := s.newWalk(start)
	res := &Result{Start: start.Clone(), H0: st.h()}

	// The search polls for cancellation and reports progress itself, every pollEvery
	// expansions (no goroutine of its own: in WebAssembly none would run while it does).
	var stop atomic.Bool
	st.stop, st.ctx = &stop, ctx
	st.rep = newReporter(s.opt.Progress, s.opt.ProgressEvery)
	st.setBudget(s.opt.MaxNodes)
	split := plan.Split
	if split == nil {
		split = s.workersPlan
	}

	var err error
	var last *SplitPass
	for b := res.H0; ; b += 2 {
		res.LowerBound = b
		st.bound = b
		st.rep.bound.Store(int64(b))
		st.rep.live.Store(st.nodes)
		st.published = st.nodes
		st.rep.report(true)
		before := Work{Nodes: st.nodes, Expanded: st.expanded}
		var found bool
		var serial Work
		var sp *SplitPass
		want, refine := 0, (func([]board.Dir) bool)(nil)
		if b >= 2 && res.H0 > 0 {
			want, refine = split(PassPlan{Bound: b, Passes: res.Passes, LastSplit: last})
		}
		if want > 0 {
			found, serial, sp, err = s.splitPass(ctx, st, start, plan.Runner, want, refine)
		} else {
			found = st.root()
			serial = Work{Nodes: st.nodes - before.Nodes, Expanded: st.expanded - before.Expanded}
		}
		res.Serial.Add(serial)
		pass := Pass{Bound: b, Nodes: st.nodes - before.Nodes, Expanded: st.expanded - before.Expanded}
		res.Passes = append(res.Passes, pass)
		if sp != nil {
			last = sp
		}
		if plan.OnPass != nil {
			plan.OnPass(pass, sp)
		}
		if err != nil {
			break
		}
		if st.aborted {
			err = ctx.Err()
			if err == nil {
				err = ErrNodeLimit
			}
			break
		}
		if found {
			res.Solved, res.Optimal = true, true
			res.Moves = make([]board.Dir, st.depth)
			for i := range res.Moves {
				res.Moves[i] = board.Dir(s.frame.dirMap[st.path[i]])
			}
			break
		}
	}
	res.Nodes, res.Expanded, res.Cuts = st.nodes, st.expanded, st.cuts
	res.Elapsed = time.Since(begin)
	if res.Solved {
		end, rerr := s.goal.Size().Replay(start, res.Moves)
		if rerr != nil || !end.Equal(s.goal.Tiles()) {
			return res, fmt.Errorf("ida: internal error: the solution of %v does not replay to the goal (%v)", start, rerr)
		}
		if len(res.Moves) != res.LowerBound {
			return res, fmt.Errorf("ida: internal error: solution of %d moves at bound %d", len(res.Moves), res.LowerBound)
		}
	}
	return res, err
}

// workersPlan is the plan of Solve: with several workers, a pass past
// parallelFrom nodes (judged by the pass before: a pass is a few times the last) is split
// into itemsPerWorker subtrees a worker; a small tree is not worth splitting, since
// finding enough subtrees in it would search it again and again.
func (s *Solver) workersPlan(p PassPlan) (int, func([]board.Dir) bool) {
	workers := max(s.opt.Workers, 1)
	if workers < 2 || p.Bound <= 8 || len(p.Passes) == 0 || p.Passes[len(p.Passes)-1].Nodes < cmp.Or(s.opt.splitFrom, parallelFrom) {
		return 0, nil
	}
	return itemsPerWorker * workers, nil
}

// ErrRunner is matched by the errors of a split pass whose runner broke its contract
// (Runner): too few results, a subtree before the first solution left unsearched, or a
// solution that is not one of its subtree.
var ErrRunner = errors.New("ida: the runner's results break its contract")

// splitPass runs the current pass of st split at a frontier of at least want subtrees,
// searched by r (nil: this process's workers), and reports whether it found the goal and
// the serial search's work in the pass. It leaves st as the serial pass would: the path
// and depth of the first solution in serial order, and nodes and expanded counting all
// the work done (the top of the tree, every try at a frontier, and every subtree searched).
//
//  1. The top of the tree is searched serially down to the shallowest depth that yields
//     want nodes (no solution lies above: a solution of a pass has exactly bound moves,
//     and the frontier lies above the bound).
//  2. The runner walks below every frontier node up to the first with a solution.
//  3. The serial work is the top's down to that node and the subtrees' up to it. Where a
//     subtree's search raised its root's value (BPMX), the serial search would have used
//     the raised value in the top of the tree, and may have cut later siblings there: the
//     top is then searched again with the subtrees' results in place of their walks,
//     which gives the serial counts exactly (replay).
func (s *Solver) splitPass(ctx context.Context, st *walk, start board.State, r Runner, want int, refine func([]board.Dir) bool) (bool, Work, *SplitPass, error) {
	st.refine = s.frame.refiner(refine)
	items, top := st.collectFrontier(1, want, max(s.opt.Workers, 1))
	st.refine = nil
	if st.aborted || len(items.nodes) == 0 {
		// Aborted, or the pass ended above any frontier: then the top was the pass.
		return false, top, nil, nil
	}
	n := len(items.nodes)
	b := &Batch{Start: start, Bound: st.bound, items: items, Paths: s.frame.callerPaths(items), H: make([]int, n), rep: st.rep, base: st.nodes}
	for i := range items.nodes {
		b.H[i] = int(items.nodes[i].h)
	}
	var results []SubtreeResult
	var err error
	if r == nil {
		results = st.searchItems(items, max(s.opt.Workers, 1))
	} else {
		if st.nodeCap != math.MaxUint64 {
			b.MaxNodes = max(st.nodeCap-min(st.nodes, st.nodeCap), 1)
		}
		results, err = r.SearchSubtrees(ctx, b)
		switch {
		case err == nil && len(results) != n:
			err = fmt.Errorf("%w: %d results for %d subtrees", ErrRunner, len(results), n)
		case errors.Is(err, ErrNodeLimit) || ctx.Err() != nil:
			st.aborted, err = true, nil
		}
	}
	sp := &SplitPass{Bound: st.bound, Paths: b.Paths, Results: results}
	if r != nil { // this process's workers count their own
		for i := range results {
			st.nodes += results[i].Work.Nodes
			st.expanded += results[i].Work.Expanded
		}
	}
	if err != nil || st.aborted {
		return false, top, sp, err
	}

	// The first subtree with a solution, and whether any subtree up to it raised its
	// root's value so far that it cuts the root's parent: a value v at depth g does where
	// g-1 + v-1 > bound. Short of that, a raised value cuts nothing in the top: the parent
	// stays within the bound, and a node within the bound raises its own parent to at most
	// two below what would cut it (docs/SEARCH.md, section 6).
	first, raised := -1, false
	for i := range results {
		res := &results[i]
		if int(items.nodes[i].g)+res.Value > st.bound+2 {
			raised = true
		}
		if res.path == nil && res.Moves != nil {
			if res.path, err = s.frame.own(res.Moves, items.path(i), st.bound); err != nil {
				return false, top, sp, fmt.Errorf("%w: subtree %d (%s): %v", ErrRunner, i, board.FormatDirs(b.Paths[i]), err)
			}
		}
		if res.path != nil {
			first = i
			break
		}
		if !res.Searched {
			return false, top, sp, fmt.Errorf("%w: subtree %d of %d (%s) is not searched, and no subtree before it has a solution", ErrRunner, i, len(results), board.FormatDirs(b.Paths[i]))
		}
	}
	var serial Work
	if raised {
		var found int
		if serial, found, err = st.replayTop(items, results); err != nil {
			return false, top, sp, err
		}
		first, sp.Replayed = found, true
	} else {
		last := n - 1
		serial = top
		if first >= 0 {
			last = first
			serial = items.nodes[first].before
		}
		for i := 0; i <= last; i++ {
			serial.Add(results[i].Work)
		}
	}
	sp.Serial = serial
	if first < 0 {
		return false, serial, sp, nil
	}
	st.depth = copy(st.path[:], results[first].path)
	return true, serial, sp, nil
}

// refiner returns refine (nil: nil) asked of paths of the frame.
func (f *frame) refiner(refine func([]board.Dir) bool) func([]uint8) bool {
	if refine == nil {
		return nil
	}
	var buf [256]board.Dir
	return func(path []uint8) bool {
		for i, d := range path {
			buf[i] = board.Dir(f.dirMap[d])
		}
		return refine(buf[:len(path)])
	}
}

// caller returns a path of the frame as the caller's directions.
func (f *frame) caller(path []uint8) []board.Dir {
	out := make([]board.Dir, len(path))
	for i, d := range path {
		out[i] = board.Dir(f.dirMap[d])
	}
	return out
}

// callerPaths returns the paths of a frontier as the caller's directions, all in one
// allocation.
func (f *frame) callerPaths(fr *frontier) [][]board.Dir {
	all := make([]board.Dir, len(fr.paths))
	for i, d := range fr.paths {
		all[i] = board.Dir(f.dirMap[d])
	}
	out := make([][]board.Dir, len(fr.nodes))
	for i := range fr.nodes {
		n := &fr.nodes[i]
		out[i] = all[n.path : n.path+uint32(n.g) : n.path+uint32(n.g)]
	}
	return out
}

// own returns a runner's solution (the caller's directions) in the frame, checking that it
// has bound moves and begins with the subtree's path (the frame's).
func (f *frame) own(moves []board.Dir, prefix []uint8, bound int) ([]uint8, error) {
	if len(moves) != bound {
		return nil, fmt.Errorf("a solution of %d moves in the pass of bound %d", len(moves), bound)
	}
	out := make([]uint8, len(moves))
	for i, e := range moves {
		if e > board.Right {
			return nil, fmt.Errorf("move %d is not a direction", i+1)
		}
		out[i] = f.inverse[e]
		if i < len(prefix) && out[i] != prefix[i] {
			return nil, fmt.Errorf("the solution %s does not begin with the subtree's path", board.FormatDirs(moves))
		}
	}
	return out, nil
}

// replay is the top of a split pass searched again with its subtrees' results in place of
// their walks (splitPass, step 3).
type replay struct {
	index   map[string]int // a subtree's path (the frame's) to its place
	results []SubtreeResult
	work    Work // the subtrees' that the search reached
	found   int  // the subtree whose solution it took, or -1
	err     error
}

// replayTop walks the top of the current pass again, taking at each frontier node the
// result of its subtree: its work, its solution, and its value as BPMX raised it, which
// the search then propagates as the serial search does. It returns the serial search's
// work in the pass and the subtree whose solution it found (-1: none).
func (st *walk) replayTop(items *frontier, results []SubtreeResult) (Work, int, error) {
	rs := *st
	rs.nodes, rs.expanded, rs.published = 0, 0, 0
	rs.setBudget(0)
	rs.budget, rs.rep, rs.frontier, rs.best = nil, nil, frontier{}, nil
	// The per-depth state of the loops (children, saved components): the replay's own.
	if rs.kids != nil {
		rs.kids = make([][4]catChild, len(rs.kids))
	}
	if rs.undo != nil {
		rs.undo = make([]comps, len(rs.undo))
	}
	var stop atomic.Bool
	rs.stop, rs.ctx = &stop, context.Background()
	rp := &replay{index: make(map[string]int, len(items.nodes)), results: results, found: -1}
	rs.collectAt = never
	for i := range items.nodes {
		rp.index[string(items.path(i))] = i
		rs.collectAt = min(rs.collectAt, int(items.nodes[i].g))
	}
	rs.replay = rp
	found := rs.root()
	if rp.err != nil {
		return Work{}, -1, rp.err
	}
	if found != (rp.found >= 0) {
		return Work{}, -1, fmt.Errorf("ida: internal error: the replay of a split pass found %v, its subtrees %d", found, rp.found)
	}
	w := Work{Nodes: rs.nodes, Expanded: rs.expanded}
	w.Add(rp.work)
	return w, rp.found, nil
}

// reach is the replay at a frontier node at depth g whose value is h: the subtree's
// result in place of its search, as (found, value) of the loops.
func (rp *replay) reach(st *walk, g, h int) (bool, int) {
	i, ok := rp.index[string(st.path[:g])]
	if !ok { // collectHere said it was one
		rp.err = fmt.Errorf("ida: internal error: the replay of a split pass met a node that is no subtree")
		return true, h
	}
	r := &rp.results[i]
	if !r.Searched && r.path == nil {
		rp.err = fmt.Errorf("%w: subtree %d, which the serial search reaches, is not searched", ErrRunner, i)
		return true, h
	}
	rp.work.Add(r.Work)
	if r.path != nil {
		rp.found = i
		st.depth = copy(st.path[:], r.path)
		return true, h
	}
	return false, max(h, r.Value)
}
