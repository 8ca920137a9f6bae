package data

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// EnvTables names the environment variable that lists directories of installed tables,
// separated as PATH is ($TILEKIT_TABLES).
const EnvTables = "TILEKIT_TABLES"

// ErrNotInstalled reports a set whose tables are in none of the table directories.
var ErrNotInstalled = errors.New("data: tables not installed")

// TableDirs returns the directories searched for installed tables, in order: those of
// $TILEKIT_TABLES, then tilekit/tables in the user's cache directory (on Linux
// ~/.cache/tilekit/tables). `pdbgen build --set` writes into the first.
func TableDirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv(EnvTables)) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	if cache, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(cache, "tilekit", "tables"))
	}
	return dirs
}

// InstallDir returns the directory `pdbgen build --set` writes into by default.
func InstallDir() (string, error) {
	dirs := TableDirs()
	if len(dirs) == 0 {
		return "", fmt.Errorf("data: no directory for tables: set $%s or $HOME", EnvTables)
	}
	return dirs[0], nil
}

// Installed reports which sets have all their files in one of dirs (nil: TableDirs),
// without reading them, and where.
func Installed(dirs []string) map[string]string {
	if dirs == nil {
		dirs = TableDirs()
	}
	out := map[string]string{}
	for _, spec := range pdb.Sets {
		for _, dir := range dirs {
			if hasAll(dir, spec) {
				out[spec.Name] = dir
				break
			}
		}
	}
	return out
}

func hasAll(dir string, spec pdb.SetSpec) bool {
	for t := range spec.Tables {
		if info, err := os.Stat(filepath.Join(dir, spec.File(t))); err != nil || !info.Mode().IsRegular() {
			return false
		}
	}
	return true
}

var (
	setsMu sync.Mutex
	sets   = map[string]*pdb.Set{} // loaded sets by directory and name
)

// LoadSet reads the named set from the first of dirs (nil: TableDirs) that holds all its
// files, checking every file as it reads it. A set is read once per process. When no
// directory holds it, the error says where it looked and which command builds it.
func LoadSet(name string, dirs []string) (*pdb.Set, error) {
	spec, err := pdb.SetByName(name)
	if err != nil {
		return nil, err
	}
	if dirs == nil {
		dirs = TableDirs()
	}
	for _, dir := range dirs {
		if !hasAll(dir, spec) {
			continue
		}
		key := dir + "\x00" + name
		setsMu.Lock()
		defer setsMu.Unlock()
		if s := sets[key]; s != nil {
			return s, nil
		}
		s, err := ReadSet(dir, spec)
		if err != nil {
			return nil, err
		}
		sets[key] = s
		return s, nil
	}
	if name == EmbeddedSet.Name {
		return embeddedSet()
	}
	return nil, fmt.Errorf("%w: the %s tables are in none of %s; build them (once) with: pdbgen build --set %s",
		ErrNotInstalled, name, strings.Join(dirs, ", "), name)
}

var (
	embeddedOnce sync.Once
	embeddedTabs *pdb.Set
	embeddedErr  error
)

// embeddedSet returns the embedded set, read once per process.
func embeddedSet() (*pdb.Set, error) {
	embeddedOnce.Do(func() {
		set := &pdb.Set{SetSpec: EmbeddedSet}
		for t := range EmbeddedSet.Tables {
			raw, err := embedded.ReadFile(EmbeddedSet.File(t))
			if err != nil {
				embeddedErr = err
				return
			}
			f, err := tablefile.Decode(bytes.NewReader(raw))
			if err != nil {
				embeddedErr = fmt.Errorf("embedded %s: %w", EmbeddedSet.File(t), err)
				return
			}
			packed, err := pdb.LoadPacked(f)
			if err != nil {
				embeddedErr = fmt.Errorf("embedded %s: %w", EmbeddedSet.File(t), err)
				return
			}
			set.Tables = append(set.Tables, packed)
		}
		embeddedTabs = set
	})
	return embeddedTabs, embeddedErr
}

// Available reports whether a set can be loaded: installed in one of dirs (nil:
// TableDirs), or embedded.
func Available(name string, dirs []string) bool {
	if name == EmbeddedSet.Name {
		return true
	}
	_, ok := Installed(dirs)[name]
	return ok
}

// ReadSet reads the files of a set from dir and checks that they are its tables.
func ReadSet(dir string, spec pdb.SetSpec) (*pdb.Set, error) {
	set := &pdb.Set{SetSpec: spec}
	for t := range spec.Tables {
		path := filepath.Join(dir, spec.File(t))
		f, err := tablefile.Read(path)
		if err != nil {
			return nil, err
		}
		if !f.Goal.Equal(spec.Goal.Tiles()) || fmt.Sprint(f.Tiles) != fmt.Sprint(spec.Tables[t]) {
			return nil, fmt.Errorf("%s: holds tiles %v for goal %v, not the %s set's tiles %v for goal %v",
				path, f.Tiles, f.Goal, spec.Name, spec.Tables[t], spec.Goal.Tiles())
		}
		packed, err := pdb.LoadPacked(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		set.Tables = append(set.Tables, packed)
	}
	return set, nil
}
