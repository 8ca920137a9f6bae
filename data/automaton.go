package data

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

// PruningDepth returns the depth of the duplicate-pruning automaton a board's searches
// build in memory when none is installed, and the page takes with a set: 14 on 5x5, 12 on
// every other board. docs/RESULTS.md ("Pruning duplicate paths") measures the depths: on
// 4x4 deeper automata leave the caches and each node costs more; on 5x5 this is the
// deepest built in seconds.
func PruningDepth(size board.Size) int {
	if size == board.Size5x5 {
		return 14
	}
	return 12
}

// InstallDepth returns the depth of the automaton pdbgen build installs for a board by
// default: 18 on 5x5 (1.5 minutes and 2.7 GB to build, 69 MB in memory; 14% fewer
// expanded nodes than depth 14 on twelve of Korf's instances, though each costs more),
// PruningDepth on the others.
func InstallDepth(size board.Size) int {
	if size == board.Size5x5 {
		return 18
	}
	return PruningDepth(size)
}

// InstallDepths returns the depths of the automata pdbgen build installs for a board when
// not told one: InstallDepth for the searches and, when it differs, PruningDepth for the
// page, which takes that one with a set (SetFiles).
func InstallDepths(size board.Size) []int {
	if d := InstallDepth(size); d != PruningDepth(size) {
		return []int{d, PruningDepth(size)}
	}
	return []int{PruningDepth(size)}
}

// AutomatonFile names the file of a board's automaton of the given depth:
// prune-5x5-d14.tbl.
func AutomatonFile(size board.Size, depth int) string {
	return fmt.Sprintf("prune-%s-d%d.tbl", size, depth)
}

// automata holds the automata read or built in this process, by board and depth, with
// where each came from and the note that went with it.
var automata struct {
	sync.Mutex
	got map[automatonKey]kept
}

type kept struct {
	a          *prune.Automaton
	from, note string
}

type automatonKey struct {
	size  board.Size
	depth int
}

// Where an automaton came from, besides a directory (Automaton).
const (
	AutomatonBuilt    = "built in memory"
	AutomatonEmbedded = "embedded"
)

// An automaton is embedded in the binary (and the page) when its file is small: at most
// 64 KiB, a twentieth of the embedded tables. The 4x4 board's (54 KB) is; the 5x5 board's
// (1.1 MB) is installed by pdbgen build, or built in memory in seconds.
const embedAutomatonBytes = 64 << 10

// inBrowser is true in WebAssembly for the page, where building the 5x5 automaton would
// take a tab 200 MB and many seconds: there it comes with a set (SetFiles), or the search
// prunes the move back alone.
const inBrowser = runtime.GOOS == "js"

// Automaton returns the board's duplicate-pruning automaton of the given depth and where
// it came from: the first of dirs (nil: TableDirs) that holds its file (AutomatonFile),
// checked as every table is (a known digest or a record of pdbgen verify); else it is
// built here (package prune: milliseconds on 4x4, seconds on 5x5 at PruningDepth), and
// note says why, for people. Either way it is kept for the process. Depth 0 asks for the
// deepest automaton installed in dirs, if it is deeper than the board's PruningDepth, and
// else for PruningDepth. In the page (WebAssembly) an automaton of more than 16 cells is
// not built: Automaton returns nil and a note, and the search prunes the move back alone.
func Automaton(ctx context.Context, size board.Size, depth int, dirs []string) (a *prune.Automaton, from, note string, err error) {
	if dirs == nil {
		dirs = TableDirs()
	}
	automata.Lock()
	defer automata.Unlock()
	var deeper string // why an installed deeper automaton was passed over
	if depth == 0 {
		depth = PruningDepth(size)
		for d := prune.MaxDepth; d > depth; d-- {
			if !installed(dirs, size, d) {
				continue
			}
			a, from, problem := fromDirs(automatonKey{size, d}, dirs)
			if a != nil {
				return a, from, "", nil
			}
			if deeper == "" && problem != "" {
				deeper = fmt.Sprintf("%s; depth %d instead", problem, depth)
			}
		}
	}
	key := automatonKey{size, depth}
	if k, ok := automata.got[key]; ok {
		return k.a, k.from, cmp.Or(deeper, k.note), nil
	}
	a, from, problem := fromDirs(key, dirs)
	if a != nil {
		return a, from, deeper, nil
	}
	name := AutomatonFile(size, depth)
	switch {
	case deeper != "":
		note = deeper
	case problem != "":
		note = problem + "; built again instead"
	case InstallDepth(size) != depth && depth == PruningDepth(size):
		note = fmt.Sprintf("no automaton installed (pdbgen build --pruning --board %s installs the one of depth %d, which prunes more)", size, InstallDepth(size))
	default:
		note = fmt.Sprintf("no %s installed (pdbgen build --pruning --board %s --pruning-depth %d installs it)", name, size, depth)
	}
	if b, err := embedded.ReadFile(name); err == nil {
		t, err := tablefile.Decode(bytes.NewReader(b))
		if err == nil {
			a, err = checkedAutomaton(name, name, t)
		}
		if err != nil {
			return nil, "", "", fmt.Errorf("the embedded %s: %w", name, err)
		}
		return remember(key, a, AutomatonEmbedded, ""), AutomatonEmbedded, deeper, nil
	}
	if inBrowser && size.Cells() > 16 {
		return nil, "", note + "; the page prunes the move back alone", nil
	}
	a, err = prune.Build(ctx, size, depth)
	if err != nil {
		return nil, "", "", err
	}
	return remember(key, a, AutomatonBuilt, note), AutomatonBuilt, note, nil
}

