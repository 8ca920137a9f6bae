package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
)

// A campaign in sittings: --done FILE passes over the states an earlier --json run solved
// optimally, so that its records appended to the same file complete it; a run with all
// done says so and succeeds; a record of an unsolved state counts for nothing; a file that
// is not records is refused, naming the record.
func TestDonePassesOverSolvedStates(t *testing.T) {
	korf := []string{ // Korf's #15, #43 and #88: three of the easiest
		"13 14 6 12 4 5 1 0 9 3 10 2 15 11 8 7",
		"2 11 15 5 13 4 6 7 12 8 10 1 9 3 14 0",
		"12 11 15 3 8 0 4 2 6 13 9 5 14 1 10 7",
	}
	dir := t.TempDir()
	done := filepath.Join(dir, "done.jsonl")
	first, errOut, code := run(t, strings.Join(korf[:2], "\n")+"\n", "--goal", "blank-first", "--json", "-f", "-")
	require.Equal(t, 0, code, errOut)
	// An unsolved record of the third state counts for nothing.
	unsolved, _, code := run(t, "", "--goal", "blank-first", "--json", "--max-nodes", "10", korf[2])
	require.Equal(t, cmdline.ExitUnsolved, code)
	require.NoError(t, os.WriteFile(done, []byte(first+unsolved), 0o644))

	out, errOut, code := run(t, strings.Join(korf, "\n")+"\n", "--goal", "blank-first", "--json", "--done", done, "-f", "-")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1, "only the state not done: %s", out)
	var rec struct {
		Start   []int `json:"start"`
		Optimal bool  `json:"optimal"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
	assert.True(t, rec.Optimal)
	assert.Contains(t, errOut, "2 instances already done in "+done+", passed over")

	// With the third's record appended, nothing is left.
	f, err := os.OpenFile(done, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(out)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	out, errOut, code = run(t, strings.Join(korf, "\n")+"\n", "--goal", "blank-first", "--json", "--done", done, "-f", "-")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, strings.TrimSpace(out))
	assert.Contains(t, errOut, "3 instances already done")

	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(first+"not a record\n"), 0o644))
	_, errOut, code = run(t, "", "--goal", "blank-first", "--done", bad, korf[0])
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "record 3 is not a solve15 --json record")
	_, errOut, code = run(t, "", "--goal", "blank-first", "--done", filepath.Join(dir, "missing"), korf[0])
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "--done")
}
