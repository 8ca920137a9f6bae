package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/solve"
)

// openInput reads --board, --goal and --tables, and starts reading the arguments or
// --file as a stream of instances.
func openInput(c *cli.Context) (board.Goal, string, *instance.Stream, error) {
	goal, err := cmdline.Goal(c)
	if err != nil {
		return goal, "", nil, err
	}
	tables, err := cmdline.Dir(c, "tables")
	if err != nil {
		return goal, "", nil, err
	}
	in, err := instance.Open(c.Context, c.String("file"), c.Args().Slice(), c.App.Reader, goal)
	if errors.Is(err, instance.ErrNoInput) && c.String("file") == "" {
		err = cmdline.Usagef("no states: give STATE arguments or --file FILE")
	} else if errors.Is(err, instance.ErrNoInput) {
		err = cmdline.Usagef("give states as arguments or with --file, not both")
	}
	return goal, tables, in, err
}

func solveAction(c *cli.Context) error {
	goal, tables, in, err := openInput(c)
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
	begin := time.Now()
	var fatal error
	progress := func(label string) func(int, uint64) { return status.Search("solve15: ", label, c.Bool("verbose")) }
	sum := s.Batch(c.Context, in.All(), solve.BatchOptions{Workers: c.Int("workers"), Timeout: c.Duration("timeout"), Progress: progress}, func(e instance.Entry, rec solve.Record, err error) {
		status.Clear()
		switch {
		case e.In == nil:
			problems.Add(e)
		case rec.Solved && err != nil: // a replay mismatch: a bug, which fails the run
			fatal = err
		}
		if c.Bool("json") && e.In == nil {
			cmdline.JSON(c, solve.NewBadLine(goal, e))
		} else if c.Bool("json") {
			cmdline.JSON(c, rec)
		} else if !c.Bool("quiet") && e.In != nil {
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
		return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%s the known optimal length", format.Count(sum.Mismatched, "solution contradicts", "solutions contradict"))}
	case c.Context.Err() != nil:
		return &cmdline.ExitError{Code: cmdline.ExitInterrupted, Err: errors.New("interrupted")}
	case sum.Invalid > 0:
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("%s invalid (see above)", format.Count(sum.Invalid, "input was", "inputs were"))}
	case sum.Unsolved > 0:
		return &cmdline.ExitError{Code: exitUnsolved, Err: fmt.Errorf("%s not solved within the limits", format.Count(sum.Unsolved, "instance"))}
	}
	return nil
}
