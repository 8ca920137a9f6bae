package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of human-facing output")

// Output without timings is pinned by golden files; rerun with -update after an intended
// change.
func TestGoldenOutput(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		args        []string
	}{
		{"eval.txt", "", []string{"eval", worked, "8 6 7 2 5 4 3 0 1 10 11 12 13 14 15 9"}},
		{"eval-3x3.txt", "", []string{"eval", "--board", "3x3", "8 6 7 2 5 4 3 0 1"}},
		{"eval-korf-json.txt", "k1: 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 57\n", []string{"eval", "--goal", "blank-first", "--json", "-f", "-"}},
	} {
		out, errOut, code := run(t, tc.stdin, tc.args...)
		require.Equal(t, 0, code, errOut)
		path := filepath.Join("testdata", tc.name)
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./cmd/solve15 -run Golden -update to create it")
		assert.Equal(t, string(want), out, "%s changed: rerun with -update if that was intended", tc.name)
	}
}
