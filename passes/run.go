package passes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tilekit/tilekit/board"
)

// A Tree is an engine's search of one start, pass after pass (package ida's), as the
// driver (Run) has it walk the tree: a pass whole, or its top down to a frontier, the
// subtrees below it on the engine's own workers, and the top again with the subtrees'
// results. The engine keeps the node protocol (docs/SEARCH.md) and counts all its work.
type Tree interface {
	// H is the start's heuristic value.
	H() int
	// Begin starts the pass of bound: the calls up to the next Begin are of that pass.
	Begin(bound int)
	// Whole searches the pass whole and reports whether it found the goal (Solution).
	Whole() bool
	// Frontier walks the top of the pass down to a frontier of at least want subtrees, as
	// it chooses (refine, if set, asked of each node whether to split it further), and
	// returns them in serial order (none when the pass ends above any frontier, or the
	// search was aborted) with the work of the walk that decided them.
	Frontier(want int, refine func(path []board.Dir) bool) (Subtrees, Work)
	// Local searches the subtrees on the engine's own workers, up to the first with a
	// solution, counting their work as its own.
	Local(s Subtrees) []SubtreeResult
	// Replay walks the top of the pass again, taking at each subtree its result in place of
	// its search (its work, solution and value as BPMX left it), and returns the serial
	// search's work in the pass and the subtree whose solution it took (-1: none).
	Replay(s Subtrees, results []SubtreeResult) (Work, int, error)
	// Take makes moves (from the start, the caller's directions, checked) the solution.
	Take(moves []board.Dir)
	// Solution is the solution found, from the start.
	Solution() []board.Dir
	// Add counts work done elsewhere (an outside runner's) as the tree's.
	Add(w Work)
	Work() Work
	Cuts() uint64
	// Left is the nodes left to the search's node limit; false when it has none.
	Left() (uint64, bool)
	Aborted() bool
	Abort()
}

// Subtrees are an engine's split pass's frontier, in serial order.
type Subtrees interface {
	Len() int
	Paths() [][]board.Dir // the caller's directions from the start
	H(i int) int          // the value of subtree i's root, as the search met it
	G(i int) int          // its depth
	Before(i int) Work    // the work of the walk that collected it, from its start to the subtree
}

// Run searches t for a shortest solution of start to goal, pass after pass from t's
// heuristic value, each searched whole or split as plan says (a nil plan.Split: every
// pass whole; a nil plan.Runner: the engine's own workers), telling rep of each pass. It
// returns the result, with an error when the search was cancelled (ctx's error) or hit
// the node limit (ErrNodeLimit); the result then carries the lower bound proven so far.
// The solution and the serial counts (Result.Serial) are the serial search's whatever
// the plan; Nodes and Expanded count all the work done. The solution is replayed on start
// before it is returned; a mismatch is reported as an internal error. An error of the
// runner that is neither a cancellation nor the node limit ends the search with it.
func Run(ctx context.Context, t Tree, goal board.Goal, start board.State, plan Plan, rep *Reporter) (*Result, error) {
	begin := time.Now()
	res := &Result{Start: start.Clone(), H0: t.H()}
	var err error
	var last *SplitPass
	for b := res.H0; ; b += 2 {
		res.LowerBound = b
		t.Begin(b)
		before := t.Work()
		rep.pass(b, before.Nodes)
		var found bool
		var serial Work
		var sp *SplitPass
		want, refine := 0, (func([]board.Dir) bool)(nil)
		if b >= 2 && res.H0 > 0 && plan.Split != nil {
			want, refine = plan.Split(PassPlan{Bound: b, Passes: res.Passes, LastSplit: last})
		}
		if want > 0 {
			found, serial, sp, err = splitPass(ctx, t, start, b, plan.Runner, want, refine, rep)
		} else {
			found = t.Whole()
			serial = since(t.Work(), before)
		}
		res.Serial.Add(serial)
		w := since(t.Work(), before)
		pass := Pass{Bound: b, Nodes: w.Nodes, Expanded: w.Expanded}
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
		if t.Aborted() {
			err = ctx.Err()
			if err == nil {
				err = ErrNodeLimit
			}
			break
		}
		if found {
			res.Solved, res.Optimal, res.Moves = true, true, t.Solution()
			break
		}
	}
	w := t.Work()
	res.Nodes, res.Expanded, res.Cuts = w.Nodes, w.Expanded, t.Cuts()
	res.Elapsed = time.Since(begin)
	if res.Solved {
		end, rerr := goal.Size().Replay(start, res.Moves)
		if rerr != nil || !end.Equal(goal.Tiles()) {
			return res, fmt.Errorf("passes: internal error: the solution of %v does not replay to the goal (%v)", start, rerr)
		}
		if len(res.Moves) != res.LowerBound {
			return res, fmt.Errorf("passes: internal error: solution of %d moves at bound %d", len(res.Moves), res.LowerBound)
		}
	}
	return res, err
}

