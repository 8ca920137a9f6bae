package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/report"
)

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// selfTest runs solve15 device --fault: the card, the kernel's JIT, the self-test's fixed
// positions on the GPU and on one core, and a faulting kernel in a process of its own
// (the self-test runs twice, before and after the fault).
func (c *checker) selfTest(ctx context.Context, s *Step) Row {
	o := c.run(ctx, s.Name, seconds(s.Seconds), "", "device", "--fault", "--json", "--seconds", seconds(s.Seconds/2).String())
	row := Row{Seconds: o.wall.Seconds()}
	var d gpu.Diagnosis
	var problems []string
	if !o.ok(0) {
		problems = append(problems, o.problem)
	}
	if err := json.Unmarshal(o.stdout, &d); err != nil && len(bytes.TrimSpace(o.stdout)) > 0 {
		problems = append(problems, fmt.Sprintf("its report is not JSON (%v)", err))
	}
	if d.Error != "" {
		problems = append(problems, d.Error)
	}
	if d.Info.Name != "" {
		c.sum.Card, c.sum.Kernels = &d.Info, d.Kernels
	}
	for _, k := range d.Checks {
		if !k.Agree {
			problems = append(problems, fmt.Sprintf("%s %s %s: %s", k.Board, k.Heuristic, k.Start, k.Problem))
			continue
		}
		row.Compared++
		if k.Passes > 0 {
			row.GPURecords++
		}
	}
	if d.Fault == "" {
		problems = append(problems, "no fault reported")
	}
	return verdict(row, problems, fmt.Sprintf("opened and compiled in %.2f s; %s", d.OpenSeconds, d.Fault))
}

// searchArgs are a step's solve15 arguments before the device's.
func (s *Step) searchArgs(more ...string) []string {
	args := []string{"--board", s.Board}
	if s.Goal != "" {
		args = append(args, "--goal", s.Goal)
	}
	return append(append(args, s.Args...), more...)
}

// reference runs each of the step's batches on the GPU and compares every answer with the
// committed CPU run's. A campaign's step (Keep) reads the records earlier runs kept, each
// checked as a run's, copies them under Out for its runs to pass over (--done), and adds
// each answer of this run's GPU that agrees; those of earlier runs count as answered and
// compared, never as this run's GPU's.
func (c *checker) reference(ctx context.Context, s *Step) []Row {
	list, refs := c.in.instances[s.Name], c.in.refs[s.Name]
	var kept []report.Record
	keptPath := filepath.Join(c.cfg.Out, KeptDir, filepath.Base(s.Keep))
	if s.Keep != "" {
		var err error
		if kept, err = c.readKept(s); err == nil {
			err = writeRecords(ctx, keptPath, kept)
		}
		if err != nil {
			return []Row{{Result: Fail, Note: "keep: " + err.Error()}}
		}
	}
	before := len(kept)
	file, ferr := c.writeInstances(s.Name, list)
	var rows []Row
	for _, run := range s.Runs {
		err := ferr
		if err == nil && run == "cold" {
			err = os.RemoveAll(c.jitCache())
		}
		if err == nil {
			err = context.Cause(ctx)
		}
		if err != nil {
			rows = append(rows, Row{Run: run, Result: Fail, Note: "not run: " + err.Error()})
			continue
		}
		args := s.searchArgs("--device", "gpu", "--json", "-f", file)
		if s.Keep != "" {
			args = append(args, "--done", keptPath)
		}
		o := c.run(ctx, s.Name+"-"+run, seconds(s.Seconds), s.Tune, args...)
		row := Row{Run: run, Seconds: o.wall.Seconds()}
		recs, err := report.ReadRecords(bytes.NewReader(o.stdout), s.Name+"-"+run+".out", maxOutput)
		var problems []string
		if err != nil {
			problems = append(problems, err.Error())
		}
		if !o.ok(0) && !(o.stopped && !s.Complete && o.ok(exitInterrupted)) {
			problems = append(problems, o.problem)
		}
		answered := before
		row.Compared = before
		for _, rec := range recs {
			if !rec.Solved {
				if s.Complete || !o.stopped {
					problems = append(problems, fmt.Sprintf("%s not solved: %s", rec.Label(), rec.Error))
				}
				continue
			}
			answered++
			if d := answer(refs, rec, s.Keep != ""); d != "" {
				problems = append(problems, d)
				continue
			}
			row.Compared++
			if c.gpuRecord(s.Name, run, rec) {
				row.GPURecords++
				if s.Keep != "" {
					kept = append(kept, rec)
				}
			}
		}
		note := fmt.Sprintf("%d of %d answered in %.2f s, lengths and serial counts the reference's (%s)", answered, len(list), o.wall.Seconds(), s.Reference)
		if s.Keep != "" {
			if err := writeRecords(ctx, keptPath, kept); err != nil {
				problems = append(problems, err.Error())
			}
			var sum float64
			for _, r := range kept {
				sum += r.Seconds
			}
			note = fmt.Sprintf("%d of %d kept, their records' seconds %.1f in all", len(kept), len(list), sum)
			if before >= len(list) && len(problems) == 0 {
				rows = append(rows, Row{Run: run, Result: Pass, Compared: row.Compared, Seconds: row.Seconds, Note: "every instance kept by earlier runs: none left to search"})
				continue
			}
		}
		if s.Complete && answered < len(list) {
			problems = append(problems, fmt.Sprintf("%d of %d answered in %.1f s", answered, len(list), o.wall.Seconds()))
		}
		if s.Against != "" {
			note += "; " + c.against(s, run)
		}
		rows = append(rows, verdict(row, problems, note))
	}
	return rows
}

