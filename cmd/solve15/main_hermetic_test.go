package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tilekit/tilekit/internal/hermetic"
)

// TestMain hides the tables installed on this machine, so that the defaults are the same
// everywhere.
func TestMain(m *testing.M) { hermetic.Main(m) }

// solve15Built builds the binary for the tests that run it as a process, once, into the
// tests' home (hermetic.Main removes it when they end).
var solve15Built = sync.OnceValues(func() (string, error) {
	exe := filepath.Join(os.Getenv("HOME"), "bin", "solve15")
	out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building solve15: %v: %s", err, out)
	}
	return exe, nil
})

// builtSolve15 returns the path of solve15 built for the tests.
func builtSolve15(t *testing.T) string {
	t.Helper()
	exe, err := solve15Built()
	require.NoError(t, err)
	return exe
}
