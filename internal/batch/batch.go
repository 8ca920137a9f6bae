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
	in := make(chan int)
	go func() {
		defer close(in)
		for i := 0; i < n; i++ {
			in <- i
		}
	}()
	stream(ctx, context.Background(), in, workers, job, report)
}

// Stream is Run over the items received from in until it is closed: job(ctx, item) runs on
// workers goroutines (0: all cores) and report(item, result) is called in the order the
// items arrived, from the calling goroutine. At most a few items per worker are held at
// once, so an endless input takes bounded memory. Stream returns once in is closed and
// every item received has been reported, or, when ctx is cancelled, once the items already
// received are reported: it does not wait for in to close then, since a reader blocked on
// its input might never close it.
func Stream[I, T any](ctx context.Context, in <-chan I, workers int, job func(ctx context.Context, item I) T, report func(item I, result T)) {
	stream(ctx, ctx, in, workers, job, report)
}

// stream runs the jobs with ctx and stops taking items when stop is done.
func stream[I, T any](ctx, stop context.Context, in <-chan I, workers int, job func(ctx context.Context, item I) T, report func(item I, result T)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type slot struct {
		item I
		done chan T
	}
	jobs := make(chan slot)
	order := make(chan slot, 2*workers) // bounds the items in flight
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				s.done <- job(ctx, s.item)
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		for {
			var item I
			var ok bool
			if stop.Err() != nil {
				// Not left to select, which picks at random among ready cases: an input
				// always ready would go on being taken after the stop.
				return
			}
			select {
			case item, ok = <-in:
			case <-stop.Done():
			}
			if !ok {
				return
			}
			s := slot{item, make(chan T, 1)}
			order <- s
			jobs <- s
		}
	}()
	for s := range order {
		report(s.item, <-s.done)
	}
	wg.Wait()
}
