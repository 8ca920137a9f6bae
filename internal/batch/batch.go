// Package batch runs independent jobs on several goroutines and reports their results in
// job order, as soon as each result and all before it are ready, so that a command can
// stream output in input order however the work was scheduled.
package batch

import (
	"context"
	"runtime"
	"sync"
)

// Run calls job(ctx, i) for i in [0, n) on workers goroutines (0: all cores) and calls
// report(i, result) in order of i, from the calling goroutine. Jobs started after ctx is
// cancelled still run (and should return at once, seeing ctx done), so every i is reported.
func Run[T any](ctx context.Context, n, workers int, job func(ctx context.Context, i int) T, report func(i int, result T)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]chan T, n)
	for i := range results {
		results[i] = make(chan T, 1)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] <- job(ctx, i)
			}
		}()
	}
	go func() {
		for i := 0; i < n; i++ {
			jobs <- i
		}
		close(jobs)
	}()
	for i := 0; i < n; i++ {
		report(i, <-results[i])
	}
	wg.Wait()
}
