package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/fakegpu"
	"github.com/tilekit/tilekit/internal/hermetic"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

func TestMain(m *testing.M) { hermetic.Main(m) }

// testServer starts an embedded server on a free loopback port, with a store in a
// temporary directory, and connects to it.
func testServer(t testing.TB, store string) (*Server, *nats.Conn) {
	t.Helper()
	if store == "" {
		store = t.TempDir()
	}
	s, err := StartServer(ServerOptions{Store: store})
	require.NoError(t, err)
	nc, err := nats.Connect(s.URL())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close(); s.Close() })
	return s, nc
}

// startWorker runs a worker until the test ends.
func startWorker(t testing.TB, nc *nats.Conn, w *Worker) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, nc) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
}

func entries(goal board.Goal, starts ...board.State) []instance.Entry {
	var out []instance.Entry
	for i, s := range starts {
		out = append(out, instance.Entry{In: &instance.Instance{Line: i + 1, State: s, Optimal: -1}, Line: i + 1})
	}
	return out
}

// collect runs a coordinator and returns its records, each record's error, and the summary.
func collect(t *testing.T, nc *nats.Conn, c *Coordinator, in []instance.Entry) ([]report.Record, []error, *report.Summary) {
	t.Helper()
	var recs []report.Record
	var errs []error
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, err := c.Run(ctx, nc, in, func(e instance.Entry, rec report.Record, err error) {
		recs = append(recs, rec)
		errs = append(errs, err)
	})
	require.NoError(t, err)
	return recs, errs, sum
}

// A batch shared out as whole instances gives solve's records: the same lengths, solutions
// and node counts, in input order, each naming its worker; a bad entry keeps its place.
func TestBatchAsWholeInstances(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "w1", Threads: 2})
	var starts []board.State
	for _, i := range []int{0, 2, 7, 11, 25} {
		starts = append(starts, korf[i].Start)
	}
	in := entries(goal, starts...)
	in = append(in[:2], append([]instance.Entry{{Line: 99, Err: fmt.Errorf("line 99: not a state")}}, in[2:]...)...)
	recs, _, _ := collect(t, nc, &Coordinator{Solver: s}, in)
	require.Len(t, recs, len(in))
	for k, e := range in {
		if e.In == nil {
			assert.Equal(t, 99, recs[k].Line)
			assert.False(t, recs[k].Solved)
			continue
		}
		want, err := s.Solve(context.Background(), e.In.State)
		require.NoError(t, err)
		assert.Equal(t, e.In.Line, recs[k].Line)
		assert.Equal(t, board.FormatDirs(want.Moves), recs[k].Moves)
		assert.Equal(t, want.Nodes, recs[k].Nodes)
		assert.Equal(t, "w1", recs[k].Worker)
	}
}

// One instance split into subtrees gives the serial search's solution and its serial
// counts, with the work of every unit recorded; each pass counts at least the serial
// pass's work.
func TestSplitInstance(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "a", Threads: 1})
	startWorker(t, nc, &Worker{Name: "b", Threads: 1})
	start := korf[2].Start
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	recs, _, _ := collect(t, nc, &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}}, entries(goal, start))
	require.Len(t, recs, 1)
	rec := recs[0]
	assert.True(t, rec.Solved && rec.Optimal)
	assert.Equal(t, board.FormatDirs(want.Moves), rec.Moves)
	n := len(want.Passes)
	require.Len(t, rec.Passes, n)
	for i := range n {
		assert.Equal(t, want.Passes[i].Bound, rec.Passes[i].Bound)
		assert.GreaterOrEqual(t, rec.Passes[i].Nodes, want.Passes[i].Nodes)
	}
	assert.Equal(t, want.Nodes, rec.SerialNodes, "the serial search's nodes")
	assert.Equal(t, want.Expanded, rec.SerialExpanded, "the serial search's expanded nodes")
	require.NotEmpty(t, rec.Units)
	var unitNodes uint64
	for _, u := range rec.Units {
		unitNodes += u.Nodes
		assert.Contains(t, []string{"a", "b"}, u.Worker)
	}
	assert.Less(t, unitNodes, rec.Nodes, "the top of each tree is searched by the coordinator")
}

