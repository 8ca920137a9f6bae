// Package hermetic keeps tests from seeing the tables installed on the machine that runs
// them: with a set installed, the default heuristic (and with it node counts and golden
// output) would differ from one machine to the next.
package hermetic

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tilekit/tilekit/data"
)

// HideTables points every place data.TableDirs looks at into dir: $TILEKIT_TABLES is
// unset, and the user's cache directory is below dir.
func HideTables(dir string) {
	// The go command's caches default to places below HOME and the cache directory: keep
	// them where they were, so that tests that build binaries find them.
	if os.Getenv("GOCACHE") == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(cache, "go-build"))
		}
	}
	if os.Getenv("GOPATH") == "" {
		if home, err := os.UserHomeDir(); err == nil {
			os.Setenv("GOPATH", filepath.Join(home, "go"))
		}
	}
	os.Unsetenv(data.EnvTables)
	os.Setenv("XDG_CACHE_HOME", dir)
	os.Setenv("HOME", dir)
}

// home is Main's directory, the tests' home, removed when they end.
var home string

// Main runs a package's tests with the installed tables hidden; call it from TestMain.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "no-tables")
	if err != nil {
		panic(err)
	}
	HideTables(dir)
	home = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binaries are the commands built so far by Binary, by package.
var binaries struct {
	sync.Mutex
	paths map[string]string
}

// Binary returns the path of the command of package pkg (an import path), built once a
// test run into the tests' home (Main's, which removes it when they end), for tests that
// run it as a process.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	binaries.Lock()
	defer binaries.Unlock()
	if bin, ok := binaries.paths[pkg]; ok {
		return bin
	}
	if home == "" {
		t.Fatal("hermetic.Binary needs the package's TestMain to call hermetic.Main")
	}
	bin := filepath.Join(home, "bin", path.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	if binaries.paths == nil {
		binaries.paths = map[string]string{}
	}
	binaries.paths[pkg] = bin
	return bin
}
