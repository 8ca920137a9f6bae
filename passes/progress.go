package passes

import (
	"sync"
	"sync/atomic"
	"time"
)

// A Reporter calls a search's progress callback: at every pass (Run), and from the
// searching goroutines at most every period. Calls never overlap.
type Reporter struct {
	mu    sync.Mutex
	fn    func(int, uint64)
	every time.Duration
	last  time.Time
	bound atomic.Int64
	live  atomic.Uint64 // nodes generated, published by the searches as they go
}

// NewReporter returns a reporter to fn (nil: none) at most every every (0: one second).
func NewReporter(fn func(bound int, nodes uint64), every time.Duration) *Reporter {
	if every <= 0 {
		every = time.Second
	}
	return &Reporter{fn: fn, every: every, last: time.Now()}
}

// Add adds n nodes to the count, and calls the callback if it is due.
func (r *Reporter) Add(n uint64) {
	r.live.Add(n)
	r.report(false)
}

// atLeast raises the count to n (a smaller n changes nothing), and calls the callback if
// it is due.
func (r *Reporter) atLeast(n uint64) {
	for {
		old := r.live.Load()
		if old >= n || r.live.CompareAndSwap(old, n) {
			break
		}
	}
	r.report(false)
}

// SetBound sets the bound the callback is told of, without calling it.
func (r *Reporter) SetBound(bound int) { r.bound.Store(int64(bound)) }

// pass starts a pass of the bound with nodes generated so far, and calls the callback.
func (r *Reporter) pass(bound int, nodes uint64) {
	r.bound.Store(int64(bound))
	r.live.Store(nodes)
	r.report(true)
}

// report calls the callback if it is due (always when force); a search that finds another
// one calling it goes on.
func (r *Reporter) report(force bool) {
	if r.fn == nil {
		return
	}
	if force {
		r.mu.Lock()
	} else if !r.mu.TryLock() {
		return
	}
	defer r.mu.Unlock()
	now := time.Now()
	if !force && now.Sub(r.last) < r.every {
		return
	}
	r.last = now
	r.fn(int(r.bound.Load()), r.live.Load())
}
