package solve

import (
	"context"
	"errors"
	"fmt"

	"github.com/tilekit/tilekit/board"
)

// ErrPastOptimum is the error of a search ended because a pass's bound passed the optimum
// its input gave (Solver.WithOptimum): every shorter solution was ruled out, so the input's
// optimum is wrong, or the input is for another goal.
var ErrPastOptimum = errors.New("the search passed the input's optimum")

// pastOptimum is ErrPastOptimum with its bound, the input's optimum, and the other goal
// that the start fits, if any.
type pastOptimum struct {
	bound, optimum int
	other          string
}

func (e *pastOptimum) Error() string {
	msg := fmt.Sprintf("no solution of fewer than %d moves, where the input says the optimum is %d", e.bound, e.optimum)
	if e.other != "" {
		msg += fmt.Sprintf(": is the input for --goal %s? The start's Manhattan distance under it fits %d", e.other, e.optimum)
	}
	return msg
}

func (e *pastOptimum) Unwrap() error { return ErrPastOptimum }

// WithOptimum returns a solver that knows the optimal length of the starts it is given, as
// their input says (negative: not known), and ends a search at once, with ErrPastOptimum,
// when a pass's bound passes it: a file for another goal (on 3x3 and 5x5 both goals are
// solvable, so nothing else catches the slip) or a wrong figure costs no more than the
// passes up to it. The error names the other standard goal when the start's Manhattan
// distance under it fits the optimum (at most it, of the same parity).
func (s *Solver) WithOptimum(optimum int) *Solver {
	c := *s
	// Only a search whose bounds are lower bounds (Optimal: an admissible heuristic, not
	// BA*) proves anything when it passes the optimum.
	c.optimum, c.knowsOptimum = optimum, optimum >= 0 && s.Optimal()
	return &c
}

// solveBelowOptimum is Solve with the optimum known: each pass's bound, as the search
// reports it, is checked against it.
func (s *Solver) solveBelowOptimum(ctx context.Context, start board.State) (*Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	progress := s.progress
	inner := s.WithProgress(func(bound int, nodes uint64) {
		if bound > s.optimum {
			cancel(&pastOptimum{bound: bound, optimum: s.optimum, other: s.otherGoal(start)})
		}
		if progress != nil {
			progress(bound, nodes)
		}
	}, s.every)
	inner.knowsOptimum = false
	res, err := inner.Solve(ctx, start)
	var past *pastOptimum
	if cause := context.Cause(ctx); err != nil && errors.As(cause, &past) {
		err = cause
		if res != nil {
			res.LowerBound = max(res.LowerBound, past.bound) // every pass below it ended
		}
	}
	return res, err
}

// otherGoal names the other standard goal of the board ("blank-first" for "blank-last",
// and back) when start's Manhattan distance under it fits the optimum; else "".
func (s *Solver) otherGoal(start board.State) string {
	size := s.goal.Size()
	var other board.Goal
	switch {
	case s.goal.Equal(board.BlankLast(size)):
		other = board.BlankFirst(size)
	case s.goal.Equal(board.BlankFirst(size)):
		other = board.BlankLast(size)
	default:
		return ""
	}
	if other.Check(start) != nil {
		return ""
	}
	if md := other.Manhattan(start); md <= s.optimum && (s.optimum-md)%2 == 0 {
		return other.Name()
	}
	return ""
}
