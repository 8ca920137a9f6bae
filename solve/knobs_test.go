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
)

// No knob is exported where it is not read: every field of SplitOptions (the split
// policy's knobs, the GPU's among them) is read by package solve's own code.
func TestSplitKnobsAreRead(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(".", name), nil, 0)
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	read := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				read[s.Sel.Name] = true
			}
			return true
		})
	}
	knobs := reflect.TypeOf(SplitOptions{})
	for i := range knobs.NumField() {
		assert.True(t, read[knobs.Field(i).Name], "SplitOptions.%s is not read by package solve", knobs.Field(i).Name)
	}
}
