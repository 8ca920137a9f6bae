package solve

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
)

// Splits reports whether the solver can share one search out as subtrees (Frontier,
// SearchBelow): the fast IDA* can, the general search cannot.
func (s *Solver) Splits() bool { return s.fast != nil }

// H0 returns the heuristic value of start: the bound of IDA*'s first pass.
func (s *Solver) H0(start board.State) (int, error) {
	if s.fast != nil {
		return s.fast.H0(start)
	}
	if err := s.goal.Check(start); err != nil {
		return 0, err
	}
	return s.h.Eval(start), nil
}

// Frontier returns the subtrees of IDA*'s pass with the given bound, at least want of them
// when the tree has that many below the bound, as paths from start in the order of the
// serial search, and the work of finding them. Searched in that order with SearchBelow,
// they make up the pass: the same nodes and the same first solution.
//
// refine, if not nil, is asked of each frontier node whether to split it further (see
// ida.Solver.Frontier).
func (s *Solver) Frontier(ctx context.Context, start board.State, bound, want int, refine func(path []board.Dir) bool) ([][]board.Dir, ida.Work, error) {
	if s.fast == nil {
		return nil, ida.Work{}, badOptions("%s with %s cannot be split into subtrees", s.algo, s.heuristic)
	}
	paths, w, err := s.fast.Frontier(ctx, start, bound, want, refine)
	return paths, w, err
}

// SearchBelow searches IDA*'s pass with the given bound below path (nil: the whole pass)
// and returns the first solution there (from start), or nil, and the work. The solver's
// progress report and node limit apply.
func (s *Solver) SearchBelow(ctx context.Context, start board.State, path []board.Dir, bound int) ([]board.Dir, ida.Work, error) {
	if s.fast == nil {
		return nil, ida.Work{}, badOptions("%s with %s cannot be split into subtrees", s.algo, s.heuristic)
	}
	moves, w, err := s.fast.SearchBelow(ctx, start, path, bound)
	return moves, w, err
}

// Subtrees is one large pass of a split search, handed to whoever searches its subtrees.
type Subtrees struct {
	Start board.State
	Bound int
	Paths [][]board.Dir // the frontier, in the serial search's order
}

// SubtreesFound is what the search of a split pass found: the index of the first path (in
// Paths' order) with a solution below it and that solution (from the start), or -1 and
// nil; and the work of every subtree searched.
type SubtreesFound struct {
	First int
	Moves []board.Dir
	Work  ida.Work
	// Each, if given, is the work below each path (zero for those not searched): the
	// next pass then splits further below the paths that were large.
	Each []ida.Work
}

// SplitOptions configure SolveSplit.
type SplitOptions struct {
	// Subtrees is the most subtrees a split pass aims at (at least 1).
	Subtrees int
	// UnitNodes, if set, is the size (in nodes) a subtree should have: a pass expected to
	// be n nodes (the last one's times its growth) aims at n/UnitNodes subtrees, between 2
	// and Subtrees. 0: always Subtrees.
	UnitNodes uint64
	// SplitFrom is the size (in generated nodes) of the previous pass from which passes are
	// split; smaller passes are searched here, whole.
	SplitFrom uint64
	// Pass, if set, hears of each pass: its bound, whether it was split, and its work.
	Pass func(bound int, split bool, w ida.Work)
	// MaxUnitNodes, if set, is the size (in nodes) above which a subtree is split further:
	// one whose path had more than MaxUnitNodes / growth nodes below it in the pass before
	// (growth: the last pass's nodes over the one's before) is replaced by the subtrees one
	// move deeper, each taken as the parent's share (divided by the branching factor, 2)
	// until it is small enough.
	MaxUnitNodes uint64
}

