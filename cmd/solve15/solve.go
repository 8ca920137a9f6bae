package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/fifteen"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/cmdline"
)

// record is the JSON form of one instance's outcome.
type record struct {
	ID             string         `json:"id,omitempty"`
	Line           int            `json:"line"`
	Start          []int          `json:"start"`
	Goal           string         `json:"goal"`
	Heuristic      string         `json:"heuristic"`
	Solved         bool           `json:"solved"`
	Optimal        bool           `json:"optimal"`
	Length         int            `json:"length"`
	Moves          string         `json:"moves"`
	Tiles          []int          `json:"tiles"`
	H0             int            `json:"h0"`
	LowerBound     int            `json:"lower_bound"`
	KnownOptimal   *int           `json:"known_optimal,omitempty"`
	Nodes          uint64         `json:"nodes"`
	Expanded       uint64         `json:"expanded"`
	Seconds        float64        `json:"seconds"`
	NodesPerSecond float64        `json:"nodes_per_second"`
	Passes         []fifteen.Pass `json:"passes"`
	Error          string         `json:"error,omitempty"`
}

// summary counts a batch.
type summary struct {
	solved, unsolved, mismatched, invalid int
	nodes                                 uint64
	searchTime                            time.Duration
}

func solveAction(c *cli.Context) error {
	goal, err := goalFlag(c)
	if err != nil {
		return err
	}
	h, err := fifteen.ParseHeuristic(c.String("heuristic"))
	if err != nil {
		return cmdline.Usagef("--heuristic: %v", err)
	}
	tables, err := tablesFlag(c)
	if err != nil {
		return err
	}
	solver, err := fifteen.New(goal, fifteen.Options{Heuristic: h, MaxNodes: c.Uint64("max-nodes"), Tables: tables})
	if err != nil {
		if errors.Is(err, fifteen.ErrGoal) {
			return cmdline.Usagef("%v", err)
		}
		return err
	}
	instances, bad, err := readInstances(c, goal)
	if err != nil {
		return err
	}
	if c.Int("workers") < 1 {
		return cmdline.Usagef("--workers must be at least 1")
	}
	for _, e := range bad {
		fmt.Fprintf(c.App.ErrWriter, "solve15: %v\n", e)
	}
	sum := summary{invalid: len(bad)}
	starts := make([]board.State, len(instances))
	for i, in := range instances {
		starts[i] = in.State
	}
	begin := time.Now()
	var fatal error
	solver.SolveAll(c.Context, starts, c.Int("workers"), c.Duration("timeout"), func(i int, res *fifteen.Result, err error) {
		in := instances[i]
		rec := newRecord(in, goal, h, res, err)
		switch {
		case err != nil && res != nil && res.Solved: // internal error: replay failed
			fatal = err
		case err != nil:
			sum.unsolved++
		case in.Optimal >= 0 && rec.Length != in.Optimal:
			sum.mismatched++
			rec.Error = fmt.Sprintf("found %d moves, but the input says the optimum is %d", rec.Length, in.Optimal)
		default:
			sum.solved++
		}
		if res != nil {
			sum.nodes += res.Nodes
			sum.searchTime += res.Elapsed
		}
		print(c, rec)
	})
	if fatal != nil {
		return fatal
	}
	printSummary(c, sum, time.Since(begin))
	switch {
	case sum.mismatched > 0:
		return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%d solutions contradict the known optimal length", sum.mismatched)}
	case sum.invalid > 0:
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("%d input lines were invalid (see above)", sum.invalid)}
	case c.Context.Err() != nil:
		return &cmdline.ExitError{Code: exitUnsolved, Err: errors.New("interrupted")}
	case sum.unsolved > 0:
		return &cmdline.ExitError{Code: exitUnsolved, Err: fmt.Errorf("%d instances not solved within the limits", sum.unsolved)}
	}
	return nil
}

func newRecord(in *instance.Instance, goal board.Goal, h fifteen.Heuristic, res *fifteen.Result, err error) record {
	rec := record{ID: in.ID, Line: in.Line, Goal: goal.Name(), Heuristic: h.String(), Tiles: []int{}, Passes: []fifteen.Pass{}}
	for _, t := range in.State {
		rec.Start = append(rec.Start, int(t))
	}
	if in.Optimal >= 0 {
		known := in.Optimal
		rec.KnownOptimal = &known
	}
	if err != nil {
		rec.Error = err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			rec.Error = "timed out"
		}
	}
	if res == nil {
		return rec
	}
	rec.Solved, rec.Optimal = res.Solved, res.Optimal
	rec.H0, rec.LowerBound = res.H0, res.LowerBound
	rec.Nodes, rec.Expanded, rec.Passes = res.Nodes, res.Expanded, res.Passes
	rec.Seconds = res.Elapsed.Seconds()
	if rec.Seconds > 0 {
		rec.NodesPerSecond = float64(res.Nodes) / rec.Seconds
	}
	if res.Solved {
		rec.Length = len(res.Moves)
		rec.Moves = board.FormatDirs(res.Moves)
		rec.Tiles, _ = board.Size4x4.DirsToTiles(in.State, res.Moves)
	} else {
		rec.Length = -1
	}
	return rec
}

func print(c *cli.Context, rec record) {
	w := c.App.Writer
	if c.Bool("json") {
		json.NewEncoder(w).Encode(rec)
		return
	}
	if c.Bool("quiet") {
		return
	}
	name := rec.ID
	if name == "" {
		name = fmt.Sprintf("#%d", rec.Line)
	}
	if !rec.Solved {
		fmt.Fprintf(w, "%s: not solved (%s): optimum at least %d; %s nodes, %.2fs\n",
			name, rec.Error, rec.LowerBound, thousands(rec.Nodes), rec.Seconds)
		return
	}
	note := "optimal"
	if rec.Error != "" {
		note = "MISMATCH: " + rec.Error
	}
	fmt.Fprintf(w, "%s: %d moves (%s)\n", name, rec.Length, note)
	fmt.Fprintf(w, "  blank: %s\n", rec.Moves)
	fmt.Fprintf(w, "  tiles: %s\n", joinInts(rec.Tiles))
	fmt.Fprintf(w, "  %s nodes (%s expanded), %.3fs, %.1f M nodes/s, h0 %d, %d passes\n",
		thousands(rec.Nodes), thousands(rec.Expanded), rec.Seconds, rec.NodesPerSecond/1e6, rec.H0, len(rec.Passes))
}

func printSummary(c *cli.Context, sum summary, wall time.Duration) {
	total := sum.solved + sum.unsolved + sum.mismatched
	if c.Bool("json") || total+sum.invalid <= 1 && sum.invalid == 0 {
		return
	}
	rate := 0.0
	if sum.searchTime > 0 {
		rate = float64(sum.nodes) / sum.searchTime.Seconds()
	}
	fmt.Fprintf(c.App.Writer, "summary: %d solved optimally, %d not solved, %d mismatched, %d invalid; %s nodes, %.2fs wall, %.2fs search, %.1f M nodes/s\n",
		sum.solved, sum.unsolved, sum.mismatched, sum.invalid, thousands(sum.nodes), wall.Seconds(), sum.searchTime.Seconds(), rate/1e6)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// thousands writes n with commas: 12,345,678.
func thousands(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}
