package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/repro"
)

func reproCommand() *cli.Command {
	return &cli.Command{
		Name:      "repro",
		Usage:     "reproduce the literature's experiments: a markdown table and an SVG plot each",
		UsageText: "solve15 repro [--out DIR] [--scale N] [--workers N] eight|walks|bastar|table4|scale|all ...",
		Description: `Runs the experiments of docs/RESULTS.md and writes DIR/NAME.md and DIR/NAME.svg:
  eight   A* with hamming, md and chebyshev2 on 10,000 random 8-puzzles: nodes, effective
          branching factor, time, and how many solutions are optimal
  walks   A* and RBFS with md and lc on 15-puzzles scrambled by 10..50 random moves
          (10 each), under a limit of 50,000 expansions
  bastar  bidirectional A* with HH on Korf's 100, against the published figures
  table4  BA* and A* with HH on the 28 positions that need 80 moves (Hasan et al.'s
          Table 4), A* within 3,000,000 stored states (about 430 MB); the optimal
          lengths by the strongest installed set (2.5 minutes with 7-8)
  scale   (not in all) the wall time and efficiency of split searches on 1 to 512
          workers, simulated from the units that --records FILES recorded
  korf24  (not in all) Korf & Felner's 24-puzzle instances: the nodes and times of the
          runs that --records FILES recorded (solve15 --json, any heuristics; a GPU's
          runs in columns of their own) beside
          the published figures, and their plot on a log scale; the rows are the twelve
          of instances/korf24-twelve.txt, or the 26 of korf24-campaign.txt when the
          records hold others; while some are missing, how long they would take
The instances are seeded (--seed), so a run is repeatable. --scale N divides the
instance counts by N for a quick look.

Examples:
  solve15 repro --out docs/repro all
  solve15 repro --scale 100 eight
  solve15 repro --out docs/repro --records k24-01.json,k24-04.json scale
  solve15 repro --out docs/repro --records small-t.json,6-6-6-6.json korf24`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: ".", Usage: "directory for the .md and .svg files"},
			&cli.IntFlag{Name: "scale", Value: 1, Usage: "divide instance counts by this"},
			cmdline.WorkersFlag(0, 0, "instances in parallel (0: all cores)"),
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the random instances"},
			&cli.StringSliceFlag{Name: "records", Usage: "scale, korf24: `FILES` of solve15 (cluster) --json records"},
			&cli.DurationFlag{Name: "overhead", Value: 2 * time.Millisecond, Usage: "scale: what each unit costs beyond its search"},
		},
		Action: func(c *cli.Context) error {
			names := c.Args().Slice()
			if len(names) == 1 && names[0] == "all" {
				names = repro.Experiments
			}
			if len(names) == 0 {
				return cmdline.Usagef("name an experiment: %s or all", strings.Join(repro.Experiments, ", "))
			}
			for _, name := range names {
				if !slices.Contains(repro.Experiments, name) && name != "scale" && name != "korf24" {
					return cmdline.Usagef("unknown experiment %q (%s or all)", name, strings.Join(repro.Experiments, ", "))
				}
			}
			opt := repro.Options{Workers: c.Int("workers"), Seed: c.Uint64("seed"), Scale: c.Int("scale"),
				Records: c.StringSlice("records"), Overhead: c.Duration("overhead").Seconds(),
				Log: func(format string, args ...any) { fmt.Fprintf(c.App.ErrWriter, "solve15 repro: "+format+"\n", args...) }}
			for _, name := range names {
				begin := time.Now()
				md, err := repro.Run(c.Context, name, c.String("out"), opt)
				if err != nil {
					return err
				}
				path := filepath.Join(c.String("out"), name)
				fmt.Fprintf(c.App.Writer, "## %s\n\n%s\nwrote %s.md and %s.svg in %.1fs\n\n", name, md, path, path, time.Since(begin).Seconds())
			}
			return nil
		},
	}
}
