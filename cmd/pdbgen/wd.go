package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/tablefile"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/wd"
)

func wdCommand() *cli.Command {
	return &cli.Command{
		Name:      "wd",
		Usage:     "build a walking-distance table",
		UsageText: "pdbgen wd [--board WxH] [--goal GOAL] --out FILE",
		Flags: []cli.Flag{
			cmdline.BoardFlag("4x4"), cmdline.GoalFlag("blank-last"),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the `FILE` to write (required)"},
			&cli.BoolFlag{Name: "json", Usage: "print what was written as JSON"},
			workersFlag, quietFlag,
		},
		Action: func(c *cli.Context) error {
			if err := cmdline.NoArgs(c); err != nil {
				return err
			}
			goal, err := cmdline.Goal(c)
			if err != nil {
				return err
			}
			return buildOne(c, "wd", func(opt bfs.Options) (*tablefile.Table, error) {
				t, err := wd.BuildRows(c.Context, goal, opt.Workers)
				if err != nil {
					return nil, err
				}
				return t.File(goal)
			})
		},
	}
}
