package repro

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tilekit/tilekit/instances"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/internal/svgplot"
	"github.com/tilekit/tilekit/report"
)

// Korf24Files are the files of 24-puzzle instances with published figures that korf24
// compares runs with, the smaller first: a comparison's rows are the instances of the
// first that holds every instance recorded.
var Korf24Files = []string{instances.Korf24Twelve, instances.Korf24Campaign}

// Korf24Published are the published node counts of one of Korf24Files, by instance and
// source: kf02 (Korf & Felner 2002, generated), dsr13-6666, -888, -987, -996 and -max
// (Doebbelin, Schuett & Reinefeld 2013) and small-t (Clausecker & Reinefeld 2017,
// expanded), read from the file's comments; ids in the file's order.
func Korf24Published(name string) (ids []string, figures map[string]map[string]uint64, err error) {
	figures = map[string]map[string]uint64{}
	for i, line := range strings.Split(instances.Text(name), "\n") {
		if !strings.HasPrefix(line, "k24-") {
			continue
		}
		data, comment, _ := strings.Cut(line, "#")
		id := strings.Fields(data)[0]
		ids = append(ids, id)
		figures[id] = map[string]uint64{}
		for _, kv := range strings.Fields(comment) {
			k, v, ok := strings.Cut(kv, "=")
			n, perr := strconv.ParseUint(v, 10, 64)
			if !ok || perr != nil {
				return nil, nil, fmt.Errorf("%s:%d: %q is not name=count", name, i+1, kv)
			}
			figures[id][k] = n
		}
	}
	return ids, figures, nil
}

// Korf24Result compares the measured runs of 24-puzzle instances, heuristic by heuristic,
// with the published figures.
type Korf24Result struct {
	File       string // the instances' file, one of Korf24Files
	IDs        []string
	Published  map[string]map[string]uint64
	Heuristics []string                            // measured, in the order first seen
	Runs       map[string]map[string]report.Record // by heuristic, then instance
}

