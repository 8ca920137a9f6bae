package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/batch"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/solve"
)

// openInput starts reading the arguments or --file as a stream of instances.
func openInput(c *cli.Context, goal board.Goal) (*instance.Stream, error) {
	file, args := c.String("file"), c.Args().Slice()
	var r io.Reader
	switch {
	case file != "" && len(args) > 0:
		return nil, cmdline.Usagef("give states as arguments or with --file, not both")
	case file == "-":
		r, file = c.App.Reader, "stdin"
		if r == nil {
			r = os.Stdin
		}
	case file != "":
		f, err := instance.OpenFile(file)
		if err != nil {
			return nil, err
		}
		r = f // closed by the stream at its end
	case len(args) == 0:
		return nil, cmdline.Usagef("no states: give STATE arguments or --file FILE")
	default:
		r = instance.Args(args, goal.Size())
	}
	return instance.NewStream(c.Context, r, file, goal), nil
}

// summary counts a batch.
type summary struct {
	solved, notOptimal, unsolved, mismatched, invalid int
	nodes                                             uint64
	searchTime                                        time.Duration
}

func solveAction(c *cli.Context) error {
	goal, err := cmdline.Goal(c)
	if err != nil {
		return err
	}
	tables, err := cmdline.Dir(c, "tables")
	if err != nil {
		return err
	}
	timeout := c.Duration("timeout")
	if c.Int("workers") < 1 {
		return cmdline.Usagef("--workers must be at least 1")
	}
	if timeout < 0 {
		return cmdline.Usagef("--timeout must not be negative (0 means no limit)")
	}
	in, err := openInput(c, goal)
	if err != nil {
		return err
	}
	threads := 1 // workers split a batch by instance; a single instance gets them all
	if in.Single() {
		threads = c.Int("workers")
	}
	s, err := solve.New(goal, solve.Options{
		Algorithm: c.String("algo"), Heuristic: c.String("heuristic"), Lookups: c.String("lookups"),
		WithWD: c.Bool("with-wd"), Tables: tables, Workers: threads,
		MaxNodes: c.Uint64("max-nodes"), MaxExpansions: c.Uint64("max-expansions"), MaxStates: c.Int("max-states"),
	})
	if errors.Is(err, solve.ErrOptions) {
		return cmdline.Usagef("%v", err)
	} else if err != nil {
		return err
	}
	if c.Bool("verbose") {
		fmt.Fprintf(c.App.ErrWriter, "solve15: %s\n", s.About())
	}
	problems := instance.NewProblems(c.App.ErrWriter, "solve15: ", goal)
	status := cmdline.NewStatus(c.App.ErrWriter, c.Bool("quiet"))
	var sum summary
	begin := time.Now()
	var fatal error
	type outcome struct {
		rec solve.Record
		err error
	}
	batch.Stream(c.Context, in.All(), c.Int("workers"), func(ctx context.Context, e instance.Entry) outcome {
		if e.In == nil {
			return outcome{}
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		res, err := s.WithProgress(progressFor(c, status, label(e.In.ID, e.In.Line)), 0).Solve(ctx, e.In.State)
		return outcome{solve.NewRecord(goal, e.In.State, res, err), err}
	}, func(e instance.Entry, o outcome) {
		status.Clear()
		if e.In == nil {
			problems.Add(e)
			sum.invalid++
			if c.Bool("json") {
				cmdline.JSON(c, solve.Record{Line: e.Line, Board: goal.Size().String(), Goal: goal.Name(), Error: e.Err.Error()})
			}
			return
		}
		rec := o.rec
		rec.ID, rec.Line = e.In.ID, e.In.Line
		if e.In.Optimal >= 0 {
			rec.KnownOptimal = &e.In.Optimal
		}
		switch {
		case rec.Solved && o.err != nil: // a replay mismatch: a bug, which fails the run
			fatal = o.err
		case !rec.Solved:
			sum.unsolved++
		case e.In.Optimal >= 0 && rec.Optimal && rec.Length != e.In.Optimal:
			sum.mismatched++
			rec.Error = fmt.Sprintf("found %d moves, but the input says the optimum is %d", rec.Length, e.In.Optimal)
		case !rec.Optimal:
			sum.notOptimal++
		default:
			sum.solved++
		}
		sum.nodes += rec.Nodes
		sum.searchTime += time.Duration(rec.Seconds * float64(time.Second))
		printRecord(c, rec)
	})
	status.Clear()
	problems.Finish()
	if fatal != nil {
		return fatal
	}
	if c.Context.Err() == nil && in.Err() != nil {
		return in.Err()
	}
	total := sum.solved + sum.notOptimal + sum.unsolved + sum.mismatched
	if total+sum.invalid == 0 && c.Context.Err() == nil {
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("no states in %s", in.Name())}
	}
	if !c.Bool("json") && (total+sum.invalid > 1 || c.Bool("quiet")) {
		rate := 0.0
		if sum.searchTime > 0 {
			rate = float64(sum.nodes) / sum.searchTime.Seconds()
		}
		fmt.Fprintf(c.App.Writer, "summary: %d solved optimally, %d solved without proof of optimality, %d not solved, %d mismatched, %d invalid; %s nodes, %.2fs wall, %.2fs search, %.1f M nodes/s\n",
			sum.solved, sum.notOptimal, sum.unsolved, sum.mismatched, sum.invalid, format.Thousands(sum.nodes), time.Since(begin).Seconds(), sum.searchTime.Seconds(), rate/1e6)
	}
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
			status.Println(fmt.Sprintf("solve15: %s: pass with bound %d, %s nodes so far, %.1fs", name, bound, format.Thousands(nodes), elapsed))
		}
		last = bound
		rate := 0.0
		if elapsed > 0 {
			rate = float64(nodes) / elapsed
		}
		status.Set(fmt.Sprintf("%s: bound %d, %s nodes, %.1f M nodes/s, %.1fs", name, bound, format.Thousands(nodes), rate/1e6, elapsed))
	}
}

// printRecord prints one instance's outcome: a JSON line, or text for people.
func printRecord(c *cli.Context, rec solve.Record) {
	w := c.App.Writer
	if c.Bool("json") {
		cmdline.JSON(c, rec)
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
		fmt.Fprintf(w, "; %s nodes, %.2fs\n", format.Thousands(rec.Nodes), rec.Seconds)
		return
	}
	note := "optimal"
	switch {
	case rec.Error != "":
		note = "MISMATCH: " + rec.Error
	case !rec.Optimal:
		note = fmt.Sprintf("not proven optimal: %s with %s", rec.Algorithm, rec.Heuristic)
	}
	fmt.Fprintf(w, "%s: %d moves (%s)\n  blank: %s\n  tiles: %s\n", name, rec.Length, note, rec.Moves, format.Ints(rec.Tiles, " "))
	fmt.Fprintf(w, "  %s nodes (%s expanded, %s stored at most), %.3fs, %.1f M nodes/s, h0 %d\n",
		format.Thousands(rec.Nodes), format.Thousands(rec.Expanded), format.Thousands(uint64(rec.PeakStored)), rec.Seconds, rec.NodesPerSecond/1e6, rec.H0)
}

// label names an instance in human output: its id, or #N for the N-th line or argument.
func label(id string, line int) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("#%d", line)
}
