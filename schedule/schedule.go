// Package schedule estimates, on paper, how long a split search would take on more
// workers, from the work of its units as one run of solve15 cluster recorded it (list
// scheduling: Graham, "Bounds on multiprocessing timing anomalies", 1969). It is apart
// from package cluster so that the reports that use it link no NATS.
package schedule

import (
	"container/heap"

	"github.com/tilekit/tilekit/report"
)

// Each pass's units are handed out in frontier order,
// each to the worker free first (list scheduling, as a FIFO queue does), each costing its
// recorded time plus a fixed overhead; a pass starts once the one before it has ended and
// the coordinator has searched its top (serially).

// Estimate is the simulated wall time of a split search on some workers.
type Estimate struct {
	Workers    int     `json:"workers"`
	Seconds    float64 `json:"seconds"`    // simulated wall time
	Efficiency float64 `json:"efficiency"` // one worker's time / (workers x Seconds)
	Speedup    float64 `json:"speedup"`    // one worker's time / Seconds
}

// Simulate estimates the wall time of the split search of rec (a record of solve15
// cluster with its units) on each number of workers, with overhead seconds added to every
// unit. The coordinator's serial work (small passes, the top of each split pass) is taken
// at the units' own rate of nodes a second.
func Simulate(rec report.Record, overhead float64, workers []int) []Estimate {
	byBound := map[int][]float64{}
	var unitNodes uint64
	var unitSeconds float64
	for _, u := range rec.Units { // in the order they were handed out
		byBound[u.Bound] = append(byBound[u.Bound], u.Seconds)
		unitNodes += u.Nodes
		unitSeconds += u.Seconds
	}
	rate := 1.0
	if unitSeconds > 0 {
		rate = float64(unitNodes) / unitSeconds
	}
	// The serial part of each pass, and the one-worker time.
	serial := make([]float64, len(rec.Passes))
	one := 0.0
	for i, p := range rec.Passes {
		var n uint64
		for _, u := range rec.Units {
			if u.Bound == p.Bound {
				n += u.Nodes
			}
		}
		serial[i] = float64(p.Nodes-min(n, p.Nodes)) / rate
		one += serial[i]
		for _, s := range byBound[p.Bound] {
			one += s
		}
	}
	var out []Estimate
	for _, w := range workers {
		total := 0.0
		for i, p := range rec.Passes {
			total += serial[i] + Makespan(byBound[p.Bound], w, overhead)
		}
		e := Estimate{Workers: w, Seconds: total}
		if total > 0 {
			e.Speedup = one / total
			e.Efficiency = e.Speedup / float64(w)
		}
		out = append(out, e)
	}
	return out
}

// Makespan is the time that workers take for jobs handed out in order, each to the worker
// free first, each costing its time plus overhead.
func Makespan(jobs []float64, workers int, overhead float64) float64 {
	if len(jobs) == 0 || workers < 1 {
		return 0
	}
	free := make(freeAt, min(workers, len(jobs)))
	end := 0.0
	for _, j := range jobs {
		t := free[0] + j + overhead
		free[0] = t
		heap.Fix(&free, 0)
		end = max(end, t)
	}
	return end
}

// freeAt is a min-heap of the times the workers come free.
type freeAt []float64

func (f freeAt) Len() int           { return len(f) }
func (f freeAt) Less(i, j int) bool { return f[i] < f[j] }
func (f freeAt) Swap(i, j int)      { f[i], f[j] = f[j], f[i] }
func (f *freeAt) Push(x any)        { *f = append(*f, x.(float64)) }
func (f *freeAt) Pop() any {
	old := *f
	x := old[len(old)-1]
	*f = old[:len(old)-1]
	return x
}
