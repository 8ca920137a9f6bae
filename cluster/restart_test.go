package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/fakegpu"
	"github.com/tilekit/tilekit/pdb"
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
	u := Unit{Job: job.Job, ID: job.ID + ".0", Start: korf[0].Start.Ints()}
	(&run{js: js, job: job.Job, secret: job.secret}).fail(context.Background(), u, 1, "handed out 5 times without a result")

	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	begin := time.Now()
	recs, errs, _ := collect(t, nc, c, in)
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	assert.Less(t, time.Since(begin), time.Minute)
}

// Junk on a job's results (not JSON, JSON of no unit, or a unit's result without its
// key: a forger failing a unit it was never handed, case 3 of issue 41) is passed over
// and deleted: a restart used to wait for it to count among the results stored, forever,
// and a forged failure stood in for the unit's result.
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
	unit := job.ID + ".0"
	for _, junk := range []string{"junk", `{"job":"` + job.ID + `"}`, `[1,2,3]`,
		`{"job":"` + job.ID + `","unit":"` + unit + `","failed":true,"error":"forged"}`,
		`{"job":"` + job.ID + `","unit":"` + unit + `","key":"00","record":{"solved":false,"error":"node limit"},"work":{"nodes":1000000000000}}`} {
		_, err := js.Publish(context.Background(), resultSubject+job.ID+".mallory", []byte(junk))
		require.NoError(t, err)
	}
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	recs, errs, _ := collect(t, nc, c, in)
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	assert.Equal(t, "w", recs[0].Worker)
	// And once more, with the first run's result among the junk.
	recs, errs, _ = collect(t, nc, c, in)
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	// Only the result is kept.
	results, err := js.Stream(context.Background(), resultsPrefix+job.ID)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		info, err := results.Info(context.Background())
		return err == nil && info.State.Msgs == 1
	}, 5*time.Second, 20*time.Millisecond)
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
	q := Queue{AckWait: 400 * time.Millisecond, MaxDeliver: 3}

	// Only a dropper: the unit fails after three hand-outs, saying why.
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	dropped := dropper(t, js, 0)
	begin := time.Now()
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s, Queue: q}, entries(goal, korf[0].Start))
	require.Len(t, recs, 1)
	require.ErrorIs(t, errs[0], ErrFailed)
	assert.Contains(t, recs[0].Error, "taken and acknowledged without a result 3 times")
	assert.Equal(t, int64(3), dropped.Load())
	assert.Less(t, time.Since(begin), 30*time.Second)

	// A dropper that drops both units before an honest worker comes: every instance is
	// solved.
	_, nc = testServer(t, "")
	js, err = jetstream.New(nc)
	require.NoError(t, err)
	_, err = setup(context.Background(), js, q)
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
	q := Queue{AckWait: 400 * time.Millisecond, MaxDeliver: 21} // the dropper drops 20: none fails
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = setup(context.Background(), js, q)
	require.NoError(t, err)
	dropped := dropper(t, js, 20)
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	start := korf[2].Start
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s, Queue: q, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}}, entries(goal, start))
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.Equal(t, board.FormatDirs(want.Moves), recs[0].Moves)
	assert.Equal(t, want.Nodes, recs[0].SerialNodes)
	assert.Equal(t, want.Expanded, recs[0].SerialExpanded)
	assert.Equal(t, int64(20), dropped.Load())
}

// hider is a worker that searches each unit but hides the solution of every subtree of
// the pass of bound hideAt ("no solution", with the search's true work): a forger that
// would make the answer two moves longer than the optimum.
func hider(t *testing.T, nc *nats.Conn, s *solve.Solver, hideAt int) {
	fakeWorker(t, nc, func(ctx context.Context, tk *task, _ string) *Outcome {
		res, err := s.SearchBelow(ctx, tk.start, tk.path, tk.Bound)
		if err != nil {
			return nil
		}
		o := &Outcome{Worker: "hider", Work: res.Work, Value: res.Value}
		if res.Moves != nil && tk.Bound != hideAt {
			o.Found, o.Moves = true, board.FormatDirs(res.Moves)
		}
		return o
	})
}

