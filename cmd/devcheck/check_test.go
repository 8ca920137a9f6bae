package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// The PTX's declarations give each entry its local depot and virtual registers, as the
// module declares them.
func TestPTXDeclarations(t *testing.T) {
	ptx := []byte(`.visible .entry one(
	.param .u64 one_param_0
)
{
	.local .align 8 .b8 	__local_depot0[2224];
	.reg .b64 	%SP;
	.reg .pred 	%p<12>;
	.reg .b32 	%r<50>;
}
.visible .entry two(
)
{
	.reg .b64 	%rd<3>;
}
`)
	assert.Equal(t, []Kernel{{Name: "one", Arch: "ptx", Virtual: 62, StackBytes: 2224}, {Name: "two", Arch: "ptx", Virtual: 3}}, PTXDeclarations(ptx))

	// The embedded kernel: its three searches reserve local memory, the trap none.
	ks := PTXDeclarations(gpu.PTX())
	names := map[string]Kernel{}
	for _, k := range ks {
		names[k.Name] = k
	}
	for _, n := range []string{"ida_pass", "ida_pass_set", "ida_pass_cat"} {
		assert.Positive(t, names[n].StackBytes, n)
		assert.Positive(t, names[n].Virtual, n)
	}
	assert.Contains(t, names, "trap")
}

// Every search's stack, its path below any root (kMaxDepth frames: no pass is too deep
// for it), is at most 24 KB a thread in the committed PTX: the catalogue's lean frames
// (kernel/cat.h) hold what a move changes, not every child's lookups (94,496 bytes before).
func TestKernelStacksAreLean(t *testing.T) {
	for _, k := range PTXDeclarations(gpu.PTX()) {
		if strings.HasPrefix(k.Name, "ida_pass") {
			assert.LessOrEqual(t, k.StackBytes, 24<<10, "%s's local depot", k.Name)
		}
	}
}

// ptxas -v's report (as ptxas 11.8 writes it): each entry's registers, stack frame, spills
// and shared memory.
func TestPTXASReport(t *testing.T) {
	out := []byte(`ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'ida_pass_cat' for 'sm_90'
ptxas info    : Function properties for ida_pass_cat
    94496 bytes stack frame, 16 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 128 registers, 13656 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function 'trap' for 'sm_90'
ptxas info    : Function properties for trap
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 4 registers, 360 bytes cmem[0]
`)
	assert.Equal(t, []Kernel{
		{Name: "ida_pass_cat", Arch: "sm_90", Registers: 128, StackBytes: 94496, SpillStores: 16, SpillLoads: 24, SharedBytes: 13656},
		{Name: "trap", Arch: "sm_90", Registers: 4},
	}, PTXASReport(out, "sm_90"))
	assert.Empty(t, PTXASReport([]byte("ptxas fatal   : Unknown option"), "sm_90"))
}

// A GPU's answer differs from its reference in its moves, its length, its serial counts
// (what one worker counts, however many searched), or in contradicting the published
// optimum.
func TestDiffer(t *testing.T) {
	opt := 3
	want := report.Record{ID: "k", Solved: true, Length: 3, Moves: "RDL", Nodes: 100, Expanded: 40, Pruning: "automaton depth 18, 4301430 states", Heuristic: "small-t"}
	for _, c := range []struct {
		name string
		edit func(*report.Record)
		diff string
	}{
		{"the same", func(*report.Record) {}, ""},
		{"the same serial counts, more work", func(r *report.Record) { r.Nodes, r.SerialNodes, r.SerialExpanded = 900, 100, 40 }, ""},
		{"other moves", func(r *report.Record) { r.Moves = "RDR" }, "k: 3 moves RDR, the reference 3 moves RDL"},
		{"unsolved", func(r *report.Record) { r.Solved, r.Length, r.Moves = false, -1, "" }, "k: -1 moves"},
		{"one node more", func(r *report.Record) { r.Nodes++ }, "k: serial counts 101 generated, 40 expanded; the reference 100 and 40"},
		{"serial counts that differ", func(r *report.Record) { r.SerialNodes, r.SerialExpanded = 100, 41 }, "41 expanded"},
		{"the published optimum contradicted", func(r *report.Record) { o := 5; r.KnownOptimal = &o }, "the published optimum 5"},
		{"the published optimum", func(r *report.Record) { r.KnownOptimal = &opt }, ""},
	} {
		got := want
		c.edit(&got)
		d := differ(got, want)
		if c.diff == "" {
			assert.Empty(t, d, c.name)
		} else {
			assert.Contains(t, d, c.diff, c.name)
		}
	}
	// A reference matches by start, heuristic and the kind of pruning.
	want.Start = []int{1, 2, 3}
	refs := []report.Record{{Start: []int{1, 2, 3}, Solved: true, Heuristic: "small-t", Pruning: "move back"}, want}
	got := want
	got.Pruning = "automaton depth 18, 4301430 states"
	m, ok := match(refs, got)
	require.True(t, ok)
	assert.Equal(t, want.Pruning, m.Pruning)
	got.Pruning = "automaton depth 14, 199632 states"
	_, ok = match(refs, got)
	assert.False(t, ok)
}