// fromDirs returns the automaton of key kept for the process, or read from the first of
// dirs that holds its file, and the directory; or nil and, when a file was there but
// refused, what was wrong with it, for people. The caller holds automata's lock.
func fromDirs(key automatonKey, dirs []string) (a *prune.Automaton, dir, problem string) {
	if k, ok := automata.got[key]; ok && k.from != AutomatonBuilt && k.from != AutomatonEmbedded {
		return k.a, k.from, ""
	}
	name := AutomatonFile(key.size, key.depth)
	for _, dir := range dirs {
		path := filepath.Join(dir, name)
		a, err := readAutomaton(path, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", err.Error()
		}
		if a.Size() != key.size || a.Depth() != key.depth {
			return nil, "", fmt.Sprintf("%s holds the automaton of depth %d on %s", path, a.Depth(), a.Size())
		}
		return remember(key, a, dir, ""), dir, ""
	}
	return nil, "", ""
}

// installed reports whether one of dirs holds a file of the board's automaton of depth.
func installed(dirs []string, size board.Size, depth int) bool {
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, AutomatonFile(size, depth))); err == nil {
			return true
		}
	}
	return false
}

// remember keeps an automaton for the process; the caller holds automata's lock.
func remember(key automatonKey, a *prune.Automaton, from, note string) *prune.Automaton {
	if automata.got == nil {
		automata.got = map[automatonKey]kept{}
	}
	automata.got[key] = kept{a, from, note}
	return a
}

// readAutomaton reads the automaton file at path, accepting it only when its values are
// known (trusted) and it is well formed.
func readAutomaton(path, name string) (*prune.Automaton, error) {
	t, err := tablefile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return checkedAutomaton(path, name, t)
}

// checkedAutomaton accepts the prune table t, read from path under the file name name,
// when its values are known (trusted) and it is well formed: the one check of an
// automaton from a directory, the binary or a page's download.
func checkedAutomaton(path, name string, t *tablefile.Table) (*prune.Automaton, error) {
	if err := trusted(path, name, t); err != nil {
		return nil, err
	}
	a, err := prune.FromFile(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// InstallAutomaton builds the board's automaton of the given depth (0: InstallDepth) into
// dir ("" for InstallDir()), created if missing, written atomically and read back. It
// returns the file's path and the table. progress, if not nil, hears of the build's steps.
func InstallAutomaton(ctx context.Context, size board.Size, depth int, dir string, progress prune.Progress) (string, *tablefile.Table, error) {
	if depth == 0 {
		depth = InstallDepth(size)
	}
	if depth < 2 {
		return "", nil, fmt.Errorf("no automaton to install for the %s board at depth %d: its searches prune the move back alone", size, depth)
	}
	dir, err := installDir(dir)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, AutomatonFile(size, depth))
	if err := CheckTargets(path); err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	a, err := prune.BuildProgress(ctx, size, depth, progress)
	if err != nil {
		return "", nil, err
	}
	t, err := a.File()
	if err != nil {
		return "", nil, err
	}
	return path, t, Write(ctx, path, t)
}
