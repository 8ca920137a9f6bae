package solve

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/gpu"
)

// No knob is exported where it is not read: every field of solve's SplitOptions (the split
// policy's knobs, the GPU's among them) and of gpu.Tune (the kernel's and the engine's) is
// read by its own package's code (a selector x.Field outside the tests), not merely
// passed on to another.
func TestKnobsAreRead(t *testing.T) {
	for _, c := range []struct {
		dir   string
		knobs any
	}{{".", SplitOptions{}}, {"../gpu", gpu.Tune{}}} {
		read := selectorsIn(t, c.dir)
		typ := reflect.TypeOf(c.knobs)
		for i := range typ.NumField() {
			assert.True(t, read[typ.Field(i).Name], "%s.%s is not read by its package (%s)", typ, typ.Field(i).Name, c.dir)
		}
	}
}

// selectorsIn returns the names selected (x.Name) in the non-test Go files of dir.
func selectorsIn(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	fset := token.NewFileSet()
	out := map[string]bool{}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok {
					out[s.Sel.Name] = true
				}
				return true
			})
		}
	}
	return out
}
