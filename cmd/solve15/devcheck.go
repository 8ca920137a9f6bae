package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

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
		Description: `Runs the plan's steps in order, each search in a process of its own with a hard time
limit, from the repository's root (the plan's instances and references are read from
there): the self-test against the CPU, batches on the GPU against committed CPU records,
instances on the GPU beside every core and one core of this machine, the kernels'
registers and local memory. Every step ends in a row with the answers it compared; a
step with no answer through the GPU, an answer or serial count that differs, a missing
reference or a process that failed is a FAIL. $OUT/summary.json holds the rows, the
targets of the GPU issues beside what was measured, and each GPU answer's time split;
summary.md the same as tables, also printed at the end.

Before it uses the card, the check refuses to start (exit status 2, naming each path)
when the plan's carried tables are missing from --prepared or not accepted by this
binary, or an instances file or reference is missing or empty. Tables the plan builds on
the card are built into --prepared's built/ beside the self-test, once.

gpu/check.sh is the entry point on a GPU machine: it unpacks the binary gpu/prepare.sh
built and runs this command with it.

Exit status: 0 every row passed; 1 a row failed; 2 the check would not start.

Examples:
  solve15 device check
  solve15 device check --plan gpu/plans/fake.json --prepared /tmp/prep --out /tmp/out`,
		Flags: append(planFlags(),
			&cli.StringFlag{Name: "out", Value: defaultOut, Usage: "where the logs, records and summary go (`DIR`)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON instead of tables"},
		),
		Action: func(c *cli.Context) error {
			plan, err := readPlan(c)
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			root, err := os.Getwd()
			if err != nil {
				return err
			}
			sum, err := gpucheck.Check(c.Context, gpucheck.Config{Plan: plan, PlanPath: c.String("plan"), Root: root,
				Prepared: abs(c.String("prepared")), Out: abs(c.String("out")), Binary: exe, Cores: runtime.NumCPU(), Log: c.App.ErrWriter})
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
		Description: `Builds into DIR/tables the plan's carried tables that are not there already and
accepted (those built on the card are left to the check), and checks that they and
the gzipped binary in DIR/bin fit what a device call carries beside the repository
(64 MiB). gpu/prepare.sh runs it after building the binaries.

Examples:
  solve15 device prepare
  solve15 device prepare --plan gpu/plans/fake.json --prepared /tmp/prep`,
		Flags: planFlags(),
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

func abs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}
