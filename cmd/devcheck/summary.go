package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// A row's results.
const (
	Pass = "PASS"
	Fail = "FAIL"
)

// Summary is what a check found: $OUT/summary.json, and summary.md as tables.
type Summary struct {
	Plan    string          `json:"plan"`
	About   string          `json:"about"`
	BuiltAt string          `json:"built_at,omitempty"` // the binaries' commit (gpu/prepare.sh's BUILT_AT)
	Card    *gpu.Info       `json:"card,omitempty"`     // as the self-test found it
	Cores   int             `json:"cores"`
	Seconds float64         `json:"seconds"`
	Passed  bool            `json:"passed"`
	Rows    []Row           `json:"rows"`
	Kernels []gpu.KernelUse `json:"kernels,omitempty"` // as the driver compiled them for the card (the self-test)
	Records []GPURecord     `json:"gpu_records"`
}

// Row is the end of one step, or of one run of a step: how many records it compared with
// a reference, how many of them went through the GPU, and PASS or FAIL with why; the
// note holds the step's figures.
type Row struct {
	Step       string  `json:"step"`
	Run        string  `json:"run,omitempty"`
	Result     string  `json:"result"`
	Compared   int     `json:"compared"`
	GPURecords int     `json:"gpu_records"`
	Seconds    float64 `json:"seconds"`
	Note       string  `json:"note,omitempty"`
}

// GPURecord is one answer that went through this run's GPU, with where its time went:
// Device is the record's GPU counts as its JSON has them (report.Record.Device), the one
// set of them, which solve fills from the engine's and the summary sums.
type GPURecord struct {
	Step    string          `json:"step"`
	Run     string          `json:"run,omitempty"`
	ID      string          `json:"id"`
	Length  int             `json:"length"`
	Seconds float64         `json:"seconds"` // the record's: the search, after the tables were loaded
	Device  solve.DeviceUse `json:"device"`
}

// gpuRecord adds r, a record this run's GPU made, to the summary's, and reports whether
// it went through the GPU.
func (c *checker) gpuRecord(step, run string, r report.Record) bool {
	if r.Device == nil || r.Device.Passes == 0 {
		return false
	}
	c.sum.Records = append(c.sum.Records, GPURecord{Step: step, Run: run, ID: r.Label(), Length: r.Length, Seconds: r.Seconds, Device: *r.Device})
	return true
}

// write writes summary.json and summary.md into dir, each atomically.
func (s *Summary) write(dir string) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err == nil {
		err = atomicfile.Write(context.Background(), filepath.Join(dir, "summary.json"), append(raw, '\n'))
	}
	var md strings.Builder
	s.WriteText(&md)
	if err == nil {
		err = atomicfile.Write(context.Background(), filepath.Join(dir, "summary.md"), []byte(md.String()))
	}
	return err
}

// WriteText writes the summary as markdown: the rows; for each step and run, where the
// time of its answers through the GPU went (the launches', the growth's, the host's work
// beside: frontiers, orders, passes on the CPU), the threads' utilisation weighted by the
// launches' seconds, the subtrees the host made against the roots the GPU searched, and
// the launches; the kernels' registers and local memory.
func (s *Summary) WriteText(w io.Writer) {
	card := "no card found"
	if s.Card != nil {
		card = fmt.Sprintf("%s (compute capability %d.%d, %d multiprocessors, %.0f GB, driver CUDA %s)", s.Card.Name, s.Card.Capability[0], s.Card.Capability[1], s.Card.SMs, float64(s.Card.Memory)/1e9, s.Card.DriverVersion())
	}
	fmt.Fprintf(w, "The device check %s: %s; %s, %d cores; %.1f s; binaries built at %s.\n\n",
		map[bool]string{true: "PASSED", false: "FAILED"}[s.Passed], s.Plan, card, s.Cores, s.Seconds, cmp.Or(s.BuiltAt, "an unknown commit"))
	table(w, "step | run | result | compared | through the GPU | seconds | note")
	for _, r := range s.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %.2f | %s |\n", r.Step, r.Run, r.Result, r.Compared, r.GPURecords, r.Seconds, strings.ReplaceAll(r.Note, "|", "\\|"))
	}
	if len(s.Records) > 0 {
		fmt.Fprintln(w)
		table(w, "step | run | answers through the GPU | seconds | launches' seconds | growth's | host's beside | utilisation | subtrees | roots | launches | growth's launches")
	}
	for i := 0; i < len(s.Records); { // a step's run's records are consecutive
		first, n := s.Records[i], 0
		var st gpu.Stats
		var seconds, host, busy float64
		for ; i < len(s.Records) && s.Records[i].Step == first.Step && s.Records[i].Run == first.Run; i, n = i+1, n+1 {
			r := s.Records[i]
			st.Add(r.Device.Stats)
			seconds += r.Seconds
			host += r.Device.FrontierSeconds + r.Device.OrderSeconds + r.Device.CPUSeconds
			busy += r.Device.Utilisation * r.Device.SearchSeconds // the utilisation, weighted by the launches' seconds
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.2f | %.2f | %.3f | %.2f | %.2f | %d | %d | %d | %d |\n", first.Step, first.Run, n,
			seconds, st.SearchSeconds, st.GrowSeconds, host, busy/max(st.SearchSeconds, 1e-9), st.Subtrees, st.Roots, st.Launches, st.GrowLaunches)
	}
	for i, k := range s.Kernels {
		if i == 0 {
			fmt.Fprintln(w)
			table(w, "kernel | registers | local memory a thread (bytes)")
		}
		fmt.Fprintf(w, "| %s | %d | %d |\n", k.Name, k.Registers, k.LocalBytes)
	}
}

// table writes a markdown table's head: its columns, then the rule.
func table(w io.Writer, columns string) {
	fmt.Fprintf(w, "| %s |\n|%s\n", columns, strings.Repeat(" --- |", strings.Count(columns, "|")+1))
}
