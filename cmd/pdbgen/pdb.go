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
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

var quietFlag = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error"}

func pdbCommand() *cli.Command {
	return &cli.Command{
		Name:      "pdb",
		Usage:     "build one pattern database",
		UsageText: "pdbgen pdb --tiles T1,T2,... [--blank] [--board WxH] [--goal GOAL] --out FILE",
		Description: `Builds the pattern database of the given tiles by a breadth-first search from the
goal (Culberson & Schaeffer 1998): a move of a pattern tile costs 1, a move of the
blank into a free cell costs 0. With --blank the blank's cell is part of the index
(IDA15 style). Without it the table is Korf & Felner's (2002) additive kind: the
search runs over the tiles and the blank's region of free cells, and an entry is
the least distance over the regions; --packed stores it in half-excess form (4
bits an entry). The index order is documented in docs/FORMAT.md (kperm-v1).

Examples:
  pdbgen pdb --tiles 1,2,5,6 --blank --out pdb-1-2-5-6+blank.tbl
  pdbgen pdb --tiles 1,2,3,4,5,6 --blank --workers 2 --out pdb6.tbl   # 57,657,600 entries
  pdbgen pdb --board 3x3 --goal blank-first --tiles 1,2,3,4 --out 8p.tbl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tiles", Usage: "pattern tiles, in index order (required)"},
			&cli.BoolFlag{Name: "blank", Usage: "put the blank's cell in the index"},
			&cli.BoolFlag{Name: "packed", Usage: "without --blank: store half the excess over the Manhattan distance in 4 bits"},
			cmdline.BoardFlag("4x4"), cmdline.GoalFlag("blank-last"),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "file to write (required)"},
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
			if c.Bool("packed") && p.BlankInIndex() {
				return cmdline.Usagef("--packed is for tables without --blank")
			}
			return buildOne(c, p.Name(), func(opt bfs.Options) (*tablefile.Table, error) {
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

// automatonHelp is build's paragraph on --pruning, its depths and the embedded file's
// size from the sources.
func automatonHelp() string {
	small, big := board.Size4x4, board.Size5x5
	embedded := "?"
	if b, err := data.Embedded(data.AutomatonFile(small, prune.DefaultDepth(small))); err == nil {
		embedded = format.Bytes(int64(len(b)))
	}
	return fmt.Sprintf(`With --pruning, only the automaton that prunes duplicate paths on --board (Taylor & Korf
1993): a breadth-first search over strings of blank moves up to --pruning-depth (default:
%d on 4x4, %d on 5x5) finds the strings that reach a position an earlier string reaches,
compiled into the automaton the searches step with each move (4x4: a second, 0.2 MB in
memory, a %s file, embedded in solve15; 5x5: about 1.5 min and 2.8 GB to build, 69 MB
in memory, a 28 MB file; with it depth %d, which the page takes: 3 MB in memory, a 1.1 MB
file). A search takes the deepest automaton installed, and builds a shallower one in
memory when none is (depth %d on 5x5, seconds); installed, it loads in milliseconds.`,
		prune.InstallDepth(small), prune.InstallDepth(big), embedded, prune.DefaultDepth(big), prune.DefaultDepth(big))
}

func buildCommand() *cli.Command {
	return &cli.Command{
		Name:      "build",
		Usage:     "build the default tables, or an additive set (--set 7-8)",
		UsageText: "pdbgen build [--set NAME | --board WxH | --catalogue FILE --board WxH | --pruning --board WxH] [--out DIR] [--workers N]",
		Description: `Builds tables into DIR (created if missing), by default the directory where solve15
looks for installed tables: the first directory of $TILEKIT_TABLES, else tilekit/tables
in the user's cache directory (~/.cache/tilekit/tables on Linux). It says where.

With --set, the tables of an additive pattern database set (Korf & Felner 2002), packed
(half the excess over the Manhattan distance in 4 bits); solve15 then uses the strongest
set installed without being told:
` + pdb.SetList() + `
A 5x5 set comes with the automaton its searches use (of depth ` + fmt.Sprint(prune.DefaultDepth(board.Size5x5)) + `), when no 5x5
automaton is installed (else every search would build it first).
With --board alone, the recommended set of that board: small-t on 5x5 (the strongest whose
build fits an hour and 20 GB on two cores), 7-8 on 4x4; and the board's duplicate-path
automata.

` + automatonHelp() + `

With --catalogue FILE, the tables of a catalogue of partitions (Clausecker & Reinefeld
2017) in a text file: a group of tiles per line, numbers separated by commas or spaces,
partitions separated by blank lines, # for comments; a group starting with 0 asks for
zero-aware tables (then all must). The tiles are those of --board's canonical goal
(blank-last on 4x4, blank-first on 5x5); on square boards each partition's reflection
about the main diagonal is added. Tables are shared between partitions and with
reflected groups. solve15 --catalogue FILE then solves with it, once pdbgen verify has
proven its new tables (tables of the named sets are known already).
Without --set, the seven default tables that solve15 embeds (about 25 s): the two
walking-distance tables, IDA15's two pattern databases and the 6-6-3 set; with --out
data in a clone of the repository they refresh the embedded files.

With --bits, a zero-aware set's or catalogue's tables are stored in the bit encoding:
one bit an entry instead of four, under the same file names (small-t: 0.25 GB instead of
1.0 GB). A search reads each value from its parent's, a value from nothing by walking down
to the goal (docs/FORMAT.md, "The bit encoding"). Tables already installed in DIR in four
bits, whose values are known, are converted in seconds instead of built again. pdbgen
verify proves bit tables by a rebuild.

The bytes are the same for any number of workers and any run. A set's files take their
places together once all are built and read back: an interrupted build leaves the old
files, never part of a set.

Examples:
  pdbgen build --set 7-8       # then: solve15 -v uses it without flags
  pdbgen build --board 5x5     # the recommended 24-puzzle set, small-t (9 minutes)
  pdbgen build --set small-t --bits   # the same tables in a quarter of the memory
  pdbgen build --pruning --board 5x5  # the 24-puzzle's automata, prune-5x5-d18.tbl and -d14
  TILEKIT_TABLES=/srv/tables pdbgen build --set 6-6-3
  pdbgen build --out /tmp/t && cmp /tmp/t/pdb-1-2-5-6+blank.tbl data/pdb-1-2-5-6+blank.tbl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "set", Usage: "build this additive set: " + pdb.SetNames()},
			&cli.StringFlag{Name: "catalogue", Usage: "build the tables of the catalogue in `FILE` (with --board)"},
			&cli.StringFlag{Name: "board", Aliases: []string{"b"}, Value: "5x5", Usage: "board size WxH of --pruning and --catalogue; alone, build its recommended set and automata (without any of these, the default tables are 4x4's)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "directory to write into (created if missing)"},
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
		Wrote: func(path string, t *tablefile.Table) error {
			progress.Done()
			return cmdline.Wrote(c, path, t, -1)
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