// At the default settings a worker that hides the solutions of the pass at the optimum is
// caught: the pass that proves the answer (the last that finds nothing) is searched again
// in full, so no answer two moves too long is printed as optimal. An honest run says it
// was audited, and a run told to trust that pass says on whose word the answer rests.
func TestHiddenSolutionsAreCaught(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	start, opt := korf[2].Start, korf[2].Optimal
	split := func() *Coordinator {
		return &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}, Audit: DefaultAudit}
	}

	_, nc := testServer(t, "")
	hider(t, nc, s, opt)
	recs, errs, _ := collect(t, nc, split(), entries(goal, start))
	require.ErrorIs(t, errs[0], ErrAudit)
	assert.False(t, recs[0].Solved)
	assert.Contains(t, recs[0].Error, `worker "hider" says of unit`)

	_, nc = testServer(t, "")
	hider(t, nc, s, opt)
	trusting := split()
	trusting.TrustProof, trusting.Audit = true, 0
	recs, errs, _ = collect(t, nc, trusting, entries(goal, start))
	require.NoError(t, errs[0])
	assert.Equal(t, opt+2, recs[0].Length, "the lie, believed")
	assert.Equal(t, "as reported by 1 worker", recs[0].Trust)

	_, nc = testServer(t, "")
	startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
	recs, errs, _ = collect(t, nc, split(), entries(goal, start))
	require.NoError(t, errs[0])
	assert.Equal(t, opt, recs[0].Length)
	assert.Equal(t, "audited", recs[0].Trust)
	proof := 0
	for _, u := range recs[0].Units {
		if u.Bound == opt-2 {
			assert.True(t, u.Audited, "the pass that proves the answer, all of it: %+v", u)
			proof++
		}
	}
	assert.Positive(t, proof)
}

// A batch split instance by instance, whose instances pass the same bounds, is solved
// whole: a pass decided stopped the units of that bound of every later instance (the
// workers knew a pass by its job and bound alone), which then were never answered.
func TestSplitBatchWithTheSameBounds(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	start := korf[2].Start
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	c := &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}, Queue: Queue{AckWait: 5 * time.Second, MaxDeliver: 3}}
	recs, errs, _ := collect(t, nc, c, entries(goal, start, start))
	require.Len(t, recs, 2)
	for k := range recs {
		require.NoError(t, errs[k])
		assert.Equal(t, board.FormatDirs(want.Moves), recs[k].Moves)
		assert.Equal(t, want.Nodes, recs[k].SerialNodes)
		assert.NotEmpty(t, recs[k].Units)
	}
}

// A whole instance's answer padded by its worker (the real solution and a move there and
// back, claimed optimal, consistent otherwise) is refused, naming the worker: it replays,
// so only the check that an optimal solution passes no state twice sees it.
func TestPaddedAnswerIsRefused(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: time.Second, MaxDeliver: 1}}
	in := entries(goal, korf[0].Start)
	res, err := s.Solve(context.Background(), korf[0].Start)
	require.NoError(t, err)
	padded := report.NewRecord(goal, korf[0].Start, res, nil)
	padded.Moves += "DU"
	padded.Length += 2
	padded.LowerBound = padded.Length
	moves, err := board.ParseDirs(padded.Moves)
	require.NoError(t, err)
	padded.Tiles, err = goal.Size().DirsToTiles(korf[0].Start, moves)
	require.NoError(t, err)
	plant(t, nc, c, in, Outcome{Worker: "mallory", Record: &padded})
	recs, errs, _ := collect(t, nc, c, in)
	require.Len(t, recs, 1)
	assert.False(t, recs[0].Solved)
	assert.ErrorIs(t, errs[0], ErrFailed)
	assert.Contains(t, recs[0].Error, `worker "mallory" sent a result that fails its check`)
	assert.Contains(t, recs[0].Error, "back where it was")
}

// Whole instances are audited too: at --audit 1 every answer is solved again here and
// said to be audited; a record whose counts are not the search's is caught, naming its
// worker.
func TestWholeInstancesAreAudited(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	in := entries(goal, korf[0].Start, korf[2].Start)

	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s, Audit: 1}, in)
	for k := range recs {
		require.NoError(t, errs[k])
		assert.Equal(t, "audited", recs[k].Trust)
	}

	_, nc = testServer(t, "")
	c := &Coordinator{Solver: s, Audit: 1, Queue: Queue{AckWait: time.Second, MaxDeliver: 1}}
	one := in[:1]
	res, err := s.Solve(context.Background(), korf[0].Start)
	require.NoError(t, err)
	forged := report.NewRecord(goal, korf[0].Start, res, nil)
	forged.Nodes /= 2 // a worker that says it worked less, or searched otherwise
	plant(t, nc, c, one, Outcome{Worker: "mallory", Record: &forged})
	recs, errs, _ = collect(t, nc, c, one)
	require.ErrorIs(t, errs[0], ErrAudit)
	assert.False(t, recs[0].Solved)
	assert.Contains(t, recs[0].Error, `worker "mallory" says of instance`)
	assert.Contains(t, recs[0].Error, "solved again here")
}

// plant stores o as the result of the first unit of c's coming run of in, as a worker
// holding the token could once the run has started.
func plant(t *testing.T, nc *nats.Conn, c *Coordinator, in []instance.Entry, o Outcome) {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	job := knownJob(t, js, c, in)
	o.Unit = job.ID + ".0"
	job.publish(t, js, o.Worker, o)
}

