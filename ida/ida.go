// Package ida solves the 15-puzzle and the 24-puzzle optimally with IDA* (Korf 1985) on
// the toolkit's tables: one fast searcher for the 4x4 and 5x5 boards.
//
// IDA* runs depth-first passes with a bound on f = g + h, starting at h(start). Every
// heuristic here has the parity of the Manhattan distance, and every move flips that parity,
// so a pass that fails raises the bound by exactly 2. The move that undoes the previous one
// is never tried, and with an automaton of package prune (Options.Pruning) neither is any
// move that completes a duplicate of an earlier path (Taylor & Korf 1993). Heuristics are
// updated incrementally per move: Manhattan distance by a table difference, linear
// conflicts in the two lines the move changes, walking distance through its transition
// table, and of the lookups of a pattern database set only those whose pattern holds the
// moved tile (moving the blank through other cells costs those patterns nothing).
//
// The heuristics: md (any board); lc, wd, pdb (IDA15's tables) and max (the larger of pdb
// and wd) on 4x4; and the additive sets of Korf & Felner (2002) on both boards (5-5-5,
// 6-6-3 and 7-8 on 4x4, 6-6-6-6 on 5x5), with the reflection about the main diagonal and
// the dual lookups of Zahavi, Felner et al. (2007), whose inconsistent values the search
// propagates with BPMX (catalogue.go). Zero-aware tables (Clausecker & Reinefeld 2017)
// keep a value per region of the blank, their index stepped per move (package zindex);
// in the bit encoding a child's value follows from its parent's and one bit. Catalogues
// of partitions (the same authors: small-t) take the largest partition sum, reading the
// best partition first (catalogue.go). The catalogues' loop searches every set too, as a
// catalogue of its one partition and the reflection's.
//
// docs/SEARCH.md writes down the node protocol every search here keeps: the order of
// children, what counts as generated and expanded, each heuristic's update, BPMX, and what
// a split search must report. One bounds loop, the pass driver of package passes, runs
// every search, a walk of the tree (driver.go): each pass whole, or split at a frontier
// into subtrees that a passes.Runner searches: this process's workers, the units of
// package cluster (subtree.go), a GPU. Package passes collects the frontiers, searches the
// subtrees on this process's workers and replays the top, steering the walks (split.go)
// through their hooks; the driver turns the runners' results into the serial search's
// solution and counts, so that neither depends on the split.
//
// The package only searches: its tables come loaded in Options (package data reads them,
// package solve decides which), and it reads neither the disk nor the environment.
//
// With an admissible heuristic the first solution found is optimal. A search can be
// cancelled through its context or limited in nodes; it then reports the best lower bound
// it has proven.
package ida

import (
	"context"
	"errors"
	"fmt"
	"github.com/tilekit/tilekit/passes"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/wd"
)

// Errors of the solver.
var (
	// ErrGoal reports a goal the tables cannot serve: they need the blank's home in a
	// corner (on 4x4 blank-last, blank-first, or their images; on 5x5 likewise).
	ErrGoal = errors.New("ida: the pattern databases need a goal with the blank in a corner; use md, lc or wd for this goal")
	// ErrOptions is matched (errors.Is) by the errors of New that the options cause: a
	// board the solver does not serve, an unknown heuristic, or one that does not fit the
	// board.
	ErrOptions = errors.New("ida: options do not fit")
)

// optionsError is an error of New caused by the options; it matches ErrOptions.
type optionsError struct{ msg string }

func (e optionsError) Error() string        { return e.msg }
func (e optionsError) Is(target error) bool { return target == ErrOptions }

func badOptions(format string, args ...any) error {
	return optionsError{fmt.Sprintf(format, args...)}
}

// Options configure a Solver: the heuristic and the tables it needs, already loaded.
type Options struct {
	Heuristic Heuristic // MD (the zero value), LC, WD, PDB or Max; ignored when Set is given
	Set       *pdb.Set  // an additive set's tables: the heuristic is then the set
	Lookups   Lookups   // for a set: which lookups (zero: the recommended ones)
	WithWD    bool      // for a set on 4x4: also take the maximum with walking distance
	// WD is the walking-distance table of the rows of the 4x4 blank-last goal, for WD, Max
	// and WithWD on goals with the blank's home in a corner; nil to build it (milliseconds).
	// Other goals always build their own.
	WD    *wd.Table
	IDA15 *pdb.IDA15 // IDA15's tables, for PDB and Max
	// MaxNodes stops a search after generating this many nodes; 0 for no limit.
	MaxNodes uint64
	// Progress, if set, is called at the start of every pass with its bound and the nodes
	// generated so far, and within a pass every ProgressEvery with the nodes so far. Calls
	// never overlap; they may come from different goroutines.
	Progress      func(bound int, nodes uint64)
	ProgressEvery time.Duration // 0 for one second
	// Pruning is the automaton that prunes duplicate paths (package prune), built for the
	// solver's board; nil for the move-back rule alone (prune.Parent), which published node
	// counts assume.
	Pruning *prune.Automaton
	// Workers is the number of goroutines searching each instance (0 or 1: one). The
	// solution is the same for any number; node counts then vary from run to run.
	Workers int
	// Split says which passes are split among the workers, and how finely, when Run's plan
	// says nothing (passes.Plan.Split); nil: every pass whole. The rule is the caller's
	// (package solve's, solve/split.go).
	Split func(passes.PassPlan) (want int, refine func(path []board.Dir) bool)

	// The collection's switches, which the package's tests set, not package variables:
	// passes.Setup's From and Raised (frontierFrom, raised).
	frontierFrom int
	raised       *atomic.Int64
}

