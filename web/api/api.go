// Package api holds the requests and answers of the page: what /api/options, /api/check,
// /api/shuffle and /api/solve take and give. The HTTP server of package web and the
// WebAssembly worker of the static page (web/wasm) both answer through it, so the page
// gets the same answers whether it solves on a server or in the browser. It does not
// depend on net/http, which keeps the WebAssembly binary small.
package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// Status codes of the answers, as HTTP uses them.
const (
	OK          = 200
	BadRequest  = 400
	TooLarge    = 413 // a body over MaxBody
	Unprocessed = 422 // a state that cannot reach the goal
	Failed      = 500
)

// MaxBody bounds request bodies: a 5x5 state with options is a few hundred bytes.
const MaxBody = 16 << 10

// ErrTooLarge is the answer to a body over MaxBody.
var ErrTooLarge = &Error{TooLarge, fmt.Errorf("request body larger than %d bytes", MaxBody)}

// Answer turns a result and an error into a status and a body: v, or {"error": "..."}
// with the status of an *Error (500 for any other error).
func Answer(v any, err error) (int, any) {
	var ae *Error
	switch {
	case errors.As(err, &ae):
		return ae.Status, ErrorBody(ae.Err)
	case err != nil:
		return Failed, ErrorBody(err)
	}
	return OK, v
}

// ErrorBody is the body of an answer that is not OK.
func ErrorBody(err error) map[string]string { return map[string]string{"error": format.Message(err)} }

// An Error is an answer that is not OK: its status and message.
type Error struct {
	Status int
	Err    error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func bad(format string, args ...any) *Error {
	return &Error{BadRequest, fmt.Errorf(format, args...)}
}

// MaxCells bounds the boards solved, 5x5 excepted: the tables of other larger boards take
// hundreds of megabytes to build (a 4x5 walking-distance table, 300 MB).
const MaxCells = 16

// Puzzle is the part of a request that names a position: the board (default 4x4), the
// goal (default blank-last) and the state. A state (and a goal) may be a list of numbers
// or a string as solve15 reads it; the goal may also be "blank-last" or "blank-first".
type Puzzle struct {
	Board string `json:"board"`
	Goal  any    `json:"goal"`  // a string, or a list of numbers ([]any of float64, or []int)
	State any    `json:"state"` // a string, or a list of numbers ([]any of float64, or []int)
}

// Parse returns the goal and, when needState, the state.
func (p *Puzzle) Parse(needState bool) (board.Goal, board.State, error) {
	size := board.Size4x4
	if p.Board != "" {
		var err error
		if size, err = board.ParseSize(p.Board); err != nil {
			return board.Goal{}, nil, &Error{BadRequest, err}
		}
	}
	goal := board.BlankLast(size)
	if p.Goal != nil {
		var err error
		if goal, err = parseGoal(size, p.Goal); err != nil {
			return board.Goal{}, nil, bad("goal: %w", err)
		}
	}
	if !needState {
		return goal, nil, nil
	}
	if p.State == nil {
		return goal, nil, bad("no state given")
	}
	s, err := parseState(size, p.State)
	if err != nil {
		return goal, nil, bad("state: %w", err)
	}
	if err := goal.Check(s); err != nil {
		for _, other := range []board.Goal{board.BlankLast(size), board.BlankFirst(size)} {
			if errors.Is(err, board.ErrUnsolvable) && !other.Equal(goal) && other.Check(s) == nil {
				err = fmt.Errorf("%w; it is solvable for the %s goal: choose that goal", err, other.Name())
				break
			}
		}
		return goal, nil, &Error{Unprocessed, err}
	}
	return goal, s, nil
}

// parseState reads a list of numbers, or a string as solve15 reads it.
func parseState(size board.Size, v any) (board.State, error) {
	errType := errors.New("must be a list of numbers or a string")
	switch v := v.(type) {
	case string:
		return board.Parse(size, v)
	case []int: // from Go
		return board.FromInts(size, v)
	case []any:
		if len(v) > size.Cells() {
			return nil, fmt.Errorf("%d numbers for the %d cells of %s", len(v), size.Cells(), size)
		}
		nums := make([]int, len(v))
		for i, x := range v {
			f, ok := x.(float64)
			if !ok || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
				return nil, errType
			}
			nums[i] = int(f)
		}
		return board.FromInts(size, nums)
	}
	return nil, errType
}

