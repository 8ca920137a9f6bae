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

// Human-facing output is pinned by golden files; rerun with -update after an intended change.
func TestGoldenOutput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"info-wd.txt", []string{"info", "../../data/wd-blank-last.tbl"}},
		{"info-pdb-json.txt", []string{"info", "--json", "../../data/pdb-11-12-15+blank.tbl"}},
		{"verify.txt", []string{"verify", "../../data/pdb-11-12-15+blank.tbl", "../../data/wd-blank-first.tbl"}},
		{"audit-chebyshev2.txt", []string{"audit", "--board", "3x3", "--heuristic", "chebyshev2"}},
	} {
		out, errOut, code := run(t, tc.args...)
		require.Equal(t, 0, code, errOut)
		path := filepath.Join("testdata", tc.name)
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./cmd/pdbgen -run Golden -update to create it")
		assert.Equal(t, string(want), out, "%s changed: rerun with -update if that was intended", tc.name)
	}
}
