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
		Description: `Reads each table file, checks its integrity (header and checksums), and prints
its header and the histogram of its values. With --json, one JSON object per
file and line, with the keys kind, width, height, goal, entries, histogram
(element d = number of entries whose value is d), max, mean, and for pattern
databases tiles and blank_in_index. For a packed (half-excess) table every entry is
decoded, through its mirror, to count the values (a second or so per 100 million
entries); stored_histogram then counts the stored nibbles.

Examples:
  pdbgen info data/pdb-1-2-5-6+blank.tbl
  pdbgen info --json data/*.tbl`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON, one object per line"}},
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
