// Package search runs the classic search algorithms of the sliding-tile literature on any
// board from 2x2 to 5x5, with any heuristic of package heuristic (Korf 1985 for IDA*; Hart, Nilsson & Raphael 1968 for A*; Korf 1993 for RBFS; Hasan et al. 2023 for BA* with HH):
//
//   - A* (Hart, Nilsson & Raphael 1968): best-first on f = g + h, ties toward larger g, the
//     best g of every state kept so duplicates are dropped; optimal with an admissible h;
//     memory grows with the states stored, so it takes a budget.
//   - IDA* (Korf 1985): depth-first passes with a rising bound on f; linear memory.
//   - RBFS (Korf 1993): recursive best-first search with backed-up values; linear memory.
//   - BA* with the HH heuristic (Hasan et al. 2023): bidirectional A* with an inadmissible
//     heuristic, turns of a fixed number of expansions, meeting on the other side's closed
//     list; near-optimal, not optimal.
//
// Every run reports nodes generated and expanded, the most states it stored at once, and
// its time; a solution is replayed on the start before it is returned. A solution is
// reported optimal only when the algorithm is optimal and the heuristic admissible. The
// 4x4 and 5x5 boards have a much faster IDA* in package ida; these are general and
// readable, the reference it is checked against.
package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/prune"
)

// Errors that end a search without a solution.
var (
	ErrMemory     = errors.New("search: memory budget spent (raise --max-states)")
	ErrExpansions = errors.New("search: expansion limit reached")
	ErrNodes      = errors.New("search: node limit reached")
	ErrNoSolution = errors.New("search: no solution (the start cannot reach the goal)")
)

// DefaultMaxStates is the stored-state budget of A* and BA* when none is given: about
// 150 bytes a state, so roughly 7.5 GB, well inside a 24 GiB machine.
const DefaultMaxStates = 50_000_000

// Algorithms lists the algorithm names Run accepts.
var Algorithms = []string{"idastar", "astar", "rbfs", "bastar"}

// Options limit a search.
type Options struct {
	MaxStates     int    // A*, BA*: most states stored at once; 0 for DefaultMaxStates
	MaxExpansions uint64 // stop after this many expansions; 0 for no limit
	MaxNodes      uint64 // stop after generating this many nodes; 0 for no limit
	// Progress, if set, is called with a bound and the nodes generated so far: by IDA* at
	// the start of every pass (its bound), and by every algorithm at least every
	// ProgressEvery while it runs (the f of the node being expanded).
	Progress      func(bound int, nodes uint64)
	ProgressEvery time.Duration // 0 for one second
	// Pruning is the automaton with which IDA* and RBFS prune duplicate paths (package
	// prune), built for the heuristic's board; nil for the move-back rule alone.
	Pruning *prune.Automaton
}

// reporter calls Options.Progress at most every ProgressEvery, from the searching
// goroutine; tick is called every few thousand expansions.
type reporter struct {
	fn    func(int, uint64)
	every time.Duration
	last  time.Time
}

func (o Options) reporter() *reporter {
	r := &reporter{fn: o.Progress, every: o.ProgressEvery, last: time.Now()}
	if r.every <= 0 {
		r.every = time.Second
	}
	return r
}

func (r *reporter) tick(bound int, nodes uint64) {
	if r.fn == nil {
		return
	}
	if now := time.Now(); now.Sub(r.last) >= r.every {
		r.last = now
		r.fn(bound, nodes)
	}
}

// limit reports which limit, if any, the counts have reached.
func (o Options) limit(res *Result) error {
	switch {
	case o.MaxExpansions > 0 && res.Expanded >= o.MaxExpansions:
		return ErrExpansions
	case o.MaxNodes > 0 && res.Nodes >= o.MaxNodes:
		return ErrNodes
	}
	return nil
}

func (o Options) maxStates() int {
	if o.MaxStates > 0 {
		return o.MaxStates
	}
	return DefaultMaxStates
}

// Result is the outcome of a search.
type Result struct {
	Algorithm  string
	Heuristic  string
	Start      board.State
	Moves      []board.Dir // blank directions; nil when not solved
	Solved     bool
	Optimal    bool // proven optimal: an optimal algorithm with an admissible heuristic
	Nodes      uint64
	Expanded   uint64
	PeakStored int // most states held at once (A*, BA*); the deepest path for IDA* and RBFS
	Elapsed    time.Duration
}

// Run solves start with the named algorithm and heuristic. BA* always uses HH in both
// directions, as published; h is then only used for the reported name.
func Run(ctx context.Context, algo string, h *heuristic.Heuristic, start board.State, opt Options) (*Result, error) {
	goal := h.Goal
	if err := goal.Check(start); err != nil {
		return nil, err
	}
	begin := time.Now()
	var res *Result
	var err error
	switch strings.ToLower(algo) {
	case "astar", "a*":
		res, err = aStar(ctx, h, start, opt)
	case "idastar", "ida*":
		res, err = idaStar(ctx, h, start, opt)
	case "rbfs":
		res, err = rbfs(ctx, h, start, opt)
	case "bastar", "ba*":
		res, err = baStar(ctx, goal, start, opt)
	default:
		return nil, fmt.Errorf("unknown algorithm %q (choose from %s)", algo, strings.Join(Algorithms, ", "))
	}
	if res == nil {
		res = &Result{}
	}
	res.Start = start.Clone()
	res.Elapsed = time.Since(begin)
	if res.Heuristic == "" {
		res.Heuristic = h.Name
	}
	if res.Solved {
		end, rerr := goal.Size().Replay(start, res.Moves)
		if rerr != nil || !end.Equal(goal.Tiles()) {
			return res, fmt.Errorf("search: internal error: the %s solution does not replay to the goal (%v)", res.Algorithm, rerr)
		}
		res.Optimal = res.Algorithm != "bastar" && h.Admissible
	}
	return res, err
}

// key packs a state of up to 25 cells, five bits a cell, into 128 bits.
type key [2]uint64

func pack(s board.State) key {
	var k key
	for i, t := range s {
		off := 5 * i
		switch {
		case off+5 <= 64:
			k[0] |= uint64(t) << off
		case off >= 64:
			k[1] |= uint64(t) << (off - 64)
		default: // straddles the two words
			k[0] |= uint64(t) << off
			k[1] |= uint64(t) >> (64 - off)
		}
	}
	return k
}

// neighbours lists the blank's moves from each cell of a board.
type neighbours [board.MaxCells][]move

type move struct {
	dir  board.Dir
	cell int
}

func movesOf(size board.Size) *neighbours {
	var n neighbours
	for c := 0; c < size.Cells(); c++ {
		for _, d := range board.Dirs {
			if q := size.Step(c, d); q >= 0 {
				n[c] = append(n[c], move{d, q})
			}
		}
	}
	return &n
}
