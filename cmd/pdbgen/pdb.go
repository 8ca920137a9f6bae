package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

var quietFlag = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error"}

func pdbCommand() *cli.Command {
	return &cli.Command{
		Name:      "pdb",
		Usage:     "build one pattern database",
		UsageText: "pdbgen pdb --tiles T1,T2,... [--blank | --packed | --zero-aware [--bits]] [--board WxH] [--goal GOAL] --out FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tiles", Usage: "pattern tiles, in index order (required)"},
			&cli.BoolFlag{Name: "blank", Usage: "put the blank's cell in the index"},
			&cli.BoolFlag{Name: "packed", Usage: "without --blank: store half the excess over the Manhattan distance in 4 bits"},
			&cli.BoolFlag{Name: "zero-aware", Aliases: []string{"z"}, Usage: "an entry for each region of free cells the blank may be in (Clausecker & Reinefeld), in half-excess nibbles"},
			&cli.BoolFlag{Name: "bits", Usage: "with --zero-aware: one bit an entry, (distance / 2) mod 2"},
			cmdline.BoardFlag("4x4"), cmdline.GoalFlag("blank-last"),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the `FILE` to write (required)"},
			&cli.BoolFlag{Name: "json", Usage: "print what was written as JSON"},
			workersFlag, quietFlag,
		},
		Action: func(c *cli.Context) error {
			if err := cmdline.NoArgs(c); err != nil {
				return err
			}
			goal, err := cmdline.Goal(c)
			if err != nil {
				return err
			}
			if c.String("tiles") == "" {
				return cmdline.Usagef("--tiles is required")
			}
			tiles, err := pdb.ParseTiles(c.String("tiles"))
			if err != nil {
				return cmdline.Usagef("--tiles: %v", err)
			}
			p, err := pdb.NewPattern(goal, tiles, c.Bool("blank"))
			if err != nil {
				return cmdline.Usagef("%v", err)
			}
			zero, bits := c.Bool("zero-aware"), c.Bool("bits")
			switch {
			case c.Bool("packed") && p.BlankInIndex():
				return cmdline.Usagef("--packed is for tables without --blank")
			case zero && p.BlankInIndex():
				return cmdline.Usagef("--zero-aware tables have the blank's region in their index, not its cell: drop --blank")
			case zero && c.Bool("packed"):
				return cmdline.Usagef("--zero-aware tables are always packed: drop --packed")
			case bits && !zero:
				return cmdline.Usagef("--bits is for --zero-aware tables: a bit an entry needs neighbours that differ by exactly one")
			}
			form := pdb.Bytes
			switch {
			case bits:
				form = pdb.Bit
			case zero || c.Bool("packed"):
				form = pdb.HalfExcess
			}
			if err := data.CheckMemory(p.Name(), data.BuildBytes(p, form, zero, c.Int("workers"))); err != nil {
				return err
			}
			return buildOne(c, p.Name(), func(opt bfs.Options) (*tablefile.Table, error) {
				if zero {
					return pdb.BuildZeroAwareFile(c.Context, p, bits, opt)
				}
				return pdb.BuildFile(c.Context, p, c.Bool("packed"), opt)
			})
		},
	}
}

// buildOne builds one table into --out (checked first), with progress on standard error.
func buildOne(c *cli.Context, name string, build func(bfs.Options) (*tablefile.Table, error)) error {
	out := c.String("out")
	if out == "" {
		return cmdline.Usagef("--out FILE is required")
	}
	if err := cmdline.CheckOut(c, out); err != nil {
		return err
	}
	progress := cmdline.NewProgress(c.App.ErrWriter, c.Bool("quiet"))
	start := time.Now()
	f, err := build(bfs.Options{Workers: c.Int("workers"),
		Progress: func(l bfs.Layer) { progress.Update(name, l.Reached, l.Total, fmt.Sprintf("depth %d", l.Depth)) }})
	progress.Done()
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "built %s: %d entries in %.2fs\n", name, f.Header.Entries, time.Since(start).Seconds())
	}
	return cmdline.WriteTable(c, out, f)
}

func buildCommand() *cli.Command {
	return &cli.Command{
		Name:      "build",
		Usage:     "build the default tables, or an additive set (--set 7-8)",
		UsageText: "pdbgen build [--set NAME | --board WxH | --catalogue FILE --board WxH | --pruning --board WxH] [--out DIR] [--workers N]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "set", Usage: "build this additive set: " + pdb.SetNames()},
			&cli.StringFlag{Name: "catalogue", Usage: "build the tables of the catalogue in `FILE` (with --board)"},
			&cli.StringFlag{Name: "board", Aliases: []string{"b"}, Value: "5x5", Usage: "board size WxH of --pruning and --catalogue; alone, build its recommended set and automata (without any of these, the default tables are 4x4's)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write into `DIR` (created if missing)"},
			&cli.BoolFlag{Name: "bits", Usage: "store zero-aware tables in the bit encoding, one bit an entry"},
			&cli.BoolFlag{Name: "pruning", Usage: "build only the duplicate-path automaton of --board"},
			cmdline.PruningDepthFlag(true),
			&cli.BoolFlag{Name: "json", Usage: "print what was written as JSON, one object per file"},
			workersFlag, quietFlag,
		},
		Action: buildAction,
	}
}

func buildAction(c *cli.Context) error {
	if err := cmdline.NoArgs(c); err != nil {
		return err
	}
	r := data.Request{Set: c.String("set"), Catalogue: c.String("catalogue"), Bits: c.Bool("bits"),
		Automata: c.Bool("pruning") || c.IsSet("pruning-depth"), Depth: c.Int("pruning-depth")}
	if c.IsSet("board") || r.Automata || r.Catalogue != "" { // --board's default is theirs
		size, err := board.ParseSize(c.String("board"))
		if err != nil {
			return cmdline.Usagef("--board: %v", err)
		}
		r.Board = size
	}
	if err := r.Check(); err != nil {
		return cmdline.Usagef("%v", err)
	}
	progress := cmdline.NewProgress(c.App.ErrWriter, c.Bool("quiet"))
	defer progress.Done()
	start := time.Now()
	since := func() float64 { return time.Since(start).Seconds() }
	opt := data.BuildOptions{Workers: c.Int("workers"),
		Progress: func(file string, l bfs.Layer) {
			progress.Update(file, l.Reached, l.Total, fmt.Sprintf("distance %d, %.0fs", l.Depth, since()))
		},
		Step: func(file, step string) { progress.Update(file, 1, 1, fmt.Sprintf("%s, %.0fs", step, since())) },
		Wrote: func(path string, info tablefile.Info) error {
			progress.Done()
			return cmdline.WroteInfo(c, path, info)
		}}
	if r.Automata && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "building the %s automaton...\n", r.Board)
	}
	what, dir, err := data.Install(c.Context, r, c.String("out"), opt, func(file string, done, total int) {
		progress.Update(file, int64(done), int64(total), fmt.Sprintf("%s, %.0fs", prune.StepNote(done, total), since()))
	})
	if errors.Is(err, data.ErrRequest) { // a set or catalogue that cannot be read, or is for another board
		return cmdline.Usagef("%v", err)
	} else if err != nil {
		return err
	}
	if progress.Done(); !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "built %s in %.1fs into %s\n", what, since(), dir)
	}
	return nil
}
