// Package solve is the toolkit's front door: it solves positions of any board from 2x2 to
// 5x5, and it is the one place that decides how: which search engine, which heuristic,
// which tables. The engines (packages ida and search) only search what they are given.
//
// The zero Options mean "optimal, as fast as the installed tables allow": on the 4x4 and
// 5x5 boards the fast IDA* of package ida with the strongest heuristic available (an
// additive pattern database set of Korf & Felner 2002 when one is installed or embedded),
// elsewhere IDA* of package search with the strongest heuristic of package heuristic.
// Options name another algorithm (A*, RBFS, BA*) or heuristic when wanted. New resolves
// the options once into a Solver (the plan: engine, heuristic, lookups, loaded tables and
// a description for people); every Result says what was used, whether the solution is
// proven optimal, and the lower bound proven when the search stopped early.
//
//	goal := board.BlankLast(board.Size4x4)
//	start, _ := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
//	res, err := solve.Solve(ctx, goal, start, solve.Options{})
//	// res.Length() == 29, res.Optimal, res.Heuristic == "6-6-3"
package solve

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/search"
)

// ErrOptions is matched (errors.Is) by every error that the options or the goal cause (an
// unknown algorithm or heuristic, one that does not apply to the board or goal, a set that
// is not installed): the caller's mistake, not a failure of the search.
var ErrOptions = errors.New("solve: options do not fit")

// ErrNodeLimit reports a search stopped by Options.MaxNodes (ida.ErrNodeLimit); a runner of
// split passes returns it once it has generated the nodes its batch allows.
var ErrNodeLimit = ida.ErrNodeLimit

// ErrDeviceFault reports a search whose GPU kernel failed (gpu.ErrLaunch): the NVIDIA
// driver keeps the fault for the whole process, so its GPU serves no more searches.
var ErrDeviceFault = gpu.ErrLaunch

// optionsError is an error caused by the options: its message alone, matching ErrOptions.
type optionsError struct{ msg string }

func (e optionsError) Error() string        { return e.msg }
func (e optionsError) Is(target error) bool { return target == ErrOptions }

func badOptions(format string, args ...any) error {
	return optionsError{fmt.Sprintf(format, args...)}
}

// Algorithms returns the names of the algorithms: idastar (the default, optimal), astar,
// rbfs (optimal with an admissible heuristic) and bastar (near-optimal, fast).
func Algorithms() []string { return slices.Clone(search.Algorithms) }

// Options configure a Solver. The zero value is the recommended setting.
type Options struct {
	Algorithm string // "" or "idastar"; "astar", "rbfs", "bastar"
	// Heuristic names the heuristic: "" or "auto" (the strongest available), or any name
	// of heuristic.Registry (a set such as "7-8", md, lc, wd, pdb, max, hamming, ...).
	Heuristic string
	Lookups   string // for a set: "" (recommended), regular, reflected, dual, all
	WithWD    bool   // for a set on 4x4: also the maximum with walking distance
	// Tables is a directory to take tables from instead of the usual places: its default
	// tables when it holds them (else the embedded ones), and sets from it alone. "" for
	// the usual places: the embedded tables and the sets installed in data.TableDirs().
	Tables string
	// Catalogue is a catalogue file (pdb.ParseCatalogue): the heuristic is the largest sum
	// of its partitions (and their reflections about the main diagonal, on 5x5), its
	// tables found as a set's are. Its tiles are those of the board's canonical goal:
	// blank-last on 4x4, blank-first on 5x5. "" for none.
	Catalogue string
	// CatalogueText is the catalogue file's contents, for a solver that has not the file (a
	// cluster's workers get it with their job: Portable): when set, it is read instead of
	// the file, which Catalogue then only names.
	CatalogueText string

	// Pruning is how IDA* and RBFS prune duplicate paths: "" or "automaton" (Taylor &
	// Korf's automaton, package prune, of PruningDepth, or the board's default), or
	// "parent" (only the move that undoes the last one, as published node counts assume).
	// A* and BA* keep their own sets of states and ignore it.
	Pruning string
	// PruningDepth is the automaton's depth; 0 for the deepest installed for the board,
	// else the board's prune.DefaultDepth, built in memory (the plan decides: planPruning).
	PruningDepth int

	MaxNodes      uint64 // stop after generating this many nodes; 0 for no limit
	MaxExpansions uint64 // general search: stop after this many expansions; 0 for none
	MaxStates     int    // A* and BA*: most states stored at once; 0 for the default
	Workers       int    // goroutines searching one position (fast IDA*); 0 or 1: one
	// Device is where the fast IDA* searches: the CPU, a GPU (package gpu; New fails
	// without one, or for a heuristic it does not search), or the GPU once a pass is
	// large, when there is one and it searches the heuristic (auto). It is this process's
	// choice, as Tables and Workers are: a cluster's job does not carry it (json "-"),
	// and a worker searches on its own.
	Device Device `json:"-"`
	// Preparing, if set, hears of what New prepares that takes seconds, before it starts
	// (done and total 0) and as it goes: an automaton built in memory, with why.
	Preparing func(what string, done, total int) `json:"-"`

	// Lanes is ignored: lanes were retired (docs/RESULTS.md, "Lanes retired"). It stays,
	// always 0 in a cluster's job, so that a job's id, a hash of its options, is the one
	// earlier versions gave it, and a coordinator restarted with this version finds the
	// results of the run before.
	Lanes int
}

