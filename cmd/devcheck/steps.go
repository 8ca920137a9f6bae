package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/report"
)

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// selfTest runs solve15 device --fault: the card, the kernel's JIT, the self-test's fixed
// positions on the GPU and on one core, and a faulting kernel in a process of its own.
func (c *checker) selfTest(ctx context.Context, s *Step) Row {
	// --fault runs the self-test twice, before and after the fault.
	o := c.run(ctx, s.Name, seconds(s.Seconds), nil, "device", "--fault", "--json", "--seconds", seconds(s.Seconds/2).String())
	row := Row{Result: Fail, Seconds: o.wall.Seconds()}
	var rep struct {
		Info        gpu.Info    `json:"info"`
		OpenSeconds float64     `json:"open_seconds"`
		Checks      []gpu.Check `json:"self_test"`
		Fault       string      `json:"fault"`
		Error       string      `json:"error"`
	}
	var problems []string
	if !o.ok(0) {
		problems = append(problems, o.problem())
	}
	if err := json.Unmarshal(o.stdout, &rep); err != nil && len(bytes.TrimSpace(o.stdout)) > 0 {
		problems = append(problems, fmt.Sprintf("its report is not JSON (%v)", err))
	}
	if rep.Error != "" {
		problems = append(problems, rep.Error)
	}
	if rep.Info.Name != "" {
		c.sum.Card = &Card{Name: rep.Info.Name, Capability: fmt.Sprintf("%d.%d", rep.Info.Capability[0], rep.Info.Capability[1]),
			Driver: rep.Info.DriverVersion(), SMs: rep.Info.SMs, MemoryGB: float64(rep.Info.Memory) / 1e9, OpenSeconds: rep.OpenSeconds}
	}
	for _, k := range rep.Checks {
		if k.Agree {
			row.Compared++
		} else {
			problems = append(problems, fmt.Sprintf("%s %s %s: %s", k.Board, k.Heuristic, k.Start, k.Problem))
		}
		if k.Agree && k.Passes > 0 {
			row.GPURecords++
		}
	}
	if len(rep.Checks) == 0 {
		problems = append(problems, "no position checked")
	}
	if rep.Fault == "" && len(problems) == 0 {
		problems = append(problems, "no fault reported")
	}
	if len(problems) == 0 {
		row.Result = Pass
		row.Note = fmt.Sprintf("opened and compiled in %.2f s; %s", rep.OpenSeconds, rep.Fault)
	} else {
		row.Note = strings.Join(problems, "; ")
	}
	c.figures[s.Name] = &figure{agree: row.Result == Pass}
	return row
}

// ptx reports each kernel's registers, spills and local memory: ptxas -v for each of the
// step's targets and the card's own, where the machine has ptxas; always the PTX's own
// declarations.
func (c *checker) ptx(ctx context.Context, s *Step) Row {
	begin := time.Now()
	ctx, cancel := context.WithTimeout(ctx, seconds(s.Seconds))
	defer cancel()
	row := Row{Result: Fail}
	ptx := gpu.PTX()
	path := filepath.Join(c.cfg.Out, "ida.ptx")
	if err := os.WriteFile(path, ptx, 0o644); err != nil {
		row.Note = err.Error()
		return row
	}
	kernels := PTXDeclarations(ptx)
	var problems []string
	note := "no ptxas on this machine: the PTX's declarations only (local depot bytes, virtual registers)"
	if ptxas := findPTXAS(); ptxas != "" {
		note = "ptxas " + ptxas
		archs := slices.Clone(s.Arch)
		if c.sum.Card != nil {
			if own := "sm_" + strings.ReplaceAll(c.sum.Card.Capability, ".", ""); !slices.Contains(archs, own) {
				archs = append(archs, own)
			}
		}
		for _, arch := range archs {
			out, err := exec.CommandContext(ctx, ptxas, "-v", "--gpu-name", arch, "-o", filepath.Join(c.cfg.Out, "ida-"+arch+".cubin"), path).CombinedOutput()
			_ = os.WriteFile(filepath.Join(c.cfg.Out, "ptxas-"+arch+".txt"), out, 0o644)
			ks := PTXASReport(out, arch)
			if err != nil || len(ks) == 0 {
				problems = append(problems, fmt.Sprintf("ptxas for %s: %v %s", arch, err, lastLines(out, 2, 300)))
				continue
			}
			kernels = append(kernels, ks...)
		}
	}
	if len(kernels) == 0 {
		problems = append(problems, "no kernel found in the PTX")
	}
	c.sum.Kernels = kernels
	row.Compared = len(kernels)
	row.Seconds = time.Since(begin).Seconds()
	row.Result, row.Note = Pass, note
	if len(problems) > 0 {
		row.Result, row.Note = Fail, strings.Join(problems, "; ")
	}
	return row
}

