package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// A row's results.
const (
	Pass = "PASS"
	Fail = "FAIL"
)

// Summary is what a check found: $OUT/summary.json, and summary.md as a table.
type Summary struct {
	Plan      string         `json:"plan"`
	About     string         `json:"about"`
	BuiltAt   string         `json:"built_at,omitempty"` // the binaries' commit (gpu/prepare.sh's BUILT_AT)
	Card      *Card          `json:"card,omitempty"`
	Cores     int            `json:"cores"`
	Bound     float64        `json:"bound_seconds"` // the most the plan may take
	BoundText string         `json:"bound"`
	Seconds   float64        `json:"seconds"`
	Passed    bool           `json:"passed"`
	Rows      []Row          `json:"rows"`
	Targets   []TargetResult `json:"targets"`
	Kernels   []Kernel       `json:"kernels,omitempty"`
	Records   []GPURecord    `json:"gpu_records"`
}

// Card is the GPU as the self-test found it.
type Card struct {
	Name        string  `json:"name"`
	Capability  string  `json:"capability"`
	Driver      string  `json:"driver"` // the driver's CUDA version
	SMs         int     `json:"multiprocessors"`
	MemoryGB    float64 `json:"memory_gb"`
	OpenSeconds float64 `json:"open_seconds"` // opening the device and the kernel's JIT
}

// Row is the end of one step, or of one run of a step: how many records it compared with
// a reference, how many of them went through the GPU, and PASS or FAIL with why.
type Row struct {
	Step       string  `json:"step"`
	Run        string  `json:"run,omitempty"`
	Result     string  `json:"result"`
	Compared   int     `json:"compared"`
	GPURecords int     `json:"gpu_records"`
	Seconds    float64 `json:"seconds"`
	Note       string  `json:"note,omitempty"`
}

// GPURecord is one answer that went through the GPU, with where its time went.
type GPURecord struct {
	Step    string  `json:"step"`
	Run     string  `json:"run,omitempty"`
	ID      string  `json:"id"`
	Length  int     `json:"length"`
	Seconds float64 `json:"seconds"` // the record's: the search, after the tables were loaded
	// Device is the record's GPU counts as its JSON has them (report.Record.Device): the
	// one set of them, which solve fills from the engine's and the summary sums.
	Device solve.DeviceUse `json:"device"`
}

// gpuRecord returns r's GPURecord, and whether it went through the GPU.
func gpuRecord(step, run string, r report.Record) (GPURecord, bool) {
	if r.Device == nil || r.Device.Passes == 0 {
		return GPURecord{}, false
	}
	id := r.ID
	if id == "" {
		id = fmt.Sprintf("line %d", r.Line)
	}
	return GPURecord{Step: step, Run: run, ID: id, Length: r.Length, Seconds: r.Seconds, Device: *r.Device}, true
}

// TargetResult is a target beside what the check measured: Met is null when it was not
// measured (NotRun says why).
type TargetResult struct {
	Issue    int      `json:"issue"`
	What     string   `json:"what"`
	Goal     string   `json:"goal"`
	Value    *float64 `json:"value,omitempty"`
	Measured string   `json:"measured"`
	Met      *bool    `json:"met"`
	NotRun   string   `json:"not_run,omitempty"`
}

// figure is what a step measured of a run or an instance, for the targets.
type figure struct {
	agree                    bool    // every answer compared agreed, and the process ended as it should
	seconds                  float64 // a reference run's wall
	answered, total          int
	gpuSeconds, coresSeconds float64 // a cores step's instance: the records' seconds
	gpuRate, oneCoreRate     float64 // serial expanded nodes a second
}

// targets evaluates the plan's targets on what the steps measured.
func (c *checker) targets() []TargetResult {
	var out []TargetResult
	for _, t := range c.cfg.Plan.Targets {
		r := TargetResult{Issue: t.Issue, What: t.What, Goal: t.goal()}
		if t.NotRun != "" {
			r.Measured, r.NotRun = "not run", t.NotRun
			out = append(out, r)
			continue
		}
		key := t.Step
		switch t.Measure {
		case MeasureSeconds:
			key += "/" + t.Run
		case MeasureGPUOverCores, MeasureOverOneCore:
			key += "/" + t.ID
		}
		f := c.figures[key]
		if f == nil {
			r.Measured, r.NotRun = "not run", fmt.Sprintf("step %s did not measure it (see its row)", t.Step)
			out = append(out, r)
			continue
		}
		var v float64
		ok := f.agree
		switch t.Measure {
		case MeasureAgree:
			r.Measured = map[bool]string{true: "every answer agreed", false: "not every answer agreed (see the row)"}[f.agree]
			r.Met = &ok
			out = append(out, r)
			continue
		case MeasureSeconds:
			v = f.seconds
			r.Measured = fmt.Sprintf("%.2f s, %d of %d answered", v, f.answered, f.total)
			ok = ok && f.answered == f.total
		case MeasureKept:
			v = f.seconds
			r.Measured = fmt.Sprintf("%.1f s, %d of %d made on the GPU so far", v, f.answered, f.total)
			ok = ok && f.answered == f.total
		case MeasureGPUOverCores:
			v = f.gpuSeconds / f.coresSeconds
			r.Measured = fmt.Sprintf("%.3g (GPU %.2f s, all cores %.2f s)", v, f.gpuSeconds, f.coresSeconds)
		case MeasureOverOneCore:
			v = f.gpuRate / f.oneCoreRate
			r.Measured = fmt.Sprintf("%.3g (GPU %.3g M serial expanded a second, one core %.3g M)", v, f.gpuRate/1e6, f.oneCoreRate/1e6)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			r.Measured, r.NotRun = "not measured", "a time or a rate was zero"
			out = append(out, r)
			continue
		}
		if !f.agree {
			r.Measured += "; not every answer agreed"
		}
		ok = ok && (t.AtMost == 0 || v <= t.AtMost) && (t.AtLeast == 0 || v >= t.AtLeast)
		r.Value, r.Met = &v, &ok
		out = append(out, r)
	}
	return out
}

