package batch

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Results come back in job order whatever order the jobs finish in.
func TestOrder(t *testing.T) {
	for _, workers := range []int{1, 3, 0} {
		var got []int
		Run(context.Background(), 20, workers, func(_ context.Context, i int) int {
			time.Sleep(time.Duration((20-i)%7) * time.Millisecond) // later jobs often finish first
			return i * i
		}, func(i, r int) {
			assert.Equal(t, i*i, r)
			got = append(got, i)
		})
		assert.Len(t, got, 20)
		for i, v := range got {
			assert.Equal(t, i, v, "workers=%d", workers)
		}
	}
}

func TestCancelledStillReportsEveryJob(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	Run(ctx, 5, 2, func(ctx context.Context, i int) error { return ctx.Err() }, func(i int, err error) {
		assert.Error(t, err)
		n++
	})
	assert.Equal(t, 5, n)
}

// Stream keeps the input order, holds a bounded number of items, and stops taking items
// when the context is cancelled even if the input never closes.
func TestStream(t *testing.T) {
	in := make(chan int)
	var sent atomic.Int64
	go func() {
		for i := 0; ; i++ { // endless, never closed
			in <- i
			sent.Add(1)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	next := 0
	Stream(ctx, in, 2, func(_ context.Context, i int) int {
		time.Sleep(time.Duration(i%3) * time.Millisecond)
		return -i
	}, func(i, r int) {
		assert.Equal(t, next, i)
		assert.Equal(t, -i, r)
		assert.LessOrEqual(t, sent.Load(), int64(i+2*2+3), "items taken ahead of the report")
		next++
		if next == 50 {
			cancel()
		}
	})
	assert.GreaterOrEqual(t, next, 50)
	assert.LessOrEqual(t, next, 50+2*2+2)
}
