// Package data is the toolkit's tables on disk and in the binary: the default tables,
// embedded in every binary (both 4x4 walking-distance tables, the IDA15 pattern databases
// and the 6-6-3 additive set of Korf & Felner 2002, packed, 1 MB; docs/FORMAT.md, "The
// default tables"), and the installed sets from build to load: their file names, the
// directories searched (sets.go), installing them atomically with a read-back check
// (install.go), and accepting only tables whose values are known (digests.go).
//
// The embedded files are exactly what `pdbgen build --out data` writes; a test proves
// them byte-identical to a fresh build. Loading checks every checksum.
package data

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/wd"
)

//go:embed *.tbl
var embedded embed.FS

// A Spec names one default table and says how to build it (Build). It holds data, not
// functions, so that a program that only reads tables (the page's WebAssembly) does not
// link the builders.
type Spec struct {
	File  string     // file name, such as "wd-blank-last.tbl"
	goal  board.Goal // walking distance: the goal
	tiles []int      // IDA15: the pattern's tiles, with the blank
	set   *pdb.SetSpec
	table int // of set
}

// File names of the default tables.
const (
	WDBlankLast  = "wd-blank-last.tbl"
	WDBlankFirst = "wd-blank-first.tbl"
	PDBSmall     = "pdb-11-12-15+blank.tbl"
	PDBLarge     = "pdb-1-2-5-6+blank.tbl"
)

// EmbeddedSet is the additive set embedded beside the default tables: the strongest whose
// files are small (two 6-tile tables and a 3-tile one, 1 MB), which solves Korf's 100
// about four times faster than IDA15 and walking distance (docs/RESULTS.md).
var EmbeddedSet = pdb.Set663

// Specs lists the default tables in the order `pdbgen build` writes them.
var Specs = append([]Spec{
	{File: WDBlankLast, goal: board.BlankLast(board.Size4x4)},
	{File: WDBlankFirst, goal: board.BlankFirst(board.Size4x4)},
	{File: PDBSmall, tiles: pdb.IDA15Small},
	{File: PDBLarge, tiles: pdb.IDA15Large},
}, setSpecs(EmbeddedSet)...)

// setSpecs returns the specs of a set's packed tables.
func setSpecs(set pdb.SetSpec) []Spec {
	var out []Spec
	for t := range set.Tables {
		out = append(out, Spec{File: SetFile(set, t), set: &set, table: t})
	}
	return out
}

// Build builds the table as a table file.
func (s Spec) Build(ctx context.Context, opt bfs.Options) (*tablefile.Table, error) {
	switch {
	case s.set != nil:
		packed, err := s.set.BuildTable(ctx, s.table, opt)
		if err != nil {
			return nil, err
		}
		return packed.File()
	case s.tiles != nil:
		p, err := pdb.NewPattern(board.BlankLast(board.Size4x4), s.tiles, true)
		if err != nil {
			return nil, err
		}
		t, err := pdb.Build(ctx, p, opt)
		if err != nil {
			return nil, err
		}
		return t.File()
	}
	t, err := wd.BuildRows(ctx, s.goal, opt.Workers)
	if err != nil {
		return nil, err
	}
	return t.File(s.goal)
}

// Tables is the default set, ready for search.
type Tables struct {
	WDLast  *wd.Table // rows (and columns) of the blank-last goal
	WDFirst *wd.Table // rows (and columns) of the blank-first goal
	IDA15   *pdb.IDA15
	Source  string // "embedded" or the directory they were read from
	// Digests are the SHA-256 of each file's decoded payload, by file name.
	Digests map[string][32]byte
}

// Embedded returns the raw bytes of an embedded default table file.
func Embedded(name string) ([]byte, error) { return embedded.ReadFile(name) }

var (
	once    sync.Once
	loaded  *Tables
	errLoad error
)

// Default returns the embedded tables, decoded and checked once per process.
func Default() (*Tables, error) {
	once.Do(func() { loaded, errLoad = load("embedded", openEmbedded) })
	return loaded, errLoad
}

// An opener reads and checks the table file of that name, and names it in its errors.
type opener func(name string) (*tablefile.Table, error)

// openEmbedded opens an embedded table file.
func openEmbedded(name string) (*tablefile.Table, error) {
	raw, err := embedded.ReadFile(name)
	if err == nil {
		var t *tablefile.Table
		if t, err = tablefile.Decode(bytes.NewReader(raw)); err == nil {
			return t, nil
		}
	}
	return nil, fmt.Errorf("embedded %s: %w", name, err)
}

// openIn returns the opener of the table files in dir: read with tablefile's bounds, and
// accepted only when their values are known (trusted).
func openIn(dir string) opener {
	return func(name string) (*tablefile.Table, error) {
		path := filepath.Join(dir, name)
		t, err := tablefile.Read(path)
		if err != nil {
			return nil, err
		}
		return t, trusted(path, name, t)
	}
}

// HasDefaults reports whether dir holds a file of every default table that LoadDir reads
// (the walking-distance and IDA15 tables; the embedded set is read as a set).
func HasDefaults(dir string) bool {
	for _, s := range Specs[:4] {
		if info, err := os.Stat(filepath.Join(dir, s.File)); err != nil || !info.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// LoadDir reads the default set from the files in dir (as written by `pdbgen build`).
// Any file that is missing or fails its checks is an error naming the file.
func LoadDir(dir string) (*Tables, error) { return load(dir, openIn(dir)) }

func load(source string, open opener) (*Tables, error) {
	files := map[string]*tablefile.Table{}
	for _, s := range Specs[:4] { // the embedded set is loaded on demand
		t, err := open(s.File)
		if err != nil {
			return nil, fmt.Errorf("default table: %w", err)
		}
		files[s.File] = t
	}
	tabs := &Tables{Source: source, Digests: map[string][32]byte{}}
	for name, t := range files {
		tabs.Digests[name] = t.DecodedSHA
	}
	var err error
	wantWD := map[string]board.Goal{WDBlankLast: board.BlankLast(board.Size4x4), WDBlankFirst: board.BlankFirst(board.Size4x4)}
	for name, dst := range map[string]**wd.Table{WDBlankLast: &tabs.WDLast, WDBlankFirst: &tabs.WDFirst} {
		var goal board.Goal
		if *dst, goal, err = wd.Load(files[name]); err != nil {
			return nil, fmt.Errorf("default table %s: %w", name, err)
		}
		if !goal.Equal(wantWD[name]) {
			return nil, fmt.Errorf("default table %s: goal is %s, want %s", name, goal.Name(), wantWD[name].Name())
		}
	}
	small, err := pdb.Load(files[PDBSmall])
	if err != nil {
		return nil, fmt.Errorf("default table %s: %w", PDBSmall, err)
	}
	large, err := pdb.Load(files[PDBLarge])
	if err != nil {
		return nil, fmt.Errorf("default table %s: %w", PDBLarge, err)
	}
	if tabs.IDA15, err = pdb.NewIDA15(small, large); err != nil {
		return nil, err
	}
	return tabs, nil
}