// A worker whose tables differ refuses the unit and says why, on the CPU as on a GPU (the
// fake driver); after MaxDeliver tries the unit is reported failed with that reason, not
// retried for ever.
func TestRefusedUnitFails(t *testing.T) {
	korf := corpus.Korf100()
	s, err := solve.New(context.Background(), korf[0].Goal, solve.Options{})
	require.NoError(t, err)
	for _, device := range []string{"cpu", "gpu"} {
		t.Run(device, func(t *testing.T) {
			w := &Worker{Name: "w", Threads: 1, Device: solve.Device{Kind: device}}
			if device == "gpu" {
				w.Device.Library = fakegpu.Build(t)
				t.Setenv("TK_FAKE_CUDA", "")
			}
			_, nc := testServer(t, "")
			var mu sync.Mutex
			var said []string
			w.Log = func(m string) { mu.Lock(); said = append(said, m); mu.Unlock() }
			startWorker(t, nc, w)
			c := &Coordinator{Solver: s, Queue: Queue{AckWait: 2 * time.Second, MaxDeliver: 3}}
			c.fingerprint = "not-these-tables"
			recs, got, sum := collect(t, nc, c, entries(korf[0].Goal, korf[0].Start))
			require.Len(t, got, 1)
			assert.Contains(t, recs[0].Error, "tables differ")
			assert.Contains(t, recs[0].Error, "by 1 worker: w said: ")
			assert.ErrorIs(t, got[0], ErrFailed)
			assert.Equal(t, 1, sum.Unsolved)
			assert.Nil(t, recs[0].Device, "nothing searched")
			mu.Lock()
			defer mu.Unlock()
			assert.NotEmpty(t, said)
		})
	}
}

// A unit whose worker goes silent (killed) is handed to another after the ack wait, and
// a unit nobody finishes within MaxDeliver deliveries is reported failed (the advisory).
func TestSilentWorkerUnitsFail(t *testing.T) {
	korf := corpus.Korf100()
	s, err := solve.New(context.Background(), korf[0].Goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	// A "worker" that takes units and never answers.
	go func() {
		for {
			cons, err := js.Consumer(context.Background(), unitsStream, workersName)
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			for {
				if _, err := cons.Next(jetstream.FetchMaxWait(time.Second)); err == nats.ErrConnectionClosed {
					return
				}
			}
		}
	}()
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: 300 * time.Millisecond, MaxDeliver: 2}}
	recs, _, _ := collect(t, nc, c, entries(korf[0].Goal, korf[0].Start))
	require.Len(t, recs, 1)
	assert.Contains(t, recs[0].Error, "handed out 2 times without a result")
}

// A coordinator restarted on the same store hands out only the units without a result:
// its second run of a finished batch hands out nothing and reports the same records.
func TestRestartResumes(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	store := t.TempDir()
	in := entries(goal, korf[0].Start, korf[2].Start, korf[7].Start)

	srv, err := StartServer(ServerOptions{Store: store})
	require.NoError(t, err)
	nc, err := nats.Connect(srv.URL())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	w := &Worker{Name: "w", Threads: 2}
	go func() { done <- w.Run(ctx, nc) }()
	first, _, _ := collect(t, nc, &Coordinator{Solver: s}, in)
	cancel()
	require.NoError(t, <-done)
	nc.Close()
	srv.Close()

	_, nc2 := testServer(t, store) // no worker this time
	second, _, _ := collect(t, nc2, &Coordinator{Solver: s}, in)
	for i := range first {
		first[i].Seconds, second[i].Seconds = 0, 0
	}
	assert.Equal(t, first, second)
	js, err := jetstream.New(nc2)
	require.NoError(t, err)
	units, err := js.Stream(context.Background(), unitsStream)
	require.NoError(t, err)
	info, err := units.Info(context.Background())
	require.NoError(t, err)
	assert.Zero(t, info.State.Msgs, "nothing handed out again")
}

// A server beyond loopback needs a token; with one, clients without it are refused.
func TestServerToken(t *testing.T) {
	_, err := StartServer(ServerOptions{Store: t.TempDir(), Listen: "0.0.0.0:0"})
	assert.ErrorIs(t, err, ErrNeedsToken)
	_, err = StartServer(ServerOptions{Store: t.TempDir(), Listen: "127.0.0.1:http"})
	assert.ErrorContains(t, err, "port must be a number")

	s, err := StartServer(ServerOptions{Store: t.TempDir(), Listen: "127.0.0.1:0", Token: "s3cret"})
	require.NoError(t, err)
	defer s.Close()
	_, err = nats.Connect(s.URL())
	assert.Error(t, err, "no token")
	_, err = nats.Connect(s.URL(), nats.Token("s3cret"))
	assert.Error(t, err, "a token without a name")
	for _, ok := range []Endpoint{
		{URL: s.URL(), User: "w", Server: ServerOptions{Token: "s3cret"}},
		{URL: s.URL(), User: "alice", Key: WorkerKey("s3cret", "alice")},
		{URL: strings.Replace(s.URL(), "nats://", "nats://alice:"+WorkerKey("s3cret", "alice")+"@", 1)},
		{URL: strings.Replace(s.URL(), "nats://", "nats://s3cret@", 1), User: "w"},
	} {
		conn, err := Connect(ok)
		require.NoError(t, err, "%+v", ok)
		conn.Close()
	}
	for _, bad := range []Endpoint{
		{URL: s.URL(), User: "bob", Key: WorkerKey("s3cret", "alice")}, // another's key
		{URL: s.URL(), User: "alice", Key: WorkerKey("wrong", "alice")},
		{URL: s.URL(), User: "al.ice", Server: ServerOptions{Token: "s3cret"}}, // not a name
		{URL: s.URL(), User: coordinatorName, Server: ServerOptions{Token: "s3cret"}},
	} {
		_, err := Connect(bad)
		assert.ErrorContains(t, err, "Authorization Violation", "%+v", bad)
	}
	_, err = Connect(Endpoint{URL: strings.Replace(s.URL(), "nats://", "nats://alice:k@", 1), User: "bob"})
	assert.ErrorContains(t, err, `the worker's name is "bob", but the URL's user is "alice"`)
}