// The coordinator speaks to the queue only for a delivery of the unit whose key came
// with the word: progress with another unit's delivery, a subject that is no delivery's,
// or no key is refused, and nothing is published.
func TestProgressNeedsTheUnitsKey(t *testing.T) {
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	sub, err := nc.SubscribeSync(">")
	require.NoError(t, err)
	secret := []byte("s")
	r := &run{js: js, job: Job{ID: "j"}, secret: secret, seqs: map[uint64]string{7: "j.0", 8: "j.1"}}
	ack := func(seq int) string {
		return fmt.Sprintf("$JS.ACK.%s.%s.1.%d.3.1700000000000000000.0", unitsStream, workersName, seq)
	}
	for _, tc := range []struct {
		p    Progress
		sent string // on the delivery's subject, or "" for nothing
	}{
		{Progress{Unit: "j.0", Key: unitKey(secret, "j.0"), Ack: ack(7)}, "+WPI"},
		{Progress{Unit: "j.0", Key: unitKey(secret, "j.0"), Ack: ack(7), Back: true}, "-NAK"},
		{Progress{Unit: "j.0", Key: unitKey(secret, "j.0"), Ack: ack(8), Back: true}, ""},              // the delivery of j.1
		{Progress{Unit: "j.1", Key: unitKey(secret, "j.0"), Ack: ack(8), Back: true}, ""},              // j.0's key
		{Progress{Unit: "j.0", Key: unitKey(secret, "j.0"), Ack: cancelSubject + "j", Back: true}, ""}, // no delivery
		{Progress{Unit: "j.0", Key: unitKey(secret, "j.0"), Ack: ack(9)}, ""},                          // not handed out
	} {
		data, err := json.Marshal(tc.p)
		require.NoError(t, err)
		r.progress(context.Background(), &nats.Msg{Data: data})
		require.NoError(t, nc.Flush())
		m, err := sub.NextMsg(200 * time.Millisecond)
		if tc.sent == "" {
			assert.Error(t, err, "%+v", tc.p)
			continue
		}
		require.NoError(t, err, "%+v", tc.p)
		assert.Equal(t, tc.p.Ack, m.Subject)
		assert.Equal(t, tc.sent, string(m.Data))
	}
	assert.Equal(t, 3, r.refused)
}

// The place in the queue is read from a delivery's reply subject, in both of the
// server's forms, and from nothing else.
func TestAckSeq(t *testing.T) {
	for _, tc := range []struct {
		subject string
		seq     uint64
	}{
		{"$JS.ACK.TILEKIT_UNITS.workers.1.42.7.1700000000000000000.3", 42},
		{"$JS.ACK.hub.ACCHASH.TILEKIT_UNITS.workers.2.43.8.1700000000000000000.0.r4nd", 43},
		{"$JS.ACK.OTHER.workers.1.42.7.1700000000000000000.3", 0},
		{"$JS.ACK.TILEKIT_UNITS.other.1.42.7.1700000000000000000.3", 0},
		{"$JS.ACK.TILEKIT_UNITS.workers.1.x.7.1700000000000000000.3", 0},
		{"$JS.ACK.TILEKIT_UNITS.workers.1.0.7.1700000000000000000.3", 0},
		{"$JS.ACK.TILEKIT_UNITS.workers.1.42.7", 0},
		{"tilekit.cancel.x", 0},
		{"", 0},
	} {
		seq, ok := ackSeq(tc.subject)
		assert.Equal(t, tc.seq, seq, tc.subject)
		assert.Equal(t, tc.seq > 0, ok, tc.subject)
	}
}

// A job's results have a limit: no result above 16 KiB, and room for what a job's
// units may need (case 8 of issue 41: 30 MB were stored in seconds).
func TestResultsHaveALimit(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	c := &Coordinator{Solver: s}
	in := entries(goal, korf[0].Start, korf[2].Start)
	recs, errs, _ := collect(t, nc, c, in)
	require.Len(t, recs, 2)
	require.NoError(t, errs[0])
	job := knownJob(t, js, c, in)
	results, err := js.Stream(context.Background(), resultsPrefix+job.ID)
	require.NoError(t, err)
	info, err := results.Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int32(maxResult), info.Config.MaxMsgSize)
	assert.GreaterOrEqual(t, info.Config.MaxBytes, int64(1<<20+2*maxResult))
	assert.LessOrEqual(t, info.Config.MaxBytes, int64(2<<20))
	assert.Equal(t, jetstream.DiscardNew, info.Config.Discard)
	_, err = js.Publish(context.Background(), resultSubject+job.ID+".mallory", make([]byte, maxResult+1))
	assert.Error(t, err, "a result above the limit")
}