// findPTXAS returns the path of ptxas, on the PATH or in the usual CUDA directory, or "".
func findPTXAS() string {
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/local/cuda/bin/ptxas"); err == nil {
		return "/usr/local/cuda/bin/ptxas"
	}
	return ""
}

// tuneEnv is the environment of the step's GPU searches: its knobs, if it sets them.
func (s *Step) tuneEnv() []string {
	if s.Tune == "" {
		return nil
	}
	return []string{gpu.TuneEnv + "=" + s.Tune}
}

// searchArgs are a step's solve15 arguments before the device's.
func (s *Step) searchArgs() []string {
	args := []string{"--board", s.Board}
	if s.Goal != "" {
		args = append(args, "--goal", s.Goal)
	}
	return append(args, s.Args...)
}

// reference runs each of the step's batches on the GPU and compares every answer with
// the committed CPU run's.
func (c *checker) reference(ctx context.Context, s *Step) []Row {
	list, refs := c.in.instances[s.Name], c.in.refs[s.Name]
	var rows []Row
	var err error
	var kept *campaign
	if s.Keep != "" {
		if kept, err = c.openCampaign(ctx, s); err != nil {
			rows = append(rows, Row{Result: Fail, Note: err.Error()})
			c.figures[s.Name] = &figure{}
			return rows
		}
	}
	for _, r := range s.Runs {
		if ctx.Err() != nil {
			rows = append(rows, Row{Run: r.Name, Result: Fail, Note: "not run: the check's time was spent"})
			continue
		}
		if r.JIT == "cold" {
			if err := os.RemoveAll(c.jitCache()); err != nil {
				rows = append(rows, Row{Run: r.Name, Result: Fail, Note: "emptying the JIT cache: " + err.Error()})
				continue
			}
		}
		file := s.Instances
		if len(s.IDs) > 0 {
			if file, err = c.writeInstances(s.Name, list); err != nil {
				rows = append(rows, Row{Run: r.Name, Result: Fail, Note: err.Error()})
				continue
			}
		}
		name := s.Name + "-" + r.Name
		args := append(s.searchArgs(), "--device", "gpu", "--json")
		if kept != nil {
			args = append(args, "--done", kept.path)
		}
		o := c.run(ctx, name, seconds(s.Seconds), s.tuneEnv(), append(args, "-f", file)...)
		recs, rerr := report.ReadRecords(bytes.NewReader(o.stdout), name+".out", maxOutput)
		row := Row{Run: r.Name, Seconds: o.wall.Seconds()}
		var problems []string
		if rerr != nil {
			problems = append(problems, rerr.Error())
		}
		if !o.ok(0) && !(o.stopped && !s.Complete && o.ok(ExitInterrupted)) {
			problems = append(problems, o.problem())
		}
		answered := 0
		for _, rec := range recs {
			if !rec.Solved {
				if s.Complete || !o.stopped {
					problems = append(problems, fmt.Sprintf("%s not solved: %s", label(rec), rec.Error))
				}
				continue
			}
			answered++
			if d := answer(refs, rec, kept != nil); d != "" {
				problems = append(problems, d)
				continue
			}
			row.Compared++
			if g, ok := gpuRecord(s.Name, r.Name, rec); ok {
				row.GPURecords++
				c.sum.Records = append(c.sum.Records, g)
				if kept != nil {
					kept.add(rec)
				}
			}
		}
		if kept != nil {
			if err := kept.save(ctx); err != nil {
				problems = append(problems, err.Error())
			}
			// What earlier runs of the check made, checked again as they were read, counts
			// as answered and compared, but never as this run's GPU's: a campaign with
			// nothing left to search says so.
			answered += kept.before
			row.Compared += kept.before
		}
		if kept != nil && kept.before >= len(list) && row.GPURecords == 0 && len(problems) == 0 {
			rows = append(rows, Row{Run: r.Name, Result: Pass, Compared: row.Compared, Seconds: row.Seconds,
				Note: fmt.Sprintf("every one of the %d instances kept by earlier runs: none left to search", len(list))})
			continue
		}
		if s.Complete && answered < len(list) {
			problems = append(problems, fmt.Sprintf("%d of %d answered in %.1f s", answered, len(list), o.wall.Seconds()))
		}
		rows = append(rows, c.verdict(row, problems, fmt.Sprintf("%d of %d answered, lengths and serial counts the reference's (%s)", answered, len(list), s.Reference)))
		c.figures[s.Name+"/"+r.Name] = &figure{agree: rows[len(rows)-1].Result == Pass, seconds: o.wall.Seconds(), answered: answered, total: len(list)}
	}
	f := &figure{agree: !slices.ContainsFunc(rows, func(r Row) bool { return r.Result != Pass })}
	if kept != nil {
		f.answered, f.total, f.seconds = len(kept.recs), len(list), kept.seconds()
	}
	c.figures[s.Name] = f
	return rows
}

