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
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

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
	ids := write("ids.txt", "a/../../x 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n")
	korf := write("two.txt", "a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\nb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15 1\n")
	ref := write("ref.jsonl", `{"start": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0], "solved": true, "length": 0}`+"\n")
	twice := write("twice.jsonl", strings.Repeat(`{"start": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0], "solved": true, "length": 0}`+"\n", 2))
	one := write("one.txt", "a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n")
	fifo := filepath.Join(dir, "fifo.txt")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	ref4 := func(name, instances, reference string) Step {
		return Step{Name: name, Kind: KindReference, Seconds: 10, Board: "4x4", Instances: instances, Reference: reference, Runs: []string{"r"}}
	}
	keep := func(s Step, file string) Step { s.Keep = file; return s }
	cores := func(name, board, instances, id string, args ...string) Step {
		return Step{Name: name, Kind: KindCores, Board: board, Args: args, Instances: instances, IDs: []string{id}, GPUSeconds: 1, CoresSeconds: 1}
	}
	plan := &Plan{Seconds: 400, Tables: []Table{{Set: "5-5-5"}, {Automaton: "4x4", Depth: 13}}, Steps: []Step{
		ref4("a", empty, ref), ref4("b", korf, ref), ref4("c", korf, filepath.Join(dir, "none.jsonl")),
		cores("d", "4x4", korf, "z"), ref4("e", one, twice), ref4("f", fifo, ref),
		keep(ref4("g", one, ref), "/dev/zero"), keep(ref4("h", one, ref), fifo),
		cores("i", "5x5", one, "a", "--heuristic", "6-6-6-6", "--pruning-depth", "18"),
		ref4("j", ids, ref), keep(ref4("k", one, ref), "../x/.hidden"),
	}}
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
	var refused *cmdline.ExitError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, 2, refused.Code)
	msg := err.Error()
	for _, want := range []string{
		"set 5-5-5: stat " + filepath.Join(carried, "pdb-4x4-1-2-3-4-7.tbl") + ": no such file",
		"the 4x4 automaton of depth 13: " + filepath.Join(carried, "prune-4x4-d13.tbl") + ": not the table that pdbgen builds",
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
		`step j: the instance id "a/../../x" (line 1 of ` + ids + ") is not a plain word",
		`step k: keep: ".hidden" is not a plain word`,
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

// The summary's text: a row a step, FAIL marked, each step's answers through the GPU
// summed, the kernels.
func TestSummaryText(t *testing.T) {
	s := &Summary{Plan: "card", Cores: 16, Seconds: 100, Card: &gpu.Info{Name: "NVIDIA H100", Capability: [2]int{9, 0}, SMs: 132, Memory: 85e9, Driver: 13000},
		Rows:    []Row{{Step: "md", Run: "warm", Result: Pass, Compared: 100, GPURecords: 85, Seconds: 12.5, Note: "a | b"}, {Step: "twelve", Run: "gpu", Result: Fail, Note: "no answer went through the GPU"}},
		Kernels: []gpu.KernelUse{{Name: "ida_pass_cat", Registers: 128, LocalBytes: 18448}},
		Records: []GPURecord{
			{Step: "md", Run: "warm", Seconds: 1, Device: solve.DeviceUse{FrontierSeconds: 0.15, Stats: gpu.Stats{SearchSeconds: 0.6, GrowSeconds: 0.01, Utilisation: 0.5, Subtrees: 4096, Roots: 500000, Launches: 2, GrowLaunches: 9}}},
			{Step: "md", Run: "warm", Seconds: 2, Device: solve.DeviceUse{CPUSeconds: 0.1, Stats: gpu.Stats{SearchSeconds: 1.8, GrowSeconds: 0.02, Utilisation: 0.9, Subtrees: 8192, Roots: 600000, Launches: 3, GrowLaunches: 12}}},
			{Step: "twelve", Run: "gpu", Seconds: 4, Device: solve.DeviceUse{Stats: gpu.Stats{SearchSeconds: 3, Utilisation: 0.7, Subtrees: 100, Roots: 100, Launches: 1}}}}}
	var b bytes.Buffer
	s.WriteText(&b)
	text := b.String()
	assert.Contains(t, text, "The device check FAILED: card; NVIDIA H100 (compute capability 9.0, 132 multiprocessors, 85 GB, driver CUDA 13.0), 16 cores")
	assert.Contains(t, text, "| md | warm | PASS | 100 | 85 | 12.50 | a \\| b |")
	assert.Contains(t, text, "| twelve | gpu | FAIL | 0 | 0 | 0.00 | no answer went through the GPU |")
	// Each step's answers through the GPU, summed: utilisation weighted by the launches'
	// seconds ((0.5*0.6 + 0.9*1.8) / 2.4 = 0.8).
	assert.Contains(t, text, "| md | warm | 2 | 3.00 | 2.40 | 0.030 | 0.25 | 0.80 | 12288 | 1100000 | 5 | 21 |")
	assert.Contains(t, text, "| twelve | gpu | 1 | 4.00 | 3.00 | 0.000 | 0.00 | 0.70 | 100 | 100 | 1 | 0 |")
	assert.Contains(t, text, "| ida_pass_cat | 128 | 18448 |")
}
