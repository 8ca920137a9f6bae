package repro

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/internal/svgplot"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/schedule"
)

// ScaleWorkers are the worker counts the scaling simulation reports.
var ScaleWorkers = []int{1, 2, 8, 64, 512}

// ScaleResult is the scaling of split searches, simulated from their recorded units.
type ScaleResult struct {
	Overhead float64 // seconds added to every unit
	Rows     []ScaleRow
}

// ScaleRow is one recorded instance.
type ScaleRow struct {
	Label     string
	Nodes     uint64
	Units     int
	Measured  float64 // the recorded run's wall time
	Estimates []schedule.Estimate
}

// maxRecordLine bounds a line of a records file (a record lists every unit).
const maxRecordLine = 64 << 20

// Scale reads the records of split searches (solve15 cluster --json, one instance each)
// from the files and simulates them on ScaleWorkers workers, each unit costing overhead
// seconds more than recorded.
func Scale(paths []string, overhead float64) (*ScaleResult, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("scale needs records: solve15 cluster --json output of split instances (--records)")
	}
	res := &ScaleResult{Overhead: overhead}
	err := readRecords(paths, func(where string, rec report.Record) error {
		if len(rec.Units) == 0 {
			return fmt.Errorf("%s: the record has no units (run solve15 cluster on one instance)", where)
		}
		label := rec.ID // records of single states have none: name them by their file
		if label == "" {
			path, _, _ := strings.Cut(where, ":")
			label = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		res.Rows = append(res.Rows, ScaleRow{Label: label, Nodes: rec.Nodes, Units: len(rec.Units), Measured: rec.Seconds,
			Estimates: schedule.Simulate(rec, overhead, ScaleWorkers)})
		return nil
	})
	return res, err
}

// Markdown renders the simulated times and efficiencies.
func (r *ScaleResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Simulated wall time (efficiency) of split searches, from their recorded units, with %.1f ms of overhead a unit.\n\n", r.Overhead*1000)
	b.WriteString("| instance | nodes | units | measured, 2 workers |")
	for _, w := range ScaleWorkers {
		fmt.Fprintf(&b, " %d |", w)
	}
	b.WriteString("\n| --- | ---: | ---: | ---: |" + strings.Repeat(" ---: |", len(ScaleWorkers)) + "\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f s |", row.Label, format.Thousands(row.Nodes), row.Units, row.Measured)
		for _, e := range row.Estimates {
			fmt.Fprintf(&b, " %.1f s (%.0f%%) |", e.Seconds, 100*e.Efficiency)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Plot draws the efficiency against the number of workers.
func (r *ScaleResult) Plot(path string) error {
	lo, hi := 0.0, 1.05
	c := svgplot.Chart{Title: "Split search: simulated efficiency", XLabel: "log2 of the workers", YLabel: "efficiency", YMin: &lo, YMax: &hi}
	for _, row := range r.Rows {
		s := svgplot.Series{Name: row.Label}
		for _, e := range row.Estimates {
			s.Points = append(s.Points, svgplot.XY{X: math.Log2(float64(e.Workers)), Y: e.Efficiency})
		}
		c.Series = append(c.Series, s)
	}
	return save(&c, path)
}
