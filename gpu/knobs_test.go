package gpu

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
)

// No knob is exported where it is not read: every field of Tune is read by the package's
// own code (a selector x.Field outside the tests), not merely passed on to another.
func TestTuneKnobsAreRead(t *testing.T) {
	read := selectors(t, ".")
	tune := reflect.TypeOf(Tune{})
	for i := range tune.NumField() {
		assert.True(t, read[tune.Field(i).Name], "Tune.%s is not read by package gpu", tune.Field(i).Name)
	}
}

// selectors returns the names selected (x.Name) in the non-test Go files of dir.
func selectors(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	out := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				out[s.Sel.Name] = true
			}
			return true
		})
	}
	return out
}
