package data

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// A set's files are installed all or nothing, even across a crash (a SIGKILL between two
// renames), and keep their names and places at the top of the directory:
//
//  1. the new files are written and read back beside their targets (staged);
//  2. the set's manifest (set-NAME.manifest: each file and the digest of its values) is
//     written for the files in place, if it has none and they are all there;
//  3. each file in place is renamed to a backup (.FILE.prev) and the new one into place;
//  4. the new manifest is written: the commit;
//  5. the backups are removed.
//
// A reader takes each file the manifest lists at its place when its digest is the
// manifest's, else from the backup when that one's is (an install interrupted before its
// commit: the old set, whole), else at its place (a directory without a manifest, or a
// file that another set's install replaced, as today).

// manifestMagic starts a manifest.
const manifestMagic = "tilekit set manifest 1"

// manifestFile is the name of spec's manifest.
func manifestFile(spec pdb.SetSpec) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, spec.Name)
	return "set-" + name + ".manifest"
}

// backupFile is where a file in place waits while an install puts a new one there.
func backupFile(name string) string { return "." + name + ".prev" }

// manifest is a set's files and the digests of their values (decoded-sha256).
type manifest map[string][32]byte

// readManifest reads spec's manifest in dir: nil when there is none, or it cannot be read
// (a reader then takes the files in place, as before manifests).
func readManifest(dir string, spec pdb.SetSpec) manifest {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile(spec)))
	if err != nil || len(b) > 1<<16 {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != manifestMagic {
		return nil
	}
	m := manifest{}
	for sc.Scan() {
		file, digest, ok := strings.Cut(sc.Text(), " ")
		d, err := hex.DecodeString(digest)
		if !ok || err != nil || len(d) != 32 {
			return nil
		}
		m[file] = [32]byte(d)
	}
	return m
}

// write writes the manifest for spec in dir, atomically.
func (m manifest) write(dir string, spec pdb.SetSpec) error {
	var b strings.Builder
	b.WriteString(manifestMagic + "\n")
	for t := range spec.Tables {
		name := SetFile(spec, t)
		d := m[name]
		fmt.Fprintf(&b, "%s %x\n", name, d[:])
	}
	return atomicfile.Write(context.Background(), filepath.Join(dir, manifestFile(spec)), []byte(b.String()))
}

// digestOf returns the digest of the values of the table file at path (from its header).
func digestOf(path string) ([32]byte, error) {
	h, err := tablefile.ReadHeader(path)
	if err != nil {
		return [32]byte{}, err
	}
	return h.DecodedSHA, nil
}

// setPath returns where the file name of spec is read from in dir: its place, or its
// backup where the manifest says the backup holds the set's values.
func setPath(dir string, spec pdb.SetSpec, m manifest, name string) string {
	path := filepath.Join(dir, name)
	want, listed := m[name]
	if !listed {
		return path
	}
	if d, err := digestOf(path); err == nil && d == want {
		return path
	}
	backup := filepath.Join(dir, backupFile(name))
	if d, err := digestOf(backup); err == nil && d == want {
		return backup
	}
	return path
}

// missing returns the files of spec that dir holds neither in place nor (where its
// manifest lists them) in a backup; with none missing, the set is there.
func missing(dir string, spec pdb.SetSpec) []string {
	m := readManifest(dir, spec)
	var out []string
	for t := range spec.Tables {
		name := SetFile(spec, t)
		if info, err := os.Stat(setPath(dir, spec, m, name)); err != nil || !info.Mode().IsRegular() {
			out = append(out, name)
		}
	}
	return out
}

// setCommit is the commit of a set's staged files (group.finish): steps 2 to 5 above.
// crashAt, for the tests, stops it after that many steps (renames and writes), as a
// SIGKILL there would; -1: never.
var crashAt = -1

// errCrashed is the tests' crash.
var errCrashed = errors.New("data: crashed on purpose (tests)")

func commitSet(dir string, spec pdb.SetSpec, staged map[string]*atomicfile.Staged, digests manifest) error {
	step := 0
	crash := func() bool {
		step++
		return crashAt >= 0 && step > crashAt
	}
	// 2: the files in place described, if they are a whole set without a manifest.
	if readManifest(dir, spec) == nil {
		old := manifest{}
		for t := range spec.Tables {
			name := SetFile(spec, t)
			if d, err := digestOf(filepath.Join(dir, name)); err == nil {
				old[name] = d
			}
		}
		if len(old) == len(spec.Tables) {
			if crash() {
				return errCrashed
			}
			if err := old.write(dir, spec); err != nil {
				return err
			}
		}
	}
	// 3: each file in place to its backup, and the new one in place.
	for t := range spec.Tables {
		name := SetFile(spec, t)
		s := staged[name]
		if s == nil {
			continue
		}
		path := filepath.Join(dir, name)
		if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() { // a link: replaced through it, as before
			if crash() {
				return errCrashed
			}
			if err := os.Rename(path, filepath.Join(dir, backupFile(name))); err != nil {
				return err
			}
		}
		if crash() {
			return errCrashed
		}
		if err := s.Commit(); err != nil {
			return err
		}
	}
	// 4: the commit.
	if crash() {
		return errCrashed
	}
	if err := digests.write(dir, spec); err != nil {
		return err
	}
	// 5: the backups.
	for name := range staged {
		if crash() {
			return errCrashed
		}
		if err := os.Remove(filepath.Join(dir, backupFile(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
