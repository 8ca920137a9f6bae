package main

import (
	"errors"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/audit"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/solve"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "measure a heuristic against exact distances: admissible? consistent? how close?",
		UsageText: "pdbgen audit --board WxH [--goal GOAL] --heuristic NAME [--json] [--sample N [--walk K]]",
		Flags: []cli.Flag{
			cmdline.BoardFlag("3x3"), cmdline.GoalFlag("blank-last"),
			&cli.StringFlag{Name: "heuristic", Aliases: []string{"H"}, Usage: "heuristic to audit (required)"},
			&cli.IntFlag{Name: "sample", Usage: "boards too large to enumerate: solve this many random states"},
			&cli.IntFlag{Name: "walk", Usage: "sample by random walks of this many moves instead of uniform states"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed of the sample"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			workersFlag,
		},
		Action: func(c *cli.Context) error {
			if err := cmdline.NoArgs(c); err != nil {
				return err
			}
			goal, err := cmdline.Goal(c)
			if err != nil {
				return err
			}
			if c.String("heuristic") == "" {
				return cmdline.Usagef("--heuristic is required (one of %s)", strings.Join(heuristic.Names(heuristic.General), ", "))
			}
			hs, err := solve.Heuristics(c.Context, goal, "", c.String("heuristic"))
			if errors.Is(err, solve.ErrOptions) {
				return cmdline.Usagef("--heuristic: %v", err)
			}
			if err != nil {
				return err
			}
			h := hs[0]
			if goal.Size().Cells() > audit.MaxExhaustiveCells && c.Int("sample") <= 0 {
				return cmdline.Usagef("a %s board is too large to enumerate: give --sample N", goal.Size())
			}
			r, err := audit.Run(c.Context, h, audit.Options{Sample: c.Int("sample"), Walk: c.Int("walk"), Seed: c.Uint64("seed"), Workers: c.Int("workers")})
			if err != nil {
				return err
			}
			return cmdline.Print(c, r, r.WriteText)
		},
	}
}