// Worker names are checked, and a worker's default name is one.
func TestWorkerNames(t *testing.T) {
	for _, tc := range []struct {
		url, name, want, err string
	}{
		{"nats://h:4222", "alice", "alice", ""},
		{"nats://alice:KEY@h:4222", "", "alice", ""},
		{"nats://alice:KEY@h:4222", "alice", "alice", ""},
		{"nats://alice:KEY@h:4222", "bob", "", "the URL's user is alice"},
		{"nats://TOKEN@h:4222", "", DefaultName(), ""},
		{"nats://h:4222", "al.ice", "", "only letters, digits"},
		{"nats://h:4222", "_coordinator", "", "only letters, digits"},
		{"nats://h:4222", strings.Repeat("a", 65), "", "1 to 64 characters"},
	} {
		got, err := WorkerName(tc.url, tc.name)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got)
	}
	assert.NoError(t, ValidName(DefaultName()))
	assert.NotEqual(t, WorkerKey("t", "alice"), WorkerKey("t", "bob"))
	assert.NotEqual(t, WorkerKey("t", "alice"), WorkerKey("u", "alice"))
}

// A catalogue travels to the workers as its text: they need its tables, not its file.
func TestCatalogueTravels(t *testing.T) {
	dir := t.TempDir()
	_, err := data.InstallSet(context.Background(), pdb.Set555, dir, data.BuildOptions{})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "555.cat")
	require.NoError(t, os.WriteFile(file, []byte("1,2,3,4,7\n5,6,9,10,13\n8,11,12,14,15\n"), 0o644))
	opt, err := solve.Options{Catalogue: file, Tables: dir}.Portable()
	require.NoError(t, err)
	require.NoError(t, os.Remove(file), "the workers cannot read it")
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, opt)
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "w", Threads: 1, Tables: dir})
	starts := []board.State{korf[0].Start, korf[11].Start}
	recs, errs, _ := collect(t, nc, &Coordinator{Solver: s}, entries(goal, starts...))
	for k, start := range starts {
		require.NoError(t, errs[k])
		want, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		assert.Equal(t, want.Nodes, recs[k].Nodes)
		assert.Equal(t, "catalogue "+file, recs[k].Heuristic)
		assert.True(t, recs[k].Optimal)
	}
	_, err = solve.Options{Catalogue: file}.Portable()
	assert.ErrorIs(t, err, solve.ErrOptions, "a missing file")
}

// A result planted in the store before the run, claiming a solution that does not
// replay, is not printed as an answer: the instance fails, naming the worker that sent it.
func TestForgedResultIsRefused(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	c := &Coordinator{Solver: s, Queue: Queue{AckWait: time.Second, MaxDeliver: 1}}
	in := entries(goal, korf[0].Start)
	// The record of another instance, passed off as this one's.
	res, err := s.Solve(context.Background(), korf[1].Start)
	require.NoError(t, err)
	forged := report.NewRecord(goal, korf[0].Start, res, nil)
	plant(t, nc, c, in, Outcome{Worker: "mallory", Record: &forged})
	recs, errs, sum := collect(t, nc, c, in)
	require.Len(t, recs, 1)
	assert.False(t, recs[0].Solved)
	assert.ErrorIs(t, errs[0], ErrFailed)
	assert.Contains(t, recs[0].Error, `worker "mallory" sent a result that fails its check`)
	assert.Equal(t, 1, sum.Unsolved)
}

// Solutions planted for a split instance's subtrees, which do not replay, fail the
// instance with the worker named; they are not printed as its solution.
func TestForgedSubtreeSolutionIsRefused(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
	c := &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}}
	start := korf[2].Start
	in := entries(goal, start)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	job := knownJob(t, js, c, in)
	h0, err := s.H0(start)
	require.NoError(t, err)
	for b := h0; b <= korf[2].Optimal; b += 2 {
		for k := range 64 {
			id := fmt.Sprintf("%s.0.b%d.%d", job.ID, b, k)
			job.publish(t, js, "mallory", Outcome{Unit: id, Seq: k, Found: true, Moves: strings.Repeat("R", b)})
		}
	}
	recs, errs, _ := collect(t, nc, c, in)
	require.Len(t, recs, 1)
	assert.False(t, recs[0].Solved)
	assert.ErrorIs(t, errs[0], ErrFailed)
	assert.Contains(t, recs[0].Error, `worker "mallory" sent a solution of unit`)
}