// A unit searched for longer than the ack wait stays with its worker while the worker
// says it is still working: the coordinator passes the word to the queue, and nobody
// else is handed the unit.
func TestProgressKeepsALongUnit(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	q := Queue{AckWait: 300 * time.Millisecond, MaxDeliver: 3}
	_, err = setup(context.Background(), js, q)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cons, err := js.Consumer(ctx, unitsStream, workersName)
	require.NoError(t, err)
	var taken atomic.Int64
	go func() { // a thief that answers nothing, once the slow worker has the unit
		for ctx.Err() == nil {
			if taken.Load() == 0 {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if _, err := cons.Next(jetstream.FetchMaxWait(100 * time.Millisecond)); err == nil {
				taken.Add(1)
			}
		}
	}()
	go func() { // the slow worker
		for ctx.Err() == nil {
			msg, err := cons.Next(jetstream.FetchMaxWait(100 * time.Millisecond))
			if err != nil {
				continue
			}
			taken.Add(1)
			tk, err := decodeUnit(msg.Data())
			if !assert.NoError(t, err) {
				return
			}
			say := func() {
				data, _ := json.Marshal(Progress{Unit: tk.ID, Key: tk.Key, Ack: msg.Reply()})
				nc.Publish(progressSubject+tk.Job.ID+".slow", data)
			}
			for range 15 { // 1.5 s, five ack waits
				say()
				time.Sleep(100 * time.Millisecond)
			}
			res, err := s.Solve(ctx, tk.start)
			if !assert.NoError(t, err) {
				return
			}
			rec := report.NewRecord(goal, tk.start, res, nil)
			data, _ := json.Marshal(Outcome{Job: tk.Job.ID, Unit: tk.ID, Record: &rec, Key: tk.Key, Ack: msg.Reply()})
			js.Publish(ctx, resultSubject+tk.Job.ID+".slow", data)
			return
		}
	}()
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s, Queue: q}, entries(goal, korf[0].Start))
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	assert.Equal(t, "slow", recs[0].Worker)
	assert.Equal(t, int64(1), taken.Load(), "handed out once")
}

// A worker that says it cannot search a unit fails only its hand-out: the unit goes out
// again, and a worker that can search it answers it (a saboteur holding the unit's key
// could otherwise fail any unit it is handed). Only after Queue.MaxDeliver hand-outs does
// a failure stand (TestRefusedUnitFails).
func TestAWorkersFailureIsNotTheUnits(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	var sabotaged atomic.Int64
	fakeWorker(t, nc, func(_ context.Context, tk *task, _ string) *Outcome {
		if sabotaged.Add(1) > 2 {
			time.Sleep(time.Hour / 1e3) // it stops answering: hands back (Nak) every unit after two
			return nil
		}
		return &Outcome{Worker: "saboteur", Failed: true, Error: "no tables here, honestly"}
	})
	in := entries(goal, korf[0].Start, korf[2].Start)
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: time.Second, MaxDeliver: 3}}
	done := make(chan struct{})
	var recs []report.Record
	var errs []error
	go func() { defer close(done); recs, errs, _ = collect(t, nc, c, in) }()
	require.Eventually(t, func() bool { return sabotaged.Load() >= 2 }, 20*time.Second, 10*time.Millisecond)
	startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
	<-done
	require.Len(t, recs, 2)
	for i, want := range []int{korf[0].Optimal, korf[2].Optimal} {
		require.NoError(t, errs[i])
		assert.Equal(t, want, recs[i].Length)
		assert.Equal(t, "honest", recs[i].Worker)
	}
}

// A worker with a GPU (--device gpu; here the fake driver, whose launches run the kernel's
// search on the host) searches whole instances there: the CPU's answer and serial counts,
// with what the GPU did in the record; a split instance's subtrees stay on its CPU.
func TestGPUWorker(t *testing.T) {
	lib := fakegpu.Build(t)
	t.Setenv("TK_FAKE_CUDA", "")
	goal := board.BlankFirst(board.Size4x4)
	start, err := board.Parse(board.Size4x4, "0 1 9 11 8 14 12 2 13 4 15 7 5 10 6 3")
	require.NoError(t, err)
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "md"})
	require.NoError(t, err)
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "gpu", Threads: 1, Device: solve.Device{Kind: "gpu", Library: lib, Split: solve.SplitOptions{GPUFrom: 1_000_000}}})
	// Every result audited: the GPU's count of its own work is not the serial one, which
	// the audit compares.
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s, Audit: 1}, entries(goal, start))
	require.NoError(t, errs[0])
	rec := recs[0]
	assert.Equal(t, "audited", rec.Trust)
	assert.Equal(t, board.FormatDirs(want.Moves), rec.Moves)
	assert.Equal(t, want.Nodes, rec.SerialNodes)
	require.NotNil(t, rec.Device, "the GPU searched")
	assert.Positive(t, rec.Device.Passes)
	assert.Equal(t, "gpu", rec.Worker)

	split := &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 100_000, UnitNodes: 200_000, Subtrees: 64}}
	recs, errs, _ = collect(t, nc, split, entries(goal, start))
	require.NoError(t, errs[0])
	assert.Equal(t, board.FormatDirs(want.Moves), recs[0].Moves)
	assert.Equal(t, want.Nodes, recs[0].SerialNodes)
	assert.NotEmpty(t, recs[0].Units)
}