// A Solver solves instances for one goal. It is safe for concurrent use.
type Solver struct {
	goal  board.Goal
	frame frame
	opt   Options
	t     *tables
}

// Serves reports whether the solver's pattern databases (pdb, max and the sets) serve the
// goal: a goal of the 4x4 or 5x5 board whose blank's home is a corner. Other goals of
// those boards take md, lc and wd.
func Serves(goal board.Goal) bool {
	size := goal.Size()
	return (size == board.Size4x4 || size == board.Size5x5) && newFrame(goal).canonical
}

// New prepares a solver for the goal, on the 4x4 or the 5x5 board.
func New(goal board.Goal, opt Options) (*Solver, error) {
	size := goal.Size()
	if size != board.Size4x4 && size != board.Size5x5 {
		return nil, badOptions("ida: the solver is for the 4x4 and 5x5 boards, not %s", size)
	}
	f := newFrame(goal)
	if opt.Set != nil {
		opt.Heuristic = hSet
		if !f.canonical {
			return nil, ErrGoal
		}
		if opt.Set.Size() != size {
			return nil, badOptions("ida: set %s is for the %s board, not %s", opt.Set.Name, opt.Set.Size(), size)
		}
	} else if int(opt.Heuristic) >= len(kinds) {
		return nil, badOptions("ida: heuristic %v needs its tables (Options.Set)", opt.Heuristic)
	} else if !slices.Contains(kinds[opt.Heuristic].Boards, size) {
		return nil, badOptions("ida: %v is not computed on %s", opt.Heuristic, size)
	}
	wantWD := opt.Heuristic.Kind().WD || opt.Set != nil && opt.WithWD && size == board.Size4x4
	wantPDB := opt.Heuristic.Kind().IDA15
	if wantPDB && opt.IDA15 == nil {
		return nil, badOptions("ida: pdb and max need the IDA15 tables (Options.IDA15)")
	}
	t, err := newTables(context.Background(), f, size, wantWD, wantPDB, opt.WD, opt.IDA15)
	if err != nil {
		return nil, err
	}
	for tile := 0; tile < size.Cells(); tile++ {
		t.homes[tile] = f.home[tile]
	}
	if opt.Pruning == nil {
		opt.Pruning = prune.Parent(size)
	}
	if opt.Pruning.Size() != size {
		return nil, badOptions("ida: the pruning automaton is for the %s board, not %s", opt.Pruning.Size(), size)
	}
	t.fsm = opt.Pruning.Transitions()
	for c := 0; c < size.Cells(); c++ {
		t.fsmStart[c] = opt.Pruning.Start(c)
	}
	if opt.Set != nil {
		// A set is searched as a catalogue of its one partition (and the reflection's). A
		// zero-aware set's values are consistent, so the loop's lazy lookups change
		// nothing; another set is looked up eagerly, so that BPMX sees every child's value
		// (docs/SEARCH.md).
		if t.cat, err = newCatalogue(opt.Set, opt.Lookups); err != nil {
			return nil, err
		}
		t.cat.wd = wantWD
		t.cat.eager = t.cat.plain && !t.cat.zero
	}
	return &Solver{goal: goal, frame: f, opt: opt, t: t}, nil
}

// WithProgress returns a solver that shares s's tables and reports to progress (nil: not
// at all) as Options.Progress does, every every (0: one second).
func (s *Solver) WithProgress(progress func(bound int, nodes uint64), every time.Duration) *Solver {
	c := *s
	c.opt.Progress, c.opt.ProgressEvery = progress, every
	return &c
}

// Lookups returns the lookups a set heuristic takes, or "" for the other heuristics.
func (s *Solver) Lookups() string {
	if s.t.cat != nil && s.t.cat.plain {
		return s.t.cat.lookups.String()
	}
	if s.t.cat != nil {
		return s.t.cat.lookups.reflectedString()
	}
	return ""
}

// Goal returns the solver's goal.
func (s *Solver) Goal() board.Goal { return s.goal }
