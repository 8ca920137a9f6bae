package fifteen

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/tilekit/tilekit/board"
)

// SolveAll solves many instances with the given number of goroutines (0: all cores), each
// search limited by timeout (0: none). It calls report once per instance, in the order of
// starts, as soon as that instance and all before it are done, so output can stream in
// input order. When ctx is cancelled the running searches stop and every instance not yet
// reported is reported with ctx's error.
func (s *Solver) SolveAll(ctx context.Context, starts []board.State, workers int, timeout time.Duration, report func(i int, res *Result, err error)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type outcome struct {
		res *Result
		err error
	}
	results := make([]chan outcome, len(starts))
	for i := range results {
		results[i] = make(chan outcome, 1)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := ctx.Err(); err != nil {
					results[i] <- outcome{nil, err}
					continue
				}
				jctx, cancel := ctx, context.CancelFunc(func() {})
				if timeout > 0 {
					jctx, cancel = context.WithTimeout(ctx, timeout)
				}
				res, err := s.Solve(jctx, starts[i])
				cancel()
				results[i] <- outcome{res, err}
			}
		}()
	}
	go func() {
		for i := range starts {
			jobs <- i
		}
		close(jobs)
	}()
	for i := range starts {
		o := <-results[i]
		report(i, o.res, o.err)
	}
	wg.Wait()
}