// A unit naming a job's id with other options (a node limit of 1) gets a solver of its
// own: the job's units are still solved with the job's options.
func TestForgedOptionsDoNotPoisonTheWorker(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	c := &Coordinator{Solver: s}
	in := entries(goal, korf[0].Start)
	opt, err := c.Solver.Options().Portable()
	require.NoError(t, err)
	job := c.job(in, opt)
	forged := job
	forged.Options.MaxNodes = 1
	w := &Worker{solvers: map[[32]byte]*solverEntry{}}
	bad, err := w.solver(forged, goal)
	require.NoError(t, err)
	good, err := w.solver(job, goal)
	require.NoError(t, err)
	_, err = bad.Solve(context.Background(), korf[0].Start)
	assert.Error(t, err, "the forged unit's own solver keeps its limit")
	res, err := good.Solve(context.Background(), korf[0].Start)
	require.NoError(t, err)
	assert.Equal(t, korf[0].Optimal, res.Length())
}

// A unit that failed in an earlier run (its outcome in the store) is handed out again
// by a coordinator restarted on that store, and solved by the workers there now; told to
// keep failures, the coordinator reports it failed again.
func TestRestartRetriesFailedUnits(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	c := &Coordinator{Solver: s}
	in := entries(goal, korf[0].Start)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	job := knownJob(t, js, c, in)
	job.publish(t, js, "w", Outcome{Unit: job.ID + ".0", Failed: true, Error: "the tables were missing"})
	keep := *c
	keep.KeepFailed = true
	recs, errs, _ := collect(t, nc, &keep, in)
	require.Len(t, recs, 1)
	assert.ErrorIs(t, errs[0], ErrFailed, "told to keep it, the failure stands")
	assert.Contains(t, recs[0].Error, "the tables were missing")

	startWorker(t, nc, &Worker{Name: "w", Threads: 1})
	recs, errs, _ = collect(t, nc, c, in)
	require.Len(t, recs, 1)
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	assert.Equal(t, "w", recs[0].Worker)
}

// knownJob is the job of c's run of in on the server of js, its id and secret made as
// the run will make them, and its results' stream made: what a worker that was handed a
// unit of the run knows of it (its id, and the keys of the units it was handed).
func knownJob(t *testing.T, js jetstream.JetStream, c *Coordinator, in []instance.Entry) plantedJob {
	t.Helper()
	ctx := context.Background()
	_, err := setup(ctx, js, DefaultQueue)
	require.NoError(t, err)
	opt, err := c.Solver.Options().Portable()
	require.NoError(t, err)
	job := plantedJob{Job: c.job(in, opt)}
	job.ID, job.secret, err = jobID(ctx, js, DefaultQueue, job.ID)
	require.NoError(t, err)
	if _, err = js.CreateStream(ctx, resultsConfig(job.ID, DefaultQueue.Keep, 1<<20)); !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		require.NoError(t, err)
	}
	return job
}

// plantedJob is a job known to a test, with its secret.
type plantedJob struct {
	Job
	secret []byte
}

// publish stores o, with its unit's key, as the result the worker name sends: what a
// worker that was handed the unit may send.
func (j plantedJob) publish(t *testing.T, js jetstream.JetStream, name string, o Outcome) {
	t.Helper()
	o.Job, o.Key = j.ID, unitKey(j.secret, o.Unit)
	data, err := json.Marshal(o)
	require.NoError(t, err)
	_, err = js.Publish(context.Background(), resultSubject+j.ID+"."+name, data)
	require.NoError(t, err)
}

// A job's id is not a function of its input: two stores give the same run two ids, so
// results cannot be planted for a run before it starts; on one store the id stays, so
// that a restarted run finds its results.
func TestJobIDsAreFresh(t *testing.T) {
	ctx := context.Background()
	var ids []string
	for range 2 {
		_, nc := testServer(t, "")
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		a, as, err := jobID(ctx, js, DefaultQueue, "same-input")
		require.NoError(t, err)
		b, bs, err := jobID(ctx, js, DefaultQueue, "same-input")
		require.NoError(t, err)
		require.Equal(t, a, b, "one store, one id")
		require.Equal(t, as, bs, "and one secret")
		c, cs, err := jobID(ctx, js, DefaultQueue, "other-input")
		require.NoError(t, err)
		require.NotEqual(t, a, c)
		require.NotEqual(t, as, cs)
		assert.NotEqual(t, unitKey(as, a+".0"), unitKey(as, a+".1"))
		ids = append(ids, a)
	}
	assert.NotEqual(t, ids[0], ids[1], "two stores, two ids")
}