// ExitInterrupted is solve15's exit status when interrupted (SIGINT).
const ExitInterrupted = 130

// verdict ends a row: FAIL with the first problems, or when nothing was compared or
// nothing went through the GPU; else PASS with note.
func (c *checker) verdict(row Row, problems []string, note string) Row {
	if row.Compared == 0 {
		problems = append(problems, "no answer compared")
	}
	if row.GPURecords == 0 {
		problems = append(problems, "no answer went through the GPU")
	}
	if len(problems) == 0 {
		row.Result, row.Note = Pass, note
		return row
	}
	row.Result = Fail
	if len(problems) > 4 {
		problems = append(problems[:4], fmt.Sprintf("and %d more", len(problems)-4))
	}
	row.Note = strings.Join(problems, "; ")
	return row
}

// cores searches each of the step's instances on the GPU and on every core, compares the
// answers, and searches some on one core for its rate.
func (c *checker) cores(ctx context.Context, s *Step) Row {
	row := Row{Run: strings.Join(s.IDs, " ")}
	begin := time.Now()
	var problems, notes []string
	for _, in := range c.in.instances[s.Name] {
		if ctx.Err() != nil {
			problems = append(problems, in.Name()+": not run: the check's time was spent")
			continue
		}
		id := fileID(in)
		stem := s.Name + "-" + id
		file, err := c.writeInstances(stem, []*instance.Instance{in})
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		g, gerr := c.one(ctx, stem+"-gpu", seconds(s.GPUSeconds), s.tuneEnv(), append(s.searchArgs(), "--device", "gpu", "--json", "-f", file), 0)
		if gerr != "" {
			// Nothing to compare: the cores' and one core's runs would only spend time.
			problems = append(problems, id+" on the GPU: "+gerr)
			continue
		}
		k, kerr := c.one(ctx, stem+"-cores", seconds(s.CoresSeconds), nil, append(s.searchArgs(), "--device", "cpu", "--workers", strconv.Itoa(c.cfg.Cores), "--json", "-f", file), 0)
		f := &figure{}
		c.figures[s.Name+"/"+in.Name()] = f
		switch {
		case kerr != "":
			problems = append(problems, id+" on the cores, the reference: "+kerr)
		default:
			if d := differ(g, k); d != "" {
				problems = append(problems, d)
				break
			}
			row.Compared++
			if gr, ok := gpuRecord(s.Name, "", g); ok {
				row.GPURecords++
				c.sum.Records = append(c.sum.Records, gr)
			}
			f.agree = true
			f.gpuSeconds, f.coresSeconds = g.Seconds, k.Seconds
			f.gpuRate = float64(g.SerialWork().Expanded) / g.Seconds
			notes = append(notes, fmt.Sprintf("%s: %d moves, GPU %.2f s, %d cores %.2f s", id, g.Length, g.Seconds, c.cfg.Cores, k.Seconds))
		}
		if !slices.Contains(s.OneCore, in.Name()) || ctx.Err() != nil {
			continue
		}
		one, oerr := c.one(ctx, stem+"-onecore", seconds(s.OneCoreSeconds)+oneCoreStart, nil,
			append(s.searchArgs(), "--device", "cpu", "--workers", "1", "--timeout", seconds(s.OneCoreSeconds).String(), "--json", "-f", file), 4)
		if oerr != "" {
			problems = append(problems, id+" on one core: "+oerr)
			continue
		}
		f.oneCoreRate = float64(one.Expanded) / one.Seconds
		notes = append(notes, fmt.Sprintf("one core %.3g M expanded/s, the GPU %.3g M serial", f.oneCoreRate/1e6, f.gpuRate/1e6))
	}
	row.Seconds = time.Since(begin).Seconds()
	row = c.verdict(row, problems, strings.Join(notes, "; "))
	c.figures[s.Name] = &figure{agree: row.Result == Pass}
	return row
}

