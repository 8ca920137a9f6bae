package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/gpucheck"
)

// The device check's defaults: the plan of one run on a card, what gpu/prepare.sh makes,
// and where the results go.
const (
	defaultPlan     = "gpu/plans/card.json"
	defaultPrepared = ".gpucheck"
	defaultOut      = "gpucheck-out"
)

func planFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "plan", Value: defaultPlan, Usage: "the check's plan (`FILE`): its tables, steps, limits and targets"},
		&cli.StringFlag{Name: "prepared", Value: defaultPrepared, Usage: "what gpu/prepare.sh made (`DIR`): bin/, the carried tables in tables/; tables built here go into built/"},
	}
}

func deviceCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "the device check: every headline figure of the GPU in one run, each answer compared with a reference",
		UsageText: "solve15 device check [--plan FILE] [--prepared DIR] [--out DIR] [--json]",
		Flags: append(planFlags(),
			&cli.StringFlag{Name: "out", Value: defaultOut, Usage: "where the logs, records and summary go (`DIR`)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON instead of tables"},
		),
		Action: func(c *cli.Context) error {
			plan, err := readPlan(c)
			if err != nil {
				return err
			}
			sum, err := gpucheck.Check(c.Context, gpucheck.Config{Plan: plan, PlanPath: c.String("plan"),
				Prepared: c.String("prepared"), Out: c.String("out"), Log: c.App.ErrWriter})
			var refused *gpucheck.Refused
			if errors.As(err, &refused) {
				return &cmdline.ExitError{Code: 2, Err: err}
			}
			if sum != nil {
				if c.Bool("json") {
					if jerr := cmdline.JSON(c, sum); jerr != nil {
						return jerr
					}
				} else {
					sum.WriteText(c.App.Writer)
				}
			}
			if err != nil {
				return err
			}
			if !sum.Passed {
				return &cmdline.ExitError{Code: 1, Err: fmt.Errorf("the device check failed: see the FAIL rows (%s)", filepath.Join(c.String("out"), "summary.md"))}
			}
			return nil
		},
	}
}

func devicePrepareCommand() *cli.Command {
	return &cli.Command{
		Name:      "prepare",
		Usage:     "build the tables a device check's plan carries to the GPU machine",
		UsageText: "solve15 device prepare [--plan FILE] [--prepared DIR]",
		Flags:     planFlags(),
		Action: func(c *cli.Context) error {
			plan, err := readPlan(c)
			if err != nil {
				return err
			}
			dir := c.String("prepared")
			size, err := gpucheck.Prepare(c.Context, plan, dir, c.App.ErrWriter)
			if err == nil {
				fmt.Fprintf(c.App.Writer, "%s: %.1f MB to carry (the binary and the tables), of at most %.1f MB\n", dir, float64(size)/1e6, float64(gpucheck.MaxCarry)/1e6)
			}
			return err
		},
	}
}

// readPlan reads --plan's plan; a command of the device check takes no arguments, and a
// plan it cannot read is a check that will not start (exit status 2).
func readPlan(c *cli.Context) (*gpucheck.Plan, error) {
	if err := cmdline.NoArgs(c); err != nil {
		return nil, err
	}
	plan, err := gpucheck.ReadPlan(c.String("plan"))
	if err != nil {
		return nil, &cmdline.ExitError{Code: 2, Err: err}
	}
	return plan, nil
}