// parseGoal reads a goal: a list of numbers, or a string that is a name or an arrangement.
func parseGoal(size board.Size, v any) (board.Goal, error) {
	if text, ok := v.(string); ok {
		return board.ParseGoal(size, text)
	}
	s, err := parseState(size, v)
	if err != nil {
		return board.Goal{}, err
	}
	return board.NewGoal(size, s)
}

// Heuristics lists the heuristics offered, from heuristic.Registry: auto (the strongest
// available), the set embedded in the binary, the sets loaded with LoadSet or installed
// where the process finds sets (data.Installed), and every heuristic of the general
// search.
func Heuristics() []string {
	names := []string{heuristic.Auto, data.EmbeddedSet.Name}
	// The sets this process has loaded (the page's, downloaded), and those installed where
	// it would find them (the server's): every set the command line takes here.
	sets := data.Loaded()
	for n := range data.Installed(nil) {
		sets = append(sets, n)
	}
	slices.Sort(sets)
	for _, n := range slices.Compact(sets) {
		if n != data.EmbeddedSet.Name {
			names = append(names, n)
		}
	}
	return append(names, heuristic.Names(heuristic.General)...)
}

// LoadSet takes the files of a set (a page downloaded them) and, once every check passes
// (data.AddSet), offers the set: solving with its name uses it, and auto prefers it when
// it is the strongest.
func LoadSet(name string, files map[string][]byte) (map[string]any, error) {
	set, err := data.AddSet(name, files)
	if errors.Is(err, data.ErrNotStandard) {
		// A person at the page has no pdbgen: say what it means there, and for whom.
		err = fmt.Errorf("the site's %s tables are not the ones pdbgen builds (another build, or damaged), so the page does not use them; the site's owner can prove them with pdbgen verify and publish them again (%w)", name, err)
	}
	if err != nil {
		return nil, &Error{Unprocessed, err}
	}
	return map[string]any{"name": set.Name, "board": set.Size().String(), "tables": len(set.Tables)}, nil
}

// Boards lists the boards the page offers.
var Boards = []string{"3x3", "4x4", "5x5"}

// Options is the answer of /api/options: the boards, goals, algorithms and heuristics
// offered (with labels for a menu), which heuristics are admissible, and which each board
// takes (by_board: a set serves only its own board). All of it comes from
// heuristic.Registry.
func Options() map[string]any {
	admissible := map[string]bool{heuristic.Auto: true}
	labels := map[string]string{heuristic.Auto: "best available"}
	byBoard := map[string][]string{}
	for _, b := range Boards {
		byBoard[b] = []string{heuristic.Auto}
	}
	for _, name := range Heuristics()[1:] {
		info, _ := heuristic.Lookup(name)
		admissible[name] = info.Admissible
		labels[name] = info.About
		if info.Set {
			labels[name] = name + " pattern databases"
		}
		if !info.Admissible {
			labels[name] += " (not admissible)"
		}
		for _, b := range Boards {
			size, _ := board.ParseSize(b)
			if info.GeneralOn(size) || info.FastOn(size) {
				byBoard[b] = append(byBoard[b], name)
			}
		}
	}
	return map[string]any{
		"labels":     labels,
		"boards":     Boards,
		"goals":      []string{"blank-last", "blank-first"},
		"algorithms": solve.Algorithms(),
		"heuristics": Heuristics(),
		"admissible": admissible,
		"by_board":   byBoard,
		"pruning":    []string{solve.PruneAutomaton, solve.PruneParent},
	}
}

// Check answers /api/check: the state, or why it is not valid.
func Check(p *Puzzle) (map[string]any, error) {
	goal, st, err := p.Parse(true)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "state": st.Ints(), "goal": goal.Tiles().Ints()}, nil
}

