package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/export"
	"github.com/tilekit/tilekit/tablefile"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a table as plain bytes for other languages",
		UsageText: "pdbgen export --format raw TABLE OUT",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "raw", Usage: "the export format: raw (the only one)"},
			&cli.BoolFlag{Name: "json", Usage: "print the sidecar as JSON"},
			workersFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return cmdline.Usagef("export takes a TABLE and an OUT file")
			}
			if c.String("format") != "raw" {
				return cmdline.Usagef("--format %q: the only format is raw", c.String("format"))
			}
			in, out := c.Args().Get(0), c.Args().Get(1)
			if err := data.CheckOutputs(in, out, out+".json"); err != nil {
				return cmdline.Usagef("OUT: %v", err)
			}
			t, err := tablefile.Read(in)
			if err != nil {
				return err
			}
			s, err := export.Raw(c.Context, t, out, c.Int("workers"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdline.JSON(c, s)
			}
			_, err = fmt.Fprintf(c.App.Writer, "wrote %s: %d entries of %s, and %s.json\n", out, s.Entries, in, out)
			return err
		},
	}
}
