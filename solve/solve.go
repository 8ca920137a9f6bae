// Package solve is the toolkit's front door: it solves positions of any board from 2x2 to
// 5x5, choosing the solver and the tables, and says what it chose.
//
// The zero Options mean "optimal, as fast as the installed tables allow": on the 4x4 and
// 5x5 boards the fast IDA* of package ida with the strongest heuristic available (an
// additive pattern database set of Korf & Felner 2002 when one is installed or embedded),
// elsewhere IDA* of package search with the strongest heuristic of package heuristic.
// Options name another algorithm (A*, RBFS, BA*) or heuristic when wanted; the Result says
// which algorithm, heuristic, lookups and tables were used, whether the solution is proven
// optimal, and the lower bound proven when the search stopped early.
//
//	goal := board.BlankLast(board.Size4x4)
//	start, _ := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
//	res, err := solve.Solve(ctx, goal, start, solve.Options{})
//	// res.Length == 29, res.Optimal, res.Heuristic == "6-6-3"
package solve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/search"
)

// ErrOptions wraps every error that the options or the goal cause (an unknown algorithm
// or heuristic, one that does not apply to the board or goal, a set that is not
// installed): the caller's mistake, not a failure of the search.
var ErrOptions = errors.New("solve")

// Algorithms lists the algorithms by name: idastar (the default, optimal), astar, rbfs
// (optimal with an admissible heuristic) and bastar (near-optimal, fast).
var Algorithms = search.Algorithms

// Options configure a Solver. The zero value is the recommended setting.
type Options struct {
	Algorithm string // "" or "idastar"; "astar", "rbfs", "bastar"
	// Heuristic names the heuristic: "" (the strongest available), a set ("7-8",
	// "6-6-3", ...), or any name of packages ida and heuristic (md, lc, wd, pdb, max,
	// hamming, chebyshev2, hh).
	Heuristic string
	Lookups   string // for a set: "" (recommended), regular, reflected, dual, all
	WithWD    bool   // for a set on 4x4: also the maximum with walking distance

	Tables    *data.Tables // the default tables; nil for the embedded ones
	TableDirs []string     // where installed sets are looked for; nil for data.TableDirs()

	MaxNodes      uint64 // stop after generating this many nodes; 0 for no limit
	MaxExpansions uint64 // general search: stop after this many expansions; 0 for none
	MaxStates     int    // A* and BA*: most states stored at once; 0 for the default
	Workers       int    // goroutines searching one position (fast IDA*); 0 or 1: one

	// Progress, if set, hears of the search while it runs: the current bound (IDA*: each
	// pass, A* and RBFS: the f being expanded; 0 for none) and the nodes so far, at least
	// every ProgressEvery (0: one second) and at every new IDA* pass.
	Progress      func(bound int, nodes uint64)
	ProgressEvery time.Duration
}

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
	PeakStored int // most states stored at once (A*, BA*); the path's length for IDA*
	Elapsed    time.Duration
	Passes     []ida.Pass // the fast IDA*'s passes

	Algorithm string // what was used
	Heuristic string
	Lookups   string // for a set
	Tables    string // where the tables came from
}

// Length is the number of moves, or -1 when not solved.
func (r *Result) Length() int {
	if !r.Solved {
		return -1
	}
	return len(r.Moves)
}

// A Solver solves positions of one goal with the options it was made with. It is safe for
// concurrent use; its tables are built or read once.
type Solver struct {
	goal  board.Goal
	opt   Options
	algo  string
	fast  *ida.Solver
	h     *heuristic.Heuristic
	about string
}

// New prepares a solver for the goal. Errors caused by the options wrap ErrOptions.
func New(goal board.Goal, opt Options) (*Solver, error) {
	return NewContext(context.Background(), goal, opt)
}