// since is the work from before to now.
func since(now, before Work) Work {
	return Work{Nodes: now.Nodes - before.Nodes, Expanded: now.Expanded - before.Expanded}
}

// splitPass runs the pass of bound split at a frontier of at least want subtrees,
// searched by r (nil: the engine's workers), and reports whether it found the goal and the
// serial search's work in the pass. It leaves t as the serial pass would: the first
// solution in serial order, and its work counting all the work done (the top of the tree,
// every try at a frontier, and every subtree searched).
//
//  1. The top of the tree is searched serially down to the shallowest depth that yields
//     want nodes (no solution lies above: a solution of a pass has exactly bound moves,
//     and the frontier lies above the bound).
//  2. The runner searches below every frontier node up to the first with a solution.
//  3. The serial work is the top's down to that node and the subtrees' up to it. Where a
//     subtree's search raised its root's value (BPMX), the serial search would have used
//     the raised value in the top of the tree, and may have cut later siblings there: the
//     top is then searched again with the subtrees' results in place of their searches,
//     which gives the serial counts exactly (replay).
func splitPass(ctx context.Context, t Tree, start board.State, bound int, r Runner, want int, refine func([]board.Dir) bool, rep *Reporter) (bool, Work, *SplitPass, error) {
	items, top := t.Frontier(want, refine)
	if t.Aborted() || items == nil || items.Len() == 0 {
		// Aborted, or the pass ended above any frontier: then the top was the pass.
		return false, top, nil, nil
	}
	n := items.Len()
	b := NewBatch(start, bound, 0, items)
	b.rep, b.base = rep, t.Work().Nodes
	var results []SubtreeResult
	var err error
	if r == nil {
		results = t.Local(items)
	} else {
		if left, limited := t.Left(); limited {
			b.MaxNodes = max(left, 1)
		}
		results, err = r.SearchSubtrees(ctx, b)
		switch {
		case err == nil && len(results) != n:
			err = fmt.Errorf("%w: %d results for %d subtrees", ErrRunner, len(results), n)
		case errors.Is(err, ErrNodeLimit) || ctx.Err() != nil:
			t.Abort()
			err = nil
		}
		for i := range results { // the engine's workers count their own
			t.Add(results[i].Work)
		}
	}
	sp := &SplitPass{Bound: bound, Paths: b.Paths, Results: results}
	if err != nil || t.Aborted() {
		return false, top, sp, err
	}

	// Every solution checked, so that the engine takes any it reaches as it is (the replay
	// may reach one after the first, where a raised value cut that).
	for i := range results {
		if moves := results[i].Moves; moves != nil {
			if err := CheckSolution(moves, b.Paths[i], bound); err != nil {
				return false, top, sp, fmt.Errorf("%w: subtree %d (%s): %v", ErrRunner, i, board.FormatDirs(b.Paths[i]), err)
			}
		}
	}

	// The first subtree with a solution, and whether any subtree up to it raised its
	// root's value so far that it cuts the root's parent: a value v at depth g does where
	// g-1 + v-1 > bound. Short of that, a raised value cuts nothing in the top: the parent
	// stays within the bound, and a node within the bound raises its own parent to at most
	// two below what would cut it (docs/SEARCH.md, section 6).
	first, raised := -1, false
	for i := range results {
		res := &results[i]
		if items.G(i)+res.Value > bound+2 {
			raised = true
		}
		if res.Moves != nil {
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
		if serial, found, err = t.Replay(items, results); err != nil {
			return false, top, sp, err
		}
		first, sp.Replayed = found, true
	} else {
		last := n - 1
		serial = top
		if first >= 0 {
			last = first
			serial = items.Before(first)
		}
		for i := 0; i <= last; i++ {
			serial.Add(results[i].Work)
		}
	}
	sp.Serial = serial
	if first < 0 {
		return false, serial, sp, nil
	}
	t.Take(results[first].Moves)
	return true, serial, sp, nil
}

// CheckSolution checks a runner's solution below a subtree whose path from the start is
// prefix, in the pass of bound: bound moves, each a direction, beginning with prefix.
func CheckSolution(moves, prefix []board.Dir, bound int) error {
	if len(moves) != bound {
		return fmt.Errorf("a solution of %d moves in the pass of bound %d", len(moves), bound)
	}
	for i, e := range moves {
		if e > board.Right {
			return fmt.Errorf("move %d is not a direction", i+1)
		}
		if i < len(prefix) && e != prefix[i] {
			return fmt.Errorf("the solution %s does not begin with the subtree's path", board.FormatDirs(moves))
		}
	}
	return nil
}
