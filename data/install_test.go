package data

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// A set is installed under its files' names, read back as written, and found by LoadSet;
// a target that cannot be written is refused before the build.
func TestInstallSet(t *testing.T) {
	dir := t.TempDir()
	var wrote []string
	layers := 0
	got, err := InstallSet(context.Background(), pdb.Set555, dir, BuildOptions{
		Progress: func(string, bfs.Layer) { layers++ },
		Wrote: func(path string, _ *tablefile.Table) error {
			wrote = append(wrote, filepath.Base(path))
			return nil
		}})
	require.NoError(t, err)
	assert.Equal(t, dir, got)
	assert.Equal(t, []string{SetFile(pdb.Set555, 0), SetFile(pdb.Set555, 1), SetFile(pdb.Set555, 2)}, wrote)
	assert.Equal(t, "pdb-4x4-1-2-3-4-7.tbl", wrote[0])
	assert.Positive(t, layers)
	set, from, err := LoadSet("5-5-5", []string{dir})
	require.NoError(t, err)
	assert.Equal(t, dir, from)
	assert.Len(t, set.Tables, 3)
	assert.Equal(t, map[string]string{"5-5-5": dir}, Installed([]string{dir}))

	blocked := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(blocked, SetFile(pdb.Set555, 2)), 0o755))
	_, err = InstallSet(context.Background(), pdb.Set555, blocked, BuildOptions{
		Progress: func(string, bfs.Layer) { t.Fatal("built although a target cannot be written") }})
	assert.Error(t, err)
}
