package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/pdb"
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

// writeTable writes f to path atomically and reads it back, or to standard output for
// "-", and says so.
func writeTable(c *cli.Context, path string, f *tablefile.Table) error {
	if path != "-" {
		if err := data.Write(c.Context, path, f); err != nil {
			return err
		}
		return wrote(c, path, f, -1)
	}
	b, err := f.Marshal(c.Context)
	if err == nil {
		_, err = c.App.Writer.Write(b)
	}
	if err != nil {
		return fmt.Errorf("writing to standard output: %w", err)
	}
	return wrote(c, path, f, int64(len(b)))
}

// wrote says that f was written to path, in size bytes (-1: the file's size): on standard
// output, or on standard error when the table went there.
func wrote(c *cli.Context, path string, f *tablefile.Table, size int64) error {
	info, w := tablefile.Describe(path, f), c.App.Writer
	if path == "-" {
		w = c.App.ErrWriter
	}
	if size >= 0 {
		info.FileBytes = size
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
