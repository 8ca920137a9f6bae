package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/report"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "print every heuristic's value for states",
		UsageText: "solve15 eval [--board WxH] [--goal GOAL] [--json] STATE... | -f FILE",
		Flags: append(solveFlags(),
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read states from `FILE` (- for standard input)"}),
		Action: evalAction,
	}
}

func evalAction(c *cli.Context) error {
	goal, tables, in, err := cmdline.Instances(c)
	if err != nil {
		return err
	}
	ev, err := report.NewEvaluator(c.Context, goal, tables)
	if err != nil {
		return err
	}
	problems := instance.NewProblems(c.App.ErrWriter, "solve15: ", goal)
	count, entries := 0, in.All()
	for {
		e, ok := instance.Receive(c.Context, entries)
		if !ok {
			break
		}
		count++
		if e.In == nil {
			problems.Add(e)
			if c.Bool("json") {
				cmdline.JSON(c, report.NewBadLine(goal, e))
			}
			continue
		}
		if err := cmdline.Print(c, ev.JSON(goal, e.In), func(w io.Writer) { fmt.Fprintln(w, ev.Text(e.In)) }); err != nil {
			return err
		}
	}
	problems.Finish()
	switch {
	case c.Context.Err() != nil:
		return &cmdline.ExitError{Code: cmdline.ExitInterrupted, Err: errors.New("interrupted")}
	case in.Err() != nil:
		return cmdline.InputError(in)
	case count == 0:
		return &cmdline.ExitError{Code: cmdline.ExitBadInput, Err: fmt.Errorf("no states in %s", in.Name())}
	case problems.Bad > 0:
		return &cmdline.ExitError{Code: cmdline.ExitBadInput, Err: fmt.Errorf("%s invalid (see above)", format.Count(problems.Bad, "input was", "inputs were"))}
	}
	return nil
}
