package cmdline

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/tablefile"
)

// CheckOut verifies an --out path before a long build: "-" (standard output) must not be
// a terminal, and an existing file must be a regular file (or a link to one).
func CheckOut(c *cli.Context, path string) error {
	if path == "-" {
		if IsTerminal(c.App.Writer) {
			return Usagef("--out -: standard output is a terminal; redirect it to a file")
		}
		return nil
	}
	if err := data.CheckTargets(path); err != nil {
		return Usagef("--out: %v", err)
	}
	return nil
}

// WriteTable writes f to path atomically and reads it back, or to standard output for
// "-", and says so.
func WriteTable(c *cli.Context, path string, f *tablefile.Table) error {
	if path != "-" {
		if err := data.Write(c.Context, path, f); err != nil {
			return err
		}
		return Wrote(c, path, f, -1)
	}
	b, err := f.Marshal(c.Context)
	if err == nil {
		_, err = c.App.Writer.Write(b)
	}
	if err != nil {
		return fmt.Errorf("writing to standard output: %w", err)
	}
	return Wrote(c, path, f, int64(len(b)))
}

// Wrote says that f was written to path, in size bytes (-1: the file's size): on standard
// output, or on standard error when the table went there.
func Wrote(c *cli.Context, path string, f *tablefile.Table, size int64) error {
	info := tablefile.Describe(path, f)
	if size >= 0 {
		info.FileBytes = size
	}
	return WroteInfo(c, path, info)
}

// WroteInfo is Wrote of a table already described.
func WroteInfo(c *cli.Context, path string, info tablefile.Info) error {
	w := c.App.Writer
	if path == "-" {
		w = c.App.ErrWriter
	}
	if c.Bool("json") {
		return JSONTo(w, info)
	}
	_, err := fmt.Fprintf(w, "wrote %s: %s\n", path, info.Summary())
	return err
}
