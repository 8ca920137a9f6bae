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
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/search"
)

// ErrOptions is matched (errors.Is) by every error that the options or the goal cause (an
// unknown algorithm or heuristic, one that does not apply to the board or goal, a set that
// is not installed): the caller's mistake, not a failure of the search.
var ErrOptions = errors.New("solve: options do not fit")

// ErrDeviceFault reports a search whose GPU kernel failed (gpu.ErrLaunch): the NVIDIA
// driver keeps the fault for the whole process, so its GPU serves no more searches.
var ErrDeviceFault = gpu.ErrLaunch

// optionsError is an error caused by the options: its message alone, matching ErrOptions.
type optionsError struct{ msg string }

func (e optionsError) Error() string { return e.msg }

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
	// else the board's prune.DefaultDepth, built in memory (the plan decides: loadAutomaton).
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
	Passes                      []passes.Pass // the fast IDA*'s passes
	Device                      *DeviceUse    // what the GPU did, when it searched

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
	warning      string           // what is wrong with the tables found (Warning)
	pruningDepth int              // the automaton's depth (0: the move back), for Options
	fsm          *prune.Automaton // the general search's IDA* and RBFS prune with it
	fast         *ida.Solver
	h            *heuristic.Heuristic
	progress     func(bound int, nodes uint64)
	every        time.Duration
	// optimum is the starts' optimal length as their input gives it, when knowsOptimum
	// (WithOptimum).
	optimum      int
	knowsOptimum bool
	digests      [][32]byte // of the tables' values, for Fingerprint
	tablesFrom   string     // the directory of a set's tables (About; records name the set by its digest)
	dev          *device    // the GPU, when the options ask for one
}

// New prepares a solver for the goal; ctx cancels the building of tables (the general
// search builds some on first use). Errors caused by the options match ErrOptions.
func New(ctx context.Context, goal board.Goal, opt Options) (*Solver, error) {
	p, err := resolveNames(goal, opt)
	if err == nil {
		err = p.choose(goal, opt)
	}
	if err != nil {
		return nil, err
	}
	s := &Solver{goal: goal, opt: opt, algo: p.algo}
	l, err := s.load(ctx, p)
	if err != nil {
		return s, err
	}
	if p.fast {
		err = s.buildFast(p, l)
	} else {
		err = s.buildGeneral(ctx, p, l)
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
		return "the 24-puzzle with the Manhattan distance alone finishes only easy positions: build the 6-6-6-6 set once (pdbgen build --set 6-6-6-6, 8 s) or small-t with its automata (pdbgen build --board 5x5, 2 minutes)"
	}
	return ""
}

// Warning is what is wrong with the tables the solver found, for standard error, ""
// when nothing is: an installed automaton that could not be read, which file, why, and the
// command that rebuilds it (the solver prunes with a shallower one).
func (s *Solver) Warning() string { return s.warning }

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
	if s.knowsOptimum {
		return s.solveBelowOptimum(ctx, start)
	}
	var out *Result
	var err error
	if s.fast != nil { // both searches check start first
		var res *passes.Result
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
func (s *Solver) fastResult(res *passes.Result) *Result {
	out := &Result{Start: res.Start, Moves: res.Moves, Solved: res.Solved, Optimal: res.Optimal,
		LowerBound: res.LowerBound, H0: res.H0, Nodes: res.Nodes, Expanded: res.Expanded,
		PeakStored: res.LowerBound + 1, Elapsed: res.Elapsed, Algorithm: "idastar", Heuristic: s.heuristic,
		Lookups: s.lookups, Tables: s.tables, Pruning: s.pruning, Tiles: []int{}}
	if res.Serial != (passes.Work{Nodes: res.Nodes, Expanded: res.Expanded}) {
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
