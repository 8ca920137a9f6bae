package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/web"
)

func siteCommand() *cli.Command {
	return &cli.Command{
		Name:      "site",
		Usage:     "write the page as static files that solve in the browser",
		UsageText: "solve15 site --out DIR",
		Description: `Writes the page into DIR: index.html, app.js, style.css, tilekit.js, worker.js,
wasm_exec.js (Go's JavaScript glue) and tilekit.wasm (the solver, with its tables, compiled
to WebAssembly). Any static host serves them: the page solves in the browser, in a Web
Worker, with no server of its own. tilekit.js alone gives another page the solver:
new Tilekit().solve(state, options) returns a Promise (see the README).

Examples:
  solve15 site --out /tmp/site && cd /tmp/site && python3 -m http.server 8000
  solve15 site --out public/puzzle`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "directory to write into (created if missing)"},
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
			names, err := web.WriteSite(c.Context, dir)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(map[string]any{"dir": dir, "files": names})
			}
			fmt.Fprintf(c.App.Writer, "wrote %d files into %s; serve them with any static web server\n", len(names), dir)
			return nil
		},
	}
}