// ShuffleRequest is the body of /api/shuffle.
type ShuffleRequest struct {
	Puzzle
	Moves int    `json:"moves"`
	Seed  uint64 `json:"seed"`
}

// Shuffle answers /api/shuffle: a state reached from the goal by Moves random moves, or a
// uniformly random solvable state when Moves is 0.
func Shuffle(req *ShuffleRequest) (map[string]any, error) {
	goal, _, err := req.Parse(false)
	if err != nil {
		return nil, err
	}
	if req.Moves < 0 || req.Moves > 10000 {
		return nil, bad("moves must be 0 (a uniformly random state) to 10000")
	}
	seed := req.Seed
	rng := rand.New(rand.NewPCG(seed, seed))
	if seed == 0 {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	var st board.State
	if req.Moves == 0 {
		st = goal.Random(rng)
	} else {
		st, _ = goal.RandomWalk(req.Moves, rng)
	}
	return map[string]any{"state": st.Ints(), "goal": goal.Tiles().Ints()}, nil
}

// SolveRequest is the body of /api/solve.
type SolveRequest struct {
	Puzzle
	Algo      string `json:"algo"`
	Heuristic string `json:"heuristic"`
	// Pruning is the fast IDA*'s: "" or "automaton" (the default), or "parent".
	Pruning string  `json:"pruning"`
	Timeout float64 `json:"timeout_seconds"`
}

// Job is a checked solve request, ready to run.
type Job struct {
	Goal      board.Goal
	Start     board.State
	Algorithm string
	Heuristic string
	Pruning   string
	Timeout   time.Duration
}

// Prepare checks a solve request: the position, the algorithm and heuristic names, the
// board size and the time limit (0: def; clamped to most).
func (req *SolveRequest) Prepare(def, most time.Duration) (*Job, error) {
	goal, st, err := req.Parse(true)
	if err != nil {
		return nil, err
	}
	if goal.Size().Cells() > MaxCells && goal.Size() != board.Size5x5 {
		return nil, bad("this page solves boards of up to %d cells, and 5x5; use solve15 for %s", MaxCells, goal.Size())
	}
	name := strings.ToLower(strings.TrimSpace(req.Heuristic))
	if name != "" && !slices.Contains(Heuristics(), name) {
		return nil, bad("unknown heuristic %s (choose from %s)", name, strings.Join(Heuristics(), ", "))
	}
	if err := (solve.Options{Algorithm: req.Algo, Heuristic: name, Pruning: req.Pruning}).Check(goal); err != nil {
		return nil, bad("%v", err)
	}
	if req.Timeout < 0 {
		return nil, bad("timeout_seconds must not be negative")
	}
	timeout := def
	if req.Timeout > 0 {
		timeout = most // clamped before converting: 1e300 s must not overflow
		if req.Timeout < most.Seconds() {
			timeout = max(time.Duration(req.Timeout*float64(time.Second)), time.Millisecond)
		}
	}
	return &Job{Goal: goal, Start: st, Algorithm: req.Algo, Heuristic: name, Pruning: req.Pruning, Timeout: timeout}, nil
}

// Run solves the job through package solve, reporting progress (bound and nodes) at
// most every every. A* and BA* get 5 million states (about 700 MB): several visitors at
// once must not exhaust a server. The answer is solve's Record, as solve15 --json prints.
func (j *Job) Run(ctx context.Context, progress func(bound int, nodes uint64), every time.Duration) (*report.Record, error) {
	solver, err := solve.New(ctx, j.Goal, solve.Options{Algorithm: j.Algorithm, Heuristic: j.Heuristic, Pruning: j.Pruning, MaxStates: 5_000_000})
	if err != nil {
		return nil, err
	}
	res, err := solver.WithProgress(progress, every).Solve(ctx, j.Start)
	if err != nil {
		return nil, err
	}
	rec := report.NewRecord(j.Goal, j.Start, res, nil)
	return &rec, nil
}
