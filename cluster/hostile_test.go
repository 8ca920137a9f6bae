package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// TestHostileWorkersAtScale is issue 68's measurement of the cluster's per-worker
// accounting: beside one honest worker (two units at a time), a worker that hands back
// every unit it takes, an ordinary worker without the job's tables, and a greedy holder
// that takes every unit it can and says its nodes grow until --max-hold (4 s) takes it
// away, each on its own run of N uniformly random instances with the 5-5-5 set (seed 1)
// and of Korf's 20 easiest with md. Every unit must be solved (by the honest worker,
// where the other needs tables) with the length a plain search finds. The log gives each
// run's time, and that of the honest worker alone.
//
//	TILEKIT_CLUSTER_HOSTILE=1000 go test -run HostileWorkersAtScale -v -timeout 2h ./cluster
func TestHostileWorkersAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TILEKIT_CLUSTER_HOSTILE"))
	if n <= 0 {
		t.Skip("set TILEKIT_CLUSTER_HOSTILE to the number of random instances to measure")
	}
	korf := corpus.Korf100()
	goal := korf[0].Goal
	rng := rand.New(rand.NewPCG(1, 1))
	var random []board.State
	for range n {
		random = append(random, goal.Random(rng))
	}
	var korfEasy []board.State
	for _, c := range corpus.ByOptimum()[:20] {
		korfEasy = append(korfEasy, c.Start)
	}
	sets := []struct {
		name, heuristic string
		starts          []board.State
	}{
		{strconv.Itoa(n) + " random, 5-5-5", "5-5-5", random},
		{"Korf's 20 easiest, md", "md", korfEasy},
	}
	dir := t.TempDir()
	_, err := data.InstallSet(context.Background(), pdb.Set555, dir, data.BuildOptions{})
	require.NoError(t, err)
	// The lengths a plain search finds, two at a time.
	want := make([][]int, len(sets))
	solvers := make([]*solve.Solver, len(sets))
	for i, set := range sets {
		s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: set.heuristic, Tables: dir})
		require.NoError(t, err)
		solvers[i] = s
		want[i] = make([]int, len(set.starts))
		var wg sync.WaitGroup
		next := make(chan int)
		for range 2 {
			wg.Go(func() {
				for k := range next {
					res, err := s.Solve(context.Background(), set.starts[k])
					if !assert.NoError(t, err) {
						continue
					}
					want[i][k] = res.Length()
				}
			})
		}
		for k := range set.starts {
			next <- k
		}
		close(next)
		wg.Wait()
	}
	empty := t.TempDir()
	for _, bad := range []struct {
		name  string
		start func(t *testing.T, nc *nats.Conn)
	}{
		{"nobody", func(*testing.T, *nats.Conn) {}},
		{"hands back", func(t *testing.T, nc *nats.Conn) {
			misbehaving(t, nc, func(_ context.Context, js jetstream.JetStream, tk *task, ack string) {
				data, _ := json.Marshal(Progress{Unit: tk.ID, Key: tk.Key, Ack: ack, Back: true})
				js.Conn().Publish(progressSubject+tk.Job.ID+".forger", data)
			})
		}},
		{"no tables", func(t *testing.T, nc *nats.Conn) {
			startWorker(t, nc, &Worker{Name: "empty", Threads: 2, Tables: empty})
		}},
		{"greedy holder", func(t *testing.T, nc *nats.Conn) {
			misbehaving(t, nc, func(ctx context.Context, js jetstream.JetStream, tk *task, ack string) {
				go func() { // every unit it can get, held at once
					for word := uint64(1); ctx.Err() == nil; word++ {
						data, _ := json.Marshal(Progress{Unit: tk.ID, Key: tk.Key, Ack: ack, Nodes: 1000 * word})
						js.Conn().Publish(progressSubject+tk.Job.ID+".forger", data)
						if word > 100 {
							return
						}
						time.Sleep(100 * time.Millisecond)
					}
				}()
			})
		}},
	} {
		for i, set := range sets {
			t.Run(bad.name+"/"+set.name, func(t *testing.T) {
				_, nc := testServer(t, "")
				bad.start(t, nc)
				startWorker(t, nc, &Worker{Name: "honest", Threads: 2, Tables: dir})
				c := &Coordinator{Solver: solvers[i], Queue: Queue{AckWait: DefaultQueue.AckWait, MaxDeliver: DefaultQueue.MaxDeliver, MaxHold: 4 * time.Second}}
				in := entries(goal, set.starts...)
				var recs []report.Record
				var errs []error
				begin := time.Now()
				sum, err := c.Run(context.Background(), nc, in, func(_ instance.Entry, rec report.Record, err error) {
					recs = append(recs, rec)
					errs = append(errs, err)
				})
				require.NoError(t, err)
				require.Len(t, recs, len(set.starts))
				lost := 0
				for k := range set.starts {
					// The worker without tables needs none for md.
					if errs[k] != nil || recs[k].Length != want[i][k] || !recs[k].Optimal || recs[k].Worker != "honest" && set.heuristic != "md" {
						lost++
						t.Logf("instance %d: %v, %d moves (want %d), optimal %v, by %q", k+1, errs[k], recs[k].Length, want[i][k], recs[k].Optimal, recs[k].Worker)
					}
				}
				assert.Zero(t, lost)
				assert.Equal(t, len(set.starts), sum.Solved)
				t.Logf("%s beside an honest worker, %s: %d of %d solved optimally in %.1f s", bad.name, set.name, len(set.starts)-lost, len(set.starts), time.Since(begin).Seconds())
			})
		}
	}
}