// Word about a delivery that comes before the server's confirmation of its hand-out (a
// quick worker) waits for it: the acknowledgement is then passed on, and a failure is
// decided as any other, so that no quick saboteur fails a unit alone.
func TestWordBeforeTheHandOutIsConfirmed(t *testing.T) {
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = setup(context.Background(), js, DefaultQueue)
	require.NoError(t, err)
	sub, err := nc.SubscribeSync("$JS.ACK.>")
	require.NoError(t, err)
	secret := []byte("s")
	r := &run{c: &Coordinator{}, js: js, job: Job{ID: "j"}, secret: secret, queue: Queue{MaxDeliver: 2}, seqs: map[uint64]string{}, early: map[uint64]early{},
		out: map[string]*handed{}, closed: map[string]bool{}, got: map[string]*Outcome{}, workers: map[string]bool{}}
	r.changed = sync.NewCond(&r.mu)
	ack := func(seq int) string {
		return fmt.Sprintf("$JS.ACK.%s.%s.1.%d.3.1700000000000000000.0", unitsStream, workersName, seq)
	}
	fail := &Outcome{Job: "j", Unit: "j.0", Worker: "quick", Failed: true, Error: "no tables", Key: unitKey(secret, "j.0"), Ack: ack(7)}

	r.mu.Lock()
	r.ack("j.0", ack(7), "+ACK")
	assert.False(t, r.failedForGood(context.Background(), fail), "undecided before the hand-out is confirmed")
	r.mu.Unlock()
	_, err = sub.NextMsg(100 * time.Millisecond)
	assert.Error(t, err, "nothing said yet")

	// The hand-out is confirmed, its first of two: the acknowledgement goes, the failure
	// only fails the hand-out.
	r.mu.Lock()
	r.seqs[7] = "j.0"
	h := &handed{unit: Unit{ID: "j.0", Job: Job{ID: "j"}}, seq: 7, tries: 1}
	r.out["j.0"] = h
	r.settleEarly(context.Background(), 7, h)
	r.mu.Unlock()
	m, err := sub.NextMsg(time.Second)
	require.NoError(t, err)
	assert.Equal(t, ack(7), m.Subject)
	assert.Equal(t, "+ACK", string(m.Data))
	r.mu.Lock()
	assert.Nil(t, r.got["j.0"], "the first hand-out's failure does not stand")

	// The second and last hand-out fails too, early again: that failure stands.
	fail2 := *fail
	fail2.Ack = ack(9)
	assert.False(t, r.failedForGood(context.Background(), &fail2))
	r.seqs[9] = "j.0"
	h.seq, h.tries = 9, 2
	r.settleEarly(context.Background(), 9, h)
	require.NotNil(t, r.got["j.0"])
	assert.Contains(t, r.got["j.0"].Error, "tried 2 times, by 1 worker: quick said: no tables")
	r.mu.Unlock()
}