// The ways the fast search prunes duplicate paths (Options.Pruning).
const (
	PruneAutomaton = "automaton" // Taylor & Korf's automaton (package prune)
	PruneParent    = "parent"    // only the move that undoes the last one
)

// Result is the outcome of one search.
type Result struct {
	Start      board.State
	Moves      []board.Dir // blank directions; nil when not solved
	Tiles      []int       // the same moves as the tiles that slide
	Solved     bool
	Optimal    bool // proven optimal: an optimal algorithm with an admissible heuristic
	LowerBound int  // the optimal length is at least this (IDA*)
	H0         int  // the heuristic value of the start
	Nodes      uint64
	Expanded   uint64
	// SerialNodes and SerialExpanded are what one goroutine would have counted, when
	// several searched (they then count splitting and the work after the solution too);
	// 0 otherwise.
	SerialNodes, SerialExpanded uint64
	PeakStored                  int // most states stored at once: A* and BA*'s sets, IDA*'s deepest path
	Elapsed                     time.Duration
	Passes                      []ida.Pass // the fast IDA*'s passes
	Device                      *DeviceUse // what the GPU did, when it searched

	Algorithm string // what was used
	Heuristic string
	Lookups   string // for a set
	Tables    string // where the tables came from
	Pruning   string // what IDA* or RBFS pruned: "move back", or the automaton's name
}

// Length is the number of moves, or -1 when not solved.
func (r *Result) Length() int {
	if !r.Solved {
		return -1
	}
	return len(r.Moves)
}

// A Solver is a resolved plan: it solves positions of one goal with the engine,
// heuristic and tables chosen once by New. It is safe for concurrent use.
type Solver struct {
	goal      board.Goal
	opt       Options
	algo      string
	heuristic string // the name, the default resolved
	lookups   string
	tables    string // where the tables came from, for people
	pruning   string // what the fast search prunes, for people and fingerprints
	// where the automaton came from (data.Automaton), for people
	pruningFrom  string
	pruningDepth int              // the automaton's depth (0: the move back), for Options
	fsm          *prune.Automaton // the general search's IDA* and RBFS prune with it
	fast         *ida.Solver
	h            *heuristic.Heuristic
	progress     func(bound int, nodes uint64)
	every        time.Duration
	digests      [][32]byte // of the tables' values, for Fingerprint
	tablesFrom   string     // the directory of a set's tables (About; records name the set by its digest)
	dev          *device    // the GPU, when the options ask for one
}

