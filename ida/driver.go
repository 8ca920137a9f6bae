package ida

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
)

// The engine's part of the pass driver (package passes): a walk of the start as a
// passes.Tree, and the subtrees of a split pass as passes.Subtrees. docs/SEARCH.md is the
// protocol every runner keeps.

// Solve searches for a shortest solution of start, splitting its passes as Options.Workers
// asks. It returns the result, with an error when the search was cancelled (ctx's error)
// or hit the node limit (passes.ErrNodeLimit); the result then carries the lower bound
// proven so far. The solution is replayed on start before it is returned; a mismatch is
// reported as an internal error.
func (s *Solver) Solve(ctx context.Context, start board.State) (*passes.Result, error) {
	return s.Run(ctx, start, passes.Plan{})
}

// Run searches for a shortest solution of start as Solve does, its passes split and searched
// as plan says (passes.Run; a nil plan.Split: split the passes past 100,000 nodes among
// Options.Workers).
func (s *Solver) Run(ctx context.Context, start board.State, plan passes.Plan) (*passes.Result, error) {
	if err := s.goal.Check(start); err != nil {
		return nil, err
	}
	st := s.newWalk(start)
	// The search polls for cancellation and reports progress itself, every pollEvery
	// expansions (no goroutine of its own: in WebAssembly none would run while it does).
	var stop atomic.Bool
	st.stop, st.ctx = &stop, ctx
	st.rep = passes.NewReporter(s.opt.Progress, s.opt.ProgressEvery)
	st.setBudget(s.opt.MaxNodes)
	if plan.Split == nil {
		plan.Split = s.workersPlan
	}
	return passes.Run(ctx, &tree{s: s, st: st}, s.goal, start, plan, st.rep)
}

// workersPlan is the plan of Solve: with several workers, a pass past
// parallelFrom nodes (judged by the pass before: a pass is a few times the last) is split
// into itemsPerWorker subtrees a worker; a small tree is not worth splitting, since
// finding enough subtrees in it would search it again and again.
func (s *Solver) workersPlan(p passes.PassPlan) (int, func([]board.Dir) bool) {
	workers := max(s.opt.Workers, 1)
	if workers < 2 || p.Bound <= 8 || len(p.Passes) == 0 || p.Passes[len(p.Passes)-1].Nodes < cmp.Or(s.opt.splitFrom, parallelFrom) {
		return 0, nil
	}
	return itemsPerWorker * workers, nil
}

// tree is a walk of one start as the driver has it (passes.Tree).
type tree struct {
	s  *Solver
	st *walk
}

func (t *tree) H() int { return t.st.h() }

func (t *tree) Begin(bound int) {
	t.st.bound, t.st.published = bound, t.st.nodes
}

func (t *tree) Whole() bool { return t.st.root() }

func (t *tree) Frontier(want int, refine func([]board.Dir) bool) (passes.Subtrees, Work) {
	st := t.st
	st.refine = t.s.frame.refiner(refine)
	items, top := st.collectFrontier(1, want, max(t.s.opt.Workers, 1))
	st.refine = nil
	if st.aborted || len(items.nodes) == 0 {
		return nil, top
	}
	return &subtrees{f: items, fr: &t.s.frame}, top
}

func (t *tree) Local(s passes.Subtrees) []passes.SubtreeResult {
	return t.st.searchItems(s.(*subtrees).f, max(t.s.opt.Workers, 1), &t.s.frame)
}

func (t *tree) Replay(s passes.Subtrees, results []passes.SubtreeResult) (Work, int, error) {
	return t.st.replayTop(s.(*subtrees).f, results, &t.s.frame)
}

func (t *tree) Take(moves []board.Dir) { t.st.depth = t.s.frame.own(moves, t.st.path[:]) }

func (t *tree) Solution() []board.Dir { return t.s.frame.caller(t.st.path[:t.st.depth]) }

func (t *tree) Add(w Work) { t.st.nodes, t.st.expanded = t.st.nodes+w.Nodes, t.st.expanded+w.Expanded }

func (t *tree) Work() Work { return Work{Nodes: t.st.nodes, Expanded: t.st.expanded} }

func (t *tree) Cuts() uint64 { return t.st.cuts }

func (t *tree) Left() (uint64, bool) {
	st := t.st
	if st.nodeCap == math.MaxUint64 {
		return 0, false
	}
	return st.nodeCap - min(st.nodes, st.nodeCap), true
}

func (t *tree) Aborted() bool { return t.st.aborted }

func (t *tree) Abort() { t.st.aborted = true }

// subtrees are a frontier as the driver and runners have it (passes.Subtrees).
type subtrees struct {
	f  *frontier
	fr *frame
}

func (s *subtrees) Len() int             { return len(s.f.nodes) }
func (s *subtrees) Paths() [][]board.Dir { return s.fr.callerPaths(s.f) }
func (s *subtrees) H(i int) int          { return int(s.f.nodes[i].h) }
func (s *subtrees) G(i int) int          { return int(s.f.nodes[i].g) }
func (s *subtrees) Before(i int) Work    { return s.f.nodes[i].before }

// nodesOf returns the frontier of a batch that this package made, or an error.
func nodesOf(b *passes.Batch) (*frontier, error) {
	if s, ok := b.Nodes().(*subtrees); ok {
		return s.f, nil
	}
	return nil, fmt.Errorf("%w: a batch that this process's driver did not make", passes.ErrRunner)
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

// own writes moves (the caller's directions, which the driver checked:
// passes.CheckSolution) into path in the frame, and returns how many.
func (f *frame) own(moves []board.Dir, path []uint8) int {
	for i, e := range moves {
		path[i] = f.inverse[e]
	}
	return len(moves)
}

// replay is the top of a split pass searched again with its subtrees' results in place of
// their searches (splitPass, step 3).
type replay struct {
	index   map[string]int // a subtree's path (the frame's) to its place
	results []passes.SubtreeResult
	work    Work // the subtrees' that the search reached
	found   int  // the subtree whose solution it took, or -1
	err     error
	fr      *frame // the solver's, for the subtrees' solutions
}

// replayTop searches the top of the current pass again, taking at each frontier node the
// result of its subtree: its work, its solution, and its value as BPMX raised it, which
// the search then propagates as the serial search does. It returns the serial search's
// work in the pass and the subtree whose solution it found (-1: none).
func (st *walk) replayTop(items *frontier, results []passes.SubtreeResult, fr *frame) (Work, int, error) {
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
	rp := &replay{index: make(map[string]int, len(items.nodes)), results: results, found: -1, fr: fr}
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
	if !r.Searched && r.Moves == nil {
		rp.err = fmt.Errorf("%w: subtree %d, which the serial search reaches, is not searched", passes.ErrRunner, i)
		return true, h
	}
	rp.work.Add(r.Work)
	if r.Moves != nil {
		rp.found = i
		st.depth = rp.fr.own(r.Moves, st.path[:])
		return true, h
	}
	return false, max(h, r.Value)
}
