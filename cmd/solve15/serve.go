package main

import (
	"fmt"
	"net"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/web"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve a page to play the puzzle, shuffle it and watch the solvers",
		UsageText: "solve15 serve [--addr HOST:PORT] [--max-jobs N] [--timeout DURATION]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "address to listen on"},
			&cli.IntFlag{Name: "max-jobs", Value: 4, Usage: "the JSON API's searches running at once"},
			&cli.DurationFlag{Name: "timeout", Value: time.Minute, Usage: "a JSON API search's time limit unless its request asks for another"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdline.NoArgs(c); err != nil {
				return err
			}
			return web.Serve(c.Context, c.String("addr"), web.Options{MaxJobs: c.Int("max-jobs"), DefaultTimeout: c.Duration("timeout")},
				func(addr net.Addr) {
					fmt.Fprintf(c.App.ErrWriter, "solve15: serving on http://%s/ (Ctrl-C to stop)\n", addr)
				})
		},
	}
}