// New prepares a solver for the goal; ctx cancels the building of tables (the general
// search builds some on first use). Errors caused by the options match ErrOptions.
func New(ctx context.Context, goal board.Goal, opt Options) (*Solver, error) {
	n, err := resolveNames(goal, opt)
	if err != nil {
		return nil, err
	}
	src, err := newSources(opt.Tables)
	if err != nil {
		return nil, err
	}
	s := &Solver{goal: goal, opt: opt, algo: n.algo}
	if n.fast {
		err = s.planFast(ctx, n.heuristic, n.lookups, src)
	} else {
		err = s.planGeneral(ctx, n.heuristic, src)
	}
	if err != nil {
		return s, err
	}
	return s, s.planDevice()
}

// Check reports whether the options fit the goal, as New would, without reading or
// building any table: a cheap test for a caller that admits work before running it.
func (opt Options) Check(goal board.Goal) error {
	_, err := resolveNames(goal, opt)
	return err
}

// names are the options resolved without tables: the algorithm, the lookups, the
// heuristic's name (auto still unresolved) and the engine.
type names struct {
	algo, heuristic string
	lookups         ida.Lookups
	fast            bool // package ida's IDA*, else package search
}

func resolveNames(goal board.Goal, opt Options) (names, error) {
	n := names{algo: strings.ToLower(opt.Algorithm), heuristic: strings.ToLower(strings.TrimSpace(opt.Heuristic))}
	if n.algo == "" {
		n.algo = "idastar"
	}
	if !slices.Contains(search.Algorithms, n.algo) {
		return n, badOptions("unknown algorithm %q (choose from %s)", n.algo, strings.Join(search.Algorithms, ", "))
	}
	var err error
	if n.lookups, err = ida.ParseLookups(opt.Lookups); err != nil {
		return n, badOptions("%v", err)
	}
	size := goal.Size()
	if n.heuristic == "" {
		n.heuristic = heuristic.Auto
	}
	var info heuristic.Info
	if n.heuristic != heuristic.Auto {
		if info, err = heuristic.Lookup(n.heuristic); err != nil {
			return n, badOptions("%v", err)
		}
	}
	fastBoard := size == board.Size4x4 || size == board.Size5x5
	n.fast = n.algo == "idastar" && fastBoard && (n.heuristic == heuristic.Auto || info.FastOn(size))
	switch strings.ToLower(opt.Pruning) {
	case "", PruneAutomaton, PruneParent:
	default:
		return n, badOptions("unknown pruning %q (choose from %s, %s)", opt.Pruning, PruneAutomaton, PruneParent)
	}
	if err := prune.CheckDepth(opt.PruningDepth); err != nil {
		return n, badOptions("pruning %v", strings.TrimPrefix(err.Error(), "prune: "))
	}
	switch {
	case n.algo == "bastar" && n.heuristic != heuristic.Auto && n.heuristic != heuristic.HH:
		return n, badOptions("bastar searches with its own heuristic, %s (Hasan et al.), not %s: give no heuristic", heuristic.HH, n.heuristic)
	case opt.hasCatalogue() && n.heuristic != heuristic.Auto:
		return n, badOptions("a catalogue is the heuristic: give no other (%s)", n.heuristic)
	case opt.hasCatalogue() && (!n.fast || !ida.Serves(goal)):
		return n, badOptions("a catalogue serves IDA* on 4x4 and 5x5 with the blank's goal in a corner")
	case n.fast:
		if (info.Set || n.heuristic == heuristic.PDB || n.heuristic == heuristic.Max) && !ida.Serves(goal) {
			return n, badOptions("%s needs a goal with the blank in a corner (blank-last, blank-first or their images); use md, lc or wd for this goal", n.heuristic)
		}
	case info.Set && n.algo == "idastar" && fastBoard:
		return n, badOptions("set %s is for the %s board, not %s", n.heuristic, info.FastBoards[0], size)
	case info.Set:
		return n, badOptions("the %s set serves IDA* on its own board (%s), not %s on %s", n.heuristic, info.FastBoards[0], n.algo, size)
	}
	return n, nil
}

// strongest lists, strongest first, the sets auto looks for on a board: pdb.Sets lists
// each board's weakest first.
func strongest(size board.Size) []pdb.SetSpec {
	var out []pdb.SetSpec
	for _, spec := range slices.Backward(pdb.Sets) {
		if spec.Size() == size {
			out = append(out, spec)
		}
	}
	return out
}

