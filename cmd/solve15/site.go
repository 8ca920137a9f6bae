package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/web/site"
)

func siteCommand() *cli.Command {
	return &cli.Command{
		Name:      "site",
		Usage:     "write the page as static files that solve in the browser",
		UsageText: "solve15 site --out DIR [--sets LIST]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write into `DIR` (created if missing)"},
			&cli.StringFlag{Name: "sets", Usage: "also copy these installed sets for the page to download on demand (`LIST`, such as 7-8,6-6-6-6)"},
			&cli.BoolFlag{Name: "json", Usage: "print the files written as JSON"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdline.NoArgs(c); err != nil {
				return err
			}
			dir := c.String("out")
			if dir == "" {
				return cmdline.Usagef("--out DIR is required")
			}
			names, err := site.WriteSite(c.Context, dir)
			if err != nil {
				return err
			}
			if sets := c.String("sets"); sets != "" {
				more, err := site.WriteSets(c.Context, dir, strings.Split(sets, ","))
				if err != nil {
					return err
				}
				names = append(names, more...)
			}
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(map[string]any{"dir": dir, "files": names})
			}
			fmt.Fprintf(c.App.Writer, "wrote %d files into %s; serve them with any static web server\n", len(names), dir)
			return nil
		},
	}
}
