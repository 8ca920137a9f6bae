// Package hermetic keeps tests from seeing the tables installed on the machine that runs
// them: with a set installed, the default heuristic (and with it node counts and golden
// output) would differ from one machine to the next.
package hermetic

import (
	"os"
	"path/filepath"
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

// Main runs a package's tests with the installed tables hidden; call it from TestMain.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "no-tables")
	if err != nil {
		panic(err)
	}
	HideTables(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
