package main

import (
	"os"
	"testing"
)

// TestMain hides the tables installed on this machine, so that Auto picks the same
// heuristic everywhere: the search path is an empty directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "no-tables")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	os.Setenv("HOME", dir)
	os.Unsetenv("TILEKIT_TABLES")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
