// Package atomicfile writes files so that a reader sees either the old file or the whole
// new one, never part of it, and so that a careless path cannot destroy what it names.
//
// Write resolves a symbolic link to the file it names and replaces that file, not the
// link; it refuses to replace anything that is not a regular file (a device such as
// /dev/null, a directory, a pipe). The new bytes go to a temporary file beside the target,
// created only once they are ready, which is synced and renamed over the target. Temporary
// files that an earlier write left behind (a process killed mid-write) are removed by the
// next write of the same target, or by RemoveStale for a whole directory.
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
	if path == "" {
		return "", errors.New("an empty file name")
	}
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
func Write(ctx context.Context, path string, data []byte) error {
	s, err := Stage(ctx, path, data)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		s.Abort()
		return err
	}
	return s.Commit()
}

// A Staged file holds the whole of a target's new bytes, synced, beside the target, but
// not yet in its place: Commit puts it there, Abort removes it. Several staged files
// committed together replace a group of targets all or nothing, save a crash between the
// renames.
type Staged struct {
	temp, target, dir string
}

// Stage writes data to a temporary file beside the file path names (as Write resolves
// it). On any error, or if ctx is done, nothing is left behind.
func Stage(ctx context.Context, path string, data []byte) (_ *Staged, err error) {
	target, err := Target(path)
	if err != nil {
		return nil, err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, err
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
			return nil, err
		}
		if _, err = f.Write(data[off:min(off+piece, len(data))]); err != nil {
			return nil, err
		}
	}
	if err = f.Sync(); err != nil {
		return nil, err
	}
	if err = f.Chmod(0o644); err != nil {
		return nil, err
	}
	if err = f.Close(); err != nil {
		return nil, err
	}
	return &Staged{temp: f.Name(), target: target, dir: dir}, nil
}

// Path is where the staged bytes are until Commit: a file to read back.
func (s *Staged) Path() string { return s.temp }

// Commit renames the staged file over its target, durably.
func (s *Staged) Commit() error {
	if err := os.Rename(s.temp, s.target); err != nil {
		os.Remove(s.temp)
		return err
	}
	if d, err := os.Open(s.dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort removes the staged file; the target is untouched.
func (s *Staged) Abort() { os.Remove(s.temp) }

// tempPrefix is the start of the names of base's temporary files: ".base.tmp-", followed by
// the writer's process id, a dash and a random suffix.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// RemoveStale removes from dir the temporary files of any target that writers which no
// longer run left behind (a process killed mid-write), so that a directory of many
// targets, such as a directory of tables, does not collect them.
func RemoveStale(dir string) { removeStale(dir, "") }

// removeStale removes temporary files of base (of any target for "") left by writers that
// no longer run.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if base == "" {
			_, rest, ok = strings.Cut(e.Name(), ".tmp-")
			ok = ok && strings.HasPrefix(e.Name(), ".")
		}
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
