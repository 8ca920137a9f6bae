package solve

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tilekit/tilekit/board"
)

// ErrPastOptimum is the error of a search ended because a pass's bound passed the optimum
// its input gave (Solver.WithOptimum): every shorter solution was ruled out, so the input's
// optimum is wrong, or the input is for another goal. The result's LowerBound is that
// pass's bound.
var ErrPastOptimum = errors.New("the search passed the input's optimum")

// WithOptimum returns a solver that knows the optimal length of the starts it is given, as
// their input says (negative: not known), and ends a search at once, with ErrPastOptimum,
// when a pass's bound passes it: a file for another goal (on 3x3 and 5x5 both goals are
// solvable, so nothing else catches the slip) or a wrong figure costs no more than the
// passes up to it (package report says which goal the start fits). A solver whose answers
// are not proven optimal (Optimal false) ignores it.
func (s *Solver) WithOptimum(optimum int) *Solver {
	c := *s
	// Only a search whose bounds are lower bounds (Optimal: an admissible heuristic, not
	// BA*) proves anything when it passes the optimum.
	c.optimum, c.knowsOptimum = optimum, optimum >= 0 && s.Optimal()
	return &c
}

// solveBelowOptimum is Solve with the optimum known: each pass's bound, as the search
// reports it at the pass's start, is checked against it.
func (s *Solver) solveBelowOptimum(ctx context.Context, start board.State) (*Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	progress := s.progress
	var past atomic.Int64 // the bound that passed the optimum (0: none)
	inner := s.WithProgress(func(bound int, nodes uint64) {
		if bound > s.optimum && past.CompareAndSwap(0, int64(bound)) {
			cancel(fmt.Errorf("%w (%d) at bound %d", ErrPastOptimum, s.optimum, bound))
		}
		if progress != nil {
			progress(bound, nodes)
		}
	}, s.every)
	inner.knowsOptimum = false
	res, err := inner.Solve(ctx, start)
	if bound := int(past.Load()); err != nil && bound > 0 {
		err = context.Cause(ctx)
		if res != nil {
			res.LowerBound = max(res.LowerBound, bound) // every pass below it ended
		}
	}
	return res, err
}