// planFast resolves the fast IDA*: the heuristic (auto: the strongest set installed for a
// corner goal, else max on 4x4 corner goals, wd on other 4x4 goals, md on 5x5) and its
// tables.
func (s *Solver) planFast(ctx context.Context, name string, lookups ida.Lookups, src *sources) error {
	size := s.goal.Size()
	serves := ida.Serves(s.goal)
	var set *pdb.Set
	setFrom := ""
	if name == heuristic.Auto && !s.opt.hasCatalogue() {
		name = heuristic.MD
		if size == board.Size4x4 {
			name = heuristic.WD
			if serves {
				name = heuristic.Max
			}
		}
		if serves {
			for _, spec := range strongest(size) {
				loaded, from, err := data.LoadSet(spec.Name, src.dirs)
				if errors.Is(err, data.ErrNotInstalled) {
					continue
				}
				if err != nil { // installed but unreadable: say so rather than fall back
					return err
				}
				name, set, setFrom = spec.Name, loaded, from
				break
			}
		}
	}
	if s.opt.hasCatalogue() {
		spec, err := readCatalogue(s.opt, size)
		if err != nil {
			return err
		}
		if set, setFrom, err = data.LoadSpec(spec, src.dirs); errors.Is(err, data.ErrNotInstalled) {
			return optionsError{err.Error()}
		} else if err != nil {
			return err
		}
		name = "catalogue " + s.opt.catalogueName()
	}
	info, _ := heuristic.Lookup(name)
	info.Set = info.Set || set != nil
	s.heuristic, s.tables = name, "embedded"
	opt := ida.Options{Lookups: lookups, WithWD: s.opt.WithWD, MaxNodes: s.opt.MaxNodes, Workers: s.opt.Workers}
	if !info.Set {
		var err error
		if opt.Heuristic, err = ida.ParseHeuristic(name); err != nil {
			return optionsError{err.Error()}
		}
	}
	if info.Set {
		if set == nil {
			var err error
			if set, setFrom, err = data.LoadSet(name, src.dirs); errors.Is(err, data.ErrNotInstalled) {
				return optionsError{err.Error()}
			} else if err != nil {
				return err
			}
		}
		opt.Set = set
		for _, t := range set.Tables {
			s.digests = append(s.digests, t.Digest)
		}
		// Records name the set by its values (digest), not by a directory of the machine
		// that made them; the text for people says where too.
		s.tables = "set " + name
		if set.InBits() {
			s.tables += " in bits"
		}
		switch d := set.Digest(); {
		case setFrom == "embedded" || setFrom == data.FromMemory || d == "":
			s.tables += " (" + setFrom + ")"
		default:
			s.tables += " (sha256:" + d + ")"
			s.tablesFrom = setFrom
		}
	}
	if opt.Heuristic.Needs()&(ida.NeedsWD|ida.NeedsIDA15) != 0 || info.Set && s.opt.WithWD && size == board.Size4x4 {
		def, err := src.defaults()
		if err != nil {
			return err
		}
		opt.WD, opt.IDA15 = def.WDLast, def.IDA15
		s.addDigests(def)
	}
	if src.def != nil {
		s.tables = src.def.Source
	}
	fsm, err := s.planPruning(ctx, src)
	if err != nil {
		return err
	}
	opt.Pruning = fsm
	fast, err := ida.New(s.goal, opt)
	if errors.Is(err, ida.ErrOptions) || errors.Is(err, ida.ErrGoal) {
		return optionsError{err.Error()}
	}
	s.fast = fast
	if err == nil && info.Set {
		s.lookups = fast.Lookups()
	}
	return err
}

// readCatalogue reads the options' catalogue for size, its errors those of options.
func readCatalogue(opt Options, size board.Size) (pdb.SetSpec, error) {
	opt, err := opt.Portable()
	if err != nil {
		return pdb.SetSpec{}, err
	}
	spec, err := data.ParseCatalogue(opt.CatalogueText, opt.catalogueName(), size)
	if err != nil {
		return pdb.SetSpec{}, badOptions("%v", err)
	}
	return spec, nil
}

