package site

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateWasm = flag.Bool("update", false, "rebuild web/site/static/tilekit.wasm and copy wasm_exec.js")

// The page's WebAssembly binary and Go's JavaScript glue, committed under static/ so that
// solve15 embeds a complete site, are what the current sources build (the build is
// reproducible). Refresh them with `go generate ./web/site` (which runs this test with -update)
// after changing the solver. The binary depends on the Go release, recorded beside it: with
// another release the comparison is skipped.
func TestWasmIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WebAssembly binary")
	}
	versionFile := "tilekit.wasm.go-version"
	recorded, _ := os.ReadFile(versionFile)
	if !*updateWasm && strings.TrimSpace(string(recorded)) != runtime.Version() {
		t.Skipf("static/tilekit.wasm was built with %s, this is %s", strings.TrimSpace(string(recorded)), runtime.Version())
	}
	touchSources(t)
	out := filepath.Join(t.TempDir(), "tilekit.wasm")
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, "../wasm")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	msg, err := build.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	fresh, err := os.ReadFile(out)
	require.NoError(t, err)
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	glue, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	require.NoError(t, err)
	if *updateWasm {
		require.NoError(t, os.WriteFile(filepath.Join("static", "tilekit.wasm"), fresh, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join("static", "wasm_exec.js"), glue, 0o644))
		require.NoError(t, os.WriteFile(versionFile, []byte(runtime.Version()+"\n"), 0o644))
		return
	}
	committed, err := os.ReadFile(filepath.Join("static", "tilekit.wasm"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(fresh, committed), "static/tilekit.wasm is out of date: run go generate ./web/site")
	committedGlue, err := os.ReadFile(filepath.Join("static", "wasm_exec.js"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(glue, committedGlue), "static/wasm_exec.js differs from Go's: run go generate ./web/site")
}

// touchSources reads every Go source file of the module that the WebAssembly binary is
// built from: go test caches a test's result by the files it reads, and the build it runs
// is not one of them, so without this a cached pass would hide a binary gone stale.
func touchSources(t *testing.T) {
	list := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}`, "../wasm")
	list.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := list.Output()
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, name := range f[1:] {
			_, err := os.ReadFile(filepath.Join(f[0], name))
			require.NoError(t, err)
		}
	}
}

// The GUIDE's size of the page's WebAssembly, rounded to a tenth of a megabyte, is the
// committed file's, raw and gzipped (gzip -9).
func TestDocWasmSize(t *testing.T) {
	raw, err := os.ReadFile("static/tilekit.wasm")
	require.NoError(t, err)
	var gz bytes.Buffer
	w, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	require.NoError(t, err)
	_, err = w.Write(raw)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	guide, err := os.ReadFile("../../docs/GUIDE.md")
	require.NoError(t, err)
	want := fmt.Sprintf("WebAssembly (about %.1f MB, %.1f MB gzipped", float64(len(raw))/1e6, float64(gz.Len())/1e6)
	assert.True(t, bytes.Contains(bytes.Join(bytes.Fields(guide), []byte(" ")), []byte(want)), "the GUIDE should say %q", want)
}
