package passes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tilekit/tilekit/board"
)

// Run searches s for a shortest solution of start to goal, pass after pass from the
// start's value (o.H), each searched whole or split as plan says (a nil plan.Split: every
// pass whole; a nil plan.Runner: the engine's own walkers, o.Workers of them), telling
// o.Reporter of each pass. It returns the result, with an error when the search was
// cancelled (ctx's error) or hit the node limit (ErrNodeLimit); the result then carries
// the lower bound proven so far. The solution and the serial counts (Result.Serial) are
// the serial search's whatever the plan; Nodes and Expanded count all the work done. The
// solution is replayed on start before it is returned; a mismatch is reported as an
// internal error. An error of the runner that is neither a cancellation nor the node
// limit ends the search with it. Result.Cuts is the engine's to fill.
func Run(ctx context.Context, s Search, goal board.Goal, start board.State, plan Plan, o Setup) (*Result, error) {
	begin := time.Now()
	if o.Reporter == nil {
		o.Reporter = NewReporter(nil, 0)
	}
	d := &driver{s: s, o: o, start: start, runner: plan.Runner, f: newFrontier(o.Stride, o.Engine)}
	res := &Result{Start: start.Clone(), H0: o.H}
	var err error
	var last *SplitPass
	for b := res.H0; ; b += 2 {
		res.LowerBound = b
		s.Begin(b)
		before := s.Work()
		o.Reporter.pass(b, before.Nodes)
		var moves []board.Dir
		var serial Work
		var sp *SplitPass
		want, refine := 0, (func([]board.Dir) bool)(nil)
		if b >= 2 && res.H0 > 0 && plan.Split != nil {
			want, refine = plan.Split(PassPlan{Bound: b, Passes: res.Passes, LastSplit: last})
		}
		if want > 0 {
			moves, serial, sp, err = d.split(ctx, b, want, refine)
		} else {
			if found, _, _ := s.Walk(nil, 0, nil); found {
				moves = s.Moves()
			}
			serial = since(s.Work(), before)
		}
		res.Serial.Add(serial)
		w := since(s.Work(), before)
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
		if s.Aborted() || d.stopped {
			err = ctx.Err()
			if err == nil {
				err = ErrNodeLimit
			}
			break
		}
		if moves != nil {
			res.Solved, res.Optimal, res.Moves = true, true, moves
			break
		}
	}
	w := s.Work()
	res.Nodes, res.Expanded = w.Nodes, w.Expanded
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

// driver is Run's state across its passes.
type driver struct {
	s       Search
	o       Setup
	start   board.State
	runner  Runner
	f       *Frontier // the split passes' frontier, its memory reused from pass to pass
	stopped bool      // a runner stopped at the node limit or by cancellation
}

// since is the work from before to now.
func since(now, before Work) Work {
	return Work{Nodes: now.Nodes - before.Nodes, Expanded: now.Expanded - before.Expanded}
}

// split runs the pass of bound split at a frontier of at least want subtrees, searched by
// the runner (nil: the engine's walkers), and returns the pass's first solution in serial
// order (nil: none) and the serial search's work in the pass. The search's work counts all
// the work done: the top of the tree, every try at a frontier, and every subtree searched.
//
//  1. The top of the tree is walked serially down to the shallowest depth that yields
//     want nodes (no solution lies above: a solution of a pass has exactly bound moves,
//     and the frontier lies above the bound): collect.
//  2. The runner searches below every frontier node up to the first with a solution.
//  3. The serial work is the top's down to that node and the subtrees' up to it. Where a
//     subtree's search raised its root's value (BPMX), the serial search would have used
//     the raised value in the top of the tree, and may have cut later siblings there: the
//     top is then walked again with the subtrees' results in place of their searches,
//     which gives the serial counts exactly (replayTop).
func (d *driver) split(ctx context.Context, bound, want int, refine func([]board.Dir) bool) ([]board.Dir, Work, *SplitPass, error) {
	s := d.s
	f, top := collect(s, d.f, collection{Bound: bound, Want: want, Refine: refine, Workers: d.o.Workers, From: d.o.From, Raised: d.o.Raised})
	d.f = f
	if s.Aborted() || f.Len() == 0 {
		// Aborted, or the pass ended above any frontier: then the top was the pass.
		return nil, top, nil, nil
	}
	n := f.Len()
	b := newBatch(d.start, bound, 0, f)
	b.rep, b.base = d.o.Reporter, s.Work().Nodes
	var results []SubtreeResult
	var err error
	if d.runner == nil {
		ws := s.Walkers(max(d.o.Workers, 1))
		results = share(ws, f)
		s.Gather(ws, Work{})
	} else {
		if d.o.MaxNodes > 0 {
			b.MaxNodes = max(d.o.MaxNodes-min(s.Work().Nodes, d.o.MaxNodes), 1)
		}
		results, err = d.runner.SearchSubtrees(ctx, b)
		switch {
		case err == nil && len(results) != n:
			err = fmt.Errorf("%w: %d results for %d subtrees", ErrRunner, len(results), n)
		case errors.Is(err, ErrNodeLimit) || ctx.Err() != nil:
			d.stopped = true
			err = nil
		}
		var outside Work // the engine's own walkers count theirs
		for i := range results {
			outside.Add(results[i].Work)
		}
		s.Gather(nil, outside)
	}
	sp := &SplitPass{Bound: bound, Paths: b.Paths, Results: results}
	if err != nil || s.Aborted() || d.stopped {
		return nil, top, sp, err
	}

	// Every solution checked, so that the replay takes any it reaches as it is (it may
	// reach one after the first, where a raised value cut that).
	for i := range results {
		if moves := results[i].Moves; moves != nil {
			if err := checkSolution(moves, b.Paths[i], bound); err != nil {
				return nil, top, sp, fmt.Errorf("%w: subtree %d (%s): %v", ErrRunner, i, board.FormatDirs(b.Paths[i]), err)
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
		if f.G(i)+res.Value > bound+2 {
			raised = true
		}
		if res.Moves != nil {
			first = i
			break
		}
		if !res.Searched {
			return nil, top, sp, fmt.Errorf("%w: subtree %d of %d (%s) is not searched, and no subtree before it has a solution", ErrRunner, i, len(results), board.FormatDirs(b.Paths[i]))
		}
	}
	var serial Work
	if raised {
		var found int
		if serial, found, err = replayTop(s.Apart(), f, results); err != nil {
			return nil, top, sp, err
		}
		first, sp.Replayed = found, true
	} else {
		last := n - 1
		serial = top
		if first >= 0 {
			last = first
			serial = f.before(first)
		}
		for i := 0; i <= last; i++ {
			serial.Add(results[i].Work)
		}
	}
	sp.Serial = serial
	if first < 0 {
		return nil, serial, sp, nil
	}
	return results[first].Moves, serial, sp, nil
}

// checkSolution checks a runner's solution below a subtree whose path from the start is
// prefix, in the pass of bound: bound moves, each a direction, beginning with prefix.
func checkSolution(moves, prefix []board.Dir, bound int) error {
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