// goal says what the target asks, for people.
func (t Target) goal() string {
	var parts []string
	if t.Measure == MeasureAgree {
		parts = append(parts, "every answer and serial count the reference's")
	}
	if t.AtMost > 0 {
		parts = append(parts, fmt.Sprintf("at most %g", t.AtMost))
	}
	if t.AtLeast > 0 {
		parts = append(parts, fmt.Sprintf("at least %g", t.AtLeast))
	}
	if t.Aim > 0 {
		parts = append(parts, fmt.Sprintf("aim %g", t.Aim))
	}
	return strings.Join(parts, ", ")
}

// write writes summary.json and summary.md into dir, each atomically.
func (s *Summary) write(dir string) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(context.Background(), filepath.Join(dir, "summary.json"), append(raw, '\n')); err != nil {
		return err
	}
	var md strings.Builder
	s.WriteText(&md)
	return atomicfile.Write(context.Background(), filepath.Join(dir, "summary.md"), []byte(md.String()))
}

// WriteText writes the summary as markdown tables: the rows, the targets, the kernels.
func (s *Summary) WriteText(w io.Writer) {
	card := "no card found"
	if s.Card != nil {
		card = fmt.Sprintf("%s (compute capability %s, %d multiprocessors, %.0f GB, driver CUDA %s)", s.Card.Name, s.Card.Capability, s.Card.SMs, s.Card.MemoryGB, s.Card.Driver)
	}
	result := "PASSED"
	if !s.Passed {
		result = "FAILED"
	}
	fmt.Fprintf(w, "The device check %s: %s; %s, %d cores; %.1f s of at most %.0f; binaries built at %s.\n\n",
		result, s.Plan, card, s.Cores, s.Seconds, s.Bound, orNone(s.BuiltAt))
	fmt.Fprintln(w, "| step | run | result | compared | through the GPU | seconds | note |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: | --- |")
	for _, r := range s.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %.2f | %s |\n", r.Step, r.Run, r.Result, r.Compared, r.GPURecords, r.Seconds, cell(r.Note))
	}
	if len(s.Targets) > 0 {
		fmt.Fprintln(w, "\n| issue | target | goal | measured | met |")
		fmt.Fprintln(w, "| ---: | --- | --- | --- | --- |")
		for _, t := range s.Targets {
			met := "not run"
			if t.Met != nil {
				met = map[bool]string{true: "yes", false: "**no**"}[*t.Met]
			}
			measured := t.Measured
			if t.NotRun != "" {
				measured += ": " + t.NotRun
			}
			fmt.Fprintf(w, "| %d | %s | %s | %s | %s |\n", t.Issue, cell(t.What), cell(t.Goal), cell(measured), met)
		}
	}
	s.writeRecords(w)
	if len(s.Kernels) > 0 {
		fmt.Fprintln(w, "\n| kernel | arch | registers | stack (ptx: local depot) bytes | spill stores | spill loads | shared bytes |")
		fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: |")
		for _, k := range s.Kernels {
			regs := strconv.Itoa(k.Registers)
			if k.Arch == "ptx" {
				regs = fmt.Sprintf("%d virtual", k.Virtual)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %d |\n", k.Name, k.Arch, regs, k.StackBytes, k.SpillStores, k.SpillLoads, k.SharedBytes)
		}
	}
}

// writeRecords writes, for each step and run, where the time of its answers through the
// GPU went: their seconds, the launches' (the growth's among them), the host's work
// beside (frontiers, orders, solving subtrees again, passes on the CPU), the threads'
// utilisation (weighted by the launches' seconds), and the subtrees the host made against
// the roots the GPU searched, with the launches of the searches and of the growth.
func (s *Summary) writeRecords(w io.Writer) {
	if len(s.Records) == 0 {
		return
	}
	type sum struct {
		n                                 int
		seconds, launch, grow, host, util float64
		subtrees, roots                   uint64
		launches, growLaunches            int
	}
	var keys []string
	sums := map[string]*sum{}
	for _, r := range s.Records {
		k := r.Step + " | " + r.Run
		if sums[k] == nil {
			keys = append(keys, k)
			sums[k] = &sum{}
		}
		x := sums[k]
		d := r.Device
		x.n++
		x.seconds += r.Seconds
		x.launch += d.SearchSeconds
		x.grow += d.GrowSeconds
		x.host += d.FrontierSeconds + d.OrderSeconds + d.CPUSeconds
		x.util += d.Utilisation * d.SearchSeconds
		x.subtrees += d.Subtrees
		x.roots += d.Roots
		x.launches += d.Launches
		x.growLaunches += d.GrowLaunches
	}
	fmt.Fprintln(w, "\n| step | run | answers through the GPU | seconds | launches' seconds | growth's | host's beside | utilisation | subtrees | roots | launches | growth's launches |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, k := range keys {
		x := sums[k]
		util := 0.0
		if x.launch > 0 {
			util = x.util / x.launch
		}
		fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.3f | %.2f | %.2f | %d | %d | %d | %d |\n",
			k, x.n, x.seconds, x.launch, x.grow, x.host, util, x.subtrees, x.roots, x.launches, x.growLaunches)
	}
}

func orNone(s string) string {
	if s == "" {
		return "an unknown commit"
	}
	return s
}

// cell makes text safe in a markdown table's cell.
func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }
