package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe table files",
		UsageText: "pdbgen info [--json] FILE...",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON, one object per line"}},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cmdline.Usagef("info needs at least one FILE")
			}
			failed := 0
			for _, path := range c.Args().Slice() {
				t, err := tablefile.Read(path)
				if err != nil {
					fmt.Fprintf(c.App.ErrWriter, "pdbgen: %s\n", format.Message(err))
					failed++
					continue
				}
				info, err := pdb.Describe(c.Context, path, t, 0)
				if err != nil {
					return err
				}
				if err := cmdline.Print(c, info, info.WriteText); err != nil {
					return err
				}
			}
			if failed > 0 {
				return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%d of %s could not be read", failed, format.Count(c.NArg(), "file"))}
			}
			return nil
		},
	}
}
