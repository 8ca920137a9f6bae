// Package fakegpu builds, for tests, package gpu's fake NVIDIA driver (its
// testdata/fakecuda.cpp): a libcuda.so.1 whose launches run the kernel's search on the
// host, so that the GPU's paths are tested end to end on a machine without a GPU.
package fakegpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Build compiles the fake driver with g++ and the given flags into a temporary directory
// and returns its path. Off Linux on amd64 and arm64, or without g++, the test is skipped;
// under TILEKIT_E2E=require a missing g++ fails it.
func Build(t testing.TB, flags ...string) string {
	t.Helper()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("GPUs are reached on Linux (amd64, arm64) only")
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		if os.Getenv("TILEKIT_E2E") == "require" {
			t.Fatalf("no g++ to build the fake driver: %v", err)
		}
		t.Skipf("no g++ to build the fake driver: %v", err)
	}
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "testdata", "fakecuda.cpp")
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	args := append([]string{"-std=c++17", "-O2", "-shared", "-fPIC", "-o", lib}, flags...)
	args = append(args, src)
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return lib
}
