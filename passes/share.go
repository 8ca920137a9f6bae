package passes

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
)

// share walks below every subtree of f with the walkers, one goroutine each, and returns
// each subtree's result, as a Runner does. The walkers take the subtrees in serial order;
// once a subtree has a solution, the walks of those after it are cut off (their results
// hold the work done, not Searched), and those before it end. A walker that is aborted
// stops; the others soon do too when the cause (cancellation, a shared node limit) is
// theirs as well.
func share(ws []Walker, f *Frontier) []SubtreeResult {
	results := make([]SubtreeResult, f.Len())
	var next, best atomic.Int64 // the next subtree to take; the first with a solution so far
	best.Store(math.MaxInt64)
	onEach(ws, func(w Walker) {
		for !w.Aborted() {
			i := next.Add(1) - 1
			if i >= int64(len(results)) || i > best.Load() {
				return
			}
			found, value, ok, work := walk(w, f, int(i), &Cut{At: never, item: i, best: &best})
			r := &results[i]
			r.Work = work
			if !ok {
				continue
			}
			r.Searched, r.Value = true, value
			if found {
				r.Moves = w.Moves()
				for b := best.Load(); i < b && !best.CompareAndSwap(b, i); b = best.Load() {
				}
			}
		}
	})
	return results
}

// Workers returns a runner that searches a batch's subtrees on n goroutines of this
// process (0: as many as the engine's workers) through the engine whose walks met them,
// as the driver's split passes without a runner are searched: for a plan whose
// runner chooses, pass by pass, between them and another (a GPU). It refuses batches
// whose subtrees are no engine's Frontier.
func Workers(n int) Runner {
	return RunnerFunc(func(ctx context.Context, b *Batch) ([]SubtreeResult, error) {
		f, err := frontierOf(b)
		if err != nil {
			return nil, err
		}
		threads := n
		if threads <= 0 {
			threads = f.engine.Threads()
		}
		ws := f.engine.Walkers(ctx, b, threads)
		results := share(ws, f)
		for _, w := range ws {
			if w.Aborted() {
				if err := ctx.Err(); err != nil {
					return results, err
				}
				return results, ErrNodeLimit
			}
		}
		return results, nil
	})
}

// frontierOf returns b's Frontier, or an error.
func frontierOf(b *Batch) (*Frontier, error) {
	if f := b.Frontier(); f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w: a batch whose subtrees no engine of this process met", ErrRunner)
}