// A worker's record is a claim (issue 60). A record not solved, where the job's own
// limits did not stop it, fails only its hand-out, as does one whose figures no search
// could have, or a search longer than the unit has been out: the unit goes out again, and an honest worker answers it. A solved record
// that passes its checks is printed in the coordinator's words: the worker's note and
// escape sequences gone, and its caveat said.
func TestAWorkersWordIsChecked(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	res, err := s.Solve(context.Background(), korf[2].Start)
	require.NoError(t, err)
	good := report.NewRecord(goal, korf[2].Start, res, nil)
	unsolved := report.NewRecord(goal, korf[2].Start, nil, errors.New("gave up\x1b[2J\x1b]0;pwned\x07"))
	huge := good
	huge.Nodes, huge.Seconds = 999_999_999_999_999, 1e-3
	forever := good
	forever.Seconds = 1e300
	longer := good // plausible figures, but an hour's search of a unit out a second
	longer.Seconds = 3600
	for _, c := range []struct {
		name string
		rec  report.Record
	}{{"unsolved", unsolved}, {"nodes beyond any rate", huge}, {"seconds beyond any search", forever}, {"seconds beyond its time out", longer}} {
		t.Run(c.name, func(t *testing.T) {
			_, nc := testServer(t, "")
			var lied atomic.Int64
			fakeWorker(t, nc, func(_ context.Context, tk *task, _ string) *Outcome {
				if lied.Add(1) > 1 {
					time.Sleep(time.Hour / 1e3) // once: then it hands every unit back, slowly
					return nil
				}
				rec := c.rec
				return &Outcome{Worker: "liar", Record: &rec}
			})
			in := entries(goal, korf[2].Start)
			co := &Coordinator{Solver: s, Queue: Queue{AckWait: time.Second, MaxDeliver: 3}}
			done := make(chan struct{})
			var recs []report.Record
			var errs []error
			go func() { defer close(done); recs, errs, _ = collect(t, nc, co, in) }()
			require.Eventually(t, func() bool { return lied.Load() >= 1 }, 20*time.Second, 10*time.Millisecond)
			startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
			<-done
			require.Len(t, recs, 1)
			require.NoError(t, errs[0])
			assert.Equal(t, korf[2].Optimal, recs[0].Length)
			assert.Equal(t, "honest", recs[0].Worker, "the liar's record was not the unit's")
			assert.Less(t, recs[0].Seconds, 3600.0)
		})
	}

	// A solved record with a forged note and escape sequences in its text.
	_, nc := testServer(t, "")
	forged := good
	forged.Error = "forged note\x1b[2K\rall is well"
	forged.Algorithm = "idastar\x1b]0;pwned\x07"
	forged.Trust = "proven here"
	in := entries(goal, korf[2].Start)
	co := &Coordinator{Solver: s, Queue: Queue{AckWait: time.Second, MaxDeliver: 1}}
	plant(t, nc, co, in, Outcome{Worker: "liar", Record: &forged})
	recs, errs, sum := collect(t, nc, co, in)
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.True(t, recs[0].Solved)
	assert.Empty(t, recs[0].Error, "the worker's note is not printed")
	assert.NotContains(t, recs[0].Algorithm, "\x1b")
	assert.Equal(t, "as reported by 1 worker", recs[0].Trust)
	assert.Zero(t, sum.Mismatched)
	var text bytes.Buffer
	recs[0].WriteText(&text)
	assert.NotContains(t, text.String(), "\x1b")
	assert.NotContains(t, text.String(), "forged")
}

// A GPU worker whose kernel faults (the fake driver's launch fault, which the driver keeps
// for the whole process) fails the unit it had, which goes out again, and takes no more:
// its Run ends with the fault. Beside it an honest CPU worker answers every unit, each
// with its optimal length.
func TestFaultingGPUWorker(t *testing.T) {
	lib := fakegpu.Build(t)
	t.Setenv("TK_FAKE_CUDA", "launch")
	goal := board.BlankFirst(board.Size4x4)
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "md"})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(60, 60))
	var starts []board.State
	var want []int
	for len(starts) < 5 {
		start, _ := goal.RandomWalk(70, rng)
		res, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		if res.Nodes < 20_000 || res.Nodes > 2_000_000 {
			continue // a search of passes the GPU takes, and quick on a core
		}
		starts, want = append(starts, start), append(want, res.Length())
	}
	_, nc := testServer(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var took atomic.Int64
	gw := &Worker{Name: "gpu", Threads: 1, Device: solve.Device{Kind: "gpu", Library: lib, Split: solve.SplitOptions{GPUFrom: 1000}},
		Units: func(*Unit, *Outcome) { took.Add(1) }}
	stopped := make(chan error, 1)
	go func() { stopped <- gw.Run(ctx, nc) }()
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: 2 * time.Second, MaxDeliver: 3}}
	done := make(chan struct{})
	var recs []report.Record
	var errs []error
	go func() { defer close(done); recs, errs, _ = collect(t, nc, c, entries(goal, starts...)) }()
	// The GPU worker takes a unit first, and faults on it.
	var err2 error
	select {
	case err2 = <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the GPU worker did not stop")
	}
	assert.ErrorIs(t, err2, gpu.ErrLaunch)
	assert.Contains(t, err2.Error(), "start the worker again")
	assert.Positive(t, took.Load(), "it answered the unit it had")
	startWorker(t, nc, &Worker{Name: "cpu", Threads: 1})
	<-done
	require.Len(t, recs, len(starts))
	for i := range recs {
		require.NoError(t, errs[i])
		assert.Equal(t, want[i], recs[i].Length, "instance %d", i)
		assert.Equal(t, "cpu", recs[i].Worker)
	}
}

