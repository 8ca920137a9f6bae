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
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/batch"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/solve"
)

// record is the JSON form of one instance's outcome.
type record struct {
	ID             string     `json:"id,omitempty"`
	Line           int        `json:"line"`
	Start          []int      `json:"start"`
	Board          string     `json:"board"`
	Goal           string     `json:"goal"`
	Algorithm      string     `json:"algorithm"`
	Heuristic      string     `json:"heuristic"`
	Lookups        string     `json:"lookups,omitempty"`
	Tables         string     `json:"tables,omitempty"`
	Solved         bool       `json:"solved"`
	Optimal        bool       `json:"optimal"`
	Length         int        `json:"length"`
	Moves          string     `json:"moves"`
	Tiles          []int      `json:"tiles"`
	H0             int        `json:"h0"`
	LowerBound     int        `json:"lower_bound,omitempty"`
	KnownOptimal   *int       `json:"known_optimal,omitempty"`
	Nodes          uint64     `json:"nodes"`
	Expanded       uint64     `json:"expanded"`
	PeakStored     int        `json:"peak_stored"`
	Seconds        float64    `json:"seconds"`
	NodesPerSecond float64    `json:"nodes_per_second"`
	Passes         []ida.Pass `json:"passes,omitempty"`
	Error          string     `json:"error,omitempty"`

	internal error // a replay mismatch: a bug, which fails the run
}

// solver solves one state and describes the outcome; progress, if not nil, is told of
// every IDA* pass.
type solver func(ctx context.Context, s board.State, progress func(bound int, nodes uint64)) record

// newSolver makes the solver of the command line through package solve, which decides
// between the fast IDA* and the general search. threads is the number of goroutines the
// fast IDA* may use on one instance. It also says, for people, what it uses.
func newSolver(c *cli.Context, goal board.Goal, threads int) (solver, string, error) {
	tables, dirs, err := tablesFlag(c)
	if err != nil {
		return nil, "", err
	}
	s, err := solve.New(goal, solve.Options{
		Algorithm: c.String("algo"), Heuristic: c.String("heuristic"), Lookups: c.String("lookups"),
		WithWD: c.Bool("with-wd"), Tables: tables, TableDirs: dirs,
		MaxNodes: c.Uint64("max-nodes"), MaxExpansions: c.Uint64("max-expansions"), MaxStates: c.Int("max-states"),
		Workers: threads,
	})
	if errors.Is(err, solve.ErrOptions) {
		return nil, "", cmdline.Usagef("%v", err)
	}
	if err != nil {
		return nil, "", err
	}
	about := s.About()
	if goal.Size() == (board.Size5x5) && s.Heuristic() == "md" {
		about += "; for the 24-puzzle build the 6-6-6-6 set once (pdbgen build --set 6-6-6-6, 2 minutes): without it only easy positions finish"
	}
	return func(ctx context.Context, st board.State, progress func(int, uint64)) record {
		res, err := s.WithProgress(progress).Solve(ctx, st)
		return fromResult(res, err)
	}, about, nil
}

func fromResult(res *solve.Result, err error) record {
	rec := record{Error: errText(err)}
	if res == nil {
		return rec
	}
	rec.Algorithm, rec.Heuristic, rec.Lookups, rec.Tables = res.Algorithm, res.Heuristic, res.Lookups, res.Tables
	rec.Solved, rec.Optimal = res.Solved, res.Optimal
	rec.H0, rec.LowerBound = res.H0, res.LowerBound
	rec.Nodes, rec.Expanded, rec.Passes, rec.PeakStored = res.Nodes, res.Expanded, res.Passes, res.PeakStored
	rec.Seconds = res.Elapsed.Seconds()
	rec.Tiles, rec.Length = res.Tiles, res.Length()
	if res.Solved {
		rec.Moves = board.FormatDirs(res.Moves)
	}
	if rec.Seconds > 0 {
		rec.NodesPerSecond = float64(rec.Nodes) / rec.Seconds
	}
	if err != nil && res.Solved {
		rec.internal = err
	}
	return rec
}

func errText(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	return err.Error()
}

// summary counts a batch.
type summary struct {
	solved, notOptimal, unsolved, mismatched, invalid int
	nodes                                             uint64
	searchTime                                        time.Duration
}

