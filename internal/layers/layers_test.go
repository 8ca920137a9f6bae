package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/tilekit/tilekit/"

// deps returns the packages pkg depends on, directly or not, as go list reports them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", module+pkg)
	if pkg == "web/wasm" { // built for the browser only
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	}
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps %s", pkg)
	return strings.Fields(string(out))
}

// The rules docs/ARCHITECTURE.md states, each a package and what it may not depend on
// (a prefix of import paths).
func TestLayers(t *testing.T) {
	lower := []string{"board", "instance", "zindex", "bfs", "tablefile", "wd", "pdb", "prune", "heuristic", "ida", "search", "gpu"}
	var rules []struct{ pkg, forbidden, why string }
	for _, p := range lower {
		for _, f := range []string{"data", "solve", "cluster", "web", "repro", "cmd/"} {
			rules = append(rules, struct{ pkg, forbidden, why string }{p, module + f, "the tables and engines know nothing of the layers above"})
		}
		rules = append(rules, struct{ pkg, forbidden, why string }{p, "github.com/nats-io/", "only cluster talks to NATS"})
	}
	rules = append(rules,
		struct{ pkg, forbidden, why string }{"heuristic", module + "ida", "the registry names heuristics; the engine computes them"},
		struct{ pkg, forbidden, why string }{"repro", "github.com/nats-io/", "the reports simulate the cluster (package schedule), they do not link it"},
		struct{ pkg, forbidden, why string }{"solve", module + "cluster", "cluster is transport over solve, not under it"},
		struct{ pkg, forbidden, why string }{"solve", "github.com/nats-io/", "solve is the front door, not transport"},
		struct{ pkg, forbidden, why string }{"web/wasm", "github.com/nats-io/", "the page links no NATS"},
		struct{ pkg, forbidden, why string }{"web/wasm", module + "cmd/", "the page is not a command"},
	)
	memo := map[string][]string{}
	for _, r := range rules {
		d, ok := memo[r.pkg]
		if !ok {
			d = deps(t, r.pkg)
			memo[r.pkg] = d
		}
		for _, dep := range d {
			if dep == r.forbidden || strings.HasPrefix(dep, r.forbidden) && (strings.HasSuffix(r.forbidden, "/") || strings.HasPrefix(dep, r.forbidden+"/")) {
				assert.Fail(t, "a layer broken", "%s depends on %s: %s", r.pkg, dep, r.why)
			}
		}
	}
}

// order reads the layers of docs/ARCHITECTURE.md, top to bottom: each package's line.
func order(t *testing.T) map[string]int {
	t.Helper()
	doc, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "<!-- layers -->\n")
	require.True(t, ok, "docs/ARCHITECTURE.md has no <!-- layers --> list")
	list, _, ok := strings.Cut(rest, "<!-- /layers -->")
	require.True(t, ok, "the layers list is not closed")
	line := map[string]int{}
	for i, l := range strings.Split(strings.TrimSpace(list), "\n") {
		for _, p := range strings.Fields(l) {
			_, twice := line[p]
			require.False(t, twice, "%s is on two lines of the layers list", p)
			line[p] = i
		}
	}
	return line
}

// imports returns every package of the module (the page's for the browser) with the
// module's packages it imports directly.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		args := []string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./..."}
		if env != nil {
			args[len(args)-1] = "./web/wasm"
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), env...)
		b, err := cmd.Output()
		require.NoError(t, err, "go %s", strings.Join(args, " "))
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(l)
			pkg, ok := strings.CutPrefix(f[0], module)
			if !ok || strings.HasPrefix(pkg, "examples/") {
				continue
			}
			out[pkg] = nil
			for _, imp := range f[1:] {
				if p, ok := strings.CutPrefix(imp, module); ok {
					out[pkg] = append(out[pkg], p)
				}
			}
		}
	}
	return out
}

// TestTheDiagramIsTheImports: every package is in docs/ARCHITECTURE.md's list of layers,
// every name there is a package, and every import goes to a lower line.
func TestTheDiagramIsTheImports(t *testing.T) {
	line, graph := order(t), imports(t)
	for pkg, imps := range graph {
		l, ok := line[pkg]
		if !assert.True(t, ok, "package %s is not in docs/ARCHITECTURE.md's layers: give it its line", pkg) {
			continue
		}
		for _, imp := range imps {
			if m, ok := line[imp]; ok && m <= l {
				assert.Fail(t, "an import goes up", "%s (line %d) imports %s (line %d): move one of them in docs/ARCHITECTURE.md, or the import", pkg, l+1, imp, m+1)
			}
		}
	}
	for pkg := range line {
		_, ok := graph[pkg]
		assert.True(t, ok, "docs/ARCHITECTURE.md's layers name %s, which is no package", pkg)
	}
}

// The records and the cluster speak to the engines through solve and the wire types of
// package passes (Work, Pass, the runners' protocol): neither imports an engine itself, so that a record or a unit of work is
// read without one, and a new engine changes neither.
func TestNoEngineForTheWireTypes(t *testing.T) {
	graph := imports(t)
	for _, pkg := range []string{"report", "cluster", "schedule", "web/api"} {
		imps, ok := graph[pkg]
		require.True(t, ok, "no package %s", pkg)
		for _, imp := range imps {
			for _, engine := range []string{"ida", "search", "gpu"} {
				assert.NotEqual(t, engine, imp, "%s imports the engine %s: take its types from passes or solve", pkg, engine)
			}
		}
	}
}

// TestTheDrawingNamesEveryPackage: docs/ARCHITECTURE.md's drawing of the layers names every
// package but those of the top-level internal/ (which it names together).
func TestTheDrawingNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "\n## Layers\n")
	require.True(t, ok, "docs/ARCHITECTURE.md has no Layers section")
	_, drawing, ok := strings.Cut(rest, "```\n")
	require.True(t, ok, "the Layers section has no drawing")
	drawing, _, _ = strings.Cut(drawing, "```")
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(drawing, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		words[strings.Trim(w, ".")] = true
	}
	require.True(t, words["internal/..."] || words["internal/"], "the drawing names internal/...")
	for pkg := range imports(t) {
		if strings.HasPrefix(pkg, "internal/") {
			continue
		}
		assert.True(t, words[pkg], "docs/ARCHITECTURE.md's drawing of the layers does not name %s", pkg)
	}
}