// A worker that holds a unit by saying it is in progress, and never answers, holds it at
// most Queue.MaxHold (the job has no --timeout), and only while the nodes it reports grow:
// its words are refused past that, and the unit goes to another worker, which answers it.
func TestAUnitIsNotHeldForever(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		maxHold time.Duration
		nodes   func(word uint64) uint64 // the nodes the holder reports in its word-th word
	}{
		{"past the cap", time.Second, func(word uint64) uint64 { return 1000 * word }},
		{"its work not growing", time.Hour, func(uint64) uint64 { return 42 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, nc := testServer(t, "")
			var holding atomic.Int64
			fakeWorker(t, nc, func(ctx context.Context, tk *task, ack string) *Outcome {
				// The holder: it takes one unit and says "in progress" three times an ack
				// wait, until the test ends.
				holding.Add(1)
				for word := uint64(1); ctx.Err() == nil; word++ {
					data, _ := json.Marshal(Progress{Unit: tk.ID, Key: tk.Key, Ack: ack, Nodes: tc.nodes(word)})
					nc.Publish(progressSubject+tk.Job.ID+".holder", data)
					time.Sleep(100 * time.Millisecond)
				}
				return nil
			})
			in := entries(goal, korf[2].Start)
			// The ack wait makes the stall cap 3 s.
			c := &Coordinator{Solver: s, Queue: Queue{AckWait: 300 * time.Millisecond, MaxDeliver: 3, MaxHold: tc.maxHold}}
			done := make(chan struct{})
			var recs []report.Record
			var errs []error
			go func() { defer close(done); recs, errs, _ = collect(t, nc, c, in) }()
			require.Eventually(t, func() bool { return holding.Load() >= 1 }, 20*time.Second, 10*time.Millisecond)
			startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
			<-done
			require.Len(t, recs, 1)
			require.NoError(t, errs[0])
			assert.Equal(t, korf[2].Optimal, recs[0].Length)
			assert.Equal(t, "honest", recs[0].Worker)
		})
	}
}

// A worker's words about a whole instance carry the nodes its search has generated so
// far, growing while it searches (the GPU's passes report after each launch: ida's
// TestBatchDidReportsProgress).
func TestWorkersWordsGrow(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "md"})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	words := make(chan uint64, 1024)
	sub, err := nc.Subscribe(progressSubject+">", func(m *nats.Msg) {
		var p Progress
		if json.Unmarshal(m.Data, &p) == nil {
			select {
			case words <- p.Nodes:
			default:
			}
		}
	})
	require.NoError(t, err)
	defer sub.Unsubscribe()
	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: 300 * time.Millisecond, MaxDeliver: 3}}
	ran := make(chan struct{})
	go func() { // Korf's first with md: hundreds of millions of nodes, cancelled once heard of
		defer close(ran)
		c.Run(ctx, nc, entries(goal, korf[0].Start), func(instance.Entry, report.Record, error) {})
	}()
	var seen []uint64
	timeout := time.After(time.Minute)
	for len(seen) < 3 {
		select {
		case n := <-words:
			if n > 0 && (len(seen) == 0 || n > seen[len(seen)-1]) {
				seen = append(seen, n)
			}
		case <-timeout:
			t.Fatalf("a minute of words, their nodes never grew three times: %v", seen)
		}
	}
	cancel()
	<-ran
}

// misbehaving runs a worker that does behave with each unit it takes (given its reply
// subject), taking units as fast as it can; it never answers the queue itself, and the
// name it speaks under is behave's (the subjects it publishes on).
func misbehaving(t *testing.T, nc *nats.Conn, behave func(ctx context.Context, js jetstream.JetStream, tk *task, ack string)) {
	takeUnits(t, nc, 200*time.Millisecond, func(ctx context.Context, js jetstream.JetStream, msg jetstream.Msg) {
		if tk, err := decodeUnit(msg.Data()); err == nil {
			behave(ctx, js, tk, msg.Reply())
		}
	})
}

// A run whose workers have all left (a GPU's fault: the worker says it takes no more
// units, and why) does not wait for workers forever: once none new came within the ack
// wait, every unit left fails, naming the worker and why it left; the unit it handed back
// names what it said too.
func TestARunWhoseWorkersLeftEnds(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	var left atomic.Bool
	misbehaving(t, nc, func(_ context.Context, js jetstream.JetStream, tk *task, ack string) {
		if left.Swap(true) {
			return // gone: what it still takes, it drops
		}
		data, _ := json.Marshal(Progress{Unit: tk.ID, Key: tk.Key, Ack: ack, Back: true})
		js.Conn().Publish(progressSubject+tk.Job.ID+".leaver", data)
		js.Conn().Publish(presenceSubject+"leaver", []byte("its GPU faulted"))
	})
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: 500 * time.Millisecond, MaxDeliver: 3}}
	recs, errs, sum := collect(t, nc, c, entries(goal, korf[0].Start, korf[1].Start))
	require.Len(t, recs, 2)
	handedBack := 0
	for i := range recs {
		assert.ErrorIs(t, errs[i], ErrFailed)
		assert.Contains(t, recs[i].Error, `no worker is left to do it ("leaver" left: its GPU faulted)`)
		if strings.Contains(recs[i].Error, "leaver said: ") {
			handedBack++
		}
	}
	assert.Equal(t, 1, handedBack, "the unit it handed back names what it said")
	assert.Equal(t, 2, sum.Unsolved)
}

