package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// largeTable is the size of a table file whose reading info says at once.
const largeTable = 1 << 20

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
			progress := cmdline.NewProgress(c.App.ErrWriter, c.Bool("json"))
			defer progress.Done()
			for _, path := range c.Args().Slice() {
				// A large table takes seconds to read and describe (the 7-8 set's: about
				// 25 s, a 6-tile zero-aware one 10 s): said at once.
				var size int64
				if st, err := os.Stat(path); err == nil && st.Size() >= largeTable {
					size = st.Size()
					progress.Update(filepath.Base(path), 0, 2, fmt.Sprintf("reading %.0f MB", float64(size)/1e6))
				}
				t, err := tablefile.Read(path)
				if size > 0 {
					progress.Update(filepath.Base(path), 1, 2, "describing its values")
				}
				if err != nil {
					fmt.Fprintf(c.App.ErrWriter, "pdbgen: %s\n", format.Message(err))
					failed++
					continue
				}
				info, err := pdb.Describe(c.Context, path, t, 0)
				if err != nil {
					return err
				}
				progress.Done()
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
