package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/tablefile"
)

// checkOut verifies an --out path before a long build: "-" (standard output) must not be
// a terminal, and an existing file must be a regular file (or a link to one).
func checkOut(c *cli.Context, path string) error {
	if path == "-" {
		if cmdline.IsTerminal(c.App.Writer) {
			return cmdline.Usagef("--out -: standard output is a terminal; redirect it to a file")
		}
		return nil
	}
	if err := data.CheckTargets(path); err != nil {
		return cmdline.Usagef("--out: %v", err)
	}
	return nil
}

// writeTable writes f to path atomically and reads it back (or writes it to standard
// output for "-"), and reports it: on standard output, or on standard error when the
// table went there.
func writeTable(c *cli.Context, path string, f *tablefile.Table) error {
	report := c.App.Writer
	if path == "-" {
		b, err := f.Marshal(c.Context)
		if err != nil {
			return err
		}
		if _, err := c.App.Writer.Write(b); err != nil {
			return fmt.Errorf("writing to standard output: %w", err)
		}
		report = c.App.ErrWriter
	} else if err := data.Write(c.Context, path, f); err != nil {
		return err
	}
	return reportTable(c, report, path, f)
}

// reportTable says on w that the table at path was written.
func reportTable(c *cli.Context, w io.Writer, path string, f *tablefile.Table) error {
	info := tablefile.Describe(path, f)
	if path == "-" {
		info.FileBytes = 0
	}
	if c.Bool("json") {
		return cmdline.JSONTo(w, info)
	}
	_, err := fmt.Fprintf(w, "wrote %s: %s\n", path, info.Summary())
	return err
}

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe table files",
		UsageText: "pdbgen info [--json] FILE...",
		Description: `Reads each table file, checks its integrity (header and checksums), and prints
its header and the histogram of its values. With --json, one JSON object per
file and line, with the keys kind, width, height, goal, entries, histogram
(element d = number of entries whose value is d), max, mean, and for pattern
databases tiles and blank_in_index.

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
					fmt.Fprintf(c.App.ErrWriter, "pdbgen: %v\n", err)
					failed++
					continue
				}
				if info := tablefile.Describe(path, t); c.Bool("json") {
					if err := cmdline.JSON(c, info); err != nil {
						return err
					}
				} else {
					info.WriteText(c.App.Writer)
				}
			}
			if failed > 0 {
				return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%d of %d files could not be read", failed, c.NArg())}
			}
			return nil
		},
	}
}
