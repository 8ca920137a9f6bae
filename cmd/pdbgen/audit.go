package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/audit"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/internal/cmdline"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "measure a heuristic against exact distances: admissible? consistent? how close?",
		UsageText: "pdbgen audit --board WxH [--goal GOAL] --heuristic NAME [--json] [--sample N [--walk K]]",
		Description: `Computes the exact distance of every state by breadth-first search (all 181,440
states of the 8-puzzle; boards of up to 10 cells), or, for larger boards, solves
--sample N random states with an optimal IDA*, and reports for the heuristic: states
checked, states where it overestimates and by how much at most, moves that change it
by more than one (inconsistency), mean h against the mean distance, and a few
counter-examples. Heuristics: ` + strings.Join(heuristic.Names, ", ") + `.

Examples:
  pdbgen audit --board 3x3 --heuristic chebyshev2
  pdbgen audit --board 3x3 --goal "2 5 4 8 0 7 1 6 3" --heuristic md --json
  pdbgen audit --board 4x4 --heuristic hh --sample 20 --walk 40`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "board", Value: "3x3", Usage: "board size WxH"},
			&cli.StringFlag{Name: "goal", Value: "blank-last", Usage: "goal: blank-last, blank-first or an arrangement"},
			&cli.StringFlag{Name: "heuristic", Aliases: []string{"H"}, Usage: "heuristic to audit (required)"},
			&cli.IntFlag{Name: "sample", Usage: "boards too large to enumerate: solve this many random states"},
			&cli.IntFlag{Name: "walk", Usage: "sample by random walks of this many moves instead of uniform states"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed of the sample"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			workersFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdline.Usagef("audit takes no arguments, got %q", c.Args().First())
			}
			goal, err := goalFlags(c)
			if err != nil {
				return err
			}
			if c.String("heuristic") == "" {
				return cmdline.Usagef("--heuristic is required (one of %s)", strings.Join(heuristic.Names, ", "))
			}
			h, err := heuristic.New(c.String("heuristic"), goal, nil)
			if err != nil {
				return cmdline.Usagef("--heuristic: %v", err)
			}
			if goal.Size().Cells() > audit.MaxExhaustiveCells && c.Int("sample") <= 0 {
				return cmdline.Usagef("a %s board is too large to enumerate: give --sample N", goal.Size())
			}
			r, err := audit.Run(c.Context, h, audit.Options{Sample: c.Int("sample"), Walk: c.Int("walk"), Seed: c.Uint64("seed"), Workers: c.Int("workers")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(r)
			}
			w := c.App.Writer
			claim := "admissible"
			if !r.ClaimedAdmiss {
				claim = "not admissible"
			}
			fmt.Fprintf(w, "%s on %s, goal %s (%s by design), %s audit\n", r.Heuristic, r.Board, r.Goal, claim, r.Mode)
			fmt.Fprintf(w, "  states:          %d\n", r.States)
			fmt.Fprintf(w, "  overestimated:   %d (%.2f%%), by at most %d\n", r.Overestimated, 100*float64(r.Overestimated)/float64(max(r.States, 1)), r.MaxOverestimate)
			fmt.Fprintf(w, "  inconsistent:    %d of %d moves change h by more than 1\n", r.Inconsistent, r.Moves)
			fmt.Fprintf(w, "  mean h:          %.3f against a mean distance of %.3f (mean h/d %.3f)\n", r.MeanH, r.MeanDistance, r.MeanRatio)
			for _, e := range r.Examples {
				fmt.Fprintf(w, "  e.g. %s: h %d, distance %d\n", e.State, e.H, e.Distance)
			}
			return nil
		},
	}
}