// A worker with the wrong token says that the server refused it and how to fix that,
// rather than "connection closed"; one with no server yet says it waits, and stops when
// told to.
func TestWorkerSaysWhatIsWrong(t *testing.T) {
	s, err := StartServer(ServerOptions{Store: t.TempDir(), Listen: "127.0.0.1:0", Token: "s3cret"})
	require.NoError(t, err)
	defer s.Close()
	conn, err := Connect(Endpoint{URL: s.URL(), Wait: true, User: "w", Server: ServerOptions{Token: "wrong"}})
	require.NoError(t, err, "a worker's connection waits for its server")
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = (&Worker{Name: "w", Threads: 1}).Run(ctx, conn.Conn)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refused this worker")
	assert.Contains(t, err.Error(), "--key")
	assert.Contains(t, err.Error(), "solve15 cluster key w")
	assert.NotContains(t, err.Error(), "s3cret")

	nobody, err := Connect(Endpoint{URL: "nats://127.0.0.1:1", Wait: true})
	require.NoError(t, err)
	defer nobody.Close()
	var said []string
	var mu sync.Mutex
	ctx, cancel = context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	require.NoError(t, (&Worker{Threads: 1, Log: func(m string) { mu.Lock(); said = append(said, m); mu.Unlock() }}).Run(ctx, nobody.Conn))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, said, 1, "said once, not at every try")
	assert.Contains(t, said[0], "no NATS server at nats://127.0.0.1:1 yet")
}

// Outcome.Text says what became of a unit, for a worker's log.
func TestOutcomeText(t *testing.T) {
	u := &Unit{ID: "j.3", Label: "k24-40"}
	rec := &report.Record{Solved: true, Optimal: true, Length: 82}
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Record: rec, Work: passes.Work{Nodes: 1234567}, Seconds: 1.5}, "unit j.3 (k24-40): 82 moves (optimal); 1,234,567 nodes, 1.50s"},
		{Outcome{Found: true}, "unit j.3 (k24-40): a solution; 0 nodes, 0.00s"},
		{Outcome{}, "unit j.3 (k24-40): no solution below its path; 0 nodes, 0.00s"},
		{Outcome{Failed: true, Error: "tables differ"}, "unit j.3 (k24-40): failed: tables differ; 0 nodes, 0.00s"},
		{Outcome{Record: &report.Record{Error: "timed out"}}, "unit j.3 (k24-40): not solved: timed out; 0 nodes, 0.00s"},
	} {
		assert.Equal(t, c.want, c.o.Text(u))
	}
}

// With a token, a worker has a worker's rights, under its own name only: the
// coordinator (with a secret of its own) and a worker in its process solve a batch and a
// split instance through those permissions, while a worker holding a key of its own
// (mallory) cannot read the deliveries or inboxes of others, acknowledge units, publish
// under another's name, hand out units, decide passes, fake the server's events, purge
// the queue or read a stream (cases 3 and 7 of issue 41).
func TestTokenGivesAWorkersRights(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "wd"})
	require.NoError(t, err)
	conn, err := Connect(Endpoint{Server: ServerOptions{Store: t.TempDir(), Listen: "127.0.0.1:0", Token: "s3cret"}})
	require.NoError(t, err)
	defer conn.Close()

	var mu sync.Mutex
	var violations []string
	mallory, err := Connect(Endpoint{URL: conn.Server.URL(), User: "mallory", Key: WorkerKey("s3cret", "mallory")})
	require.NoError(t, err)
	defer mallory.Close()
	mallory.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		mu.Lock()
		violations = append(violations, err.Error())
		mu.Unlock()
	})
	var heard atomic.Int64
	for _, subject := range []string{"_INBOX.>", inboxPrefix("local") + ".>", ">", "$JS.ACK.>", resultSubject + ">"} {
		_, err := mallory.Subscribe(subject, func(*nats.Msg) { heard.Add(1) })
		require.NoError(t, err)
	}
	refused := func(subject string) {
		t.Helper()
		require.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, v := range violations {
				if strings.Contains(v, "Permissions Violation") && strings.Contains(v, `"`+subject+`"`) {
					return true
				}
			}
			return false
		}, 5*time.Second, 10*time.Millisecond, subject)
	}
	for _, subject := range []string{"_INBOX.>", inboxPrefix("local") + ".>", ">", "$JS.ACK.>", resultSubject + ">"} {
		refused(subject)
	}

	stop, err := conn.StartWorker(context.Background(), &Worker{Name: "local", Threads: 1, Log: func(m string) { t.Log(m) }})
	require.NoError(t, err)
	recs, errs, _ := collect(t, conn.Conn, &Coordinator{Solver: s}, entries(goal, korf[0].Start, korf[2].Start))
	for i, rec := range recs {
		require.NoError(t, errs[i])
		assert.True(t, rec.Solved && rec.Optimal)
		assert.Equal(t, "local", rec.Worker)
	}
	split := &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 20000, Subtrees: 64}}
	recs, errs, _ = collect(t, conn.Conn, split, entries(goal, korf[2].Start))
	require.NoError(t, stop())
	require.NoError(t, errs[0])
	assert.Equal(t, korf[2].Optimal, recs[0].Length)
	assert.NotEmpty(t, recs[0].Units)
	for _, u := range recs[0].Units {
		assert.Equal(t, "local", u.Worker)
	}
	assert.Zero(t, heard.Load(), "mallory heard nothing of the others' deliveries")

	for _, subject := range []string{unitsSubject + "x", cancelSubject + "x", maxDeliveries, "$JS.API.STREAM.PURGE." + unitsStream,
		"$JS.ACK." + unitsStream + "." + workersName + ".1.1.1.1.0", resultSubject + "x.local", progressSubject + "x.local",
		"$JS.API.STREAM.MSG.GET." + unitsStream, "$JS.API.CONSUMER.CREATE." + unitsStream} {
		_, err := mallory.Request(subject, []byte("{}"), 100*time.Millisecond) // refused: no answer comes
		assert.Error(t, err, subject)
		refused(subject)
	}
}