// against sets the answers through the GPU of the step's run beside those of the same
// instances in the run s.Against names ("STEP RUN"): their records' and launches' seconds.
func (c *checker) against(s *Step, run string) string {
	mine := map[string]GPURecord{}
	for _, r := range c.sum.Records {
		if r.Step == s.Name && r.Run == run {
			mine[r.ID] = r
		}
	}
	var n int
	var secs, launches [2]float64
	for _, r := range c.sum.Records {
		if m, ok := mine[r.ID]; ok && r.Step+" "+r.Run == s.Against {
			n++
			secs[0], secs[1] = secs[0]+m.Seconds, secs[1]+r.Seconds
			launches[0], launches[1] = launches[0]+m.Device.SearchSeconds, launches[1]+r.Device.SearchSeconds
		}
	}
	return fmt.Sprintf("beside %s on the same %d: records' seconds %.2f against %.2f, launches' %.2f against %.2f", s.Against, n, secs[0], secs[1], launches[0], launches[1])
}

// readKept reads a campaign step's kept records (none when its file is absent), each of
// one of the step's instances, the reference's answer (or the published optimum), and
// made through the GPU.
func (c *checker) readKept(s *Step) ([]report.Record, error) {
	raw, err := readRegular(c.path(s.Keep), maxReference)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	recs, rerr := report.ReadRecords(bytes.NewReader(raw), s.Keep, maxReference)
	if err = cmp.Or(err, rerr); err != nil {
		return nil, err
	}
	for _, rec := range recs {
		if !slices.ContainsFunc(c.in.instances[s.Name], func(in *instance.Instance) bool { return slices.Equal(in.State.Ints(), rec.Start) }) {
			return nil, fmt.Errorf("%s: %s is not one of the step's instances", s.Keep, rec.Label())
		}
		if d := answer(c.in.refs[s.Name], rec, true); d != "" {
			return nil, fmt.Errorf("%s: %s", s.Keep, d)
		}
		if rec.Device == nil {
			return nil, fmt.Errorf("%s: %s did not go through the GPU", s.Keep, rec.Label())
		}
	}
	return recs, nil
}

