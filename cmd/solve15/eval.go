package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/cmdline"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "print every heuristic's value for states",
		UsageText: "solve15 eval [--board WxH] [--goal GOAL] [--json] STATE... | -f FILE",
		Description: `Prints, for each state, md (Manhattan distance), lc (md plus linear conflicts), wd
(walking distance) with its halves wd_rows and wd_cols, pdb (the IDA15 pattern
databases on 4x4; groups of four tiles elsewhere), max (the larger of pdb and wd),
and the other heuristics of the toolkit: hamming, chebyshev2 and hh (the last two
are not admissible). A heuristic that does not apply to the board or goal (pdb and
max need a 4x4 goal with the blank in a corner; no wd on 5x5) is left out.

Examples:
  solve15 eval "1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12"
  solve15 eval --goal blank-first --json -f instances/korf100.txt
  solve15 eval --board 3x3 "8 6 7 2 5 4 3 0 1"`,
		Flags: append(solveFlags(),
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read states from `FILE` (- for standard input)"}),
		Action: func(c *cli.Context) error {
			goal, err := goalFlag(c)
			if err != nil {
				return err
			}
			tables, _, err := tablesFlag(c)
			if err != nil {
				return err
			}
			var ev *ida.Evaluator
			if goal.Size() == board.Size4x4 {
				if ev, err = ida.NewEvaluator(goal, tables); err != nil {
					return err
				}
			}
			var hs []*heuristic.Heuristic
			for _, name := range heuristic.Names {
				if h, err := heuristic.New(name, goal, tables); err == nil {
					hs = append(hs, h)
				}
			}
			in, err := openInput(c, goal)
			if err != nil {
				return err
			}
			msgs := newMessages(c.App.ErrWriter, goal)
			count := 0
			entries := in.all()
			for {
				e, ok := receive(c.Context, entries)
				if !ok {
					break
				}
				count++
				if e.in == nil {
					msgs.add(e)
					if c.Bool("json") {
						if err := json.NewEncoder(c.App.Writer).Encode(map[string]any{"line": e.line, "board": goal.Size().String(), "goal": goal.Name(), "error": e.err.Error()}); err != nil {
							return err
						}
					}
					continue
				}
				if err := evalOne(c, goal, e.in, hs, ev); err != nil {
					return err
				}
			}
			msgs.finish()
			switch {
			case c.Context.Err() != nil:
				return &cmdline.ExitError{Code: cmdline.ExitInterrupted, Err: errors.New("interrupted")}
			case *in.err != nil:
				return *in.err
			case count == 0:
				return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("no states in %s", describeInput(in))}
			case msgs.bad > 0:
				return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("%d of the inputs were invalid (see above)", msgs.bad)}
			}
			return nil
		},
	}
}

// evalOne prints every heuristic's value for one instance.
func evalOne(c *cli.Context, goal board.Goal, in *instance.Instance, hs []*heuristic.Heuristic, ev *ida.Evaluator) error {
	// Values in a fixed order: the heuristics, then the WD halves.
	var keys []string
	values := map[string]int{}
	for _, h := range hs {
		keys = append(keys, h.Name)
		values[h.Name] = h.Eval(in.State)
	}
	if ev != nil {
		v, err := ev.Eval(in.State)
		if err != nil {
			return err
		}
		keys = append(keys, "wd_rows", "wd_cols")
		values["wd_rows"], values["wd_cols"] = v.WDRows, v.WDCols
	}
	if c.Bool("json") {
		out := map[string]any{"line": in.Line, "board": goal.Size().String(), "goal": goal.Name()}
		start := make([]int, len(in.State))
		for i, t := range in.State {
			start[i] = int(t)
		}
		out["start"] = start
		for k, v := range values {
			out[k] = v
		}
		if in.ID != "" {
			out["id"] = in.ID
		}
		if in.Optimal >= 0 {
			out["known_optimal"] = in.Optimal
		}
		return json.NewEncoder(c.App.Writer).Encode(out)
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, values[k])
	}
	fmt.Fprintf(c.App.Writer, "%s: %s", in.Name(), strings.Join(parts, "  "))
	if in.Optimal >= 0 {
		fmt.Fprintf(c.App.Writer, " (optimal %d)", in.Optimal)
	}
	fmt.Fprintln(c.App.Writer)
	return nil
}
