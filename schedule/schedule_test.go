package schedule

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/report"
)

func TestMakespan(t *testing.T) {
	for _, c := range []struct {
		jobs     []float64
		workers  int
		overhead float64
		want     float64
	}{
		{[]float64{3, 3, 3, 3}, 2, 0, 6},
		{[]float64{5, 1, 1, 1}, 2, 0, 5},       // the short ones go to the other worker
		{[]float64{1, 1, 1, 5}, 2, 0, 6},       // a long one last waits for a free worker
		{[]float64{1, 1}, 1, 0.5, 3},           // overhead on every job
		{[]float64{2, 2, 2}, 8, 0, 2},          // more workers than jobs
		{nil, 4, 1, 0},                         // no jobs
		{[]float64{1, 2, 3, 4, 5, 6}, 3, 0, 9}, // 1,4 / 2,5 / 3,6 -> 5, 7, 9
	} {
		assert.InDelta(t, c.want, Makespan(c.jobs, c.workers, c.overhead), 1e-9, "%v on %d", c.jobs, c.workers)
	}
}

// One worker without overhead takes the recorded time (efficiency 1); more workers divide
// the units' time but not the serial part.
func TestSimulate(t *testing.T) {
	rec := report.Record{
		Passes: []passes.Pass{{Bound: 10, Nodes: 100}, {Bound: 12, Nodes: 1100}},
		Units: []report.UnitRecord{
			{Bound: 12, Nodes: 250, Seconds: 2.5}, {Bound: 12, Nodes: 250, Seconds: 2.5},
			{Bound: 12, Nodes: 250, Seconds: 2.5}, {Bound: 12, Nodes: 250, Seconds: 2.5},
		},
	}
	// 100 nodes a second: pass 10 is 1 s serial, pass 12 has 1 s serial and 4 x 2.5 s.
	est := Simulate(rec, 0, []int{1, 2, 4, 8})
	assert.InDelta(t, 12, est[0].Seconds, 1e-9)
	assert.InDelta(t, 1, est[0].Efficiency, 1e-9)
	assert.InDelta(t, 7, est[1].Seconds, 1e-9)
	assert.InDelta(t, 4.5, est[2].Seconds, 1e-9)
	assert.InDelta(t, 4.5, est[3].Seconds, 1e-9)
	assert.InDelta(t, 12/4.5/8, est[3].Efficiency, 1e-9)
}