// The guide's configuration for an external server gives workers exactly the embedded
// server's rights.
func TestGuideGivesWorkersTheirRights(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "GUIDE.md"))
	require.NoError(t, err)
	_, conf, ok := strings.Cut(string(readme), "{ user: alice,")
	require.True(t, ok, "the guide's worker user")
	conf, _, _ = strings.Cut(conf, "```")
	p := workerPermissions("alice")
	for _, s := range append(p.Publish.Allow, p.Subscribe.Allow...) {
		assert.Contains(t, conf, `"`+s+`"`)
	}
	n := strings.Count(conf, `"`) / 2
	assert.Equal(t, len(p.Publish.Allow)+len(p.Subscribe.Allow), n, "no subject the code does not allow")
}

// The guide's configuration, given to a NATS server as it stands, runs a batch with a
// coordinator and a worker connecting as its two users.
func TestGuideConfigurationRuns(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "GUIDE.md"))
	require.NoError(t, err)
	_, conf, ok := strings.Cut(string(readme), "\n```\njetstream {")
	require.True(t, ok)
	conf, _, _ = strings.Cut(conf, "```")
	dir := t.TempDir()
	conf = "port: -1\nhost: 127.0.0.1\njetstream {" + strings.Replace(conf, "/srv/nats", filepath.Join(dir, "store"), 1)
	path := filepath.Join(dir, "nats.conf")
	require.NoError(t, os.WriteFile(path, []byte(conf), 0o600))
	t.Setenv("COORDINATOR_PASSWORD", "c0ord")
	t.Setenv("ALICE_PASSWORD", "w0rk")
	opts, err := server.ProcessConfigFile(path)
	require.NoError(t, err)
	opts.NoLog, opts.NoSigs = true, true
	ns, err := server.NewServer(opts)
	require.NoError(t, err)
	go ns.Start()
	require.True(t, ns.ReadyForConnections(10*time.Second))
	defer ns.Shutdown()
	url := func(user, pass string) string {
		return strings.Replace(ns.ClientURL(), "nats://", "nats://"+user+":"+pass+"@", 1)
	}
	coord, err := nats.Connect(url("coordinator", "c0ord"))
	require.NoError(t, err)
	defer coord.Close()
	worker, err := Connect(Endpoint{URL: url("alice", "w0rk")})
	require.NoError(t, err)
	defer worker.Close()
	startWorker(t, worker.Conn, &Worker{Name: "alice", Threads: 1})
	korf := corpus.Korf100()
	s, err := solve.New(context.Background(), korf[0].Goal, solve.Options{Heuristic: "wd"})
	require.NoError(t, err)
	recs, errs, _ := collect(t, coord, &Coordinator{Solver: s}, entries(korf[0].Goal, korf[0].Start))
	require.NoError(t, errs[0])
	assert.Equal(t, korf[0].Optimal, recs[0].Length)
	assert.Equal(t, "alice", recs[0].Worker)
}

// mallory is a worker that searches nothing: it answers every unit it takes with "no
// solution" and made-up work.
func mallory(t *testing.T, nc *nats.Conn) {
	fakeWorker(t, nc, func(context.Context, *task, string) *Outcome {
		return &Outcome{Worker: "mallory", Work: passes.Work{Nodes: 12345, Expanded: 6789}}
	})
}