// TestQuorumAtScale is issue 68's measurement of --quorum: N uniformly random instances
// with the 5-5-5 set (seed 2), two honest workers of one unit at a time each, with
// --quorum 1 and 2 alternating three times (the medians' ratio, which should be at most
// 2); then the detour forger beside one honest worker at --quorum 2, where every answer
// must be the optimum and every instance the forger took a copy of disputed, naming it.
//
//	TILEKIT_CLUSTER_QUORUM=300 go test -run QuorumAtScale -v -timeout 2h ./cluster
func TestQuorumAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TILEKIT_CLUSTER_QUORUM"))
	if n <= 0 {
		t.Skip("set TILEKIT_CLUSTER_QUORUM to the number of random instances to measure")
	}
	goal := corpus.Korf100()[0].Goal
	rng := rand.New(rand.NewPCG(2, 2))
	var starts []board.State
	for range n {
		starts = append(starts, goal.Random(rng))
	}
	dir := t.TempDir()
	_, err := data.InstallSet(context.Background(), pdb.Set555, dir, data.BuildOptions{})
	require.NoError(t, err)
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "5-5-5", Tables: dir})
	require.NoError(t, err)
	want := make([]int, n)
	for k, start := range starts {
		res, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		want[k] = res.Length()
	}
	run := func(t *testing.T, quorum int, workers func(nc *nats.Conn)) ([]report.Record, *report.Summary, time.Duration) {
		_, nc := testServer(t, "")
		workers(nc)
		var recs []report.Record
		begin := time.Now()
		sum, err := (&Coordinator{Solver: s, Quorum: quorum}).Run(context.Background(), nc, entries(goal, starts...), func(_ instance.Entry, rec report.Record, _ error) {
			recs = append(recs, rec)
		})
		require.NoError(t, err)
		require.Len(t, recs, n)
		for k := range recs {
			require.Equal(t, want[k], recs[k].Length, "instance %d", k+1)
			require.True(t, recs[k].Optimal)
		}
		return recs, sum, time.Since(begin)
	}
	honest := func(nc *nats.Conn) {
		for _, name := range []string{"a", "b"} {
			startWorker(t, nc, &Worker{Name: name, Threads: 1, Tables: dir})
		}
	}
	var once, twice []float64
	for range 3 {
		for _, q := range []int{1, 2} {
			t.Run(fmt.Sprintf("quorum %d", q), func(t *testing.T) {
				_, sum, took := run(t, q, honest)
				assert.Equal(t, n, sum.Solved)
				assert.Zero(t, sum.Disputed)
				if q == 1 {
					once = append(once, took.Seconds())
				} else {
					twice = append(twice, took.Seconds())
				}
			})
		}
	}
	slices.Sort(once)
	slices.Sort(twice)
	t.Logf("%d random instances, 5-5-5, two honest workers: --quorum 1 %.1f s, --quorum 2 %.1f s (medians of %v and %v): %.2fx",
		n, once[1], twice[1], once, twice, twice[1]/once[1])
	t.Run("forger", func(t *testing.T) {
		_, sum, took := run(t, 2, func(nc *nats.Conn) {
			misbehaving(t, nc, forger(t, s))
			startWorker(t, nc, &Worker{Name: "honest", Threads: 1, Tables: dir})
		})
		assert.Equal(t, n, sum.Solved)
		assert.Equal(t, n, sum.Disputed)
		assert.Equal(t, []string{"forger"}, sum.Wrong)
		t.Logf("the detour forger beside an honest worker, --quorum 2: %d of %d answers optimal, %d disputed, wrong: %v, in %.1f s", sum.Solved, n, sum.Disputed, sum.Wrong, took.Seconds())
	})
}
