package data

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// EnvTables names the environment variable that lists directories of installed tables,
// separated as PATH is ($TILEKIT_TABLES).
const EnvTables = "TILEKIT_TABLES"

// SetFile returns the file name of table t of a set, such as "pdb-4x4-1-2-3-4-5-6-7-8.tbl":
// the board, then the table's tiles ("zpdb-..." for a zero-aware table).
func SetFile(spec pdb.SetSpec, t int) string {
	parts := make([]string, len(spec.Tables[t]))
	for i, tile := range spec.Tables[t] {
		parts[i] = fmt.Sprint(tile)
	}
	kind := "pdb"
	if spec.ZeroAware {
		kind = "zpdb"
	}
	return fmt.Sprintf("%s-%s-%s.tbl", kind, spec.Size(), strings.Join(parts, "-"))
}

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

// InstalledSummary says, for people, which sets are installed where, or where none was
// found.
func InstalledSummary() string {
	dirs := TableDirs()
	installed := Installed(dirs)
	if len(installed) == 0 {
		return fmt.Sprintf("On this machine no set is installed (looked in %s).", strings.Join(dirs, ", "))
	}
	var parts []string
	for _, spec := range pdb.Sets {
		if dir, ok := installed[spec.Name]; ok {
			parts = append(parts, spec.Name+" in "+dir)
		}
	}
	return "Installed on this machine: " + strings.Join(parts, "; ") + "."
}

// Available reports, without reading any table, whether LoadSpec would find spec's
// tables: given to AddSet, with all their files in one of dirs (nil: TableDirs), or
// embedded. (LoadSpec may still refuse files that are there.)
func Available(spec pdb.SetSpec, dirs []string) bool {
	_, _, ok := locate(spec, dirs)
	return ok
}

// A place is where LoadSpec takes a set's tables from: a set given to AddSet (set), the
// directory that holds all its files (dir), or the embedded set.
type place struct {
	set      *pdb.Set
	dir      string
	embedded bool
}

// locate finds where LoadSpec takes spec's tables from, reading none: a set given to
// AddSet, else the first of dirs (nil: TableDirs) that holds all its files, else the
// embedded set; ok is false when there is none. It returns dirs as it searched them.
func locate(spec pdb.SetSpec, dirs []string) (p place, searched []string, ok bool) {
	if s := fromMemory(spec.Name); s != nil {
		return place{set: s}, dirs, true
	}
	if dirs == nil {
		dirs = TableDirs()
	}
	for _, dir := range dirs {
		if hasAll(dir, spec) {
			return place{dir: dir}, dirs, true
		}
	}
	return place{embedded: true}, dirs, spec.Name == EmbeddedSet.Name
}

// hasAll reports whether dir holds every file of spec, in place or, where its manifest
// says so, in a backup (manifest.go).
func hasAll(dir string, spec pdb.SetSpec) bool { return len(missing(dir, spec)) == 0 }

