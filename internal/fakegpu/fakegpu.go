// Package fakegpu builds, for tests, package gpu's fake NVIDIA driver (its
// testdata/fakecuda.cpp): a libcuda.so.1 whose launches run the kernel's search on the
// host, so that the GPU's paths are tested end to end on a machine without a GPU.
package fakegpu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Build returns the path of a fake driver built with g++ and the given flags, a copy of its
// own in a temporary directory of the test's: each test that loads it has the driver's
// state to itself (a library loaded from another file is loaded anew), while each set of
// flags is compiled once a test run. Off Linux on amd64 and arm64, or without g++, the
// test is skipped; under TILEKIT_E2E=require a missing g++ fails it.
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
	built, err := compiled(gxx, flags)
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	b, err := os.ReadFile(built)
	if err == nil {
		err = os.WriteFile(lib, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// builds are the fake drivers compiled so far, by their flags, in dir (a test run's, as
// package gpu's host builds are).
var builds struct {
	sync.Mutex
	dir  string
	libs map[string]string
}

// compiled compiles the fake driver with the flags, once a test run, and returns its path.
func compiled(gxx string, flags []string) (string, error) {
	builds.Lock()
	defer builds.Unlock()
	key := strings.Join(flags, " ")
	if lib, ok := builds.libs[key]; ok {
		return lib, nil
	}
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "tilekit-fakegpu")
		if err != nil {
			return "", err
		}
		builds.dir, builds.libs = dir, map[string]string{}
	}
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "testdata", "fakecuda.cpp")
	lib := filepath.Join(builds.dir, fmt.Sprintf("libcuda%d.so.1", len(builds.libs)))
	args := append([]string{"-std=c++17", "-O2", "-shared", "-fPIC", "-o", lib}, flags...)
	args = append(args, src)
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	builds.libs[key] = lib
	return lib, nil
}
