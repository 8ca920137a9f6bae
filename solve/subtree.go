package solve

import (
	"context"
	"math"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
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

// SearchBelow searches IDA*'s pass with the given bound below path (nil: the whole pass)
// and returns what it found: the first solution there (from start), or nil, the work, and
// the value BPMX left on the path's node. The solver's progress report and node limit
// apply.
func (s *Solver) SearchBelow(ctx context.Context, start board.State, path []board.Dir, bound int) (passes.SubtreeResult, error) {
	if s.fast == nil {
		return passes.SubtreeResult{}, badOptions("%s with %s cannot be split into subtrees", s.algo, s.heuristic)
	}
	return s.fast.SearchBelow(ctx, start, path, bound)
}

// SolveSplit solves start by IDA* as Solve does, through the pass driver, with each pass
// past opt.SplitFrom nodes split into subtrees that search searches (in other goroutines,
// processes or machines; see passes.Runner for what it must search). The solution and the
// serial counts are the serial search's, whatever the order search searched in; the
// result's Nodes are all the work done. Options.MaxNodes counts every node, search's too:
// it is told how many it may generate (Batch.MaxNodes).
func (s *Solver) SolveSplit(ctx context.Context, start board.State, opt SplitOptions, search func(context.Context, *passes.Batch) ([]passes.SubtreeResult, error)) (*Result, error) {
	if s.fast == nil {
		return nil, badOptions("%s with %s cannot be split into subtrees", s.algo, s.heuristic)
	}
	if search == nil {
		return nil, badOptions("a split search needs a search of its subtrees")
	}
	plan := passes.Plan{Runner: passes.RunnerFunc(search), Split: opt.split}
	if opt.Pass != nil {
		plan.OnPass = func(p passes.Pass, sp *passes.SplitPass) { opt.Pass(p.Bound, sp != nil, p.Work()) }
	}
	res, err := s.fast.Run(ctx, start, plan)
	if res == nil {
		return nil, err
	}
	return s.fastResult(res), err
}

// pathTree is what the last split pass found below each path: the tree of its subtrees'
// paths, each node with the nodes of the subtrees at or below it, and whether a subtree
// ends there. Node 0 is the root (the empty path).
type pathTree struct {
	at []pathNode
}

// pathNode is one node of a pathTree.
type pathNode struct {
	kids  [4]int32 // the child in each direction (0: none)
	nodes uint64
	leaf  bool
}

// subtreeSizes makes the tree of the subtrees' paths, with each subtree's work. (One slice
// of nodes, room for three a path: a frontier's paths share their first moves, and the
// tree of 276,000 of k24-01's holds 775,000 nodes.)
func subtreeSizes(paths [][]board.Dir, each []passes.SubtreeResult) *pathTree {
	t := &pathTree{at: make([]pathNode, 1, 3*len(paths)+1)}
	for i, p := range paths {
		cur := int32(0)
		for _, d := range p {
			next := t.at[cur].kids[d&3]
			if next == 0 {
				next = int32(len(t.at))
				t.at[cur].kids[d&3] = next
				t.at = append(t.at, pathNode{})
			}
			cur = next
			t.at[cur].nodes += each[i].Work.Nodes
		}
		t.at[cur].leaf = t.at[cur].leaf || len(p) > 0
	}
	return t
}

// estimate returns the expected size (in nodes) of the subtree below a path in the next
// pass, from the subtrees of the last split pass (nil: no estimate): the subtrees it held
// last time, times the growth of a pass; a path below a subtree of last time gets that
// subtree's share, halved with every move below it; a path of neither kind was pruned last
// time, and is expected small.
func estimate(prev *pathTree, last, before uint64) func([]board.Dir) float64 {
	if prev == nil || len(prev.at) < 2 || before == 0 {
		return nil
	}
	growth := max(float64(last)/float64(before), 1)
	return func(path []board.Dir) float64 {
		cur, n := int32(0), 0
		for ; n < len(path); n++ {
			next := prev.at[cur].kids[path[n]&3]
			if next == 0 {
				break
			}
			cur = next
		}
		switch {
		case n == len(path) && n > 0:
			return float64(prev.at[cur].nodes) * growth
		case n > 0 && prev.at[cur].leaf:
			// Below a subtree of last time (subtrees' paths are no prefixes of others',
			// so only the deepest node on the way can be one).
			return float64(prev.at[cur].nodes) * growth / math.Pow(2, float64(len(path)-n))
		}
		return 0
	}
}
