package batch

import (
	"context"
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
