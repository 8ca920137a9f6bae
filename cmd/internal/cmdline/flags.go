package cmdline

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/internal/sysmem"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/solve"
)

// BoardFlag and GoalFlag are the --board and --goal flags of every command; Goal reads them.
func BoardFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: "board", Aliases: []string{"b"}, Value: def, Usage: "board size WxH"}
}

// GoalFlag is --goal, defaulting to def.
func GoalFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: "goal", Aliases: []string{"g"}, Value: def, Usage: `blank-last, blank-first, or an arrangement such as "0 1 2 ... 15"`}
}

// Goal reads --board (4x4 when the command has none) and --goal.
func Goal(c *cli.Context) (board.Goal, error) {
	size := board.Size4x4
	if c.String("board") != "" {
		var err error
		if size, err = board.ParseSize(c.String("board")); err != nil {
			return board.Goal{}, Usagef("--board: %v", err)
		}
	}
	g, err := board.ParseGoal(size, c.String("goal"))
	if err != nil {
		return board.Goal{}, Usagef("--goal: %v", err)
	}
	return g, nil
}

// Dir reads a flag that names an existing directory ("" when not given).
func Dir(c *cli.Context, flag string) (string, error) {
	dir := c.String(flag)
	if dir == "" {
		return "", nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return "", Usagef("--%s: %v", flag, err)
	}
	if !info.IsDir() {
		return "", Usagef("--%s: %s is not a directory", flag, dir)
	}
	return dir, nil
}

// NoArgs refuses positional arguments for a command that takes none.
func NoArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return Usagef("%s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	return nil
}

// JSON writes v as one line of JSON on standard output.
func JSON(c *cli.Context, v any) error { return JSONTo(c.App.Writer, v) }

// JSONTo writes v as one line of JSON on w.
func JSONTo(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// MaxWorkers bounds --workers: far more goroutines than cores only costs memory.
const MaxWorkers = 1024

// WorkersFlag is --workers (-j), defaulting to def; values below min (0 means all cores
// where min is 0) or above MaxWorkers are usage errors.
func WorkersFlag(def, min int, usage string) cli.Flag {
	cores := def == AllCores
	if cores {
		def = runtime.GOMAXPROCS(0)
	}
	f := &cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: def, Usage: usage,
		Action: func(_ *cli.Context, n int) error {
			if n < min || n > MaxWorkers {
				return Usagef("--workers must be from %d to %d", min, MaxWorkers)
			}
			return nil
		}}
	if cores {
		f.DefaultText = "the cores this process may use" // not this machine's count, in the man page
	}
	return f
}

// AllCores as WorkersFlag's default is the cores this process may use (GOMAXPROCS).
const AllCores = -1

// Print writes v on standard output: as a line of JSON with --json, else as text writes it.
func Print(c *cli.Context, v any, text func(w io.Writer)) error {
	if c.Bool("json") {
		return JSON(c, v)
	}
	text(c.App.Writer)
	return nil
}

// PruningFlag is --pruning: how the fast IDA* prunes duplicate paths.
func PruningFlag() cli.Flag {
	return &cli.StringFlag{Name: "pruning", Value: solve.PruneAutomaton,
		Usage: "IDA* and RBFS: automaton (Taylor & Korf's duplicate-path automaton) or parent (only the move back, as published node counts assume)",
		Action: func(_ *cli.Context, s string) error {
			if s != solve.PruneAutomaton && s != solve.PruneParent {
				return Usagef("--pruning must be %s or %s, not %q", solve.PruneAutomaton, solve.PruneParent, s)
			}
			return nil
		}}
}

// DeviceFlags are --device (where the fast IDA* searches) and --gpu (which GPU).
func DeviceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "device", Value: solve.DeviceCPU, Usage: "where IDA* searches: cpu, gpu (an NVIDIA GPU: md, the sets and small-t's zero-aware catalogues so far) or auto (the GPU once a pass is large, if there is one and it is faster)"},
		&cli.IntFlag{Name: "gpu", Usage: "which GPU (`N`, from 0) with --device gpu or auto"},
	}
}

// Device is where the command's searches run, from --device and --gpu, with the GPU's
// knobs from $TILEKIT_GPU_TUNE (gpu.TuneEnv, for measuring on a card): checked here, once,
// a mistake a UsageError.
func Device(c *cli.Context) (solve.Device, error) {
	d := solve.Device{Kind: c.String("device"), Ordinal: c.Int("gpu")}
	if err := d.Check(); err != nil {
		return d, Usagef("%v", err)
	}
	if d.OnGPU() {
		// The GPU's knobs and its split rule's (none when unset); a knob it does not know
		// is a UsageError.
		if err := d.SetTune(os.Getenv(gpu.TuneEnv)); err != nil {
			return d, Usagef("$%s: %v", gpu.TuneEnv, err)
		}
	}
	return d, nil
}

// PruningDepthFlag is --pruning-depth: the depth of the duplicate-path automaton, that
// pdbgen build installs (install) or a search takes.
func PruningDepthFlag(install bool) cli.Flag {
	usage := fmt.Sprintf("the automaton's depth, 2 to %d (0: the deepest installed, else %d, or %d on 5x5, built in memory; a depth whose build would not fit the memory available is refused: about %s for 20 on 4x4, %s for 18 on 5x5)",
		prune.MaxDepth, prune.DefaultDepth(board.Size4x4), prune.DefaultDepth(board.Size5x5), sysmem.Format(prune.BuildBytes(board.Size4x4, 20)), sysmem.Format(prune.BuildBytes(board.Size5x5, 18)))
	if install {
		usage = fmt.Sprintf("the automaton's depth, 2 to %d (0: %d, or %d on 5x5)", prune.MaxDepth, prune.InstallDepth(board.Size4x4), prune.InstallDepth(board.Size5x5))
	}
	return &cli.IntFlag{Name: "pruning-depth", Usage: usage,
		Action: func(_ *cli.Context, n int) error {
			if err := prune.CheckDepth(n); err != nil {
				return Usagef("--pruning-depth must be from 0 to %d", prune.MaxDepth)
			}
			return nil
		}}
}
