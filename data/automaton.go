package data

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

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

// Automaton returns the board's duplicate-pruning automaton of the given depth (2 to
// prune.MaxDepth: which depth a search takes is package solve's choice) and where it came
// from: the first of dirs (nil: TableDirs) that holds its file (AutomatonFile), checked as
// every table is (a known digest or a record of pdbgen verify); else the embedded one; else
// it is built here (package prune: milliseconds on 4x4, seconds on 5x5 at
// prune.DefaultDepth), and note says why, for people. Either way it is kept for the
// process. In the page (WebAssembly) an automaton of more than 16 cells is not built:
// Automaton returns nil and a note, and the search prunes the move back alone.
//
// progress, if not nil, hears of a build before it starts (done and total 0), with the
// note, and after each of its steps: a build on 5x5 takes seconds.
func Automaton(ctx context.Context, size board.Size, depth int, dirs []string, progress func(note string, done, total int)) (a *prune.Automaton, from, note string, err error) {
	if err := prune.CheckDepth(depth); err != nil {
		return nil, "", "", err
	}
	if dirs == nil {
		dirs = TableDirs()
	}
	automata.Lock()
	defer automata.Unlock()
	key := automatonKey{size, depth}
	if k, ok := automata.got[key]; ok {
		return k.a, k.from, k.note, nil
	}
	a, from, problem := fromDirs(key, dirs)
	if a != nil {
		return a, from, "", nil
	}
	name := AutomatonFile(size, depth)
	switch {
	case problem != "":
		note = problem + "; built again instead"
	case prune.InstallDepth(size) != depth && depth == prune.DefaultDepth(size):
		note = fmt.Sprintf("no automaton installed (pdbgen build --pruning --board %s installs the one of depth %d, which prunes more)", size, prune.InstallDepth(size))
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
		return remember(key, a, AutomatonEmbedded, ""), AutomatonEmbedded, "", nil
	}
	if inBrowser && size.Cells() > 16 {
		return nil, "", note + "; the page prunes the move back alone", nil
	}
	var steps prune.Progress
	if progress != nil {
		progress(note, 0, 0)
		steps = func(done, total int) { progress(note, done, total) }
	}
	a, err = prune.BuildProgress(ctx, size, depth, steps)
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
			return nil, dir, err.Error()
		}
		if a.Size() != key.size || a.Depth() != key.depth {
			return nil, dir, fmt.Sprintf("%s holds the automaton of depth %d on %s", path, a.Depth(), a.Size())
		}
		return remember(key, a, dir, ""), dir, ""
	}
	return nil, "", ""
}

// OpenAutomaton returns the board's automaton of the given depth from the first of dirs
// (nil: TableDirs) that holds its file, and that directory: ErrNotInstalled when none
// does, and what is wrong with the file when it is refused (with the directory of the file
// refused). It builds nothing.
func OpenAutomaton(size board.Size, depth int, dirs []string) (*prune.Automaton, string, error) {
	if dirs == nil {
		dirs = TableDirs()
	}
	automata.Lock()
	defer automata.Unlock()
	a, dir, problem := fromDirs(automatonKey{size, depth}, dirs)
	switch {
	case a != nil:
		return a, dir, nil
	case problem != "":
		return nil, dir, errors.New(problem)
	}
	return nil, "", fmt.Errorf("%w: %s", ErrNotInstalled, AutomatonFile(size, depth))
}

// NeedsAutomaton reports whether a search on the board would first build its automaton
// (seconds on 5x5), as none of dirs (nil: TableDirs) holds one and none is embedded.
func NeedsAutomaton(size board.Size, dirs []string) bool {
	if len(InstalledDepths(size, dirs)) > 0 {
		return false
	}
	_, err := embedded.ReadFile(AutomatonFile(size, prune.DefaultDepth(size)))
	return err != nil
}

// InstalledDepths returns the depths of the board's automata whose files dirs (nil:
// TableDirs) hold, deepest first.
func InstalledDepths(size board.Size, dirs []string) []int {
	if dirs == nil {
		dirs = TableDirs()
	}
	var out []int
	for d := prune.MaxDepth; d >= 2; d-- {
		for _, dir := range dirs {
			if _, err := os.Stat(filepath.Join(dir, AutomatonFile(size, d))); err == nil {
				out = append(out, d)
				break
			}
		}
	}
	return out
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
		return nil, err // which names path
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

// InstallAutomaton builds the board's automaton of the given depth (0: prune.InstallDepth) into
// dir ("" for InstallDir()), created if missing, written atomically and read back. It
// returns the file's path and the table. progress, if not nil, hears of the build's steps.
func InstallAutomaton(ctx context.Context, size board.Size, depth int, dir string, progress prune.Progress) (string, *tablefile.Table, error) {
	if depth == 0 {
		depth = prune.InstallDepth(size)
	}
	if err := prune.CheckDepth(depth); err != nil {
		return "", nil, err
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

// AutomataSummary says, for people (pdbgen build --help), how the duplicate-path automata
// are built, installed and taken: their depths, and the sizes of the embedded file and of
// each board's in memory and on disk.
func AutomataSummary() string {
	small, big := board.Size4x4, board.Size5x5
	embedded := "?"
	if b, err := Embedded(AutomatonFile(small, prune.DefaultDepth(small))); err == nil {
		embedded = format.Bytes(int64(len(b)))
	}
	return fmt.Sprintf(`With --pruning, only the automaton that prunes duplicate paths on --board (Taylor & Korf
1993): a breadth-first search over strings of blank moves up to --pruning-depth (default:
%d on 4x4, %d on 5x5) finds the strings that reach a position an earlier string reaches,
compiled into the automaton the searches step with each move (4x4: 0.1 s, 0.2 MB in
memory, a %s file, embedded in solve15; 5x5: about 84 s and 2.8 GB to build, 69 MB
in memory, a 28 MB file; with it depth %d, which the page takes: 3.2 MB in memory, a 1.1
MB file). A search takes the deepest automaton installed, and builds a shallower one in
memory when none is (depth %d on 5x5, seconds); installed, it loads in milliseconds.`,
		prune.InstallDepth(small), prune.InstallDepth(big), embedded, prune.DefaultDepth(big), prune.DefaultDepth(big))
}