// writeRecords writes recs to path as JSON lines, atomically.
func writeRecords(ctx context.Context, path string, recs []report.Record) error {
	var b []byte
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b = append(append(b, line...), '\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(ctx, path, b)
}

// exitInterrupted is solve15's exit status when interrupted (SIGINT).
const exitInterrupted = 130

// verdict ends a row: FAIL with the first problems, or when nothing was compared or
// nothing went through the GPU; else PASS with note.
func verdict(row Row, problems []string, note string) Row {
	if row.Compared == 0 {
		problems = append(problems, "no answer compared")
	}
	if row.GPURecords == 0 {
		problems = append(problems, "no answer went through the GPU")
	}
	row.Result, row.Note = Pass, note
	if len(problems) > 4 {
		problems = append(problems[:4], fmt.Sprintf("and %d more", len(problems)-4))
	}
	if len(problems) > 0 {
		row.Result, row.Note = Fail, strings.Join(problems, "; ")
	}
	return row
}

// cores searches each of the step's instances on the GPU and on every core, compares the
// answers, and searches some on one core for its rate: the figures are in the row's note.
func (c *checker) cores(ctx context.Context, s *Step) Row {
	row := Row{Run: strings.Join(s.IDs, " ")}
	begin := time.Now()
	var problems, notes []string
	for _, in := range c.in.instances[s.Name] {
		id := fileID(in)
		file, err := c.writeInstances(s.Name+"-"+id, []*instance.Instance{in})
		if err == nil {
			err = context.Cause(ctx)
		}
		if err != nil {
			problems = append(problems, id+": not run: "+err.Error())
			continue
		}
		g, gerr := c.one(ctx, s.Name+"-"+id+"-gpu", seconds(s.GPUSeconds), s.Tune, s.searchArgs("--device", "gpu", "--json", "-f", file), 0)
		if gerr != "" { // nothing to compare: the cores' runs would only spend time
			problems = append(problems, id+" on the GPU: "+gerr)
			continue
		}
		k, kerr := c.one(ctx, s.Name+"-"+id+"-cores", seconds(s.CoresSeconds), "", s.searchArgs("--device", "cpu", "--workers", strconv.Itoa(c.cfg.Cores), "--json", "-f", file), 0)
		if kerr == "" {
			kerr = differ(g, k)
		}
		if kerr != "" {
			problems = append(problems, id+" on the cores, the reference: "+kerr)
			continue
		}
		row.Compared++
		if c.gpuRecord(s.Name, "", g) {
			row.GPURecords++
		}
		notes = append(notes, fmt.Sprintf("%s: %d moves, GPU %.2f s, %d cores %.2f s, GPU/cores %.3g", id, g.Length, g.Seconds, c.cfg.Cores, k.Seconds, g.Seconds/k.Seconds))
		if !slices.Contains(s.OneCore, in.Name()) {
			continue
		}
		one, oerr := c.one(ctx, s.Name+"-"+id+"-onecore", seconds(s.OneCoreSeconds)+oneCoreStart, "",
			s.searchArgs("--device", "cpu", "--workers", "1", "--timeout", seconds(s.OneCoreSeconds).String(), "--json", "-f", file), 4)
		if oerr != "" {
			problems = append(problems, id+" on one core: "+oerr)
			continue
		}
		gpuRate, oneRate := float64(g.SerialWork().Expanded)/g.Seconds, float64(one.Expanded)/one.Seconds
		notes = append(notes, fmt.Sprintf("serial expanded a second: GPU %.3g M, one core %.3g M, GPU/one core %.3g", gpuRate/1e6, oneRate/1e6, gpuRate/oneRate))
	}
	row.Seconds = time.Since(begin).Seconds()
	return verdict(row, problems, strings.Join(notes, "; "))
}

// one runs a search of one instance and returns its record, or what went wrong; exit
// status also (besides 0) is accepted, with a record that need not be solved.
func (c *checker) one(ctx context.Context, name string, limit time.Duration, tune string, args []string, also int) (report.Record, string) {
	o := c.run(ctx, name, limit, tune, args...)
	if !o.ok(0, also) {
		return report.Record{}, o.problem
	}
	recs, err := report.ReadRecords(bytes.NewReader(o.stdout), name+".out", maxOutput)
	switch {
	case err != nil:
		return report.Record{}, err.Error()
	case len(recs) != 1:
		return report.Record{}, fmt.Sprintf("%d records, not 1", len(recs))
	case o.code == 0 && !recs[0].Solved:
		return report.Record{}, "not solved: " + recs[0].Error
	case recs[0].Seconds <= 0:
		return report.Record{}, "a record of no time"
	}
	return recs[0], ""
}

// writeInstances writes list as the instances file Out/stem.txt, each with its id as one
// word ("line96" for one without) and known optimum, and returns its path.
func (c *checker) writeInstances(stem string, list []*instance.Instance) (string, error) {
	var b strings.Builder
	for _, in := range list {
		fmt.Fprintf(&b, "%s %s", fileID(in), strings.Trim(fmt.Sprint(in.State.Ints()), "[]"))
		if in.Optimal >= 0 {
			fmt.Fprintf(&b, " %d", in.Optimal)
		}
		b.WriteString("\n")
	}
	path := filepath.Join(c.cfg.Out, stem+".txt")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// fileID is an instance's id as one word: its own, or "line96".
func fileID(in *instance.Instance) string { return strings.ReplaceAll(in.Name(), " ", "") }

// match returns the reference record of got: the same start, heuristic and kind of
// pruning ("move back", "automaton depth 18", without the automaton's size).
func match(refs []report.Record, got report.Record) (report.Record, bool) {
	kind := func(p string) string { k, _, _ := strings.Cut(p, ","); return k }
	i := slices.IndexFunc(refs, func(r report.Record) bool {
		return r.Solved && slices.Equal(r.Start, got.Start) && r.Heuristic == got.Heuristic && kind(r.Pruning) == kind(got.Pruning)
	})
	if i < 0 {
		return report.Record{}, false
	}
	return refs[i], true
}

// answer says what is wrong with rec, a solved record: how it differs from its reference
// record; without one, for a campaign (published), from the published optimum. "" when
// nothing.
func answer(refs []report.Record, rec report.Record, published bool) string {
	if want, ok := match(refs, rec); ok {
		return differ(rec, want)
	}
	switch {
	case !published:
		return fmt.Sprintf("%s: no reference record of %s with %s", rec.Label(), rec.Heuristic, rec.Pruning)
	case rec.KnownOptimal == nil:
		return fmt.Sprintf("%s: neither a reference record nor a published optimum", rec.Label())
	case !rec.Optimal || rec.Length != *rec.KnownOptimal:
		return fmt.Sprintf("%s: %d moves, the published optimum %d", rec.Label(), rec.Length, *rec.KnownOptimal)
	}
	return ""
}

// differ says how got's answer differs from want's: solved, length, moves, the serial
// counts, and the known optimum; "" when it does not.
func differ(got, want report.Record) string {
	g, w := got.SerialWork(), want.SerialWork()
	switch {
	case got.Solved != want.Solved || got.Length != want.Length || got.Moves != want.Moves:
		return fmt.Sprintf("%s: %d moves %s, the reference %d moves %s", got.Label(), got.Length, got.Moves, want.Length, want.Moves)
	case g != w:
		return fmt.Sprintf("%s: serial counts %d generated, %d expanded; the reference %d and %d", got.Label(), g.Nodes, g.Expanded, w.Nodes, w.Expanded)
	case got.KnownOptimal != nil && *got.KnownOptimal != got.Length:
		return fmt.Sprintf("%s: %d moves, the published optimum %d", got.Label(), got.Length, *got.KnownOptimal)
	}
	return ""
}
