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
		Description: `Writes the page into DIR: index.html, app.js, style.css, tilekit.js, worker.js,
wasm_exec.js (Go's JavaScript glue) and tilekit.wasm (the solver, with its tables, compiled
to WebAssembly). Any static host serves them: the page solves in the browser, in a Web
Worker, with no server of its own. tilekit.js alone gives another page the solver:
new Tilekit().solve(state, options) returns a Promise (see the README).

With --sets, installed sets are copied into DIR/sets/ with a manifest (names, sizes,
SHA-256): the page offers them, downloads one only when it is chosen, keeps it in the
browser's cache storage, checks every checksum, and falls back to the embedded set
with a notice when a download fails or is damaged.

Examples:
  solve15 site --out /tmp/site && cd /tmp/site && python3 -m http.server 8000
  solve15 site --out public/puzzle --sets 7-8,6-6-6-6`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "directory to write into (created if missing)"},
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
