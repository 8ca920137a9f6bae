package main

import (
	"fmt"
	"path/filepath"
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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: ".", Usage: "write the .md and .svg files into `DIR`"},
			&cli.IntFlag{Name: "scale", Value: 1, Usage: "divide instance counts by this"},
			cmdline.WorkersFlag(0, 0, "instances in parallel (0: all cores)"),
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the random instances"},
			&cli.StringSliceFlag{Name: "records", Usage: "scale, korf24: `FILES` of solve15 (cluster) --json records"},
			&cli.DurationFlag{Name: "overhead", Value: 2 * time.Millisecond, Usage: "scale: what each unit costs beyond its search"},
		},
		Action: func(c *cli.Context) error {
			names, err := repro.Names(c.Args().Slice())
			if err != nil {
				return cmdline.Usagef("%v", err)
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
