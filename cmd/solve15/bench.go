package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/repro"
	"github.com/tilekit/tilekit/solve"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "solve Korf's 100 with each heuristic and report nodes, time and optimality",
		UsageText: "solve15 bench [--heuristic LIST] [--workers N] [--device D] [-f FILE --goal GOAL] [--markdown FILE] [--json]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "heuristic", Aliases: []string{"H"}, Value: "auto", Usage: "comma-separated heuristics, or all; auto is the strongest available, as solve15 takes it"},
			cmdline.WorkersFlag(1, 1, "instances solved in parallel"),
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "instances to use instead of Korf's 100 (`FILE`, with known optima)"},
			&cli.StringFlag{Name: "goal", Aliases: []string{"g"}, Value: "blank-first", Usage: "goal of the instances"},
			&cli.IntFlag{Name: "limit", Usage: "use only the first N instances (0: all)"},
			&cli.IntFlag{Name: "random", Usage: "use N uniformly random solvable instances of --goal instead (optima unknown)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of --random"},
			&cli.StringFlag{Name: "markdown", Usage: "write the totals as a markdown table to `FILE`"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per instance and per total"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the totals"},
		}, cmdline.DeviceFlags()...),
		Action: benchAction,
	}
}

func benchAction(c *cli.Context) error {
	if err := cmdline.NoArgs(c); err != nil {
		return err
	}
	goal, err := cmdline.Goal(c)
	if err != nil {
		return err
	}
	list := strings.Split(c.String("heuristic"), ",")
	if c.String("heuristic") == "all" {
		list = repro.BenchAll()
	}
	if c.IsSet("random") && c.Int("random") == 0 {
		return cmdline.Usagef("--random: give at least 1 instance")
	}
	in := repro.BenchInput{File: c.String("file"), Random: c.Int("random"), Seed: c.Uint64("seed"), Limit: c.Int("limit")}
	instances, err := in.Load(c.Context, goal)
	switch {
	case errors.Is(err, repro.ErrBenchUsage):
		return cmdline.Usagef("%v", err)
	case errors.As(err, new(*fs.PathError)): // the file could not be opened
		return err
	case err != nil:
		return &cmdline.ExitError{Code: cmdline.ExitBadInput, Err: err}
	}
	workers := c.Int("workers")
	device, err := cmdline.Device(c)
	if err != nil {
		return err
	}
	if !c.Bool("json") {
		fmt.Fprintln(c.App.Writer, repro.BenchHeader(len(instances), goal, workers))
	}
	var totals []repro.BenchTotal
	opt := repro.BenchOptions{Workers: workers, Device: device}
	err = repro.Bench(c.Context, goal, list, instances, opt, func(r repro.BenchRun) {
		if c.Bool("json") || !c.Bool("quiet") {
			cmdline.Print(c, r, func(w io.Writer) { fmt.Fprintln(w, r.Text()) })
		}
	}, func(t repro.BenchTotal) {
		totals = append(totals, t)
		cmdline.Print(c, t, func(w io.Writer) { fmt.Fprintln(w, t.Text()) })
	})
	if errors.Is(err, solve.ErrOptions) {
		return cmdline.Usagef("--heuristic %v", err)
	} else if err != nil {
		return err
	}
	if path := c.String("markdown"); path != "" {
		if err := atomicfile.Write(c.Context, path, []byte(repro.BenchMarkdown(totals))); err != nil {
			return err
		}
	}
	for _, t := range totals {
		if !t.AllOptimal {
			return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%s: some lengths differ from the known optima", t.Heuristic)}
		}
	}
	return nil
}