// No worker can fail a run: beside one honest worker, a worker that hands back every unit
// it takes, one that cannot search any (no tables: it says so at once), and one that
// holds every unit past --max-hold, each taking units as fast as it can: every unit is
// solved, by the honest worker, with its optimal length.
func TestNoWorkerFailsARun(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	easy := corpus.ByOptimum()[:10] // the easiest of Korf's instances
	var starts []board.State
	for _, in := range easy {
		starts = append(starts, in.Start)
	}
	for _, bad := range []struct {
		name   string
		behave func(ctx context.Context, js jetstream.JetStream, tk *task, ack string)
	}{
		{"hands back", func(_ context.Context, js jetstream.JetStream, tk *task, ack string) {
			data, _ := json.Marshal(Progress{Unit: tk.ID, Key: tk.Key, Ack: ack, Back: true})
			js.Conn().Publish(progressSubject+tk.Job.ID+".forger", data)
		}},
		{"no tables", func(ctx context.Context, js jetstream.JetStream, tk *task, ack string) {
			o := Outcome{Job: tk.Job.ID, Unit: tk.ID, Index: tk.Index, Seq: tk.Seq, Key: tk.Key, Ack: ack, Failed: true, Error: "no tables here"}
			data, _ := json.Marshal(o)
			js.Publish(ctx, resultSubject+tk.Job.ID+".forger", data)
		}},
		{"holds", func(ctx context.Context, js jetstream.JetStream, tk *task, ack string) {
			for word := uint64(1); word < 40 && ctx.Err() == nil; word++ { // past the cap, growing
				data, _ := json.Marshal(Progress{Unit: tk.ID, Key: tk.Key, Ack: ack, Nodes: 1000 * word})
				js.Conn().Publish(progressSubject+tk.Job.ID+".forger", data)
				time.Sleep(50 * time.Millisecond)
			}
		}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			_, nc := testServer(t, "")
			misbehaving(t, nc, bad.behave)
			startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
			c := &Coordinator{Solver: s, Queue: Queue{AckWait: time.Second, MaxDeliver: 3, MaxHold: 500 * time.Millisecond}}
			recs, errs, sum := collect(t, nc, c, entries(goal, starts...))
			require.Len(t, recs, len(easy))
			for i, in := range easy {
				require.NoError(t, errs[i], in.Name)
				assert.Equal(t, in.Optimal, recs[i].Length, in.Name)
				assert.Equal(t, "honest", recs[i].Worker, in.Name)
			}
			assert.Equal(t, len(easy), sum.Solved)
		})
	}
}

// An ordinary worker without the job's tables, beside one with them, fails no unit: it is
// told to take no more of the job's units once it has failed a few and done none, says so,
// and every unit is solved optimally by the other.
func TestAWorkerWithoutTablesIsToldToStop(t *testing.T) {
	dir := t.TempDir()
	_, err := data.InstallSet(context.Background(), pdb.Set555, dir, data.BuildOptions{})
	require.NoError(t, err)
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "5-5-5", Tables: dir})
	require.NoError(t, err)
	easy := corpus.ByOptimum()[:12]
	var starts []board.State
	for _, in := range easy {
		starts = append(starts, in.Start)
	}
	_, nc := testServer(t, "")
	var mu sync.Mutex
	var said []string
	startWorker(t, nc, &Worker{Name: "empty", Threads: 2, Tables: t.TempDir(), Log: func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		said = append(said, msg)
	}})
	startWorker(t, nc, &Worker{Name: "honest", Threads: 1, Tables: dir})
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: time.Second, MaxDeliver: 3}}
	recs, errs, sum := collect(t, nc, c, entries(goal, starts...))
	require.Len(t, recs, len(easy))
	for i, in := range easy {
		require.NoError(t, errs[i], in.Name)
		assert.Equal(t, in.Optimal, recs[i].Length, in.Name)
		assert.Equal(t, "honest", recs[i].Worker, in.Name)
	}
	assert.Equal(t, len(easy), sum.Solved)
	mu.Lock()
	defer mu.Unlock()
	told := 0
	for _, msg := range said {
		if strings.Contains(msg, "told by the coordinator to take no more of job") {
			told++
			assert.Contains(t, msg, "could not do 3 of the job's units and did none")
		}
	}
	assert.Equal(t, 1, told, "said: %q", said)
}
