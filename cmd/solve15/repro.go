package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/repro"
)

// experiment is what every reproduction returns.
type experiment interface {
	Markdown() string
	Plot(path string) error
}

func reproCommand() *cli.Command {
	return &cli.Command{
		Name:      "repro",
		Usage:     "reproduce the literature's experiments: a markdown table and an SVG plot each",
		UsageText: "solve15 repro [--out DIR] [--scale N] [--workers N] eight|walks|bastar|all ...",
		Description: `Runs the experiments of docs/RESULTS.md and writes DIR/NAME.md and DIR/NAME.svg:
  eight   A* with hamming, md and chebyshev2 on 10,000 random 8-puzzles: nodes, effective
          branching factor, time, and how many solutions are optimal
  walks   A* and RBFS with md and lc on 15-puzzles scrambled by 10..50 random moves
          (10 each), under a limit of 50,000 expansions
  bastar  bidirectional A* with HH on Korf's 100, against the published figures
The instances are seeded (--seed), so a run is repeatable. --scale N divides the
instance counts by N for a quick look.

Examples:
  solve15 repro --out docs/repro all
  solve15 repro --scale 100 eight`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: ".", Usage: "directory for the .md and .svg files"},
			&cli.IntFlag{Name: "scale", Value: 1, Usage: "divide instance counts by this"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Usage: "instances in parallel (0: all cores)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the random instances"},
		},
		Action: func(c *cli.Context) error {
			names := c.Args().Slice()
			if len(names) == 0 {
				return cmdline.Usagef("name an experiment: eight, walks, bastar or all")
			}
			if len(names) == 1 && names[0] == "all" {
				names = []string{"eight", "walks", "bastar"}
			}
			opt := repro.Options{Workers: c.Int("workers"), Seed: c.Uint64("seed"), Scale: c.Int("scale"),
				Log: func(format string, args ...any) { fmt.Fprintf(c.App.ErrWriter, "solve15 repro: "+format+"\n", args...) }}
			for _, name := range names {
				if name != "eight" && name != "walks" && name != "bastar" {
					return cmdline.Usagef("unknown experiment %q (eight, walks, bastar or all)", name)
				}
			}
			if err := os.MkdirAll(c.String("out"), 0o755); err != nil {
				return err
			}
			for _, name := range names {
				begin := time.Now()
				var exp experiment
				var err error
				switch name {
				case "eight":
					exp, err = repro.EightPuzzle(c.Context, opt)
				case "walks":
					exp, err = repro.Walks(c.Context, opt)
				case "bastar":
					exp, err = repro.BAStar(c.Context, opt)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				md := exp.Markdown()
				mdPath := filepath.Join(c.String("out"), name+".md")
				svgPath := filepath.Join(c.String("out"), name+".svg")
				if err := atomicfile.Write(c.Context, mdPath, []byte(md)); err != nil {
					return err
				}
				if err := exp.Plot(svgPath); err != nil {
					return fmt.Errorf("%s plot: %w", name, err)
				}
				fmt.Fprintf(c.App.Writer, "## %s\n\n%s\nwrote %s and %s in %.1fs\n\n", name, md, mdPath, svgPath, time.Since(begin).Seconds())
			}
			return nil
		},
	}
}