// SolveSplit solves start by IDA* as Solve does (Options.MaxNodes is checked after each
// pass), with each pass past opt.SplitFrom nodes
// split into subtrees that search searches (in other goroutines, processes or machines).
// search must find, among the subtrees with a solution, the first in Paths' order; then
// the solution is the one the serial search finds, whatever the order the subtrees were
// searched in. The result's nodes are all the work done: the serial search's, plus the
// subtrees after the first solution searched before it was known.
func (s *Solver) SolveSplit(ctx context.Context, start board.State, opt SplitOptions, search func(context.Context, Subtrees) (SubtreesFound, error)) (*Result, error) {
	if s.fast == nil {
		return nil, badOptions("%s with %s cannot be split into subtrees", s.algo, s.heuristic)
	}
	begin := time.Now()
	h0, err := s.fast.H0(start)
	if err != nil {
		return nil, err
	}
	res := &Result{Start: start.Clone(), H0: h0, Algorithm: "idastar", Heuristic: s.heuristic, Lookups: s.lookups,
		Tables: s.tables, Pruning: s.pruning, Optimal: true, Tiles: []int{}}
	var last, before uint64
	var prev map[string]subtreeSize // the last split pass's subtrees, by path and prefix
	for b := h0; err == nil && !res.Solved; b += 2 {
		res.LowerBound = b
		if s.progress != nil {
			s.progress(b, res.Nodes)
		}
		var moves []board.Dir
		var w ida.Work
		split := last >= opt.SplitFrom && b > 2
		if !split {
			moves, w, err = s.SearchBelow(ctx, start, nil, b)
		} else {
			var paths [][]board.Dir
			if paths, w, err = s.Frontier(ctx, start, b, opt.want(last, before), opt.refine(estimate(prev, last, before))); err == nil {
				var found SubtreesFound
				found, err = search(ctx, Subtrees{Start: start, Bound: b, Paths: paths})
				moves = found.Moves
				w.Nodes += found.Work.Nodes
				w.Expanded += found.Work.Expanded
				if len(found.Each) == len(paths) {
					prev = subtreeSizes(paths, found.Each)
				}
			}
		}
		res.Nodes += w.Nodes
		res.Expanded += w.Expanded
		res.Passes = append(res.Passes, ida.Pass{Bound: b, Nodes: w.Nodes, Expanded: w.Expanded})
		if opt.Pass != nil {
			opt.Pass(b, split, w)
		}
		before, last = last, w.Nodes
		if err == nil && moves != nil {
			res.Solved, res.Moves = true, moves
		} else if err == nil && s.opt.MaxNodes > 0 && res.Nodes >= s.opt.MaxNodes {
			err = ida.ErrNodeLimit // checked between passes: a split pass is not stopped
		}
	}
	res.Elapsed = time.Since(begin)
	res.PeakStored = res.LowerBound + 1
	if !res.Solved {
		res.Optimal = false
		return res, err
	}
	end, rerr := s.goal.Size().Replay(start, res.Moves)
	if rerr != nil || !end.Equal(s.goal.Tiles()) || len(res.Moves) != res.LowerBound {
		return res, fmt.Errorf("solve: internal error: the split search's solution of %v (%d moves at bound %d) does not replay to the goal", start, len(res.Moves), res.LowerBound)
	}
	res.Tiles, _ = s.goal.Size().DirsToTiles(start, res.Moves)
	return res, nil
}

// want is how many subtrees a split pass aims at, after passes of last and before nodes.
func (opt SplitOptions) want(last, before uint64) int {
	most := max(opt.Subtrees, 1)
	if opt.UnitNodes == 0 || before == 0 {
		return most
	}
	growth := float64(last) / float64(before)
	n := float64(last) * max(growth, 1) / float64(opt.UnitNodes)
	return int(min(max(n, 2), float64(most)))
}

// subtreeSize is what the last split pass found below a path: the nodes of the subtrees
// at or below it, and whether it was a subtree itself.
type subtreeSize struct {
	nodes uint64
	leaf  bool
}

// subtreeSizes indexes the work below each path by the path and by every prefix of it.
func subtreeSizes(paths [][]board.Dir, each []ida.Work) map[string]subtreeSize {
	out := map[string]subtreeSize{}
	for i, p := range paths {
		key := board.FormatDirs(p)
		for n := 1; n <= len(key); n++ {
			e := out[key[:n]]
			e.nodes += each[i].Nodes
			e.leaf = e.leaf || n == len(key)
			out[key[:n]] = e
		}
	}
	return out
}

// estimate returns the expected size (in nodes) of the subtree below a path in the next
// pass, from the subtrees of the last split pass (nil: no estimate): the subtrees it held
// last time, times the growth of a pass; a path below a subtree of last time gets that
// subtree's share, halved with every move below it; a path of neither kind was pruned last
// time, and is expected small.
func estimate(prev map[string]subtreeSize, last, before uint64) func([]board.Dir) float64 {
	if len(prev) == 0 || before == 0 {
		return nil
	}
	growth := max(float64(last)/float64(before), 1)
	return func(path []board.Dir) float64 {
		key := board.FormatDirs(path)
		if e, ok := prev[key]; ok {
			return float64(e.nodes) * growth
		}
		for n := len(key) - 1; n > 0; n-- {
			if e, ok := prev[key[:n]]; ok && e.leaf {
				return float64(e.nodes) * growth / math.Pow(2, float64(len(key)-n))
			}
		}
		return 0
	}
}

// refine returns the frontier's refinement: split a path further when its subtree is
// expected above MaxUnitNodes (nil: no refinement).
func (opt SplitOptions) refine(est func([]board.Dir) float64) func([]board.Dir) bool {
	if opt.MaxUnitNodes == 0 || est == nil {
		return nil
	}
	limit := float64(opt.MaxUnitNodes)
	return func(path []board.Dir) bool { return est(path) > limit }
}
