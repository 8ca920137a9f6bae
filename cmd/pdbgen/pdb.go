package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/pdb"
)

var quietFlag = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error"}

// buildOptions returns the engine options of the command: workers and progress.
func buildOptions(c *cli.Context, progress *cmdline.Progress, task string) bfs.Options {
	return bfs.Options{
		Workers: c.Int("workers"),
		Progress: func(l bfs.Layer) {
			progress.Update(task, l.Reached, l.Total, fmt.Sprintf("depth %d", l.Depth))
		},
	}
}

func pdbCommand() *cli.Command {
	return &cli.Command{
		Name:      "pdb",
		Usage:     "build one pattern database",
		UsageText: "pdbgen pdb --tiles T1,T2,... [--blank] [--board WxH] [--goal GOAL] --out FILE",
		Description: `Builds the pattern database of the given tiles by a 0-1 breadth-first search from
the goal (Culberson & Schaeffer 1998; Korf & Felner 2002): a move of a pattern tile costs 1, a move of the blank
into a free cell costs 0. With --blank the blank's cell is part of the index
(IDA15 style); without it the table is a classic additive PDB. The index order
is documented in docs/FORMAT.md (kperm-v1).

Examples:
  pdbgen pdb --tiles 1,2,5,6 --blank --out pdb-1-2-5-6+blank.tbl
  pdbgen pdb --tiles 1,2,3,4,5,6 --blank --workers 2 --out pdb6.tbl   # 57,657,600 entries
  pdbgen pdb --board 3x3 --goal blank-first --tiles 1,2,3,4 --out 8p.tbl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tiles", Usage: "pattern tiles, in index order (required)"},
			&cli.BoolFlag{Name: "blank", Usage: "put the blank's cell in the index"},
			&cli.StringFlag{Name: "board", Value: "4x4", Usage: "board size WxH"},
			&cli.StringFlag{Name: "goal", Value: "blank-last", Usage: `goal: blank-last, blank-first or an arrangement`},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "file to write (required)"},
			&cli.BoolFlag{Name: "json", Usage: "print what was written as JSON"},
			workersFlag, quietFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdline.Usagef("pdb takes no arguments, got %q", c.Args().First())
			}
			goal, err := goalFlags(c)
			if err != nil {
				return err
			}
			if c.String("tiles") == "" || c.String("out") == "" {
				return cmdline.Usagef("--tiles and --out are required")
			}
			tiles, err := pdb.ParseTiles(c.String("tiles"))
			if err != nil {
				return cmdline.Usagef("--tiles: %v", err)
			}
			p, err := pdb.NewPattern(goal, tiles, c.Bool("blank"))
			if err != nil {
				return cmdline.Usagef("%v", err)
			}
			if err := checkOut(c, c.String("out")); err != nil {
				return err
			}
			progress := cmdline.NewProgress(c.App.ErrWriter, c.Bool("quiet"))
			start := time.Now()
			t, err := pdb.Build(c.Context, p, buildOptions(c, progress, p.Name()))
			progress.Done()
			if err != nil {
				return err
			}
			if !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "built %s: %d entries in %.2fs\n", p.Name(), p.Len(), time.Since(start).Seconds())
			}
			f, err := t.File()
			if err != nil {
				return err
			}
			return writeTable(c, c.String("out"), f)
		},
	}
}

func buildCommand() *cli.Command {
	return &cli.Command{
		Name:      "build",
		Usage:     "build the default tables (both 4x4 WD tables and the IDA15 set)",
		UsageText: "pdbgen build [--out DIR] [--workers N]",
		Description: `Builds the default set that solve15 embeds and writes it into DIR:
  wd-blank-last.tbl, wd-blank-first.tbl, pdb-11-12-15+blank.tbl, pdb-1-2-5-6+blank.tbl
The bytes are the same for any number of workers and any run.

Examples:
  pdbgen build                 # into data/, refreshing the embedded tables
  pdbgen build --out /tmp/t && cmp /tmp/t/pdb-1-2-5-6+blank.tbl data/pdb-1-2-5-6+blank.tbl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "data", Usage: "directory to write into (created if missing)"},
			&cli.BoolFlag{Name: "json", Usage: "print what was written as JSON, one object per file"},
			workersFlag, quietFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdline.Usagef("build takes no arguments, got %q", c.Args().First())
			}
			dir := c.String("out")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			progress := cmdline.NewProgress(c.App.ErrWriter, c.Bool("quiet"))
			start := time.Now()
			for _, spec := range data.Specs {
				t, err := spec.Build(c.Context, buildOptions(c, progress, spec.File))
				progress.Done()
				if err != nil {
					return fmt.Errorf("building %s: %w", spec.File, err)
				}
				if err := writeTable(c, filepath.Join(dir, spec.File), t); err != nil {
					return err
				}
			}
			if !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "built %d tables in %.3fs\n", len(data.Specs), time.Since(start).Seconds())
			}
			return nil
		},
	}
}
