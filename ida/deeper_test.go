package ida_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tilekit/tilekit/board"
	. "github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
)

// deeperRunner searches every third subtree of a batch, and the one with the first
// solution, through Deeper (their parts by next, and through Deeper again when nest is
// set), and the others through next; each chosen subtree's result must be SearchBelow's.
// deeperSeen counts the chosen subtrees whose value BPMX raised, and those with a solution.
type deeperSeen struct{ raised, solved int }

func deeperRunner(t *testing.T, s *Solver, next passes.Runner, parts int, nest bool, seen *deeperSeen) passes.Runner {
	return passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
		out, err := next.SearchSubtrees(ctx, b)
		if err != nil {
			return out, err
		}
		var which []int
		for i := range out {
			if i%3 == 0 || out[i].Moves != nil {
				which = append(which, i)
			}
		}
		d, err := passes.Deepen(ctx, b, which, parts)
		require.NoError(t, err)
		inner := next
		if nest {
			inner = deeperRunner(t, s, next, 2, false, seen)
		}
		sub, err := inner.SearchSubtrees(ctx, d.Batch)
		require.NoError(t, err)
		got, err := d.Results(ctx, sub)
		require.NoError(t, err)
		solved := false
		for k, i := range which {
			if !got[k].Searched {
				assert.True(t, solved, "subtree %d is left only after a solution", i)
				out[i] = got[k]
				continue
			}
			solved = solved || got[k].Moves != nil
			want, err := s.SearchBelow(ctx, b.Start, b.Paths[i], b.Bound)
			require.NoError(t, err)
			assert.Equal(t, want.Work, got[k].Work, "subtree %d (%s) at bound %d", i, board.FormatDirs(b.Paths[i]), b.Bound)
			assert.Equal(t, want.Value, got[k].Value, "subtree %d", i)
			assert.Equal(t, want.Moves, got[k].Moves, "subtree %d", i)
			if got[k].Value > b.H[i] {
				seen.raised++
			}
			if got[k].Moves != nil {
				seen.solved++
			}
			out[i] = got[k]
		}
		return out, nil
	})
}

// A subtree split further by Deeper, its parts searched apart and its result made from
// theirs, is the serial search below it: its work, its value as BPMX left it and its first
// solution; nested once more too. And the driver's solution and serial counts stay the
// serial search's.
func TestDeeperIsTheSubtreesSearch(t *testing.T) {
	korf := corpus.Korf100()
	set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	zero, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	cases := []struct {
		name   string
		opt    Options
		start  int
		raises bool
	}{
		{"md", Options{Heuristic: MD}, 11, false},
		{"5-5-5 reflected, two workers", Options{Set: set, Lookups: Reflected, Workers: 2}, 2, true},
		{"5-5-5 zero-aware", Options{Set: zero}, 2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(korf[0].Goal, c.opt)
			require.NoError(t, err)
			start := korf[c.start].Start
			opt := c.opt
			opt.Workers = 1
			one, err := New(korf[0].Goal, opt)
			require.NoError(t, err)
			serial, err := one.Solve(context.Background(), start)
			require.NoError(t, err)
			var seen deeperSeen
			split := func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if p.Bound < len(serial.Moves)-6 {
					return 0, nil
				}
				return 40, nil
			}
			got, err := s.Run(context.Background(), start, passes.Plan{Split: split, Runner: deeperRunner(t, s, inOrder(s), 16, true, &seen)})
			require.NoError(t, err)
			assert.Equal(t, serial.Moves, got.Moves)
			assert.Equal(t, passes.Work{Nodes: serial.Nodes, Expanded: serial.Expanded}, got.Serial)
			assert.NotZero(t, seen.solved, "a chosen subtree holds the solution")
			if c.raises {
				assert.NotZero(t, seen.raised, "a chosen subtree's value raised by BPMX")
			}
		})
	}
}

// splitFromTheFifthPass splits every pass from the fifth into at least 8 subtrees.
func splitFromTheFifthPass(p passes.PassPlan) (int, func([]board.Dir) bool) {
	if len(p.Passes) < 4 {
		return 0, nil
	}
	return 8, nil
}

// Deeper refuses what it cannot split, and a result for each part.
func TestDeeperRefuses(t *testing.T) {
	korf := corpus.Korf100()
	s, err := New(korf[0].Goal, Options{Heuristic: MD})
	require.NoError(t, err)
	var b *passes.Batch
	_, err = s.Run(context.Background(), korf[0].Start, passes.Plan{
		Split: splitFromTheFifthPass,
		Runner: passes.RunnerFunc(func(ctx context.Context, got *passes.Batch) ([]passes.SubtreeResult, error) {
			b = got
			return nil, context.Canceled
		}),
	})
	require.Error(t, err)
	require.NotNil(t, b)
	_, err = passes.Deepen(context.Background(), &passes.Batch{Start: b.Start, Bound: b.Bound, Paths: b.Paths}, []int{0}, 4)
	assert.ErrorIs(t, err, passes.ErrRunner)
	for _, which := range [][]int{{1, 0}, {-1}, {len(b.Paths)}, {2, 2}} {
		_, err = passes.Deepen(context.Background(), b, which, 4)
		assert.ErrorContains(t, err, "not increasing indices", "%v", which)
	}
	d, err := passes.Deepen(context.Background(), b, []int{0}, 4)
	require.NoError(t, err)
	_, err = d.Results(context.Background(), nil)
	assert.ErrorIs(t, err, passes.ErrRunner)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = passes.Deepen(ctx, b, []int{0}, 1<<20)
	assert.ErrorIs(t, err, context.Canceled)
}

// A runner's Did reaches Options.Progress as the search's nodes before the batch and the
// runner's so far; a smaller figure than one already reported changes nothing.
func TestBatchDidReportsProgress(t *testing.T) {
	korf := corpus.Korf100()
	var got []uint64
	s, err := New(korf[0].Goal, Options{Heuristic: MD, ProgressEvery: time.Nanosecond,
		Progress: func(_ int, nodes uint64) { got = append(got, nodes) }})
	require.NoError(t, err)
	var before, after int
	_, err = s.Run(context.Background(), korf[0].Start, passes.Plan{
		Split: splitFromTheFifthPass,
		Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			before = len(got)
			b.Did(1000)
			b.Did(400)
			b.Did(5000)
			after = len(got)
			return nil, context.Canceled
		}),
	})
	require.Error(t, err)
	require.Equal(t, before+3, after, "each Did reports")
	base := got[before-1] // the pass's start: the nodes before its frontier was collected
	assert.Greater(t, got[before], base+1000-1, "the frontier's nodes and the runner's")
	assert.Equal(t, got[before], got[before+1], "a smaller figure is not reported")
	assert.Equal(t, got[before]+4000, got[before+2])
}
