// Package fifteen solves the 15-puzzle optimally with IDA* (Korf 1985) on the toolkit's
// tables, specialised for the 4x4 board.
//
// IDA* runs depth-first passes with a bound on f = g + h, starting at h(start). Every
// heuristic here has the parity of the Manhattan distance, and every move flips that parity,
// so a pass that fails raises the bound by exactly 2. The move that undoes the previous one
// is never tried. Heuristics are updated incrementally per move: Manhattan distance by a
// table difference, linear conflicts in the two lines the move changes, walking distance
// through its transition table, and of the four IDA15 lookups only the one whose pattern
// holds the moved tile (moving the blank through other cells costs those patterns nothing).
//
// With an admissible heuristic the first solution found is optimal. A search can be
// cancelled through its context or limited in nodes; it then reports the best lower bound
// it has proven.
package fifteen

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
)

// Errors of the solver.
var (
	// ErrNodeLimit reports a search stopped by Options.MaxNodes.
	ErrNodeLimit = errors.New("fifteen: node limit reached")
	// ErrGoal reports a goal the IDA15 tables cannot serve: they need the blank's home in
	// a corner (blank-last, blank-first, or their mirror images).
	ErrGoal = errors.New("fifteen: the pdb and max heuristics need a goal with the blank in a corner; use md, lc or wd for this goal")
)

// Options configure a Solver. The zero value is the recommended setting: the strongest
// heuristic for the goal (Auto), the embedded tables, one goroutine, no limit.
type Options struct {
	Heuristic Heuristic    // Auto (the zero value) picks the recommended one
	MaxNodes  uint64       // stop after generating this many nodes; 0 for no limit
	Tables    *data.Tables // tables to use; nil for the embedded defaults
	// Progress, if set, is called at the start of every pass with its bound and the nodes
	// generated so far, and within a pass every ProgressEvery with the nodes so far. Calls
	// never overlap; they may come from different goroutines.
	Progress      func(bound int, nodes uint64)
	ProgressEvery time.Duration // 0 for one second
	// Workers is the number of goroutines searching each instance (0 or 1: one). The
	// solution is the same for any number; node counts then vary from run to run.
	Workers int
}

// A Solver solves instances for one goal. It is safe for concurrent use.
type Solver struct {
	goal  board.Goal
	frame frame
	opt   Options
	t     *tables
}

// New prepares a solver for the goal, which must be on the 4x4 board.
func New(goal board.Goal, opt Options) (*Solver, error) {
	if goal.Size() != board.Size4x4 {
		return nil, fmt.Errorf("fifteen: the solver is for the 4x4 board, not %s", goal.Size())
	}
	if opt.Heuristic < Auto || opt.Heuristic > Max {
		return nil, fmt.Errorf("fifteen: unknown heuristic %d", opt.Heuristic)
	}
	f, blankLast := newFrame(goal)
	if opt.Heuristic == Auto {
		opt.Heuristic = WD
		if blankLast {
			opt.Heuristic = Default
		}
	}
	def := opt.Tables
	if def == nil && (opt.Heuristic.needsPDB() || opt.Heuristic.needsWD()) {
		var err error
		if def, err = data.Default(); err != nil {
			return nil, err
		}
	}
	t, err := newTables(context.Background(), f, blankLast, opt.Heuristic.needsWD(), opt.Heuristic.needsPDB(), def)
	if err != nil {
		return nil, err
	}
	return &Solver{goal: goal, frame: f, opt: opt, t: t}, nil
}

// Goal returns the solver's goal.
func (s *Solver) Goal() board.Goal { return s.goal }

// Heuristic returns the solver's heuristic.
func (s *Solver) Heuristic() Heuristic { return s.opt.Heuristic }

// Pass describes one IDA* iteration.
type Pass struct {
	Bound    int    `json:"bound"`
	Nodes    uint64 `json:"nodes"`    // nodes generated
	Expanded uint64 `json:"expanded"` // nodes whose children were generated
}

// Result is the outcome of a search.
type Result struct {
	Start      board.State
	Moves      []board.Dir // blank directions, in the caller's frame; nil if not solved
	Solved     bool
	Optimal    bool // proven optimal: solved with an admissible heuristic
	LowerBound int  // the optimal length is at least this (equal to it when solved)
	Heuristic  Heuristic
	H0         int // heuristic value of the start
	Nodes      uint64
	Expanded   uint64
	Passes     []Pass
	Elapsed    time.Duration
}

// Solve searches for a shortest solution of start. It returns the result, with an error
// when the search was cancelled (ctx's error) or hit the node limit (ErrNodeLimit); the
// result then carries the lower bound proven so far. The solution is replayed on start
// before it is returned; a mismatch is reported as an internal error.
func (s *Solver) Solve(ctx context.Context, start board.State) (*Result, error) {
	if err := s.goal.Check(start); err != nil {
		return nil, err
	}
	begin := time.Now()
	st := s.newSearch(start)
	res := &Result{Start: start.Clone(), Heuristic: s.opt.Heuristic, H0: st.h()}

	// A watcher turns cancellation into a flag the search polls, and reports progress.
	var stop atomic.Bool
	st.stop = &stop
	st.live = new(atomic.Uint64)
	var bound atomic.Int64
	var mu sync.Mutex // serialises the calls of Progress
	progress := func() {
		mu.Lock()
		defer mu.Unlock()
		s.opt.Progress(int(bound.Load()), st.live.Load())
	}
	done := make(chan struct{})
	var watcher sync.WaitGroup
	defer watcher.Wait() // no call of Progress after Solve returns
	defer close(done)
	watcher.Add(1)
	go func() {
		defer watcher.Done()
		var tick <-chan time.Time
		if s.opt.Progress != nil {
			every := s.opt.ProgressEvery
			if every <= 0 {
				every = time.Second
			}
			t := time.NewTicker(every)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-ctx.Done():
				stop.Store(true)
				return
			case <-tick:
				progress()
			case <-done:
				return
			}
		}
	}()
	st.setBudget(s.opt.MaxNodes)

	var err error
	for b := res.H0; ; b += 2 {
		res.LowerBound = b
		st.bound = b
		bound.Store(int64(b))
		st.live.Store(st.nodes)
		st.published = st.nodes
		if s.opt.Progress != nil {
			progress()
		}
		before := Pass{Nodes: st.nodes, Expanded: st.expanded}
		var found bool
		if s.opt.Workers > 1 && b > 8 { // small trees are not worth splitting
			found = st.parallelPass(s.opt.Workers)
		} else {
			found = st.root()
		}
		res.Passes = append(res.Passes, Pass{Bound: b, Nodes: st.nodes - before.Nodes, Expanded: st.expanded - before.Expanded})
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
	res.Nodes, res.Expanded = st.nodes, st.expanded
	res.Elapsed = time.Since(begin)
	if res.Solved {
		end, rerr := board.Size4x4.Replay(start, res.Moves)
		if rerr != nil || !end.Equal(s.goal.Tiles()) {
			return res, fmt.Errorf("fifteen: internal error: the solution of %v does not replay to the goal (%v)", start, rerr)
		}
		if len(res.Moves) != res.LowerBound {
			return res, fmt.Errorf("fifteen: internal error: solution of %d moves at bound %d", len(res.Moves), res.LowerBound)
		}
	}
	return res, err
}
