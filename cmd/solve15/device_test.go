package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/fakegpu"
)

// solve15 device --fault on the fake driver, which keeps a failed kernel's error for the
// whole process as driver 580 does: the fault runs in a process of its own and is
// reported, and the device opened again here agrees with the CPU.
func TestDeviceFault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds solve15")
	}
	lib := fakegpu.Build(t)
	exe := filepath.Join(t.TempDir(), "solve15")
	out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd := exec.Command(exe, "device", "--fault", "--seconds", "0")
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Dir(lib), "TK_FAKE_CUDA=")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "a faulting kernel, run in a process of its own, was reported")
	assert.Contains(t, string(out), "CUDA_ERROR_LAUNCH_FAILED")
	assert.Contains(t, string(out), "the GPU agrees with the CPU")

	// The kernel run alone (--trap) is reported as a failed kernel, with exit status 0.
	cmd = exec.Command(exe, "device", "--trap")
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Dir(lib), "TK_FAKE_CUDA=")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "start a new one")
}
