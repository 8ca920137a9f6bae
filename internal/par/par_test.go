package par

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every iteration runs exactly once, on a goroutine numbered below the worker count.
func TestFor(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 64} {
		const n = 1000
		var hits [n]atomic.Int32
		var badWorker atomic.Bool
		For(context.Background(), workers, n, func(w, i int) {
			if w < 0 || (workers > 0 && w >= workers) {
				badWorker.Store(true)
			}
			hits[i].Add(1)
		})
		for i := range hits {
			assert.Equal(t, int32(1), hits[i].Load(), "iteration %d, %d workers", i, workers)
		}
		assert.False(t, badWorker.Load())
	}
}

// Once the context is done no iteration starts.
func TestForStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int32
	For(ctx, 2, 100, func(_, _ int) { ran.Add(1) })
	assert.Zero(t, ran.Load())
}

// Ranges cover [0, n) without overlap, the last one short.
func TestRanges(t *testing.T) {
	covered := make([]atomic.Int32, 2500)
	Ranges(3, len(covered), 1000, func(lo, hi int) {
		assert.LessOrEqual(t, hi-lo, 1000)
		for i := lo; i < hi; i++ {
			covered[i].Add(1)
		}
	})
	for i := range covered {
		assert.Equal(t, int32(1), covered[i].Load(), "entry %d", i)
	}
}
