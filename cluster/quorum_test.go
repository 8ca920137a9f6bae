package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// The copies of a unit and their IDs.
func TestCopyIDs(t *testing.T) {
	for _, tc := range []struct {
		id   string
		base string
		k    int
	}{
		{"abc.3", "abc.3", 0},
		{copyID("abc.3", 2), "abc.3", 2},
		{copyID("abc.3.b52.17", 1), "abc.3.b52.17", 1},
		{"abc~x", "abc~x", 0},
		{"abc~0", "abc~0", 0},
		{"abc~-1", "abc~-1", 0},
	} {
		base, k := unitOf(tc.id)
		assert.Equal(t, tc.base, base, tc.id)
		assert.Equal(t, tc.k, k, tc.id)
	}
}

// detour lies about a whole instance: a solution two moves longer than the optimum (a
// move and its undoing first), still replaying to the goal, claimed optimal.
func detour(t *testing.T, s *solve.Solver, tk *task) *report.Record {
	res, err := s.Solve(context.Background(), tk.start)
	require.NoError(t, err)
	lie := *res
	lie.Moves = append([]board.Dir{res.Moves[0], res.Moves[0].Opposite()}, res.Moves...)
	lie.Tiles = append([]int{res.Tiles[0], res.Tiles[0]}, res.Tiles...)
	lie.LowerBound = len(lie.Moves)
	rec := report.NewRecord(s.Goal(), tk.start, &lie, nil)
	return &rec
}

// forger takes units as a worker would, and answers each with a lie: a detour for a whole
// instance, and "no solution" for a subtree that holds one (so that a split instance's
// answer is found two moves later, in the next pass).
func forger(t *testing.T, s *solve.Solver) func(ctx context.Context, js jetstream.JetStream, tk *task, ack string) {
	return func(ctx context.Context, js jetstream.JetStream, tk *task, ack string) {
		o := Outcome{Job: tk.Job.ID, Unit: tk.ID, Index: tk.Index, Seq: tk.Seq, Key: tk.Key, Ack: ack}
		if tk.Bound == 0 {
			o.Record = detour(t, s, tk)
			o.Work = o.Record.SerialWork()
		} else {
			res, err := s.SearchBelow(ctx, tk.start, tk.path, tk.Bound)
			if err != nil {
				return
			}
			o.Work, o.Value = res.Work, res.Value // and never a solution
		}
		data, _ := json.Marshal(o)
		js.Publish(ctx, resultSubject+tk.Job.ID+".forger", data)
	}
}

// With --quorum 2 and two honest workers, every unit goes to both and its result is
// taken once they agree: the answers are the serial search's, said to rest on two
// workers in agreement, whole or split.
func TestQuorumOfHonestWorkers(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "a", Threads: 2})
	startWorker(t, nc, &Worker{Name: "b", Threads: 2})
	starts := []board.State{korf[0].Start, korf[2].Start, korf[7].Start, korf[11].Start}
	recs, errs, sum := collect(t, nc, &Coordinator{Solver: s, Quorum: 2}, entries(goal, starts...))
	require.Len(t, recs, len(starts))
	for k, start := range starts {
		require.NoError(t, errs[k])
		want, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		assert.Equal(t, board.FormatDirs(want.Moves), recs[k].Moves)
		assert.Equal(t, want.Nodes, recs[k].Nodes)
		assert.Equal(t, "as reported by 2 workers in agreement", recs[k].Trust)
		assert.Empty(t, recs[k].Dispute)
	}
	assert.Equal(t, len(starts), sum.Solved)
	assert.Equal(t, len(starts), sum.Reported, "still the workers' word")
	assert.Zero(t, sum.Disputed)

	// Split: each subtree's copies agree; the pass that proves the answer is searched here.
	recs, errs, _ = collect(t, nc, &Coordinator{Solver: s, Quorum: 2, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}}, entries(goal, korf[2].Start))
	require.NoError(t, errs[0])
	assert.Equal(t, korf[2].Optimal, recs[0].Length)
	assert.True(t, recs[0].Optimal)
	assert.Empty(t, recs[0].Dispute)
}

// With --quorum 2, a forger beside one honest worker cannot make a wrong answer look
// optimal: each unit's copies go to both, they disagree, and the coordinator's own search
// settles it. Every answer is optimal, and the record names the forger.
func TestQuorumFindsTheForger(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	for _, split := range []bool{false, true} {
		name := "whole"
		if split {
			name = "split"
		}
		t.Run(name, func(t *testing.T) {
			_, nc := testServer(t, "")
			misbehaving(t, nc, forger(t, s))
			startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
			c := &Coordinator{Solver: s, Quorum: 2, Queue: Queue{AckWait: time.Second, MaxDeliver: 3}}
			cases := []corpus.Case{korf[0], korf[2], korf[11]}
			if split {
				c.Split, c.Rule, cases = true, solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}, cases[1:2]
			}
			var starts []board.State
			for _, k := range cases {
				starts = append(starts, k.Start)
			}
			recs, errs, sum := collect(t, nc, c, entries(goal, starts...))
			require.Len(t, recs, len(cases))
			for k, want := range cases {
				require.NoError(t, errs[k], want.Name)
				assert.Equal(t, want.Optimal, recs[k].Length, want.Name)
				assert.True(t, recs[k].Optimal, want.Name)
				assert.Contains(t, recs[k].Dispute, `worker "forger" said`, want.Name)
				assert.Contains(t, recs[k].Dispute, "searched here", want.Name)
				assert.Equal(t, []string{"forger"}, recs[k].WrongWorkers, want.Name)
				if !split {
					assert.Equal(t, report.TrustProven, recs[k].Trust, want.Name)
				}
			}
			assert.Equal(t, len(cases), sum.Disputed)
			assert.Equal(t, []string{"forger"}, sum.Wrong)
			assert.Contains(t, sum.Text(time.Second, 0), "where workers disagreed, settled by the search here")
		})
	}
}

// With --quorum 2 and a single worker, no unit can have two distinct workers: the run
// still ends, each unit failed with why.
func TestQuorumWithOneWorkerEnds(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "solo", Threads: 1})
	c := &Coordinator{Solver: s, Quorum: 2, Queue: Queue{AckWait: time.Second, MaxDeliver: 3}}
	recs, errs, sum := collect(t, nc, c, entries(goal, korf[0].Start, korf[2].Start))
	require.Len(t, recs, 2)
	for k := range recs {
		assert.ErrorIs(t, errs[k], ErrFailed)
		assert.Contains(t, recs[k].Error, `solo said: it has another copy of this unit (--quorum 2 needs 2 distinct workers)`)
	}
	assert.Equal(t, 2, sum.Unsolved)
}
