package report

import (
	"context"
	"time"

	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/batch"
	"github.com/tilekit/tilekit/solve"
)

// BatchOptions tune Batch.
type BatchOptions struct {
	Workers int           // instances searched at once (0: all cores)
	Timeout time.Duration // the most one instance may take (0: no limit)
	// Progress, if set, gives the progress report of an instance's search (nil: none),
	// given the instance's label (Record.Label).
	Progress func(label string) func(bound int, nodes uint64)
	// Unread, if set, says how many instances the input held that were never read, once
	// an interrupted batch's entries are drained (instance.Stream.Unread).
	Unread func() int
}

// Batch solves the entries of a stream of instances with s and reports each, in the order of the
// stream, as soon as it and all before it are done: the entry, and the record of an instance (its id,
// line and known optimum filled in, a contradicted optimum marked in its error), or of a
// bad line (its line and the error). err is the search's error (a limit, the context's);
// with a solved record it is an internal error, a bug. The summary counts every entry.
// Batch returns when the stream ends, or when ctx is done and the entries taken are
// reported.
func Batch(ctx context.Context, s *solve.Solver, entries <-chan instance.Entry, opt BatchOptions, each func(e instance.Entry, rec Record, err error)) *Summary {
	sum := &Summary{}
	type outcome struct {
		rec Record
		err error
	}
	batch.Stream(ctx, entries, opt.Workers, func(ctx context.Context, e instance.Entry) outcome {
		if e.In == nil {
			return outcome{}
		}
		if opt.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
			defer cancel()
		}
		var progress func(int, uint64)
		if opt.Progress != nil {
			progress = opt.Progress((&Record{ID: e.In.ID, Line: e.In.Line}).Label())
		}
		res, err := s.WithProgress(progress, 0).WithOptimum(e.In.Optimal).Solve(ctx, e.In.State)
		return outcome{NewRecord(s.Goal(), e.In.State, res, err), err}
	}, func(e instance.Entry, o outcome) {
		if e.In == nil {
			o.err = e.Err
		}
		each(e, sum.Entry(s.Goal(), e, o.rec), o.err)
	})
	if ctx.Err() != nil {
		// Interrupted: the instances never started are counted as not solved, those read
		// and those left in the input.
		// A pipe's reader may be blocked for good: its entries are waited for a moment.
		wait := time.NewTimer(drainWait)
		defer wait.Stop()
		drained := false
		for !drained {
			select {
			case e, ok := <-entries:
				if !ok {
					drained = true
				} else if e.In != nil {
					sum.NotStarted++
				}
			case <-wait.C:
				return finish(sum)
			}
		}
		if opt.Unread != nil {
			sum.NotStarted += opt.Unread()
		}
		return finish(sum)
	}
	return sum
}

// drainWait is how long an interrupted batch waits for the entries still coming, to count
// them as never started (instance.Stream counts a file's rest within half a second): well
// within the grace a command has after an interrupt to print its summary.
const drainWait = time.Second

// finish counts an interrupted batch's instances never started as not solved.
func finish(sum *Summary) *Summary {
	sum.Unsolved += sum.NotStarted
	return sum
}