// NewContext is New with a context that cancels the building of tables (the general
// search builds some on first use).
func NewContext(ctx context.Context, goal board.Goal, opt Options) (*Solver, error) {
	algo := strings.ToLower(opt.Algorithm)
	if algo == "" {
		algo = "idastar"
	}
	if !slices.Contains(search.Algorithms, algo) {
		return nil, fmt.Errorf("%w: unknown algorithm %q (choose from %s)", ErrOptions, algo, strings.Join(search.Algorithms, ", "))
	}
	lookups, err := ida.ParseLookups(opt.Lookups)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOptions, err)
	}
	s := &Solver{goal: goal, opt: opt, algo: algo}
	size := goal.Size()
	name := strings.ToLower(strings.TrimSpace(opt.Heuristic))
	fh, fastErr := ida.ParseHeuristic(name)
	fastBoard := size == board.Size4x4 || (size == board.Size{W: 5, H: 5} && (fh == ida.Auto || fh == ida.MD || fh.IsSet()))
	if algo == "idastar" && fastErr == nil && fastBoard {
		f, err := ida.New(goal, ida.Options{Heuristic: fh, Lookups: lookups, WithWD: opt.WithWD,
			Tables: opt.Tables, TableDirs: opt.TableDirs, MaxNodes: opt.MaxNodes, Workers: opt.Workers,
			Progress: opt.Progress, ProgressEvery: opt.ProgressEvery})
		if err != nil {
			if errors.Is(err, ida.ErrOptions) || errors.Is(err, ida.ErrGoal) || errors.Is(err, data.ErrNotInstalled) {
				return nil, fmt.Errorf("%w: %v", ErrOptions, err)
			}
			return nil, err
		}
		s.fast = f
		s.about = fmt.Sprintf("IDA* with %s", f.Heuristic())
		if l := f.Lookups(); l != "" {
			s.about += " (" + l + ")"
		}
		s.about += ", tables: " + f.Tables()
		return s, nil
	}
	if fh.IsSet() {
		return nil, fmt.Errorf("%w: the %s set serves IDA* on its own board (%s), not %s on %s", ErrOptions, name, setBoard(name), algo, size)
	}
	if name == "" || name == "auto" {
		name = "max"
		if size == (board.Size{W: 5, H: 5}) {
			name = "pdb" // no 5x5 walking-distance table
		}
	}
	h, err := heuristic.NewContext(ctx, name, goal, opt.Tables)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrOptions, err)
	}
	s.h = h
	s.about = fmt.Sprintf("%s with %s (general search)", algo, h.Name)
	return s, nil
}

func setBoard(name string) string {
	if spec, err := pdb.SetByName(name); err == nil {
		return spec.Size().String()
	}
	return "?"
}

// About says, for people, which algorithm, heuristic and tables the solver uses.
func (s *Solver) About() string { return s.about }

// Goal returns the solver's goal.
func (s *Solver) Goal() board.Goal { return s.goal }

// Heuristic names the heuristic the solver uses (the default resolved).
func (s *Solver) Heuristic() string {
	if s.fast != nil {
		return string(s.fast.Heuristic())
	}
	return s.h.Name
}

// Optimal reports whether the solver's solutions are proven optimal: an optimal algorithm
// with an admissible heuristic.
func (s *Solver) Optimal() bool {
	if s.fast != nil {
		return true
	}
	return s.algo != "bastar" && s.h.Admissible
}

// WithProgress returns a solver that shares s's tables and reports to progress.
func (s *Solver) WithProgress(progress func(bound int, nodes uint64)) *Solver {
	c := *s
	c.opt.Progress = progress
	if c.fast != nil {
		c.fast = c.fast.WithProgress(progress)
	}
	return &c
}

// Solve searches for a solution of start: the result, and an error when the search did
// not finish (ctx's error, a limit) or start is not a valid state for the goal. A result
// that comes with an error carries what the search established before it stopped.
func (s *Solver) Solve(ctx context.Context, start board.State) (*Result, error) {
	if s.fast != nil { // both searches check start first
		res, err := s.fast.Solve(ctx, start)
		if res == nil {
			return nil, err
		}
		out := &Result{Start: res.Start, Moves: res.Moves, Solved: res.Solved, Optimal: res.Optimal,
			LowerBound: res.LowerBound, H0: res.H0, Nodes: res.Nodes, Expanded: res.Expanded,
			PeakStored: res.LowerBound + 1, Elapsed: res.Elapsed, Passes: res.Passes,
			Algorithm: "idastar", Heuristic: string(res.Heuristic), Lookups: res.Lookups, Tables: s.fast.Tables()}
		out.setTiles(s.goal)
		return out, err
	}
	opt := search.Options{MaxStates: s.opt.MaxStates, MaxExpansions: s.opt.MaxExpansions, MaxNodes: s.opt.MaxNodes,
		Progress: s.opt.Progress, ProgressEvery: s.opt.ProgressEvery}
	res, err := search.Run(ctx, s.algo, s.h, start, opt)
	if res == nil {
		return nil, err
	}
	out := &Result{Start: start.Clone(), Moves: res.Moves, Solved: res.Solved, Optimal: res.Optimal,
		H0: s.h.Eval(start), Nodes: res.Nodes, Expanded: res.Expanded, PeakStored: res.PeakStored,
		Elapsed: res.Elapsed, Algorithm: res.Algorithm, Heuristic: res.Heuristic, Tables: "embedded"}
	if s.opt.Tables != nil {
		out.Tables = s.opt.Tables.Source
	}
	if res.Solved && res.Optimal {
		out.LowerBound = len(res.Moves)
	}
	out.setTiles(s.goal)
	return out, err
}

func (r *Result) setTiles(goal board.Goal) {
	r.Tiles = []int{}
	if r.Solved {
		r.Tiles, _ = goal.Size().DirsToTiles(r.Start, r.Moves)
	}
}

// Solve solves one position with a solver made for it: the shortest way to use the
// toolkit. For many positions of one goal, make a Solver once.
func Solve(ctx context.Context, goal board.Goal, start board.State, opt Options) (*Result, error) {
	s, err := NewContext(ctx, goal, opt)
	if err != nil {
		return nil, err
	}
	return s.Solve(ctx, start)
}