// hasCatalogue reports whether the options name a catalogue, by its file or its text.
func (o Options) hasCatalogue() bool { return o.Catalogue != "" || o.CatalogueText != "" }

// catalogueName names the options' catalogue: its file, or "(text)".
func (o Options) catalogueName() string { return cmp.Or(o.Catalogue, "(text)") }

// Portable returns the options with nothing in them that only this machine has: the
// catalogue file is read into CatalogueText. A cluster's coordinator gives its workers
// these.
func (o Options) Portable() (Options, error) {
	if o.Catalogue == "" || o.CatalogueText != "" {
		return o, nil
	}
	text, err := data.CatalogueText(o.Catalogue)
	if err != nil {
		return o, badOptions("%v", err)
	}
	o.CatalogueText = text
	return o, nil
}

// planGeneral resolves the general search: the heuristic (auto: max, or pdb on 5x5, which
// has no walking-distance table) and the tables it uses.
func (s *Solver) planGeneral(ctx context.Context, name string, src *sources) error {
	if s.algo == "bastar" {
		name = heuristic.HH // BA* searches with its own (resolveNames refuses another)
	}
	if name == heuristic.Auto {
		name = heuristic.Max
		if s.goal.Size() == board.Size5x5 {
			name = heuristic.PDB
		}
	}
	s.tables = "embedded"
	if src.def != nil {
		s.tables = src.def.Source
	}
	var ida15 *pdb.IDA15
	if (name == heuristic.PDB || name == heuristic.Max) && s.goal.Size() == board.Size4x4 {
		def, err := src.defaults()
		if err != nil {
			return err
		}
		ida15 = def.IDA15
		s.addDigests(def)
	}
	h, err := heuristic.NewContext(ctx, name, s.goal, ida15)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.algo == "bastar" {
			return badOptions("bastar serves no %s board: its heuristic, %s, needs walking distance (%v)", s.goal.Size(), name, err)
		}
		return badOptions("%v", err)
	}
	s.h, s.heuristic = h, h.Name
	if s.algo == "idastar" || s.algo == "rbfs" {
		s.fsm, err = s.planPruning(ctx, src)
	}
	return err
}

// planPruning decides which automaton prunes duplicate paths, unless the options ask for
// the move-back rule (nil): the options' depth; by default the deepest installed if it is
// deeper than the board's default (prune.DefaultDepth: an installed automaton was built to
// be used), else the default, read or built (data.Automaton). It records the automaton in
// the plan (pruning, pruningDepth, and pruningFrom for people).
func (s *Solver) planPruning(ctx context.Context, src *sources) (*prune.Automaton, error) {
	s.pruning = "move back"
	if strings.EqualFold(s.opt.Pruning, PruneParent) {
		return nil, nil
	}
	size := s.goal.Size()
	depth := s.opt.PruningDepth
	var fsm *prune.Automaton
	var from, note string
	if depth == 0 {
		depth = prune.DefaultDepth(size)
		for _, d := range data.InstalledDepths(size, src.dirs) {
			if d <= depth {
				break
			}
			a, dir, err := data.OpenAutomaton(size, d, src.dirs)
			if err == nil {
				fsm, from = a, dir
				break
			}
			if note == "" {
				note = fmt.Sprintf("%v; depth %d instead", err, depth)
			}
		}
	}
	if fsm == nil {
		var progress func(string, int, int)
		if s.opt.Preparing != nil {
			progress = func(note string, done, total int) {
				s.opt.Preparing(fmt.Sprintf("building the %s automaton of depth %d in memory, a few seconds: %s", size, depth, note), done, total)
			}
		}
		a, f, n, err := data.Automaton(ctx, size, depth, src.dirs, progress)
		if err != nil {
			return nil, err
		}
		fsm, from, note = a, f, cmp.Or(note, n)
	}
	if fsm != nil {
		s.pruning, s.pruningDepth = fsm.Name(), fsm.Depth()
	}
	switch {
	case from == "":
		s.pruningFrom = note
	case note == "":
		s.pruningFrom = from
	default:
		s.pruningFrom = from + ": " + note
	}
	return fsm, nil
}

