package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/golden"
)

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
		golden.Check(t, tc.name, out)
	}
}