// one runs a search of one instance and returns its record, or what went wrong; exit
// status also (besides 0) is accepted, with a record that need not be solved.
func (c *checker) one(ctx context.Context, name string, limit time.Duration, env, args []string, also int) (report.Record, string) {
	o := c.run(ctx, name, limit, env, args...)
	if !o.ok(0) && (also == 0 || !o.ok(also)) {
		return report.Record{}, o.problem()
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

// writeInstances writes list as the instances file Out/stem.txt, each with its id (its
// line's, "line96", when it had none) and known optimum, and returns its path.
func (c *checker) writeInstances(stem string, list []*instance.Instance) (string, error) {
	var b strings.Builder
	for _, in := range list {
		b.WriteString(fileID(in) + " " + strings.Trim(fmt.Sprint(in.State.Ints()), "[]"))
		if in.Optimal >= 0 {
			b.WriteString(" " + strconv.Itoa(in.Optimal))
		}
		b.WriteString("\n")
	}
	path := filepath.Join(c.cfg.Out, stem+".txt")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// fileID is an instance's id as one word: its own, or "line96".
func fileID(in *instance.Instance) string { return strings.ReplaceAll(in.Name(), " ", "") }

// label names a record's instance.
func label(r report.Record) string {
	if r.ID != "" {
		return r.ID
	}
	return fmt.Sprintf("line %d", r.Line)
}

// pruningKind is a record's pruning without the automaton's size: "move back",
// "automaton depth 18".
func pruningKind(p string) string {
	kind, _, _ := strings.Cut(p, ",")
	return kind
}

// match returns the reference record of got: the same start, heuristic and pruning.
func match(refs []report.Record, got report.Record) (report.Record, bool) {
	for _, r := range refs {
		if r.Solved && slices.Equal(r.Start, got.Start) && r.Heuristic == got.Heuristic && pruningKind(r.Pruning) == pruningKind(got.Pruning) {
			return r, true
		}
	}
	return report.Record{}, false
}

// answer says what is wrong with rec, a solved record: how it differs from its reference
// record (differ); without one, for a campaign (published), from the published optimum.
// "" when nothing.
func answer(refs []report.Record, rec report.Record, published bool) string {
	if want, ok := match(refs, rec); ok {
		return differ(rec, want)
	}
	switch {
	case !published:
		return fmt.Sprintf("%s: no reference record of %s with %s", label(rec), rec.Heuristic, pruningKind(rec.Pruning))
	case rec.KnownOptimal == nil:
		return fmt.Sprintf("%s: neither a reference record nor a published optimum", label(rec))
	case !rec.Optimal || rec.Length != *rec.KnownOptimal:
		return fmt.Sprintf("%s: %d moves, the published optimum %d", label(rec), rec.Length, *rec.KnownOptimal)
	}
	return ""
}

// differ says how got's answer differs from want's: solved, length, moves, the serial
// counts, and the known optimum; "" when it does not.
func differ(got, want report.Record) string {
	g, w := got.SerialWork(), want.SerialWork()
	switch {
	case got.Solved != want.Solved || got.Length != want.Length || got.Moves != want.Moves:
		return fmt.Sprintf("%s: %d moves %s, the reference %d moves %s", label(got), got.Length, got.Moves, want.Length, want.Moves)
	case g != w:
		return fmt.Sprintf("%s: serial counts %d generated, %d expanded; the reference %d and %d", label(got), g.Nodes, g.Expanded, w.Nodes, w.Expanded)
	case got.KnownOptimal != nil && *got.KnownOptimal != got.Length:
		return fmt.Sprintf("%s: %d moves, the published optimum %d", label(got), got.Length, *got.KnownOptimal)
	}
	return ""
}