// fakeWorker takes units from the workers' queue until the test ends, answers each with
// answer's outcome (nil: hands it back) under the delivery's message id, and acknowledges
// it; answer is given the delivery's reply subject, which a worker's word names.
func fakeWorker(t *testing.T, nc *nats.Conn, answer func(ctx context.Context, tk *task, ack string) *Outcome) {
	takeUnits(t, nc, 200*time.Millisecond, func(ctx context.Context, js jetstream.JetStream, msg jetstream.Msg) {
		tk, err := decodeUnit(msg.Data())
		if err != nil {
			msg.Term()
			return
		}
		o := answer(ctx, tk, msg.Reply())
		if o == nil {
			msg.Nak()
			return
		}
		u := tk.Unit
		o.Job, o.Unit, o.Index, o.Seq, o.Key, o.Ack = u.Job.ID, u.ID, u.Index, u.Seq, u.Key, msg.Reply()
		data, _ := json.Marshal(o)
		meta, _ := msg.Metadata()
		js.Publish(ctx, resultSubject+u.Job.ID+"."+o.Worker, data, jetstream.WithMsgID(msgID(u.ID, u.Key, meta.Sequence.Stream, meta.NumDelivered)))
	})
}

// takeUnits takes units from the workers' queue until the test ends, as fast as it can
// (each request waiting at most wait), and gives each delivery to take.
func takeUnits(t *testing.T, nc *nats.Conn, wait time.Duration, take func(ctx context.Context, js jetstream.JetStream, msg jetstream.Msg)) {
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		var cons jetstream.Consumer
		for ctx.Err() == nil {
			if cons, err = js.Consumer(ctx, unitsStream, workersName); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		for ctx.Err() == nil {
			if msg, err := cons.Next(jetstream.FetchMaxWait(wait)); err == nil {
				take(ctx, js, msg)
			}
		}
	}()
}

// With every result audited, honest workers pass (every subtree up to the decision
// searched again, and the answer the serial one); a worker that answers "no solution"
// without searching is caught and named.
func TestAudit(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	start := korf[2].Start
	split := func() *Coordinator {
		return &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 1000, UnitNodes: 2000, Subtrees: 64}, Audit: 1}
	}

	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "a", Threads: 1})
	startWorker(t, nc, &Worker{Name: "b", Threads: 1})
	recs, errs, _ := collect(t, nc, split(), entries(goal, start))
	require.NoError(t, errs[0])
	assert.Equal(t, korf[2].Optimal, recs[0].Length)
	require.NotEmpty(t, recs[0].Units)
	// Every subtree of a pass without a solution is audited; in the last pass, those up
	// to the solution's (subtrees after it, finished meanwhile, decide nothing).
	last := recs[0].Units[len(recs[0].Units)-1].Bound
	firstUnaudited := map[int]int{}
	for _, u := range recs[0].Units {
		if !u.Audited {
			assert.Equal(t, last, u.Bound, "every subtree of a pass without a solution audited at 1.0: %+v", u)
			if s, ok := firstUnaudited[u.Bound]; !ok || u.Seq < s {
				firstUnaudited[u.Bound] = u.Seq
			}
		}
	}
	audited := 0
	for _, u := range recs[0].Units {
		if u.Audited {
			audited++
			if s, ok := firstUnaudited[u.Bound]; ok {
				assert.Less(t, u.Seq, s, "the audited subtrees of the last pass come before the others: %+v", u)
			}
		}
	}
	assert.Positive(t, audited)

	{ // at --audit 1 every result is checked: one run is as good as many
		run := 0
		_, nc := testServer(t, "")
		startWorker(t, nc, &Worker{Name: "honest", Threads: 1})
		mallory(t, nc)
		recs, errs, _ := collect(t, nc, split(), entries(goal, start))
		require.Error(t, errs[0], "run %d", run)
		assert.ErrorIs(t, errs[0], ErrAudit)
		assert.ErrorIs(t, errs[0], ErrFailed)
		assert.False(t, recs[0].Solved)
		assert.Contains(t, recs[0].Error, `worker "mallory" says of unit`)
		assert.Contains(t, recs[0].Error, "searched again here")
	}
}

