package ida

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/instances"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
)

// BenchmarkBPMXCuts counts how often BPMX cuts a node's later children (Result.Cuts,
// docs/SEARCH.md section 5) in the serial search, move back only: each 4x4 set of
// TILEKIT_BENCH_SETS (5-5-5,6-6-3,7-8 by default; 5-5-5 is built, the others installed in
// TILEKIT_BENCH_TABLES or the usual places) on Korf's 100, and 6-6-6-6 on k24-40, with
// every lookup: regular, reflected, dual, all. It reports cuts and instances with cuts; the
// instances run on two goroutines at a time, each search on one.
//
//	go test -run '^$' -bench BPMXCuts -benchtime 1x ./ida
func BenchmarkBPMXCuts(b *testing.B) {
	dirs := data.TableDirs()
	if d := os.Getenv("TILEKIT_BENCH_TABLES"); d != "" {
		dirs = []string{d}
	}
	load := func(name string) *pdb.Set {
		if name == "5-5-5" {
			set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
			require.NoError(b, err)
			return set
		}
		set, _, err := data.LoadSet(name, dirs)
		if err != nil {
			b.Skipf("set %s: %v", name, err)
		}
		return set
	}
	korf := corpus.Korf100()
	var k24 *instance.Instance
	r := instance.NewReader(strings.NewReader(instances.Text(instances.Korf24Twelve)), board.Size5x5)
	for {
		in, err := r.Next()
		if err != nil {
			break
		}
		if in.ID == "k24-40" {
			k24 = in
		}
	}
	require.NotNil(b, k24)
	type job struct {
		goal  board.Goal
		start board.State
	}
	for _, name := range append(strings.Split(cmp.Or(os.Getenv("TILEKIT_BENCH_SETS"), "5-5-5,6-6-3,7-8"), ","), "6-6-6-6") {
		set := load(name)
		var jobs []job
		if set.Size() == board.Size4x4 {
			for _, k := range korf {
				jobs = append(jobs, job{k.Goal, k.Start})
			}
		} else {
			jobs = []job{{board.BlankFirst(board.Size5x5), k24.State}}
		}
		for _, lk := range []Lookups{Regular, Reflected, Dual, All} {
			b.Run(fmt.Sprintf("set=%s/lookups=%s", name, lk), func(b *testing.B) {
				s, err := New(jobs[0].goal, Options{Set: set, Lookups: lk})
				require.NoError(b, err)
				for b.Loop() {
					var mu sync.Mutex
					var cuts, nodes uint64
					with := 0
					next := make(chan job)
					var wg sync.WaitGroup
					for range 2 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for j := range next {
								res, err := s.Solve(context.Background(), j.start)
								require.NoError(b, err)
								mu.Lock()
								cuts += res.Cuts
								nodes += res.Nodes
								if res.Cuts > 0 {
									with++
								}
								mu.Unlock()
							}
						}()
					}
					for _, j := range jobs {
						next <- j
					}
					close(next)
					wg.Wait()
					b.ReportMetric(float64(cuts), "cuts")
					b.ReportMetric(float64(with), "instances-cut")
					b.ReportMetric(float64(nodes), "nodes")
				}
			})
		}
	}
}
