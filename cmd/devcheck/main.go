// Command devcheck is the GPU's benchmark harness, kept apart from the product: one run,
// on a machine with an NVIDIA GPU, that measures every headline figure of the GPU engine
// by running solve15 (a binary given to it, never itself) in processes of their own, and
// cannot pass without the GPU having answered. gpu/prepare.sh builds it beside solve15
// where Go is; gpu/check.sh runs it on the GPU machine. A user's own check of a card is
// solve15 device.
//
// A plan (a value of plans.go, chosen by name: card is the one run on a card, fake its
// small copy for the fake driver in CI) names the tables the run needs and the steps in
// order of importance, each with its hard time limit and the figure it aims at. A step
// runs solve15 in processes of their own, so that a fault, a hang or a crash of the
// search is a row of the table and not the end of the check, and compares every answer
// with a reference: the records of a committed CPU run, or the same machine's cores in the
// same run. A step that produced no GPU record, an answer or serial count that differs, a
// missing reference or a process that failed is a FAIL row, and the check fails. Before it
// spends a second on the card, the check refuses a run whose binary, tables, instances or
// references are missing or not to be trusted.
//
// The serial counts compared are those of the serial search (Korf 1985's IDA*, each pass
// in order), which every engine of package ida reports whatever its parallelism: see
// docs/SEARCH.md.
//
//	devcheck prepare [--plan NAME] [--prepared DIR]
//	devcheck check [--plan NAME] [--prepared DIR] [--solve15 BIN] [--out DIR] [--json]
package main

import (
	"cmp"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
)

func main() { os.Exit(cmdline.Main(newApp(), os.Args)) }

// The check's defaults: the plan of one run on a card, what gpu/prepare.sh makes, and
// where the results go.
const (
	defaultPlan     = "card"
	defaultPrepared = ".gpucheck"
	defaultOut      = "gpucheck-out"
)

// help holds the commands' long help (cmdline.Describe).
//
//go:embed help/*.txt
var help embed.FS

func newApp() *cli.App {
	app := cmdline.NewApp("devcheck", "the GPU's benchmark harness: every headline figure of the GPU in one run")
	app.UsageText = `devcheck prepare [--plan NAME] [--prepared DIR]
   devcheck check [--plan NAME] [--prepared DIR] [--solve15 BIN] [--out DIR] [--json]`
	app.Commands = []*cli.Command{checkCommand(), prepareCommand()}
	cmdline.Describe(app, help, nil)
	cmdline.Prepare(app)
	return app
}

// flags are the commands' flags: the plan and the prepared directory (both), the inputs
// that replace a plan's by step, and where the check's searches and results are (check).
var flags = []cli.Flag{
	&cli.StringFlag{Name: "plan", Value: defaultPlan, Usage: "the check's plan, by `NAME`: card (the one run on a card), fake (its copy for the fake driver), campaign"},
	&cli.StringFlag{Name: "prepared", Value: defaultPrepared, Usage: "what gpu/prepare.sh made (`DIR`): bin/, the carried tables in tables/; tables built here go into built/"},
	&cli.StringSliceFlag{Name: "instances", Usage: "read STEP's instances from FILE instead (`STEP=FILE`, again for another step)"},
	&cli.StringSliceFlag{Name: "reference", Usage: "compare STEP's answers with the records in FILE instead (`STEP=FILE`)"},
	&cli.StringSliceFlag{Name: "keep", Usage: "keep the campaign STEP's records in FILE instead (`STEP=FILE`)"},
	&cli.StringFlag{Name: "solve15", Usage: "the solve15 whose searches are checked (`BIN`; default: bin/solve15 in --prepared)"},
	&cli.StringFlag{Name: "out", Value: defaultOut, Usage: "where the logs, records and summary go (`DIR`)"},
	&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON instead of tables"},
}

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "every headline figure of the GPU in one run, each answer compared with a reference",
		UsageText: "devcheck check [--plan NAME] [--prepared DIR] [--solve15 BIN] [--out DIR] [--json]",
		Flags:     flags,
		Action: func(c *cli.Context) error {
			plan, err := readPlan(c)
			if err != nil {
				return err
			}
			bin := cmp.Or(c.String("solve15"), filepath.Join(c.String("prepared"), "bin", "solve15"))
			sum, err := Check(c.Context, Config{Plan: plan, PlanName: c.String("plan"), Binary: bin,
				Prepared: c.String("prepared"), Out: c.String("out"), Log: c.App.ErrWriter})
			if sum == nil {
				return err
			}
			if perr := cmdline.Print(c, sum, sum.WriteText); perr != nil || err != nil {
				return cmp.Or(err, perr)
			}
			if !sum.Passed {
				return &cmdline.ExitError{Code: 1, Err: fmt.Errorf("the device check failed: see the FAIL rows (%s)", filepath.Join(c.String("out"), "summary.md"))}
			}
			return nil
		},
	}
}

func prepareCommand() *cli.Command {
	return &cli.Command{
		Name:      "prepare",
		Usage:     "build the tables a plan carries to the GPU machine",
		UsageText: "devcheck prepare [--plan NAME] [--prepared DIR]",
		Flags:     flags[:2],
		Action: func(c *cli.Context) error {
			plan, err := readPlan(c)
			if err != nil {
				return err
			}
			return Prepare(c.Context, plan, c.String("prepared"), c.App.ErrWriter)
		},
	}
}

// readPlan is --plan's plan, its inputs replaced as the flags say; a plan it cannot take
// is a check that will not start (exit status 2).
func readPlan(c *cli.Context) (*Plan, error) {
	if err := cmdline.NoArgs(c); err != nil {
		return nil, err
	}
	plan, err := planNamed(c.String("plan"))
	for _, what := range []string{"instances", "reference", "keep"} {
		for _, v := range c.StringSlice(what) {
			step, file, ok := strings.Cut(v, "=")
			if !ok || step == "" || file == "" {
				return nil, cmdline.Usagef("--%s %s: STEP=FILE", what, v)
			}
			if err == nil {
				err = plan.replace(what, step, file)
			}
		}
	}
	if err != nil {
		return nil, &cmdline.ExitError{Code: 2, Err: err}
	}
	return plan, nil
}
