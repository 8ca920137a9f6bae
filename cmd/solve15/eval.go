package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/fifteen"
	"github.com/tilekit/tilekit/internal/cmdline"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "print every heuristic's value for states",
		UsageText: "solve15 eval [--goal GOAL] [--json] STATE... | -f FILE",
		Description: `Prints md (Manhattan distance), lc (md plus linear conflicts), wd (walking distance)
with its halves wd_rows and wd_cols, pdb (the IDA15 pattern databases) and max (the
larger of pdb and wd) for each state. pdb and max need a goal with the blank in a
corner; for other goals they are left out.

Examples:
  solve15 eval "1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12"
  solve15 eval --goal blank-first --json -f ../shared/data/korf100.txt`,
		Flags: append(solveFlags(),
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read states from `FILE` (- for standard input)"}),
		Action: func(c *cli.Context) error {
			goal, err := goalFlag(c)
			if err != nil {
				return err
			}
			tables, err := tablesFlag(c)
			if err != nil {
				return err
			}
			ev, err := fifteen.NewEvaluator(goal, tables)
			if err != nil {
				return err
			}
			instances, bad, err := readInstances(c, goal)
			if err != nil {
				return err
			}
			for _, e := range bad {
				fmt.Fprintf(c.App.ErrWriter, "solve15: %v\n", e)
			}
			for _, in := range instances {
				v, err := ev.Eval(in.State)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					out := map[string]any{"line": in.Line, "start": in.State, "goal": goal.Name(),
						"md": v.MD, "lc": v.LC, "wd": v.WD, "wd_rows": v.WDRows, "wd_cols": v.WDCols}
					if in.ID != "" {
						out["id"] = in.ID
					}
					if v.PDB >= 0 {
						out["pdb"], out["max"] = v.PDB, v.Max
					}
					if in.Optimal >= 0 {
						out["known_optimal"] = in.Optimal
					}
					startInts := make([]int, len(in.State))
					for i, t := range in.State {
						startInts[i] = int(t)
					}
					out["start"] = startInts
					if err := json.NewEncoder(c.App.Writer).Encode(out); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(c.App.Writer, "%s: md %d  lc %d  wd %d (rows %d, cols %d)", in.Name(), v.MD, v.LC, v.WD, v.WDRows, v.WDCols)
				if v.PDB >= 0 {
					fmt.Fprintf(c.App.Writer, "  pdb %d  max %d", v.PDB, v.Max)
				}
				if in.Optimal >= 0 {
					fmt.Fprintf(c.App.Writer, "  (optimal %d)", in.Optimal)
				}
				fmt.Fprintln(c.App.Writer)
			}
			if len(bad) > 0 {
				return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("%d input lines were invalid (see above)", len(bad))}
			}
			return nil
		},
	}
}
