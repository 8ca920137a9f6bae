package solve

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
)

// BenchmarkDeeper measures the CPU's part of a set's subtrees given up on the GPU
// (passes.Deeper): k24-01 with 6-6-6-6, every subtree of its pass of bound 93 (281,685, as a
// GPU pass asks for 270,336) split into 4 parts or more, and each one's result made from its
// parts' (each part's result its own value and no work: the replays' cost, not the
// search's). Needs TILEKIT_BENCH_TABLES.
func BenchmarkDeeper(b *testing.B) {
	goal, start, dir := benchK24(b, true)
	stop := errors.New("measured")
	for _, workers := range []int{1, 2} {
		s, err := New(context.Background(), goal, Options{Heuristic: "6-6-6-6", Tables: dir, PruningDepth: 14, Workers: workers})
		require.NoError(b, err)
		fast := s.fast
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var split, results time.Duration
			parts := 0
			for b.Loop() {
				_, err := fast.Run(context.Background(), start, passes.Plan{
					Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
						if p.Bound == 93 {
							return 270_336, nil
						}
						return 0, nil
					},
					Runner: passes.RunnerFunc(func(ctx context.Context, batch *passes.Batch) ([]passes.SubtreeResult, error) {
						which := make([]int, len(batch.Paths))
						for i := range which {
							which[i] = i
						}
						begin := time.Now()
						d, err := passes.Deepen(ctx, batch, which, 4)
						require.NoError(b, err)
						split += time.Since(begin)
						sub := make([]passes.SubtreeResult, len(d.Batch.Paths))
						for j := range sub {
							sub[j] = passes.SubtreeResult{Searched: true, Value: d.Batch.H[j]}
						}
						begin = time.Now()
						_, err = d.Results(ctx, sub)
						require.NoError(b, err)
						results += time.Since(begin)
						parts = len(sub)
						return nil, stop
					}),
				})
				require.ErrorIs(b, err, stop)
			}
			b.ReportMetric(split.Seconds()/float64(b.N), "deeper-s")
			b.ReportMetric(results.Seconds()/float64(b.N), "results-s")
			b.ReportMetric(float64(parts), "parts")
		})
	}
}
