package atomicfile

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.tbl")
	require.NoError(t, Write(context.Background(), path, []byte("one")))
	require.NoError(t, Write(context.Background(), path, []byte("two")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	assertOnly(t, dir, "t.tbl")
}

// A symbolic link is written through, atomically in its target's directory; the link stays.
func TestWriteThroughSymlinks(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "real.tbl")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, "abs")))
	require.NoError(t, os.Symlink("abs", filepath.Join(dir, "rel"))) // a chain, relative
	require.NoError(t, Write(context.Background(), filepath.Join(dir, "rel"), []byte("new")))
	got, _ := os.ReadFile(target)
	assert.Equal(t, "new", string(got))
	for _, link := range []string{"abs", "rel"} {
		info, err := os.Lstat(filepath.Join(dir, link))
		require.NoError(t, err)
		assert.NotZero(t, info.Mode()&os.ModeSymlink, "%s is still a link", link)
	}
	// A dangling link creates the file it names.
	require.NoError(t, os.Symlink(filepath.Join(other, "new.tbl"), filepath.Join(dir, "dangling")))
	require.NoError(t, Write(context.Background(), filepath.Join(dir, "dangling"), []byte("x")))
	got, _ = os.ReadFile(filepath.Join(other, "new.tbl"))
	assert.Equal(t, "x", string(got))
	// A loop is an error, not a hang.
	require.NoError(t, os.Symlink("loop2", filepath.Join(dir, "loop1")))
	require.NoError(t, os.Symlink("loop1", filepath.Join(dir, "loop2")))
	assert.ErrorContains(t, Write(context.Background(), filepath.Join(dir, "loop1"), nil), "too many levels")
}

// Devices, directories and pipes are never replaced (issue 10: --out /dev/full replaced
// the device with a regular file).
func TestRefuseNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	paths := []string{dir, fifo}
	// A device node of our own (as root), rather than risking the machine's /dev/null.
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		require.NoError(t, os.Symlink(dev, filepath.Join(dir, "link-to-null")))
		paths = append(paths, dev, filepath.Join(dir, "link-to-null"))
	} else {
		t.Logf("no device node (%v): devices are checked through the fifo's branch only", err)
	}
	for _, path := range paths {
		err := Write(context.Background(), path, []byte("x"))
		assert.ErrorIs(t, err, ErrNotRegular, path)
	}
	if len(paths) > 2 {
		info, err := os.Lstat(dev)
		require.NoError(t, err)
		assert.NotZero(t, info.Mode()&os.ModeCharDevice, "the device is still a device")
	}
	target, err := Target("/dev/null")
	assert.ErrorIs(t, err, ErrNotRegular)
	assert.Empty(t, target)
}

// Temporary files of writers that died are removed by the next write; those of a running
// writer are not; a cancelled write changes nothing and leaves nothing.
func TestStaleAndCancelled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.tbl")
	dead := filepath.Join(dir, ".t.tbl.tmp-999999999-123")
	alive := filepath.Join(dir, ".t.tbl.tmp-1-456") // pid 1 always runs
	other := filepath.Join(dir, ".u.tbl.tmp-999999999-789")
	for _, p := range []string{dead, alive, other} {
		require.NoError(t, os.WriteFile(p, []byte("junk"), 0o644))
	}
	require.NoError(t, Write(context.Background(), path, []byte("one")))
	assertOnly(t, dir, ".t.tbl.tmp-1-456", ".u.tbl.tmp-999999999-789", "t.tbl")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Write(ctx, path, make([]byte, 20<<20)), context.Canceled)
	got, _ := os.ReadFile(path)
	assert.Equal(t, "one", string(got))
	assertOnly(t, dir, ".t.tbl.tmp-1-456", ".u.tbl.tmp-999999999-789", "t.tbl")

	// RemoveStale clears the leftovers of every target, and keeps those of live writers
	// and files that only look alike.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.tmp-1"), []byte("mine"), 0o644))
	RemoveStale(dir)
	assertOnly(t, dir, ".t.tbl.tmp-1-456", "notes.tmp-1", "t.tbl")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.Equal(t, names, got)
}