// partly describes the directories of dirs that hold some of spec's files but not all,
// naming the files missing, for the error of a set not installed ("" for none).
func partly(dirs []string, spec pdb.SetSpec) string {
	var out []string
	for _, dir := range dirs {
		if m := missing(dir, spec); len(m) > 0 && len(m) < len(spec.Tables) {
			out = append(out, fmt.Sprintf("%s lacks %s", dir, strings.Join(m, ", ")))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

var (
	setsMu sync.Mutex
	sets   = map[string]*pdb.Set{} // loaded sets by directory and name
)

// LoadSet reads the named set from the first of dirs (nil: TableDirs) that holds all its
// files, checking every file as it reads it, and says where it came from: FromMemory for
// a set given to AddSet, that directory, or "embedded" for the set built into the binary
// when no directory holds it. A set is
// read once per process. When it is found nowhere, the error (ErrNotInstalled) says where
// it looked and which command builds it.
func LoadSet(name string, dirs []string) (set *pdb.Set, from string, err error) {
	spec, err := pdb.SetByName(name)
	if err != nil {
		return nil, "", err
	}
	return LoadSpec(spec, dirs)
}

// LoadSpec reads the tables of spec (a named set, or a catalogue of a file) as LoadSet
// does.
func LoadSpec(spec pdb.SetSpec, dirs []string) (set *pdb.Set, from string, err error) {
	p, dirs, ok := locate(spec, dirs)
	switch {
	case !ok:
		return nil, "", fmt.Errorf("%w: the %s tables are in none of %s%s; build them (once) with: %s",
			ErrNotInstalled, spec.Name, strings.Join(dirs, ", "), partly(dirs, spec), buildCommand(spec))
	case p.set != nil:
		return p.set, FromMemory, nil
	case p.embedded:
		set, err := embeddedSet()
		return set, "embedded", err
	}
	key := p.dir + "\x00" + spec.Name
	setsMu.Lock()
	defer setsMu.Unlock()
	if s := sets[key]; s != nil {
		return s, p.dir, nil
	}
	s, err := ReadSet(p.dir, spec)
	if err != nil {
		return nil, "", fmt.Errorf("%w; build the set again with: %s --out %s", err, buildCommand(spec), p.dir)
	}
	sets[key] = s
	return s, p.dir, nil
}

// buildCommand is the command that builds spec's tables.
func buildCommand(spec pdb.SetSpec) string {
	if _, err := pdb.SetByName(spec.Name); err != nil { // a catalogue of a file, not a named set
		return fmt.Sprintf("pdbgen build --catalogue FILE --board %s (FILE the catalogue's file)", spec.Size())
	}
	return "pdbgen build --set " + spec.Name
}

var (
	embeddedOnce sync.Once
	embeddedTabs *pdb.Set
	embeddedErr  error
)

// embeddedSet returns the embedded set, read once per process.
func embeddedSet() (*pdb.Set, error) {
	embeddedOnce.Do(func() {
		embeddedTabs, embeddedErr = readSet(EmbeddedSet, func(name string) string { return "embedded " + name }, openEmbedded)
	})
	return embeddedTabs, embeddedErr
}

// ReadSet reads the files of a set from dir and checks that they are its tables.
func ReadSet(dir string, spec pdb.SetSpec) (*pdb.Set, error) {
	m := readManifest(dir, spec)
	return readSet(spec, func(name string) string { return filepath.Join(dir, name) }, func(name string) (*tablefile.Table, error) {
		path := setPath(dir, spec, m, name) // in place, or an interrupted install's backup
		t, err := tablefile.Read(path)
		if err != nil {
			return nil, err
		}
		return t, trusted(filepath.Join(dir, name), name, t)
	})
}

// readSet reads the tables of a set through open (given the name of one of its files, and
// naming it in its errors) and checks that they are its tables; its own errors name the
// file as label does.
func readSet(spec pdb.SetSpec, label func(name string) string, open opener) (*pdb.Set, error) {
	set := &pdb.Set{SetSpec: spec}
	for t := range spec.Tables {
		name := SetFile(spec, t)
		f, err := open(name)
		if err != nil {
			return nil, err
		}
		if !f.Goal.Equal(spec.Goal.Tiles()) || fmt.Sprint(f.Tiles) != fmt.Sprint(spec.Tables[t]) {
			return nil, fmt.Errorf("%s: holds tiles %v for goal %v, not the %s set's tiles %v for goal %v",
				label(name), f.Tiles, f.Goal, spec.Name, spec.Tables[t], spec.Goal.Tiles())
		}
		packed, err := pdb.LoadPacked(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label(name), err)
		}
		if (packed.Zero != nil) != spec.ZeroAware {
			return nil, fmt.Errorf("%s: index %s, but the %s set's tables are %s", label(name), f.Index, spec.Name,
				map[bool]string{true: "zero-aware", false: "Korf & Felner's (the least over the regions)"}[spec.ZeroAware])
		}
		set.Tables = append(set.Tables, packed)
	}
	return set, nil
}

// ReadCatalogue reads the catalogue file at path (pdb.ParseCatalogue) for the canonical
// goal of size, the one the sets use: blank-last on 4x4, blank-first otherwise. On a
// square board each partition's reflection about the main diagonal is added.
func ReadCatalogue(path string, size board.Size) (pdb.SetSpec, error) {
	text, err := CatalogueText(path)
	if err != nil {
		return pdb.SetSpec{}, err
	}
	return ParseCatalogue(text, path, size)
}

// ParseCatalogue reads a catalogue from its text (the contents of its file, named name in
// errors) as ReadCatalogue does.
func ParseCatalogue(text, name string, size board.Size) (pdb.SetSpec, error) {
	goal := board.BlankFirst(size)
	if size == board.Size4x4 {
		goal = board.BlankLast(size)
	}
	return pdb.ParseCatalogue(strings.NewReader(text), name, goal, size.W == size.H)
}

// CatalogueText returns the contents of the catalogue file at path: a regular file (a
// named pipe could keep the reader waiting) of at most pdb.MaxCatalogueBytes.
func CatalogueText(path string) (string, error) {
	regular := func(info os.FileInfo, err error) error {
		if err == nil && !info.Mode().IsRegular() {
			err = fmt.Errorf("%s is not a regular file", path)
		}
		return err
	}
	if err := regular(os.Stat(path)); err != nil { // before opening: a named pipe's open waits
		return "", fmt.Errorf("catalogue: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("catalogue: %w", err)
	}
	defer f.Close()
	if err := regular(f.Stat()); err != nil { // replaced meanwhile
		return "", fmt.Errorf("catalogue: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, pdb.MaxCatalogueBytes+1))
	if err != nil {
		return "", fmt.Errorf("catalogue: %w", err)
	}
	if len(b) > pdb.MaxCatalogueBytes {
		return "", fmt.Errorf("catalogue: %s is larger than %d bytes", path, pdb.MaxCatalogueBytes)
	}
	return string(b), nil
}
