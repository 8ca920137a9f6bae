package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/internal/corpus"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "solve Korf's 100 with each heuristic and report nodes, time and optimality",
		UsageText: "solve15 bench [--heuristic LIST] [--workers N] [-f FILE --goal GOAL] [--markdown FILE] [--json]",
		Description: `Solves every instance of Korf's 100 (built in; or -f FILE with --goal) with each
listed heuristic, and prints one line per instance and a total per heuristic: nodes
generated, seconds, nodes per second, and whether every length equals the known
optimum. --markdown writes the totals as a table for docs/RESULTS.md.

With --workers 1 (the default) instances run one after another on one core, so the
per-instance times are comparable; with --workers N they run N at a time and the
total is wall time.

Examples:
  solve15 bench --heuristic max,pdb
  solve15 bench --heuristic max --workers 2
  solve15 bench --heuristic md,lc,wd,pdb,max --markdown /tmp/korf.md
  solve15 bench --heuristic 7-8/regular,7-8/reflected,7-8/dual,7-8/all
  solve15 bench --heuristic 7-8 -f instances/hard80.txt --goal blank-last
  solve15 bench --heuristic 7-8 --random 1000 --seed 1

A heuristic may name its lookups after a slash (sets only): regular, reflected,
dual or all (the default is the recommended one).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "heuristic", Aliases: []string{"H"}, Value: "max,pdb", Usage: "comma-separated heuristics, or all"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: 1, Usage: "instances solved in parallel"},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "instances to use instead of Korf's 100 (`FILE`, with known optima)"},
			&cli.StringFlag{Name: "goal", Aliases: []string{"g"}, Value: "blank-first", Usage: "goal of the instances"},
			&cli.IntFlag{Name: "limit", Usage: "use only the first N instances (0: all)"},
			&cli.IntFlag{Name: "random", Usage: "use N uniformly random solvable instances of --goal instead (optima unknown)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of --random"},
			&cli.StringFlag{Name: "markdown", Usage: "write the totals as a markdown table to `FILE`"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per instance and per total"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the totals"},
		},
		Action: benchAction,
	}
}

// maxBench bounds the instances a benchmark holds in memory.
const maxBench = 100_000

type benchTotal struct {
	Heuristic      string  `json:"heuristic"`
	Workers        int     `json:"workers"`
	Instances      int     `json:"instances"`
	AllOptimal     bool    `json:"all_optimal"`
	LengthSum      int     `json:"length_sum"`
	Nodes          uint64  `json:"nodes"`
	Expanded       uint64  `json:"expanded"`
	Seconds        float64 `json:"seconds"` // wall time of the whole run
	SearchSeconds  float64 `json:"search_seconds"`
	NodesPerSecond float64 `json:"nodes_per_second"` // per worker: nodes / search seconds
	MaxSeconds     float64 `json:"max_seconds"`
	MaxInstance    string  `json:"max_instance"`
}

func benchAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return cmdline.Usagef("bench takes no arguments, got %q", c.Args().First())
	}
	goal, err := goalFlag(c)
	if err != nil {
		return err
	}
	list := c.String("heuristic")
	if list == "all" {
		list = "md,lc,wd,pdb,max"
	}
	type variant struct {
		h       ida.Heuristic
		lookups ida.Lookups
		name    string
	}
	var hs []variant
	for _, name := range strings.Split(list, ",") {
		hname, lname, _ := strings.Cut(name, "/")
		h, err := ida.ParseHeuristic(hname)
		if err != nil {
			return cmdline.Usagef("--heuristic: %v", err)
		}
		l, err := ida.ParseLookups(lname)
		if err != nil {
			return cmdline.Usagef("--heuristic %s: %v", name, err)
		}
		hs = append(hs, variant{h, l, name})
	}
	var src io.Reader = strings.NewReader(corpus.KorfFile())
	name := "Korf's 100"
	if c.IsSet("random") && c.Int("random") < 1 {
		return cmdline.Usagef("--random: give at least 1 instance")
	}
	if n := c.Int("random"); n > 0 {
		if n > maxBench {
			return cmdline.Usagef("--random: at most %d instances", maxBench)
		}
		if c.String("file") != "" {
			return cmdline.Usagef("give --random or --file, not both")
		}
		rng := rand.New(rand.NewPCG(c.Uint64("seed"), c.Uint64("seed")))
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "r%d %s\n", i+1, goal.Random(rng))
		}
		src, name = strings.NewReader(b.String()), fmt.Sprintf("%d random instances (seed %d)", n, c.Uint64("seed"))
	}
	if f := c.String("file"); f != "" {
		file, err := openFile(f)
		if err != nil {
			return err
		}
		defer file.Close()
		src, name = file, f
	}
	limit := c.Int("limit")
	if limit < 0 {
		return cmdline.Usagef("--limit must not be negative")
	}
	var instances []*instance.Instance
	rd := instance.NewReader(src, board.Size4x4)
	for limit == 0 || len(instances) < limit {
		if c.Context.Err() != nil {
			return c.Context.Err()
		}
		in, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *instance.LineError
		if errors.As(err, &le) {
			return &cmdline.ExitError{Code: exitBadInput, Err: describeLine(name, le)}
		}
		if err != nil {
			return err
		}
		if err := goal.Check(in.State); err != nil {
			return &cmdline.ExitError{Code: exitBadInput, Err: describeLine(name, &instance.LineError{Line: in.Line, Err: err})}
		}
		if len(instances) == maxBench {
			return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("%s holds more than %d instances: use --limit", name, maxBench)}
		}
		if in.ID == "" {
			in.ID = fmt.Sprint(len(instances) + 1)
		}
		instances = append(instances, in)
	}
	if len(instances) == 0 {
		return &cmdline.ExitError{Code: exitBadInput, Err: fmt.Errorf("no states in %s", name)}
	}
	starts := make([]board.State, len(instances))
	for i, in := range instances {
		starts[i] = in.State
	}
	workers := c.Int("workers")
	if workers < 1 {
		return cmdline.Usagef("--workers must be at least 1")
	}
	w := c.App.Writer
	if !c.Bool("json") {
		fmt.Fprintf(w, "# %d instances, goal %s, %d worker(s), %s, GOMAXPROCS %d\n", len(instances), goal.Name(), workers, runtime.Version(), runtime.GOMAXPROCS(0))
	}
	var totals []benchTotal
	for _, v := range hs {
		solver, err := ida.New(goal, ida.Options{Heuristic: v.h, Lookups: v.lookups})
		if err != nil {
			return err
		}
		h := v.name
		tot := benchTotal{Heuristic: h, Workers: workers, Instances: len(instances), AllOptimal: true}
		begin := time.Now()
		var failure error
		solver.SolveAll(c.Context, starts, workers, 0, func(i int, res *ida.Result, err error) {
			in := instances[i]
			if err != nil {
				failure = fmt.Errorf("%s with %v: %w", in.Name(), h, err)
				return
			}
			ok := in.Optimal < 0 || len(res.Moves) == in.Optimal
			tot.AllOptimal = tot.AllOptimal && ok
			tot.LengthSum += len(res.Moves)
			tot.Nodes += res.Nodes
			tot.Expanded += res.Expanded
			tot.SearchSeconds += res.Elapsed.Seconds()
			if s := res.Elapsed.Seconds(); s > tot.MaxSeconds {
				tot.MaxSeconds, tot.MaxInstance = s, in.Name()
			}
			rate := float64(res.Nodes) / res.Elapsed.Seconds()
			switch {
			case c.Bool("json"):
				json.NewEncoder(w).Encode(map[string]any{"heuristic": h, "id": in.ID, "known_optimal": in.Optimal,
					"length": len(res.Moves), "ok": ok, "nodes": res.Nodes, "expanded": res.Expanded,
					"seconds": res.Elapsed.Seconds(), "nodes_per_second": rate})
			case !c.Bool("quiet"):
				mark := "ok"
				if !ok {
					mark = fmt.Sprintf("WRONG (known %d)", in.Optimal)
				}
				fmt.Fprintf(w, "%-4s %4s  len %2d %-3s  nodes %14s  %8.3fs  %6.1f M nodes/s\n",
					h, in.ID, len(res.Moves), mark, thousands(res.Nodes), res.Elapsed.Seconds(), rate/1e6)
			}
		})
		if failure != nil {
			return failure
		}
		tot.Seconds = time.Since(begin).Seconds()
		if tot.SearchSeconds > 0 {
			tot.NodesPerSecond = float64(tot.Nodes) / tot.SearchSeconds
		}
		totals = append(totals, tot)
		if c.Bool("json") {
			json.NewEncoder(w).Encode(tot)
		} else {
			fmt.Fprintf(w, "total %-4s: %d instances, lengths sum %d, all optimal: %v; %s nodes, %.2fs wall, %.1f M nodes/s per worker; slowest %s %.2fs\n",
				h, tot.Instances, tot.LengthSum, tot.AllOptimal, thousands(tot.Nodes), tot.Seconds, tot.NodesPerSecond/1e6, tot.MaxInstance, tot.MaxSeconds)
		}
	}
	if path := c.String("markdown"); path != "" {
		var b strings.Builder
		fmt.Fprintf(&b, "| heuristic | workers | instances | all optimal | length sum | nodes generated | wall s | M nodes/s per worker | slowest |\n")
		fmt.Fprintf(&b, "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |\n")
		for _, t := range totals {
			fmt.Fprintf(&b, "| %s | %d | %d | %v | %d | %s | %.2f | %.1f | %s (%.2f s) |\n",
				t.Heuristic, t.Workers, t.Instances, t.AllOptimal, t.LengthSum, thousands(t.Nodes), t.Seconds, t.NodesPerSecond/1e6, t.MaxInstance, t.MaxSeconds)
		}
		if err := atomicfile.Write(c.Context, path, []byte(b.String())); err != nil {
			return err
		}
	}
	for _, t := range totals {
		if !t.AllOptimal {
			return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%s: some lengths differ from the known optima", t.Heuristic)}
		}
	}
	return nil
}