// A check whose inputs are missing or not what they claim is refused before anything
// runs, with every problem and its path: a carried table missing, a table file that is not
// the table its name stands for, an instances file with no instances, an instance the
// reference has no record of, an id not in the file.
func TestCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	prepared := filepath.Join(dir, "prep")
	carried := filepath.Join(prepared, CarriedDir)
	require.NoError(t, os.MkdirAll(carried, 0o755))
	// The embedded 4x4 automaton under the name of the depth-13 one: intact, not that table.
	raw, err := data.Embedded(data.AutomatonFile(board.Size4x4, 12))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(carried, "prune-4x4-d13.tbl"), raw, 0o644))

	empty := write("empty.txt", "# nothing here\n")
	korf := write("two.txt", "a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\nb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15 1\n")
	ref := write("ref.jsonl", `{"start": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0], "solved": true, "length": 0}`+"\n")
	twice := write("twice.jsonl", strings.Repeat(`{"start": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0], "solved": true, "length": 0}`+"\n", 2))
	one := write("one.txt", "a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n")
	fifo := filepath.Join(dir, "fifo.txt")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	plan, err := parsePlan(`{"seconds": 400,
		"tables": [{"set": "5-5-5"}, {"automaton": "4x4", "depth": 13}],
		"steps": [
			{"name": "a", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "`+empty+`", "reference": "`+ref+`", "runs": [{"name": "r"}]},
			{"name": "b", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "`+korf+`", "reference": "`+ref+`", "runs": [{"name": "r"}]},
			{"name": "c", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "`+korf+`", "reference": "`+filepath.Join(dir, "none.jsonl")+`", "runs": [{"name": "r"}]},
			{"name": "d", "kind": "cores", "board": "4x4", "instances": "`+korf+`", "ids": ["z"], "gpu_seconds": 1, "cores_seconds": 1},
			{"name": "e", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "`+one+`", "reference": "`+twice+`", "runs": [{"name": "r"}]},
			{"name": "f", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "`+fifo+`", "reference": "`+ref+`", "runs": [{"name": "r"}]},
			{"name": "g", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "`+one+`", "reference": "`+ref+`", "runs": [{"name": "r"}], "keep": "/dev/zero"},
			{"name": "h", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "`+one+`", "reference": "`+ref+`", "runs": [{"name": "r"}], "keep": "`+fifo+`"},
			{"name": "i", "kind": "cores", "board": "5x5", "args": ["--heuristic", "6-6-6-6", "--pruning-depth", "18"], "instances": "`+one+`", "ids": ["a"], "gpu_seconds": 1, "cores_seconds": 1}]}`, "p")
	require.NoError(t, err)
	out := filepath.Join(dir, "out")
	before := tree(t, dir)
	done := make(chan struct{})
	go func() { // a FIFO must not hang the check: nobody writes to it
		defer close(done)
		_, err = Check(context.Background(), Config{Plan: plan, Root: dir, Prepared: prepared, Out: out, Binary: "/nonexistent", Cores: 1})
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the check hung on its inputs")
	}
	var refused *Refused
	require.ErrorAs(t, err, &refused)
	msg := err.Error()
	for _, want := range []string{
		filepath.Join(carried, "pdb-4x4-1-2-3-4-7.tbl") + " (set 5-5-5): no such file",
		filepath.Join(carried, "prune-4x4-d13.tbl") + " (the 4x4 automaton of depth 13): this binary does not accept it",
		"step a: " + empty + " holds no instances",
		"step b: the reference " + ref + " has no solved record of b (line 2 of " + korf + ")",
		"step c: stat " + filepath.Join(dir, "none.jsonl") + ": no such file",
		"step d: " + korf + " has no instance z",
		"step e: the reference " + twice + " has two records of one instance",
		"step f: " + fifo + " is not a regular file",
		"step g: keep: /dev/zero is not a regular file",
		"step h: keep: " + fifo + " is not a regular file",
		"step i: its arguments need set 6-6-6-6, which the plan neither carries nor builds",
		"step i: its arguments need the 5x5 automaton of depth 18",
		"gpu/prepare.sh",
		"/nonexistent: not an executable solve15",
	} {
		assert.Contains(t, msg, want)
	}
	assert.NoDirExists(t, out, "nothing written before the check starts")
	assert.Equal(t, before, tree(t, dir), "nothing written anywhere")
}

