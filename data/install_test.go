package data

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/atomicfile"
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
		Wrote: func(path string, _ tablefile.Info) error {
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

// The digests in the code are those of the embedded files and of a fresh build.
func TestDigests(t *testing.T) {
	for _, spec := range Specs {
		raw, err := Embedded(spec.File)
		require.NoError(t, err)
		f, err := tablefile.Decode(bytes.NewReader(raw))
		require.NoError(t, err)
		assert.Equal(t, digests[spec.File], fmt.Sprintf("%x", f.DecodedSHA), spec.File)
	}
	set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	for i, tab := range set.Tables {
		f, err := tab.File()
		require.NoError(t, err)
		assert.Equal(t, digests[SetFile(pdb.Set555, i)], fmt.Sprintf("%x", f.DecodedSHA))
	}
	for _, spec := range pdb.Sets {
		for i := range spec.Tables {
			assert.Len(t, digests[SetFile(spec, i)], 64, "a digest for every table of every set")
			if spec.ZeroAware {
				assert.Len(t, bitDigests[SetFile(spec, i)], 64, "and in bits for the zero-aware ones")
			}
		}
	}
}

// A table whose values were changed and whose checksums were made right again is refused
// by name, until pdbgen verify records it (here, as if it had proven it).
func TestUntrustedTableRefused(t *testing.T) {
	dir := t.TempDir()
	raw, err := Embedded(PDBSmall)
	require.NoError(t, err)
	f, err := tablefile.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	goal, err := f.GoalOf()
	require.NoError(t, err)
	entries := append([]uint8(nil), f.Entries...)
	entries[7]++
	raised, err := tablefile.New(f.Kind, goal, f.Tiles, f.BlankInIndex, entries)
	require.NoError(t, err)
	for _, spec := range Specs[:4] {
		raw, err := Embedded(spec.File)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, spec.File), raw, 0o644))
	}
	path := filepath.Join(dir, PDBSmall)
	require.NoError(t, tablefile.Write(context.Background(), path, raised))
	_, err = LoadDir(dir)
	require.ErrorIs(t, err, ErrNotStandard)
	assert.ErrorContains(t, err, "run pdbgen verify "+path)
	require.NoError(t, RecordVerified(context.Background(), path, fmt.Sprintf("%x", raised.DecodedSHA)))
	_, err = LoadDir(dir)
	assert.NoError(t, err)
}

