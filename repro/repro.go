// Package repro reproduces the experiments of the sliding-tile literature on the toolkit's
// algorithms, and writes each as a markdown table and an SVG plot:
//
//   - EightPuzzle: A* with hamming, md and chebyshev2 on random 8-puzzles (Iordan 2016):
//     nodes, effective branching factor, time, and how often the length is optimal;
//   - Walks: A* and RBFS with md and lc on 15-puzzles scrambled by 10 to 50 random moves
//     under an expansion limit (the classic browser-demo comparison);
//   - BAStar: bidirectional A* with the HH heuristic on Korf's 100 (Hasan et al. 2023,
//     Table 6): states generated, lengths against the optimum;
//   - Table4: BA* and unidirectional A* with HH on the 28 positions that need 80 moves
//     (Hasan et al. 2023, Table 4), A* within a stated memory budget.
//
// Every run is seeded, so the same command gives the same instances and the same counts.
package repro

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/batch"
	"github.com/tilekit/tilekit/internal/svgplot"
	"github.com/tilekit/tilekit/solve"
)

// Options tune the experiments. The zero value is the published setting.
type Options struct {
	Workers int                              // instances solved in parallel; 0 for all cores
	Seed    uint64                           // seed of the random instances
	Scale   int                              // divide the instance counts by this (quick runs); 0 or 1 for the full size
	Log     func(format string, args ...any) // progress, one line a stage; nil for none
	// Records and Overhead are the scale experiment's input: files of solve15 cluster
	// --json records of split instances, and the seconds each unit costs beyond its search.
	Records  []string
	Overhead float64
}

func (o Options) log(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

func (o Options) scaled(n int) int {
	if o.Scale > 1 {
		return max(1, n/o.Scale)
	}
	return n
}

// Experiments names the reproductions that Run knows, in order. Run knows "scale" too,
// which simulates recorded runs rather than running anything (Options.Records).
var Experiments = []string{"eight", "walks", "bastar", "table4"}

// Names returns the experiments that args name, in their order: any that Run knows, or
// all (Experiments). Its errors (no name, a name Run does not know) are the caller's
// usage.
func Names(args []string) ([]string, error) {
	if len(args) == 1 && args[0] == "all" {
		return Experiments, nil
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("name an experiment: %s or all", strings.Join(Experiments, ", "))
	}
	for _, name := range args {
		if !slices.Contains(Experiments, name) && name != "scale" && name != "korf24" {
			return nil, fmt.Errorf("unknown experiment %q (%s or all)", name, strings.Join(Experiments, ", "))
		}
	}
	return args, nil
}

// An experiment is what every reproduction returns.
type experiment interface {
	Markdown() string
	Plot(path string) error
}

// Run runs the named experiment and writes its table to dir/NAME.md and its plot to
// dir/NAME.svg (dir is created if missing), atomically; it returns the table.
func Run(ctx context.Context, name, dir string, opt Options) (string, error) {
	var exp experiment
	var err error
	switch name {
	case "eight":
		exp, err = EightPuzzle(ctx, opt)
	case "walks":
		exp, err = Walks(ctx, opt)
	case "bastar":
		exp, err = BAStar(ctx, opt)
	case "table4":
		exp, err = Table4(ctx, opt)
	case "scale":
		exp, err = Scale(opt.Records, opt.Overhead)
	case "korf24":
		exp, err = Korf24(opt.Records)
	default:
		return "", fmt.Errorf("unknown experiment %q (%s or all)", name, strings.Join(Experiments, ", "))
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	md := exp.Markdown()
	if err := atomicfile.Write(ctx, filepath.Join(dir, name+".md"), []byte(md)); err != nil {
		return "", err
	}
	if err := exp.Plot(filepath.Join(dir, name+".svg")); err != nil {
		return "", fmt.Errorf("%s plot: %w", name, err)
	}
	return md, nil
}

// run is one search's outcome.
type run struct {
	res *solve.Result
	err error
}

// general returns the solver of the general search (package search) with one algorithm
// and one heuristic, pruning only the move back as the papers reproduced do (RBFS; A*
// and BA* keep their own sets), with the options' limits.
func general(ctx context.Context, goal board.Goal, algo, heuristic string, limits solve.Options) (*solve.Solver, error) {
	limits.Algorithm, limits.Heuristic, limits.Pruning = algo, heuristic, solve.PruneParent
	return solve.New(ctx, goal, limits)
}

// solveAll runs one solver over many states.
func solveAll(ctx context.Context, s *solve.Solver, starts []board.State, workers int) []run {
	out := make([]run, len(starts))
	batch.Run(ctx, len(starts), workers, func(ctx context.Context, i int) run {
		res, err := s.Solve(ctx, starts[i])
		return run{res, err}
	}, func(i int, r run) { out[i] = r })
	return out
}

// EffectiveBranching returns b such that a uniform tree of depth d with branching b has
// nodes+1 nodes: nodes + 1 = 1 + b + b^2 + ... + b^d (Russell and Norvig).
func EffectiveBranching(nodes uint64, d int) float64 {
	if d <= 0 || nodes == 0 {
		return 0
	}
	target := float64(nodes)
	total := func(b float64) float64 {
		sum, p := 0.0, 1.0
		for i := 1; i <= d; i++ {
			p *= b
			sum += p
		}
		return sum
	}
	lo, hi := 0.0, math.Max(2, target)
	for i := 0; i < 200 && hi-lo > 1e-9; i++ {
		mid := (lo + hi) / 2
		if total(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// save writes the chart as SVG, atomically.
func save(c *svgplot.Chart, path string) error {
	b, err := c.SVG()
	if err != nil {
		return err
	}
	return atomicfile.Write(context.Background(), path, b)
}
