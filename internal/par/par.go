// Package par runs the iterations of a loop on several goroutines: the one work-sharing
// loop behind the parallel table builders.
package par

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(w, i) for every i in [0, n), on workers goroutines (0: all cores), w being
// the goroutine's number (0 to workers-1, for per-goroutine scratch space). Each goroutine
// takes the next i as it finishes one. It stops starting new iterations once ctx is done
// with one worker it runs in the caller's goroutine.
func For(ctx context.Context, workers, n int, fn func(w, i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	done := func() bool { return ctx.Err() != nil }
	if workers <= 1 {
		for i := 0; i < n && !done(); i++ {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}

// Ranges calls fn on consecutive ranges of at most size entries covering [0, n), as For
// does.
func Ranges(workers, n, size int, fn func(lo, hi int)) {
	For(context.Background(), workers, (n+size-1)/size, func(_, i int) {
		lo := i * size
		fn(lo, min(lo+size, n))
	})
}
