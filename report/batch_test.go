package report

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/solve"
)

// Batch reports in input order however the workers finish; a cancelled batch stops, and
// what it reports is marked interrupted, not solved.
func TestBatchKeepsOrder(t *testing.T) {
	korf := corpus.Korf100()
	s, err := solve.New(context.Background(), korf[0].Goal, solve.Options{Heuristic: "max"})
	require.NoError(t, err)
	picks := []int{11, 15, 8, 12, 0}
	feed := func(ctx context.Context) <-chan instance.Entry {
		ch := make(chan instance.Entry)
		go func() {
			defer close(ch)
			for i, k := range picks {
				in := &instance.Instance{Line: i + 1, State: korf[k].Start, Optimal: korf[k].Optimal}
				select {
				case ch <- instance.Entry{In: in, Line: in.Line}:
				case <-ctx.Done():
					return
				}
			}
		}()
		return ch
	}
	var got []int
	sum := Batch(context.Background(), s, feed(context.Background()), BatchOptions{Workers: 2}, func(e instance.Entry, rec Record, err error) {
		require.NoError(t, err)
		assert.Equal(t, korf[picks[e.Line-1]].Optimal, rec.Length)
		got = append(got, e.Line)
	})
	assert.Equal(t, []int{1, 2, 3, 4, 5}, got)
	assert.Equal(t, 5, sum.Solved)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Batch(ctx, s, feed(ctx), BatchOptions{Workers: 2}, func(e instance.Entry, rec Record, err error) {
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, "interrupted", rec.Error)
		assert.False(t, rec.Solved)
	})
}

// A batch reports every entry in input order: bad lines as such, a contradicted optimum
// marked, and the summary counts them all.
func TestBatch(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "max"})
	require.NoError(t, err)
	input := "a 14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15 45\n1 2 3\nb 14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15 44\n"
	in := instance.NewStream(context.Background(), strings.NewReader(input), "in", goal)
	var got []string
	sum := Batch(context.Background(), s, in.All(), BatchOptions{Workers: 2}, func(e instance.Entry, rec Record, err error) {
		got = append(got, fmt.Sprintf("%d %s %d %q", rec.Line, rec.ID, rec.Length, rec.Error))
	})
	assert.Equal(t, []string{
		`1 a 45 ""`,
		`2  0 "in:2: wrong number of tiles: 3 numbers; want 16 (a 4x4 state), optionally with an id before and the known optimal length after"`,
		`3 b 45 "found 45 moves, but the input says the optimum is 44"`,
	}, got)
	assert.Equal(t, Summary{Solved: 1, Mismatched: 1, Invalid: 1, Nodes: sum.Nodes, Search: sum.Search}, *sum)
	assert.Equal(t, 2, sum.Total())
}

// An interrupted batch counts every instance of its input: those it never started, read
// or still in the file, as not solved, and says how many never started.
func TestInterruptedBatchCountsEveryInstance(t *testing.T) {
	korf := corpus.Korf100()
	s, err := solve.New(context.Background(), korf[0].Goal, solve.Options{Heuristic: "md"})
	require.NoError(t, err)
	var text strings.Builder
	for _, c := range corpus.ByOptimum()[:40] {
		text.WriteString(strings.Trim(fmt.Sprint(c.Start.Ints()), "[]") + "\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := instance.NewStream(ctx, strings.NewReader(text.String()), "korf", korf[0].Goal)
	reported := 0
	sum := Batch(ctx, s, in.All(), BatchOptions{Workers: 1, Unread: in.Unread}, func(instance.Entry, Record, error) {
		reported++
		cancel() // after the first
	})
	assert.Equal(t, 40, sum.Total(), "every instance counted")
	assert.Positive(t, sum.NotStarted)
	assert.Equal(t, 40, reported+sum.NotStarted)
	assert.Contains(t, sum.Text(time.Second, 0), fmt.Sprintf("not solved (%d never started)", sum.NotStarted))
}
