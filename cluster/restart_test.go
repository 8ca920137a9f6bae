package cluster

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// A restart within the server's duplicate window (two minutes) of a unit's failure hands
// the unit out again and takes the retry's result: it used to carry the failure's message
// id and be dropped as a duplicate, and the restart waited forever.
func TestRetryAfterAFailureIsNoDuplicate(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	c := &Coordinator{Solver: s}
	in := entries(goal, korf[0].Start)
	job := knownJob(t, js, c, in)
	// The failure, stored as the coordinator stores one (givenUp, lost): the unit went out
	// as the queue's first message.
	u := Unit{Job: job, ID: job.ID + ".0", Start: korf[0].Start.Ints()}
	data, err := json.Marshal(&u)
	require.NoError(t, err)
	(&run{js: js, job: job}).fail(context.Background(), u, 1, data, "handed out 5 times without a result")

	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	begin := time.Now()
	recs, errs, _ := collect(t, nc, c, in)
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	assert.Less(t, time.Since(begin), time.Minute)
}

// Junk on a job's results subject (not JSON, or JSON of no unit) is passed over: a
// restart used to wait for it to count among the results stored, forever.
func TestJunkResultsDoNotHangARestart(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	c := &Coordinator{Solver: s}
	in := entries(goal, korf[0].Start)
	job := knownJob(t, js, c, in)
	for _, junk := range []string{"junk", `{"job":"` + job.ID + `"}`, `[1,2,3]`} {
		_, err := js.Publish(context.Background(), resultSubject+job.ID, []byte(junk))
		require.NoError(t, err)
	}
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	recs, errs, _ := collect(t, nc, c, in)
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	// And once more, with the first run's result among the junk.
	recs, errs, _ = collect(t, nc, c, in)
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
}

// dropper takes units from the workers' queue and acknowledges them without a result,
// the first max of them (0: all), until the test ends; it reports how many it dropped.
func dropper(t *testing.T, js jetstream.JetStream, max int64) *atomic.Int64 {
	var dropped atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil && (max == 0 || dropped.Load() < max) {
			cons, err := js.Consumer(ctx, unitsStream, workersName)
			if err != nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			if m, err := cons.Next(jetstream.FetchMaxWait(200 * time.Millisecond)); err == nil {
				m.Ack()
				dropped.Add(1)
			}
		}
	}()
	return &dropped
}

// A unit that a worker takes and acknowledges without a result is handed out again, and
// after Queue.MaxDeliver hand-outs reported failed: the coordinator used to wait forever
// with nothing queued and nothing in flight.
func TestDroppedUnitsAreHandedOutAgain(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	q := Queue{AckWait: time.Second, MaxDeliver: 3}

	// Only a dropper: the unit fails after three hand-outs, saying why.
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	dropped := dropper(t, js, 0)
	begin := time.Now()
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s, Queue: q}, entries(goal, korf[0].Start))
	require.Len(t, recs, 1)
	require.ErrorIs(t, errs[0], ErrFailed)
	assert.Contains(t, recs[0].Error, "taken 3 times and acknowledged without a result")
	assert.Equal(t, int64(3), dropped.Load())
	assert.Less(t, time.Since(begin), 30*time.Second)

	// A dropper that drops both units before an honest worker comes: every instance is
	// solved.
	_, nc = testServer(t, "")
	js, err = jetstream.New(nc)
	require.NoError(t, err)
	_, _, err = setup(context.Background(), js, q)
	require.NoError(t, err)
	dropped = dropper(t, js, 2)
	in := entries(goal, korf[0].Start, korf[2].Start)
	type out struct {
		recs []report.Record
		errs []error
	}
	done := make(chan out, 1)
	go func() {
		var o out
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := (&Coordinator{Solver: s, Queue: q}).Run(ctx, nc, in, func(_ instance.Entry, rec report.Record, err error) {
			o.recs, o.errs = append(o.recs, rec), append(o.errs, err)
		})
		if err != nil {
			o.errs = append(o.errs, err)
		}
		done <- o
	}()
	// Both units dropped once before an honest worker comes.
	require.Eventually(t, func() bool { return dropped.Load() == 2 }, 20*time.Second, 10*time.Millisecond)
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	got := <-done
	require.Len(t, got.recs, 2, "%v", got.errs)
	for k := range got.recs {
		require.NoError(t, got.errs[k])
		assert.Equal(t, "w", got.recs[k].Worker)
	}
	assert.Equal(t, korf[0].Optimal, got.recs[0].Length)
	assert.Equal(t, korf[2].Optimal, got.recs[1].Length)
}

// In a split search, subtrees dropped by a worker are handed out again: the serial
// search's solution and counts, to the node.
func TestDroppedSubtreesAreHandedOutAgain(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	q := Queue{AckWait: time.Second, MaxDeliver: 5}
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, _, err = setup(context.Background(), js, q)
	require.NoError(t, err)
	dropped := dropper(t, js, 20)
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	start := korf[2].Start
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s, Queue: q, Split: true, SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}, entries(goal, start))
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.Equal(t, board.FormatDirs(want.Moves), recs[0].Moves)
	assert.Equal(t, want.Nodes, recs[0].SerialNodes)
	assert.Equal(t, want.Expanded, recs[0].SerialExpanded)
	assert.Equal(t, int64(20), dropped.Load())
}
