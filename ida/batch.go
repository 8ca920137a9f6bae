package ida

import (
	"context"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/batch"
)

// SolveAll solves many instances with the given number of goroutines (0: all cores), each
// search limited by timeout (0: none). It calls report once per instance, in the order of
// starts, as soon as that instance and all before it are done, so output can stream in
// input order. When ctx is cancelled the running searches stop and every instance not yet
// solved is reported with ctx's error.
func (s *Solver) SolveAll(ctx context.Context, starts []board.State, workers int, timeout time.Duration, report func(i int, res *Result, err error)) {
	type outcome struct {
		res *Result
		err error
	}
	batch.Run(ctx, len(starts), workers, func(ctx context.Context, i int) outcome {
		if err := ctx.Err(); err != nil {
			return outcome{nil, err}
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		res, err := s.Solve(ctx, starts[i])
		return outcome{res, err}
	}, func(i int, o outcome) { report(i, o.res, o.err) })
}
