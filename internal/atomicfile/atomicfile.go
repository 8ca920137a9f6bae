// Package atomicfile writes files so that a reader sees either the old file or the whole
// new one, never part of it, and so that a careless path cannot destroy what it names.
//
// Write resolves a symbolic link to the file it names and replaces that file, not the
// link; it refuses to replace anything that is not a regular file (a device such as
// /dev/null, a directory, a pipe). The new bytes go to a temporary file beside the target,
// created only once they are ready, which is synced and renamed over the target. Temporary
// files that an earlier write left behind (a process killed mid-write) are removed by the
// next write of the same target.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrNotRegular reports a target that exists but is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// maxLinks bounds the symbolic links followed, as the kernel does.
const maxLinks = 40

// Target returns the path Write would replace for path: path itself, or the file its
// chain of symbolic links names. It fails if that exists and is not a regular file.
func Target(path string) (string, error) {
	for i := 0; ; i++ {
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		switch {
		case info.Mode().IsRegular():
			return path, nil
		case info.Mode()&fs.ModeSymlink != 0:
			if i == maxLinks {
				return "", fmt.Errorf("%s: too many levels of symbolic links", path)
			}
			link, err := os.Readlink(path)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(path), link)
			}
			path = link
		case info.IsDir():
			return "", fmt.Errorf("%s: is a directory, %w", path, ErrNotRegular)
		default:
			return "", fmt.Errorf("%s: %w (%s); refusing to replace it", path, ErrNotRegular, kind(info.Mode()))
		}
	}
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "type " + m.Type().String()
}

// Write replaces the file at path (or the file a symbolic link at path names) with data,
// atomically. If ctx is done before the rename, nothing is changed and ctx's error is
// returned. On any error the target is untouched and no temporary file is left.
func Write(ctx context.Context, path string, data []byte) (err error) {
	target, err := Target(path)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// Large writes go in pieces, so that a cancellation is seen between them.
	const piece = 8 << 20
	for off := 0; off < len(data); off += piece {
		if err = ctx.Err(); err != nil {
			return err
		}
		if _, err = f.Write(data[off:min(off+piece, len(data))]); err != nil {
			return err
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), target); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}

// tempPrefix is the start of the names of base's temporary files: ".base.tmp-", followed by
// the writer's process id, a dash and a random suffix.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// removeStale removes temporary files of base left by writers that no longer run.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		// A writer's temporary file exists only while it copies ready bytes: seconds.
		if old(e) || (err == nil && pid != os.Getpid() && !running(pid)) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// old reports whether a temporary file of unknown origin is old enough to be stale.
func old(e fs.DirEntry) bool {
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > time.Hour
}
