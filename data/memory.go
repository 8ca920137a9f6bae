package data

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

// Sets can also come as bytes, from wherever a caller got them (the page downloads them):
// AddSet checks them as the files of an installed set are checked, and LoadSet then finds
// them before looking on disk.

// FromMemory is where LoadSet says a set added with AddSet came from.
const FromMemory = "loaded"

// MaxSetFile bounds one file given to AddSet: the largest set file, 7-8's 8-tile table, is
// 36 MB.
const MaxSetFile = 256 << 20

var (
	memoryMu sync.Mutex
	memory   = map[string]*pdb.Set{}
)

// AddSet reads the named set from the contents of its files (by file name, SetFile), with
// every check that reading them from a directory makes: each file's integrity, that it
// holds the set's table, and that its values are those pdbgen builds. LoadSet then returns
// the set, from FromMemory.
func AddSet(name string, files map[string][]byte) (*pdb.Set, error) {
	spec, err := pdb.SetByName(name)
	if err != nil {
		return nil, err
	}
	for file, b := range files {
		if len(b) > MaxSetFile {
			return nil, fmt.Errorf("%s: %d bytes, more than a set file has (%d)", file, len(b), MaxSetFile)
		}
	}
	// The board's automaton may come with the set (SetFiles): checked as a file would be.
	depth := prune.DefaultDepth(spec.Size())
	if file := AutomatonFile(spec.Size(), depth); files[file] != nil {
		t, err := tablefile.Decode(bytes.NewReader(files[file]))
		var a *prune.Automaton
		if err == nil {
			a, err = checkedAutomaton(file, file, t)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		automata.Lock()
		remember(automatonKey{spec.Size(), depth}, a, FromMemory, "")
		automata.Unlock()
	}
	set, err := readSet(spec, func(file string) string { return file }, func(file string) (*tablefile.Table, error) {
		b, ok := files[file]
		if !ok {
			return nil, fmt.Errorf("%s: missing from the %s set's files", file, name)
		}
		t, err := tablefile.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return t, trusted(file, file, t)
	})
	if err != nil {
		return nil, err
	}
	memoryMu.Lock()
	memory[name] = set
	memoryMu.Unlock()
	return set, nil
}

// Loaded returns the names of the sets added with AddSet, sorted.
func Loaded() []string {
	memoryMu.Lock()
	defer memoryMu.Unlock()
	var names []string
	for n := range memory {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// fromMemory returns a set added with AddSet, or nil.
func fromMemory(name string) *pdb.Set {
	memoryMu.Lock()
	defer memoryMu.Unlock()
	return memory[name]
}

// SetFiles returns the raw contents of an installed set's files, by file name, after
// LoadSet has read and checked them (so that a copy is of trusted files), and the
// directory they came from; with them the board's automaton (AutomatonFile of its
// prune.DefaultDepth), when it is installed beside them and trusted, so that the set's searches
// need not build it.
func SetFiles(name string, dirs []string) (map[string][]byte, string, error) {
	spec, err := pdb.SetByName(name)
	if err != nil {
		return nil, "", err
	}
	_, from, err := LoadSet(name, dirs)
	if err != nil {
		return nil, "", err
	}
	out := map[string][]byte{}
	for t := range spec.Tables {
		file := SetFile(spec, t)
		var b []byte
		if from == "embedded" {
			b, err = Embedded(file)
		} else {
			b, err = os.ReadFile(filepath.Join(from, file))
		}
		if err != nil {
			return nil, "", err
		}
		out[file] = b
	}
	if from != "embedded" {
		file := AutomatonFile(spec.Size(), prune.DefaultDepth(spec.Size()))
		path := filepath.Join(from, file)
		if _, err := readAutomaton(path, file); err == nil {
			if b, err := os.ReadFile(path); err == nil {
				out[file] = b
			}
		}
	}
	return out, from, nil
}
