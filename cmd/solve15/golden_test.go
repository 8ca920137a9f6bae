package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/golden"
)

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
		golden.Check(t, tc.name, out)
	}
}