func solveAction(c *cli.Context) error {
	goal, err := goalFlag(c)
	if err != nil {
		return err
	}
	if c.Int("workers") < 1 {
		return cmdline.Usagef("--workers must be at least 1")
	}
	timeout := c.Duration("timeout")
	if timeout < 0 {
		return cmdline.Usagef("--timeout must not be negative (0 means no limit)")
	}
	in, err := openInput(c, goal)
	if err != nil {
		return err
	}
	// Workers split a batch by instance; a single instance gets them all.
	threads := 1
	if in.single {
		threads = c.Int("workers")
	}
	solve, about, err := newSolver(c, goal, threads)
	if err != nil {
		return err
	}
	if c.Bool("verbose") {
		fmt.Fprintf(c.App.ErrWriter, "solve15: %s\n", about)
	}
	msgs := newMessages(c.App.ErrWriter, goal)
	status := cmdline.NewStatus(c.App.ErrWriter, c.Bool("quiet"))
	var sum summary
	begin := time.Now()
	var fatal error
	batch.Stream(c.Context, in.all(), c.Int("workers"), func(ctx context.Context, e entry) record {
		if e.in == nil {
			return record{}
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return solve(ctx, e.in.State, progressFor(c, status, label(e.in.ID, e.in.Line)))
	}, func(e entry, rec record) {
		status.Clear()
		if e.in == nil {
			msgs.add(e)
			sum.invalid++
			if c.Bool("json") {
				json.NewEncoder(c.App.Writer).Encode(record{Line: e.line, Board: goal.Size().String(), Goal: goal.Name(), Error: e.err.Error()})
			}
			return
		}
		describe(&rec, e.in, goal)
		switch {
		case rec.internal != nil:
			fatal = rec.internal
		case !rec.Solved:
			sum.unsolved++
		case e.in.Optimal >= 0 && rec.Optimal && rec.Length != e.in.Optimal:
			sum.mismatched++
			rec.Error = fmt.Sprintf("found %d moves, but the input says the optimum is %d", rec.Length, e.in.Optimal)
		case !rec.Optimal:
			sum.notOptimal++
		default:
			sum.solved++
		}
		sum.nodes += rec.Nodes
		sum.searchTime += time.Duration(rec.Seconds * float64(time.Second))
		print(c, rec)
	})
	status.Clear()
	msgs.finish()
	if fatal != nil {
		return fatal
	}
	if c.Context.Err() == nil && *in.err != nil {
		return *in.err
	}
	total := sum.solved + sum.notOptimal + sum.unsolved + sum.mismatched
	if total+sum.invalid == 0 && c.Context.Err() == nil {
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("no states in %s", describeInput(in))}
	}
	printSummary(c, sum, time.Since(begin))
	switch {
	case sum.mismatched > 0:
		return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%d solutions contradict the known optimal length", sum.mismatched)}
	case c.Context.Err() != nil:
		return &cmdline.ExitError{Code: cmdline.ExitInterrupted, Err: errors.New("interrupted")}
	case sum.invalid > 0:
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("%d of the inputs were invalid (see above)", sum.invalid)}
	case sum.unsolved > 0:
		return &cmdline.ExitError{Code: exitUnsolved, Err: fmt.Errorf("%d instances not solved within the limits", sum.unsolved)}
	}
	return nil
}

// describeInput names the input for a message.
func describeInput(in *input) string {
	if in.name == "" {
		return "the arguments"
	}
	return in.name
}

// progressFor returns the progress report of one instance: each new IDA* pass on standard
// error with -v, and a live status line on a terminal.
func progressFor(c *cli.Context, status *cmdline.Status, name string) func(int, uint64) {
	verbose := c.Bool("verbose")
	if !verbose && !status.Live() {
		return nil
	}
	begin := time.Now()
	last := -1
	return func(bound int, nodes uint64) {
		elapsed := time.Since(begin).Seconds()
		if verbose && bound != last {
			status.Println(fmt.Sprintf("solve15: %s: pass with bound %d, %s nodes so far, %.1fs", name, bound, thousands(nodes), elapsed))
		}
		last = bound
		rate := 0.0
		if elapsed > 0 {
			rate = float64(nodes) / elapsed
		}
		status.Set(fmt.Sprintf("%s: bound %d, %s nodes, %.1f M nodes/s, %.1fs", name, bound, thousands(nodes), rate/1e6, elapsed))
	}
}

// describe fills the fields that come from the input line.
func describe(rec *record, in *instance.Instance, goal board.Goal) {
	rec.ID, rec.Line = in.ID, in.Line
	rec.Board, rec.Goal = goal.Size().String(), goal.Name()
	rec.Start = make([]int, len(in.State))
	for i, t := range in.State {
		rec.Start[i] = int(t)
	}
	if in.Optimal >= 0 {
		known := in.Optimal
		rec.KnownOptimal = &known
	}
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
	name := label(rec.ID, rec.Line)
	if !rec.Solved {
		fmt.Fprintf(w, "%s: not solved (%s)", name, rec.Error)
		if rec.LowerBound > 0 {
			fmt.Fprintf(w, ": optimum at least %d", rec.LowerBound)
		}
		fmt.Fprintf(w, "; %s nodes, %.2fs\n", thousands(rec.Nodes), rec.Seconds)
		return
	}
	note := "optimal"
	switch {
	case rec.Error != "":
		note = "MISMATCH: " + rec.Error
	case !rec.Optimal:
		note = fmt.Sprintf("not proven optimal: %s with %s", rec.Algorithm, rec.Heuristic)
	}
	fmt.Fprintf(w, "%s: %d moves (%s)\n", name, rec.Length, note)
	fmt.Fprintf(w, "  blank: %s\n", rec.Moves)
	fmt.Fprintf(w, "  tiles: %s\n", joinInts(rec.Tiles))
	fmt.Fprintf(w, "  %s nodes (%s expanded, %s stored at most), %.3fs, %.1f M nodes/s, h0 %d\n",
		thousands(rec.Nodes), thousands(rec.Expanded), thousands(uint64(rec.PeakStored)), rec.Seconds, rec.NodesPerSecond/1e6, rec.H0)
}

// label names an instance in human output: its id, or #N for the N-th line or argument.
func label(id string, line int) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("#%d", line)
}

// printSummary prints the batch's summary line: for more than one input, or with -q, which
// prints nothing else.
func printSummary(c *cli.Context, sum summary, wall time.Duration) {
	total := sum.solved + sum.notOptimal + sum.unsolved + sum.mismatched
	if c.Bool("json") || (total+sum.invalid <= 1 && !c.Bool("quiet")) {
		return
	}
	rate := 0.0
	if sum.searchTime > 0 {
		rate = float64(sum.nodes) / sum.searchTime.Seconds()
	}
	fmt.Fprintf(c.App.Writer, "summary: %d solved optimally, %d solved without proof of optimality, %d not solved, %d mismatched, %d invalid; %s nodes, %.2fs wall, %.2fs search, %.1f M nodes/s\n",
		sum.solved, sum.notOptimal, sum.unsolved, sum.mismatched, sum.invalid, thousands(sum.nodes), wall.Seconds(), sum.searchTime.Seconds(), rate/1e6)
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