// Korf24 reads solve15 --json records of instances of Korf24Files (any heuristics, any
// files) and sets them beside the published figures: one row for each instance of the
// first file that holds them all.
func Korf24(paths []string) (*Korf24Result, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("korf24 needs records: solve15 --json output for instances of instances/%s (--records)", strings.Join(Korf24Files, " or "))
	}
	type located struct {
		where string
		rec   report.Record
	}
	var recs []located
	err := readRecords(paths, func(where string, rec report.Record) error {
		if !rec.Solved {
			return fmt.Errorf("%s: %s was not solved (%s)", where, rec.ID, rec.Error)
		}
		recs = append(recs, located{where, rec})
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := &Korf24Result{Runs: map[string]map[string]report.Record{}}
	for _, name := range Korf24Files {
		ids, pub, err := Korf24Published(name)
		if err != nil {
			return nil, err
		}
		r.File, r.IDs, r.Published = name, ids, pub
		if !slices.ContainsFunc(recs, func(l located) bool { return pub[l.rec.ID] == nil }) {
			break
		}
	}
	for _, l := range recs {
		if r.Published[l.rec.ID] == nil {
			return nil, fmt.Errorf("%s: instance %q is in none of %s", l.where, l.rec.ID, strings.Join(Korf24Files, ", "))
		}
		label := runLabel(l.rec)
		if r.Runs[label] == nil {
			r.Runs[label] = map[string]report.Record{}
			r.Heuristics = append(r.Heuristics, label)
		}
		r.Runs[label][l.rec.ID] = l.rec
	}
	return r, nil
}

// runLabel names the run a record belongs to: its heuristic, "+ automaton" when the
// search pruned duplicate paths with one (records without a pruning are of the move-back
// rule, the only one before there were automata), and ", GPU" when a GPU searched its
// large passes (the record's device), so that a GPU's times stand apart from the cores'.
func runLabel(rec report.Record) string {
	label := rec.Heuristic
	if strings.HasPrefix(rec.Pruning, "automaton") {
		label += " + automaton"
	}
	if rec.Device != nil {
		label += ", GPU"
	}
	return label
}

// readRecords calls each with every record of the files (one JSON record a line).
func readRecords(paths []string, each func(where string, rec report.Record) error) error {
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<20), maxRecordLine)
		for line := 1; sc.Scan(); line++ {
			var rec report.Record
			where := fmt.Sprintf("%s:%d", path, line)
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				f.Close()
				return fmt.Errorf("%s: not a record: %w", where, err)
			}
			if err := each(where, rec); err != nil {
				f.Close()
				return err
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// Markdown is a row per instance: each measured heuristic's expanded and generated nodes
// (as one worker counts them) and search time, then the published figures; and the totals over the instances that
// every column has.
func (r *Korf24Result) Markdown() string {
	var b strings.Builder
	b.WriteString("| instance | length |")
	for _, h := range r.Heuristics {
		fmt.Fprintf(&b, " %s expanded | generated | s |", h)
	}
	b.WriteString(" Korf & Felner, generated | Doebbelin et al. 6-6-6-6 | max of 8-8-8, 9-8-7, 9-9-6 | Clausecker small-t, expanded |\n| --- | ---: |")
	b.WriteString(strings.Repeat(" ---: | ---: | ---: |", len(r.Heuristics)) + " ---: | ---: | ---: | ---: |\n")
	type total struct {
		expanded, generated uint64
		seconds             float64
		n                   int
	}
	totals := make([]total, len(r.Heuristics))
	var pubTotals [4]uint64
	for _, id := range r.IDs {
		rec := r.any(id)
		length := "?"
		if rec != nil {
			length = strconv.Itoa(rec.Length)
		}
		fmt.Fprintf(&b, "| %s | %s |", id, length)
		for i, h := range r.Heuristics {
			run, ok := r.Runs[h][id]
			if !ok {
				b.WriteString(" | | |")
				continue
			}
			w := run.SerialWork() // as one worker counts them, whatever ran it
			expanded, generated := w.Expanded, w.Nodes
			fmt.Fprintf(&b, " %s | %s | %.1f |", format.Thousands(expanded), format.Thousands(generated), run.Seconds)
			totals[i].expanded += expanded
			totals[i].generated += generated
			totals[i].seconds += run.Seconds
			totals[i].n++
		}
		for j, k := range []string{"kf02", "dsr13-6666", "dsr13-max", "small-t"} {
			fmt.Fprintf(&b, " %s |", format.Thousands(r.Published[id][k]))
			pubTotals[j] += r.Published[id][k]
		}
		b.WriteString("\n")
	}
	b.WriteString("| total | |")
	for i := range r.Heuristics {
		t := totals[i]
		if t.n != len(r.IDs) {
			fmt.Fprintf(&b, " (%d of %d) | | |", t.n, len(r.IDs))
			continue
		}
		fmt.Fprintf(&b, " %.3g | %.3g | %.0f |", float64(t.expanded), float64(t.generated), t.seconds)
	}
	for _, t := range pubTotals {
		fmt.Fprintf(&b, " %.3g |", float64(t))
	}
	b.WriteString("\n")
	for _, h := range r.Heuristics {
		if text := r.projection(h); text != "" {
			b.WriteString("\n" + text + "\n")
		}
	}
	return b.String()
}

// projection says, for a heuristic that has records of some of the instances but not all,
// how long the others would take: their published small-t counts scaled by the ratio of
// the measured expanded nodes to small-t's on the instances measured, at the measured
// rate of one worker.
func (r *Korf24Result) projection(h string) string {
	var expanded, published, rest uint64
	var seconds float64
	measured := 0
	for _, id := range r.IDs {
		run, ok := r.Runs[h][id]
		if !ok {
			rest += r.Published[id]["small-t"]
			continue
		}
		expanded += run.SerialWork().Expanded
		published += r.Published[id]["small-t"]
		seconds += run.Seconds
		measured++
	}
	if measured == 0 || measured == len(r.IDs) || published == 0 || seconds <= 0 {
		return ""
	}
	ratio, rate := float64(expanded)/float64(published), float64(expanded)/seconds
	on, hours := "one worker", "worker-hours"
	if strings.HasSuffix(h, ", GPU") {
		on, hours = "the GPU", "hours of the GPU"
	}
	return fmt.Sprintf("%s: %d of %d instances measured, expanding %.2f times the nodes of small-t's published counts, %.2f M a second on %s; the other %d (%.3g nodes by small-t's counts) would take about %.1f %s.",
		h, measured, len(r.IDs), ratio, rate/1e6, on, len(r.IDs)-measured, float64(rest), float64(rest)*ratio/rate/3600, hours)
}

// any returns a record of instance id, for its length.
func (r *Korf24Result) any(id string) *report.Record {
	for _, h := range r.Heuristics {
		if rec, ok := r.Runs[h][id]; ok {
			return &rec
		}
	}
	return nil
}

// Plot draws nodes per instance on a logarithmic scale: each measured heuristic's
// expanded nodes, and the published figures.
func (r *Korf24Result) Plot(path string) error {
	xlabel := "instance (" + strings.Join(r.IDs, ", ") + ")"
	if len(r.IDs) > 12 {
		xlabel = "instance, in the order of instances/" + r.File + " (the table's rows)"
	}
	c := svgplot.Chart{Title: "Korf's 24-puzzle instances: nodes per instance", XLabel: xlabel,
		YLabel: "nodes (log scale)", LogY: true, LegendTop: true}
	add := func(name string, value func(id string) (uint64, bool)) {
		s := svgplot.Series{Name: name}
		for i, id := range r.IDs {
			if v, ok := value(id); ok && v > 0 {
				s.Points = append(s.Points, svgplot.XY{X: float64(i + 1), Y: float64(v)})
			}
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	for _, h := range r.Heuristics {
		add(h+", expanded", func(id string) (uint64, bool) {
			rec, ok := r.Runs[h][id]
			return rec.SerialWork().Expanded, ok
		})
	}
	for _, p := range []struct{ key, name string }{
		{"kf02", "Korf & Felner 6-6-6-6, generated"},
		{"dsr13-max", "Doebbelin et al., max of three"},
		{"small-t", "Clausecker small-t, expanded"},
	} {
		add(p.name, func(id string) (uint64, bool) { v, ok := r.Published[id][p.key]; return v, ok })
	}
	return save(&c, path)
}
