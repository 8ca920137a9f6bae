package solve

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
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
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	read := map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok {
					read[s.Sel.Name] = true
				}
				return true
			})
		}
	}
	knobs := reflect.TypeOf(SplitOptions{})
	for i := range knobs.NumField() {
		assert.True(t, read[knobs.Field(i).Name], "SplitOptions.%s is not read by package solve", knobs.Field(i).Name)
	}
}