// sources are where a solver's tables come from: the default tables (embedded, or those
// of Options.Tables) and the directories searched for sets.
type sources struct {
	dirs []string // nil: data.TableDirs()
	def  *data.Tables
}

func newSources(dir string) (*sources, error) {
	if dir == "" {
		return &sources{}, nil
	}
	src := &sources{dirs: []string{dir}}
	if data.HasDefaults(dir) {
		var err error
		if src.def, err = data.LoadDir(dir); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// Heuristics returns the named heuristics of the general search for the goal, with the
// default tables of tables (as Options.Tables: "" for the embedded ones): what the audit
// measures and eval prints. A name that does not apply to the goal leaves a nil in its
// place and an error matching ErrOptions; the tables are read once for all of them.
func Heuristics(ctx context.Context, goal board.Goal, tables string, names ...string) ([]*heuristic.Heuristic, error) {
	src, err := newSources(tables)
	if err != nil {
		return nil, err
	}
	def, err := src.defaults()
	if err != nil {
		return nil, err
	}
	hs := make([]*heuristic.Heuristic, len(names))
	var errs []error
	for i, name := range names {
		h, err := heuristic.NewContext(ctx, name, goal, def.IDA15)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			errs = append(errs, badOptions("%v", err))
		default:
			hs[i] = h
		}
	}
	return hs, errors.Join(errs...)
}

func (src *sources) defaults() (*data.Tables, error) {
	if src.def != nil {
		return src.def, nil
	}
	return data.Default()
}

// About says, for people, which algorithm, heuristic and tables the solver uses.
func (s *Solver) About() string {
	if s.fast == nil {
		return fmt.Sprintf("%s with %s (general search)", s.algo, s.heuristic)
	}
	about := "IDA* with " + s.heuristic
	if s.lookups != "" {
		about += " (" + s.lookups + ")"
	}
	about += ", tables: " + s.tables
	if s.tablesFrom != "" {
		about += " in " + s.tablesFrom
	}
	about += ", pruning: " + s.pruning
	if s.pruningFrom != "" {
		about += " (" + s.pruningFrom + ")"
	}
	if d := s.Device(); d != "" {
		about += "; " + d
	}
	return about
}

// Hint is advice for people about the solver's choice, "" when there is none: on 5x5
// without an installed set, how to install one.
func (s *Solver) Hint() string {
	if s.fast != nil && s.goal.Size() == board.Size5x5 && s.heuristic == heuristic.MD {
		return "the 24-puzzle with the Manhattan distance alone finishes only easy positions: build the 6-6-6-6 set once (pdbgen build --set 6-6-6-6, 2 minutes) or small-t (pdbgen build --board 5x5, 10 minutes)"
	}
	return ""
}

// Goal returns the solver's goal.
func (s *Solver) Goal() board.Goal { return s.goal }

// Options returns the options the solver was made with, so that another process can make
// the same solver (with Portable, and its own Tables and Workers): with the automaton's
// depth it found (PruningDepth), so that a process with other automata installed prunes
// the same paths.
func (s *Solver) Options() Options {
	o := s.opt
	if s.pruningDepth > 0 {
		o.PruningDepth = s.pruningDepth
	}
	return o
}

// Fingerprint identifies what the solver computes: the algorithm, heuristic, lookups,
// pruning and the SHA-256 of every table's values. Two solvers with the same fingerprint, on any
// machines, find the same solutions with the same node counts; a process that searches
// for another (package cluster) checks it before it starts.
func (s *Solver) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%s|%s|%v|%v|%s\n", s.goal.Name(), s.algo, s.heuristic, s.lookups, s.opt.WithWD, s.fast != nil, s.pruning)
	for _, d := range s.digests {
		h.Write(d[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// addDigests adds the digests of the default tables, in the order of their names.
func (s *Solver) addDigests(def *data.Tables) {
	for _, name := range slices.Sorted(maps.Keys(def.Digests)) {
		s.digests = append(s.digests, def.Digests[name])
	}
}

// Heuristic names the heuristic the solver uses (the default resolved).
func (s *Solver) Heuristic() string { return s.heuristic }

// Optimal reports whether the solver's solutions are proven optimal: an optimal algorithm
// with an admissible heuristic.
func (s *Solver) Optimal() bool {
	if s.fast != nil {
		return true
	}
	return s.algo != "bastar" && s.h.Admissible
}

// WithProgress returns a solver that shares s's tables and reports to progress while it
// searches: the current bound (IDA*: each pass; A* and RBFS: the f being expanded; 0 for
// none) and the nodes so far, at every new IDA* pass and at least every every (0: one
// second). This is the one way to hear of a search.
func (s *Solver) WithProgress(progress func(bound int, nodes uint64), every time.Duration) *Solver {
	c := *s
	c.progress, c.every = progress, every
	if c.fast != nil {
		c.fast = c.fast.WithProgress(progress, every)
	}
	return &c
}

// Solve searches for a solution of start: the result, and an error when the search did
// not finish (ctx's error, a limit) or start is not a valid state for the goal. A result
// that comes with an error carries what the search established before it stopped.
func (s *Solver) Solve(ctx context.Context, start board.State) (*Result, error) {
	var out *Result
	var err error
	if s.fast != nil { // both searches check start first
		var res *ida.Result
		var use *DeviceUse
		if s.dev != nil && s.dev.Kind != DeviceCPU {
			res, use, err = s.solveOnDevice(ctx, start)
		} else {
			res, err = s.fast.Solve(ctx, start)
		}
		if res == nil {
			return nil, err
		}
		out = s.fastResult(res)
		out.Device = use
	} else {
		opt := search.Options{MaxStates: s.opt.MaxStates, MaxExpansions: s.opt.MaxExpansions, MaxNodes: s.opt.MaxNodes,
			Progress: s.progress, ProgressEvery: s.every, Pruning: s.fsm}
		var res *search.Result
		if res, err = search.Run(ctx, s.algo, s.h, start, opt); res == nil {
			return nil, err
		}
		out = &Result{Start: start.Clone(), Moves: res.Moves, Solved: res.Solved, Optimal: res.Optimal,
			H0: s.h.Eval(start), Nodes: res.Nodes, Expanded: res.Expanded, PeakStored: res.PeakStored,
			Elapsed: res.Elapsed, Algorithm: res.Algorithm, Heuristic: res.Heuristic}
		if res.Solved && res.Optimal {
			out.LowerBound = len(res.Moves)
		}
	}
	out.Tables = s.tables
	if s.algo == "idastar" || s.algo == "rbfs" {
		out.Pruning = s.pruning
	}
	if out.Heuristic == "" {
		out.Heuristic = s.heuristic
	}
	out.Tiles = []int{}
	if out.Solved {
		out.Tiles, _ = s.goal.Size().DirsToTiles(out.Start, out.Moves)
	}
	return out, err
}

// fastResult is the result of the fast IDA*'s search.
func (s *Solver) fastResult(res *ida.Result) *Result {
	out := &Result{Start: res.Start, Moves: res.Moves, Solved: res.Solved, Optimal: res.Optimal,
		LowerBound: res.LowerBound, H0: res.H0, Nodes: res.Nodes, Expanded: res.Expanded,
		PeakStored: res.LowerBound + 1, Elapsed: res.Elapsed, Algorithm: "idastar", Heuristic: s.heuristic,
		Lookups: s.lookups, Tables: s.tables, Pruning: s.pruning, Tiles: []int{}}
	if res.Serial != (ida.Work{Nodes: res.Nodes, Expanded: res.Expanded}) {
		out.SerialNodes, out.SerialExpanded = res.Serial.Nodes, res.Serial.Expanded
	}
	out.Passes = res.Passes
	if out.Solved {
		out.Tiles, _ = s.goal.Size().DirsToTiles(out.Start, out.Moves)
	}
	return out
}

// Solve solves one position with a solver made for it: the shortest way to use the
// toolkit. For many positions of one goal, make a Solver once.
func Solve(ctx context.Context, goal board.Goal, start board.State, opt Options) (*Result, error) {
	s, err := New(ctx, goal, opt)
	if err != nil {
		return nil, err
	}
	return s.Solve(ctx, start)
}