// tree lists the files under dir, with their sizes.
func tree(t *testing.T, dir string) []string {
	var list []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err == nil {
			list = append(list, fmt.Sprint(path, " ", info.Size()))
		}
		return err
	}))
	return list
}

// The summary's text: a row a step, the targets beside what was measured, FAIL marked.
func TestSummaryText(t *testing.T) {
	v, yes, no := 12.5, true, false
	s := &Summary{Plan: "p.json", Cores: 16, Seconds: 100, Bound: 470, Card: &Card{Name: "NVIDIA H100", Capability: "9.0", SMs: 132, MemoryGB: 85, Driver: "13.0"},
		Rows: []Row{{Step: "md", Run: "warm", Result: Pass, Compared: 100, GPURecords: 85, Seconds: 12.5, Note: "a | b"}, {Step: "twelve", Run: "gpu", Result: Fail, Note: "no answer went through the GPU"}},
		Targets: []TargetResult{{Issue: 58, What: "Korf's 100", Goal: "at most 10", Value: &v, Measured: "12.50 s", Met: &no},
			{Issue: 59, What: "agree", Measured: "every answer agreed", Met: &yes}, {Issue: 59, What: "campaign", Measured: "not run", NotRun: "why"}},
		Records: []GPURecord{
			{Step: "md", Run: "warm", Seconds: 1, Device: solve.DeviceUse{SearchSeconds: 0.6, GrowSeconds: 0.01, FrontierSeconds: 0.15, Utilisation: 0.5, Subtrees: 4096, Roots: 500000, Launches: 2, GrowLaunches: 9}},
			{Step: "md", Run: "warm", Seconds: 2, Device: solve.DeviceUse{SearchSeconds: 1.8, GrowSeconds: 0.02, CPUSeconds: 0.1, Utilisation: 0.9, Subtrees: 8192, Roots: 600000, Launches: 3, GrowLaunches: 12}},
			{Step: "twelve", Run: "gpu", Seconds: 4, Device: solve.DeviceUse{SearchSeconds: 3, Utilisation: 0.7, Subtrees: 100, Roots: 100, Launches: 1}}}}
	var b bytes.Buffer
	s.WriteText(&b)
	text := b.String()
	assert.Contains(t, text, "The device check FAILED: p.json; NVIDIA H100 (compute capability 9.0, 132 multiprocessors, 85 GB, driver CUDA 13.0), 16 cores")
	assert.Contains(t, text, "| md | warm | PASS | 100 | 85 | 12.50 | a \\| b |")
	assert.Contains(t, text, "| twelve | gpu | FAIL | 0 | 0 | 0.00 | no answer went through the GPU |")
	assert.Contains(t, text, "| 58 | Korf's 100 | at most 10 | 12.50 s | **no** |")
	assert.Contains(t, text, "| 59 | campaign |  | not run: why | not run |")
	// Each step's answers through the GPU, summed: utilisation weighted by the launches'
	// seconds ((0.5*0.6 + 0.9*1.8) / 2.4 = 0.8).
	assert.Contains(t, text, "| md | warm | 2 | 3.00 | 2.40 | 0.030 | 0.25 | 0.80 | 12288 | 1100000 | 5 | 21 |")
	assert.Contains(t, text, "| twelve | gpu | 1 | 4.00 | 3.00 | 0.000 | 0.00 | 0.70 | 100 | 100 | 1 | 0 |")
}
