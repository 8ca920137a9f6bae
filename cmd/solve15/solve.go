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
	var sum solve.Summary
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
		res, err := s.WithProgress(progressFor(c, status, (&solve.Record{ID: e.In.ID, Line: e.In.Line}).Label()), 0).Solve(ctx, e.In.State)
		return outcome{solve.NewRecord(goal, e.In.State, res, err), err}
	}, func(e instance.Entry, o outcome) {
		status.Clear()
		if e.In == nil {
			problems.Add(e)
			sum.Invalid++
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
		if rec.Solved && o.err != nil { // a replay mismatch: a bug, which fails the run
			fatal = o.err
		}
		sum.Add(&rec, e.In.Optimal)
		if c.Bool("json") {
			cmdline.JSON(c, rec)
		} else if !c.Bool("quiet") {
			rec.WriteText(c.App.Writer)
		}
	})
	status.Clear()
	problems.Finish()
	if fatal != nil {
		return fatal
	}
	if c.Context.Err() == nil && in.Err() != nil {
		return in.Err()
	}
	if sum.Total()+sum.Invalid == 0 && c.Context.Err() == nil {
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("no states in %s", in.Name())}
	}
	if !c.Bool("json") && (sum.Total()+sum.Invalid > 1 || c.Bool("quiet")) {
		fmt.Fprintln(c.App.Writer, sum.Text(time.Since(begin)))
	}
	switch {
	case sum.Mismatched > 0:
		return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%d solutions contradict the known optimal length", sum.Mismatched)}
	case c.Context.Err() != nil:
		return &cmdline.ExitError{Code: cmdline.ExitInterrupted, Err: errors.New("interrupted")}
	case sum.Invalid > 0:
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("%d of the inputs were invalid (see above)", sum.Invalid)}
	case sum.Unsolved > 0:
		return &cmdline.ExitError{Code: exitUnsolved, Err: fmt.Errorf("%d instances not solved within the limits", sum.Unsolved)}
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