// An install interrupted after its first table leaves no part of the set, and no
// temporary file.
func TestInterruptedInstallLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := InstallSet(ctx, pdb.Set555, dir, BuildOptions{Progress: func(file string, _ bfs.Layer) {
		if file == SetFile(pdb.Set555, 1) {
			cancel()
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// A set given as bytes is checked as files are, and then found by LoadSet before any
// directory; damaged or changed bytes are refused by file.
func TestAddSet(t *testing.T) {
	dir := t.TempDir()
	_, err := InstallSet(context.Background(), pdb.Set555, dir, BuildOptions{})
	require.NoError(t, err)
	files, from, err := SetFiles("5-5-5", []string{dir})
	require.NoError(t, err)
	assert.Equal(t, dir, from)
	require.Len(t, files, 3)

	damaged := map[string][]byte{}
	for k, v := range files {
		damaged[k] = v
	}
	name := SetFile(pdb.Set555, 1)
	bad := append([]byte(nil), files[name]...)
	bad[len(bad)-10] ^= 1
	damaged[name] = bad
	_, err = AddSet("5-5-5", damaged)
	assert.ErrorContains(t, err, name)
	delete(damaged, name)
	_, err = AddSet("5-5-5", damaged)
	assert.ErrorContains(t, err, "missing")
	assert.Empty(t, Loaded())

	set, err := AddSet("5-5-5", files)
	require.NoError(t, err)
	got, from, err := LoadSet("5-5-5", []string{t.TempDir()})
	require.NoError(t, err)
	assert.Same(t, set, got)
	assert.Equal(t, FromMemory, from)
	assert.Equal(t, []string{"5-5-5"}, Loaded())
	memoryMu.Lock()
	delete(memory, "5-5-5") // other tests expect no set in memory
	memoryMu.Unlock()
}

// An install in bits converts the zero-aware tables already there in nibbles, when their
// values are known, instead of building them again: the same bytes as a fresh build in
// bits, and no search run.
func TestInstallBitsConverts(t *testing.T) {
	spec, err := ParseCatalogue("0,1,2,3,4,7\n0,5,6,9,10,13\n0,8,11,12,14,15\n", "555z", board.Size4x4)
	require.NoError(t, err)
	ctx := context.Background()
	dir := t.TempDir()
	_, err = InstallSet(ctx, spec, dir, BuildOptions{})
	require.NoError(t, err)
	for tab := range spec.Tables {
		path := filepath.Join(dir, SetFile(spec, tab))
		f, err := tablefile.Read(path)
		require.NoError(t, err)
		require.NoError(t, RecordVerified(ctx, path, fmt.Sprintf("%x", f.DecodedSHA)))
	}
	searched := 0
	_, err = InstallSet(ctx, spec, dir, BuildOptions{Bits: true, Progress: func(string, bfs.Layer) { searched++ }})
	require.NoError(t, err)
	assert.Zero(t, searched, "converted, not built")
	fresh := t.TempDir()
	_, err = InstallSet(ctx, spec, fresh, BuildOptions{Bits: true, Progress: func(string, bfs.Layer) { searched++ }})
	require.NoError(t, err)
	assert.Positive(t, searched, "nothing to convert: built")
	for tab := range spec.Tables {
		a, err := os.ReadFile(filepath.Join(dir, SetFile(spec, tab)))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(fresh, SetFile(spec, tab)))
		require.NoError(t, err)
		assert.Equal(t, b, a, SetFile(spec, tab))
		f, err := tablefile.Decode(bytes.NewReader(a))
		require.NoError(t, err)
		assert.Equal(t, tablefile.EncodingBit, f.Encoding)
	}
	// The converted tables come from proven ones, and say so; the fresh ones wait for
	// pdbgen verify.
	_, _, err = LoadSpec(spec, []string{dir})
	require.NoError(t, err)
	_, _, err = LoadSpec(spec, []string{fresh})
	assert.ErrorIs(t, err, ErrNotStandard)
}

// A missing set says how to build it: a named set by its name, a catalogue by its file.
func TestNotInstalledSaysHowToBuild(t *testing.T) {
	dir := t.TempDir()
	_, _, err := LoadSet("7-8", []string{dir})
	require.ErrorIs(t, err, ErrNotInstalled)
	assert.Contains(t, err.Error(), "pdbgen build --set 7-8")
	spec, err := pdb.NewCatalogue("mine", board.BlankLast(board.Size4x4), false, false, [][][]int{{{1, 2, 3}, {4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15}}})
	require.NoError(t, err)
	_, _, err = LoadSpec(spec, []string{dir})
	require.ErrorIs(t, err, ErrNotInstalled)
	assert.Contains(t, err.Error(), "pdbgen build --catalogue FILE --board 4x4")
	assert.NotContains(t, err.Error(), "--set mine")
}

// A damaged set says what is wrong and how to build it again.
func TestDamagedSetSaysHowToRebuild(t *testing.T) {
	dir := t.TempDir()
	_, err := InstallSet(context.Background(), pdb.Set555, dir, BuildOptions{})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "*.tbl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	raw[len(raw)/2] ^= 0x55
	require.NoError(t, os.WriteFile(files[0], raw, 0o644))
	_, _, err = LoadSpec(pdb.Set555, []string{dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "build the set again with: pdbgen build --set 5-5-5 --out "+dir)
}

// A set is installed all or nothing across a crash at any step of its commit (as a
// SIGKILL between two renames): whatever step the install of 6-6-3z in bits over the set
// in nibbles stops at, the set reads back whole, all in nibbles or all in bits; a set
// whose files lack one names it; a directory without a manifest (built before them) reads
// as before.
func TestInstallIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	spec, err := pdb.SetByName("6-6-3z")
	require.NoError(t, err)
	base, bitsDir := t.TempDir(), t.TempDir()
	_, err = InstallSet(ctx, spec, base, BuildOptions{})
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(base, manifestFile(spec)))
	copyDir(t, base, bitsDir)
	_, err = InstallSet(ctx, spec, bitsDir, BuildOptions{Bits: true})
	require.NoError(t, err)
	inBits := func(set *pdb.Set) int {
		n := 0
		for _, tab := range set.Tables {
			if tab.Bitmap != nil {
				n++
			}
		}
		return n
	}
	defer func() { crashAt = -1 }()
	sawOld, sawNew := false, false
	for k := 0; ; k++ {
		// The bits install's commit over the nibbles, stopped after k steps.
		dir := t.TempDir()
		copyDir(t, base, dir)
		staged, digests := map[string]*atomicfile.Staged{}, manifest{}
		for i := range spec.Tables {
			name := SetFile(spec, i)
			b, err := os.ReadFile(filepath.Join(bitsDir, name))
			require.NoError(t, err)
			s, err := atomicfile.Stage(ctx, filepath.Join(dir, name), b)
			require.NoError(t, err)
			staged[name] = s
			digests[name], err = digestOf(filepath.Join(bitsDir, name))
			require.NoError(t, err)
		}
		crashAt = k
		err := commitSet(dir, spec, staged, digests)
		crashAt = -1
		set, rerr := ReadSet(dir, spec)
		require.NoError(t, rerr, "a crash after %d steps", k)
		bits := inBits(set)
		require.Contains(t, []int{0, len(spec.Tables)}, bits, "a crash after %d steps: %d of %d tables in bits", k, bits, len(spec.Tables))
		sawOld, sawNew = sawOld || bits == 0, sawNew || bits > 0
		if err == nil {
			assert.Equal(t, len(spec.Tables), bits, "an install that ended is the new set")
			break
		}
		require.ErrorIs(t, err, errCrashed)
		require.Less(t, k, 100)
	}
	assert.True(t, sawOld && sawNew, "crashes before and after the commit")

	// Without a manifest, as before; a file missing is named.
	require.NoError(t, os.Remove(filepath.Join(base, manifestFile(spec))))
	_, err = ReadSet(base, spec)
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(base, SetFile(spec, 1))))
	_, _, err = LoadSpec(spec, []string{base})
	require.ErrorIs(t, err, ErrNotInstalled)
	assert.ErrorContains(t, err, base+" lacks "+SetFile(spec, 1))
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), b, 0o644))
	}
}
