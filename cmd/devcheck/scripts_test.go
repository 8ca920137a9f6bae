package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/fakegpu"
	"github.com/tilekit/tilekit/report"
)

// EnvScripts runs the device check's scripts end to end (.ci/run sets it): they build a
// binary and tables, which a plain go test ./... leaves out.
const EnvScripts = "TILEKIT_DEVICE_CHECK"

// gpu/prepare.sh, then gpu/check.sh, on the fake driver with the fake driver's plan, as a
// GPU machine runs them with the card's: every step ends in a PASS row with answers
// through the GPU, and exit status 0. The same check with the binary removed, with a
// reference that disagrees, and with an instances file of no instances fails, saying why.
func TestScriptsOnTheFakeDriver(t *testing.T) {
	if os.Getenv(EnvScripts) != "1" {
		t.Skipf("the device check's scripts end to end (a minute or two): set %s=1 (.ci/run does)", EnvScripts)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	lib := fakegpu.Build(t)
	repo := root(t)
	prepared := filepath.Join(t.TempDir(), "prep")
	script := func(name string, args []string, env ...string) (string, int) {
		cmd := exec.Command("bash", append([]string{filepath.Join(repo, "gpu", name)}, args...)...)
		if name == "prepare.sh" {
			cmd.Args = append(cmd.Args, prepared)
		}
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), append([]string{"PLAN=fake", "PREPARED=" + prepared,
			"LD_LIBRARY_PATH=" + filepath.Dir(lib), "TK_FAKE_CUDA="}, env...)...)
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", out)
			code = exit.ExitCode()
		}
		return string(out), code
	}

	out, code := script("prepare.sh", nil)
	require.Equal(t, 0, code, out)
	require.FileExists(t, filepath.Join(prepared, "bin", "solve15.gz"))
	require.FileExists(t, filepath.Join(prepared, "bin", "devcheck.gz"))
	require.FileExists(t, filepath.Join(prepared, "tables", "zpdb-4x4-1-5-6-9-10-13.tbl"))
	assert.Contains(t, out, "to carry (the binaries and the tables)")

	good := filepath.Join(t.TempDir(), "good")
	out, code = script("check.sh", nil, "OUT="+good)
	require.Equal(t, 0, code, out)
	sum := readSummary(t, good)
	assert.True(t, sum.Passed)
	steps := map[string]int{}
	for _, r := range sum.Rows {
		assert.Equal(t, Pass, r.Result, "%+v", r)
		if r.Step == "build" {
			continue
		}
		steps[r.Step]++
		assert.Positive(t, r.Compared, "%+v", r)
		assert.Positive(t, r.GPURecords, "%+v: answers through the GPU", r)
	}
	assert.Equal(t, map[string]int{"device": 1, "md": 2, "small-t": 1, "6-6-6-6": 1, "twelve": 1, "flat": 1}, steps)
	assert.Equal(t, "Fake GPU", sum.Card.Name)
	assert.NotEmpty(t, sum.Records)
	grown := map[string]int{} // the growth launches of md's warm run, and of the flat step: none
	for _, g := range sum.Records {
		assert.Positive(t, g.Device.Passes, "%+v", g)
		assert.Positive(t, g.Device.EngineSeconds, "%+v: the engine's seconds", g)
		grown[g.Step+" "+g.Run] += g.Device.GrowLaunches
	}
	for _, r := range sum.Rows {
		if r.Step == "flat" {
			assert.Contains(t, r.Note, "; beside md warm on the same 4: records' seconds ")
		}
	}
	assert.Positive(t, grown["md warm"], "md's warm run grows its frontiers on the card")
	assert.Zero(t, grown["flat gpu"], "the flat step keeps the host's frontiers")
	assert.FileExists(t, filepath.Join(good, "summary.md"))

	// A reference that disagrees: one serial count one node more.
	refs, err := os.ReadFile(filepath.Join(repo, "gpu", "plans", "korf100-md.jsonl"))
	require.NoError(t, err)
	lines := strings.Split(string(refs), "\n")
	tamperedLine := -1
	for i, l := range lines {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) != nil || rec["line"] != 12.0 { // line 12 of korf100.txt, in the md step
			continue
		}
		key := "serial_nodes" // what one worker counted, when several searched; else nodes
		if _, ok := rec[key]; !ok {
			key = "nodes"
		}
		rec[key] = rec[key].(float64) + 1
		tampered, err := json.Marshal(rec)
		require.NoError(t, err)
		lines[i], tamperedLine = string(tampered), i
	}
	require.NotEqual(t, -1, tamperedLine)
	dir := t.TempDir()
	badRef := filepath.Join(dir, "ref.jsonl")
	require.NoError(t, os.WriteFile(badRef, []byte(strings.Join(lines, "\n")), 0o644))
	// Other inputs for a step of the plan (a plan is a value chosen by name).
	out, code = script("check.sh", []string{"--reference", "md=" + badRef}, "OUT="+filepath.Join(dir, "out-ref"))
	assert.Equal(t, 1, code, out)
	sum = readSummary(t, filepath.Join(dir, "out-ref"))
	assert.False(t, sum.Passed)
	for _, r := range sum.Rows {
		if r.Step == "md" {
			assert.Equal(t, Fail, r.Result)
			assert.Contains(t, r.Note, "line12: serial counts")
		}
	}
	assert.Contains(t, out, "the device check failed")

	// A campaign: the twelve's step keeps what it makes on the GPU (keep), and the next
	// run passes over it; a kept record that disagrees fails the step.
	keep := filepath.Join(dir, "kept.jsonl")
	campaign := []string{"--keep", "twelve=" + keep}
	out, code = script("check.sh", campaign, "OUT="+filepath.Join(dir, "out-c1"))
	require.Equal(t, 0, code, out)
	kept, err := os.ReadFile(filepath.Join(dir, "out-c1", KeptDir, "kept.jsonl"))
	require.NoError(t, err)
	made, err := report.ReadRecords(bytes.NewReader(kept), "kept", 1<<20)
	require.NoError(t, err)
	// The step is a budget: what it finished in it (a loaded machine may finish fewer than
	// its three).
	require.NotEmpty(t, made, "the twelve step's instances, made on the GPU")
	for _, rec := range made {
		assert.NotNil(t, rec.Device, "%s: through the GPU", rec.Label())
	}
	require.NoError(t, os.WriteFile(keep, kept, 0o644))
	out, code = script("check.sh", campaign, "OUT="+filepath.Join(dir, "out-c2"))
	require.Equal(t, 0, code, out)
	again, err := os.ReadFile(filepath.Join(dir, "out-c2", "twelve-gpu.err"))
	require.NoError(t, err)
	assert.Regexp(t, fmt.Sprintf(`\b%d instances? already done in`, len(made)), string(again))
	kept2, err := os.ReadFile(filepath.Join(dir, "out-c2", KeptDir, "kept.jsonl"))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(kept2, kept), "what was kept is kept, nothing made twice")
	require.NoError(t, os.WriteFile(keep, bytes.Replace(kept, []byte(`"length":`), []byte(`"length":1`), 1), 0o644))
	out, code = script("check.sh", campaign, "OUT="+filepath.Join(dir, "out-c3"))
	assert.Equal(t, 1, code, out)
	for _, r := range readSummary(t, filepath.Join(dir, "out-c3")).Rows {
		if r.Step == "twelve" {
			assert.Equal(t, Fail, r.Result)
			assert.Contains(t, r.Note, "keep: ")
		}
	}

	// No instances.
	empty := filepath.Join(dir, "empty.txt")
	require.NoError(t, os.WriteFile(empty, []byte("# none\n"), 0o644))
	out, code = script("check.sh", []string{"--instances", "twelve=" + empty}, "OUT="+filepath.Join(dir, "out-empty"))
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, empty+" holds no instances")
	assert.NoFileExists(t, filepath.Join(dir, "out-empty", "summary.json"))

	// No binary.
	require.NoError(t, os.Rename(filepath.Join(prepared, "bin"), filepath.Join(prepared, "bin-away")))
	out, code = script("check.sh", nil, "OUT="+filepath.Join(dir, "out-nobin"))
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, filepath.Join(prepared, "bin", "solve15.gz"))
	assert.Contains(t, out, "gpu/prepare.sh")
}

func readSummary(t *testing.T, dir string) *Summary {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var s Summary
	require.NoError(t, json.Unmarshal(raw, &s))
	return &s
}