// A worker's rights are the message table's: it may publish the messages a worker sends
// and hear those it is sent, under its own name; every other row, a row's subject under
// another's name, and a subject of no row are refused.
func TestMessagesMakeAWorkersRights(t *testing.T) {
	conn, err := Connect(Endpoint{Server: ServerOptions{Store: t.TempDir(), Listen: "127.0.0.1:0", Token: "s3cret"}})
	require.NoError(t, err)
	defer conn.Close()
	alice, err := Connect(Endpoint{URL: conn.Server.URL(), User: "alice", Key: WorkerKey("s3cret", "alice")})
	require.NoError(t, err)
	defer alice.Close()
	var mu sync.Mutex
	var violations []string
	alice.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		mu.Lock()
		violations = append(violations, err.Error())
		mu.Unlock()
	})
	concrete := strings.NewReplacer("*", "j1", ">", "x.y")
	of := func(m message, name string) string {
		return concrete.Replace(strings.ReplaceAll(m.subject, workerToken, name))
	}
	type try struct {
		subject   string
		subscribe bool
		allowed   bool
	}
	var tries []try
	for _, m := range messages {
		tries = append(tries, try{of(m, "alice"), false, m.from&worker != 0}, try{of(m, "alice"), true, m.to&worker != 0})
		if strings.Contains(m.subject, workerToken) {
			tries = append(tries, try{of(m, "bob"), false, false}, try{of(m, "bob"), true, false})
		}
	}
	for _, subject := range []string{"tilekit.other.j1", "tilekit.units", "$JS.API.STREAM.PURGE." + unitsStream, "x"} {
		tries = append(tries, try{subject, false, false}, try{subject, true, false})
	}
	for _, tr := range tries {
		if tr.subscribe {
			_, err = alice.Subscribe(tr.subject, func(*nats.Msg) {})
			require.NoError(t, err)
		} else {
			require.NoError(t, alice.Publish(tr.subject, []byte("{}")))
		}
		require.NoError(t, alice.Flush())
	}
	// The server's refusals come in order: once the last try's has come, every one has.
	refusedOf := func(tr try) bool {
		mu.Lock()
		defer mu.Unlock()
		what := "Publish"
		if tr.subscribe {
			what = "Subscription"
		}
		for _, v := range violations {
			if strings.Contains(v, "Permissions Violation for "+what) && strings.Contains(v, `"`+tr.subject+`"`) {
				return true
			}
		}
		return false
	}
	require.Eventually(t, func() bool { return refusedOf(tries[len(tries)-1]) }, 10*time.Second, 10*time.Millisecond)
	for _, tr := range tries {
		assert.Equal(t, !tr.allowed, refusedOf(tr), "subscribe %v to %s", tr.subscribe, tr.subject)
	}
}

// An interrupted run reports every instance, in order, as plain solve15 does: those whose
// results are in, and the others as not solved (interrupted); a split run too. Run again
// on the same store, it says how many results an earlier run left.
func TestInterruptedRunReportsWhatItHas(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "md"})
	require.NoError(t, err)
	byOptimum := corpus.ByOptimum()
	hardest, easy := byOptimum[len(byOptimum)-1], byOptimum[:2] // the hardest takes hours with md
	in := entries(goal, hardest.Start, easy[0].Start, easy[1].Start)
	_, nc := testServer(t, "")
	var finished atomic.Int64
	startWorker(t, nc, &Worker{Name: "w", Threads: 2, Units: func(*Unit, *Outcome) { finished.Add(1) }})
	for _, split := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var resumed int
		c := &Coordinator{Solver: s, Split: split, Resumed: func(n int) { resumed = n }}
		go func() {
			for finished.Load() < 2 && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond) // the results stored and read
			cancel()
		}()
		var recs []report.Record
		sum, err := c.Run(ctx, nc, in, func(_ instance.Entry, rec report.Record, _ error) { recs = append(recs, rec) })
		cancel()
		require.ErrorIs(t, err, context.Canceled)
		require.Len(t, recs, 3, "split %v", split)
		assert.False(t, recs[0].Solved)
		assert.Contains(t, recs[0].Error, "interrupted")
		if !split {
			assert.Zero(t, resumed)
			assert.Equal(t, easy[0].Optimal, recs[1].Length)
			assert.Equal(t, easy[1].Optimal, recs[2].Length)
			assert.Equal(t, 2, sum.Solved)
			assert.Equal(t, 1, sum.Unsolved)
		} else {
			// Split, the hardest comes first and holds the run: the others never start.
			assert.False(t, recs[1].Solved)
			assert.Equal(t, 3, sum.Unsolved)
		}
		finished.Store(0)
	}

	// The whole run again on the same store: the two results are read back.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &Coordinator{Solver: s, Resumed: func(int) {}}
	var resumed atomic.Int64
	c.Resumed = func(n int) { resumed.Store(int64(n)); cancel() }
	var recs []report.Record
	_, err = c.Run(ctx, nc, in, func(_ instance.Entry, rec report.Record, _ error) { recs = append(recs, rec) })
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(2), resumed.Load())
	require.Len(t, recs, 3)
	assert.Equal(t, easy[0].Optimal, recs[1].Length)
}

// A run says how it stands at once, before any unit's result (the 0% a status line
// starts from), and as it goes.
func TestStatusAtOnce(t *testing.T) {
	korf := corpus.ByOptimum()[:2]
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "md"})
	require.NoError(t, err)
	_, nc := testServer(t, "")
	startWorker(t, nc, &Worker{Name: "w", Threads: 2})
	var mu sync.Mutex
	var seen []Status
	c := &Coordinator{Solver: s, Status: func(st Status) { mu.Lock(); seen = append(seen, st); mu.Unlock() }}
	sum, err := c.Run(context.Background(), nc, entries(goal, korf[0].Start, korf[1].Start), func(instance.Entry, report.Record, error) {})
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Solved)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	assert.Zero(t, seen[0].Done, "the first status comes before any result")
}
