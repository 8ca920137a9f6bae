package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/internal/fakegpu"
	"github.com/tilekit/tilekit/internal/hermetic"
)

// solve15 device --fault on the fake driver, which keeps a failed kernel's error for the
// whole process as driver 580 does: the fault runs in a process of its own and is
// reported, and the device opened again here agrees with the CPU.
func TestDeviceFault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds solve15")
	}
	lib := fakegpu.Build(t)
	exe := hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/solve15")
	cmd := exec.Command(exe, "device", "--fault", "--seconds", "0")
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Dir(lib), "TK_FAKE_CUDA=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "a faulting kernel, run in a process of its own, was reported")
	assert.Contains(t, string(out), "CUDA_ERROR_LAUNCH_FAILED")
	assert.Contains(t, string(out), "the GPU agrees with the CPU")
	// Each search's kernel as the driver compiled it for the card (the fake driver gives
	// every one 255 registers, and the local memory of its thread's frames).
	assert.Regexp(t, `(?m)^ida_pass_cat: 255 registers, [1-9]\d+ bytes of local memory a thread$`, string(out))

	// The kernel run alone (--trap) is reported as a failed kernel, with exit status 0.
	cmd = exec.Command(exe, "device", "--trap")
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Dir(lib), "TK_FAKE_CUDA=")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "start a new one")

	// A search whose kernel fails is a failure (exit 1), not an instance out of its limits
	// (exit 4); a timeout is the latter.
	korf1 := "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"
	korf2 := "13 5 4 10 9 12 8 14 2 3 7 1 0 15 11 6"
	for _, c := range []struct {
		fault, timeout string
		code           int
		says           string
	}{{"launch", "", 1, "1 instance failed"}, {"", "1ms", 4, "not solved within"}} {
		args := []string{"--device", "gpu", "--heuristic", "md", "--goal", "blank-first"}
		if c.timeout != "" {
			args = append(args, "--timeout", c.timeout)
		}
		cmd = exec.Command(exe, append(args, korf1)...)
		cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Dir(lib), "TK_FAKE_CUDA="+c.fault, "TILEKIT_GPU_TUNE=from=1000")
		out, err = cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s", out)
		assert.Equal(t, c.code, exit.ExitCode(), "%s", out)
		assert.Contains(t, string(out), c.says)
	}

	// A cluster whose only worker faults still ends: the unit fails once no other worker
	// has come within the ack wait, naming the worker and its fault (exit 1).
	cmd = exec.Command(exe, "cluster", "--device", "gpu", "--local-workers", "1", "--ack-wait", "1s", "--store", t.TempDir(),
		"--heuristic", "md", "--goal", "blank-first", korf1, korf2) // two: a batch of whole instances, not split
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Dir(lib), "TK_FAKE_CUDA=launch", "TILEKIT_GPU_TUNE=from=1000")
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, 1, exit.ExitCode(), "%s", out)
	assert.Contains(t, string(out), "said: ")
	assert.Contains(t, string(out), "CUDA_ERROR_LAUNCH_FAILED")
}

// solve15 device refuses what cannot be a limit or a GPU, before it looks for a driver.
func TestDeviceUsage(t *testing.T) {
	for _, args := range [][]string{{"device", "--seconds", "-1s"}, {"device", "--gpu", "-2"}} {
		_, errOut, code := run(t, "", args...)
		assert.Equal(t, cmdline.ExitUsage, code, "%v: %s", args, errOut)
		assert.NotContains(t, errOut, "driver", "%v", args)
	}
}

// Without a driver, the words say so: device --json writes an object with the error (exit
// 1), and --device auto -v says that every pass stays on the CPU.
func TestNoDriverSaidSo(t *testing.T) {
	out, _, code := run(t, "", "device", "--json")
	if code == 0 {
		t.Skip("a GPU and its driver are here")
	}
	assert.Equal(t, cmdline.ExitFailure, code)
	var d struct{ Error string }
	require.NoError(t, json.Unmarshal([]byte(out), &d), "%q", out)
	assert.Contains(t, d.Error, "no NVIDIA driver")
	_, errOut, code := run(t, "", "--device", "auto", "-v", worked)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "no GPU: ")
	assert.Contains(t, errOut, "every pass is searched on the CPU")
}
