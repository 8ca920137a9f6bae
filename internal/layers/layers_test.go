package layers

import (
	"os"
	"os/exec"
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
	lower := []string{"board", "instance", "zindex", "bfs", "tablefile", "wd", "pdb", "prune", "heuristic", "ida", "search"}
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
