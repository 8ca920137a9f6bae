package repro

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// MaxBench bounds the instances a benchmark holds in memory.
const MaxBench = 100_000

// BenchInstances reads a benchmark's instances of goal from r (named name in errors), at
// most limit of them (0: all, up to MaxBench); an instance without an id gets its number.
func BenchInstances(ctx context.Context, r io.Reader, name string, goal board.Goal, limit int) ([]*instance.Instance, error) {
	out, err := instance.ReadAll(ctx, r, name, goal, limit, MaxBench, false)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no states in %s", name)
	}
	for i, in := range out {
		if in.ID == "" {
			in.ID = fmt.Sprint(i + 1)
		}
	}
	return out, nil
}

// BenchSource opens a benchmark's instances and names them: the file when path is not "",
// else random uniformly random instances of goal from seed when random > 0, else Korf's
// 100. The caller closes what it returns.
func BenchSource(path string, random int, seed uint64, goal board.Goal) (io.ReadCloser, string, error) {
	switch {
	case path != "":
		f, err := instance.OpenFile(path)
		return f, path, err
	case random > 0:
		return io.NopCloser(RandomInstances(goal, random, seed)), fmt.Sprintf("%d random instances (seed %d)", random, seed), nil
	}
	return io.NopCloser(Korf100()), "Korf's 100", nil
}

// BenchInput says which instances a benchmark solves: File's when File is not "", else
// Random uniformly random instances of the goal from Seed when Random > 0, else Korf's
// 100; at most Limit of them (0: all).
type BenchInput struct {
	File   string
	Random int
	Seed   uint64
	Limit  int
}

// ErrBenchUsage is returned for a BenchInput that does not make sense.
var ErrBenchUsage = errors.New("repro: bench input")

// Load checks in and reads its instances of goal.
func (in BenchInput) Load(ctx context.Context, goal board.Goal) ([]*instance.Instance, error) {
	switch {
	case in.Random < 0 || in.Random > MaxBench:
		return nil, fmt.Errorf("%w: random: give at least 1 instance (at most %d)", ErrBenchUsage, MaxBench)
	case in.Random > 0 && in.File != "":
		return nil, fmt.Errorf("%w: give random instances or a file, not both", ErrBenchUsage)
	case in.Limit < 0:
		return nil, fmt.Errorf("%w: the limit must not be negative", ErrBenchUsage)
	}
	src, name, err := BenchSource(in.File, in.Random, in.Seed, goal)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return BenchInstances(ctx, src, name, goal, in.Limit)
}

// Korf100 is the benchmark's default input: Korf's 100 (blank-first goal), as a file.
func Korf100() io.Reader { return strings.NewReader(corpus.KorfFile()) }

// RandomInstances returns n uniformly random solvable instances of goal as a file, r1 to
// rn, from the seed.
func RandomInstances(goal board.Goal, n int, seed uint64) io.Reader {
	rng := rand.New(rand.NewPCG(seed, seed))
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "r%d %s\n", i+1, goal.Random(rng))
	}
	return strings.NewReader(b.String())
}

// BenchRun is one instance solved by a benchmark.
type BenchRun struct {
	Heuristic      string  `json:"heuristic"`
	ID             string  `json:"id"`
	KnownOptimal   int     `json:"known_optimal"` // -1 when unknown
	Length         int     `json:"length"`
	OK             bool    `json:"ok"` // the length is the known optimum (or none is known)
	Nodes          uint64  `json:"nodes"`
	Expanded       uint64  `json:"expanded"`
	Seconds        float64 `json:"seconds"`
	NodesPerSecond float64 `json:"nodes_per_second"`
}

// BenchTotal sums a benchmark's runs with one heuristic.
type BenchTotal struct {
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

// BenchAll names what a benchmark of "all" heuristics runs: those the fast IDA* computes
// on 4x4 without a set.
func BenchAll() []string {
	var out []string
	for _, i := range heuristic.Registry() {
		if i.FastOn(board.Size4x4) && !i.Set {
			out = append(out, i.Name)
		}
	}
	return out
}

// BenchHeader describes a benchmark's setting in one line, for its output.
func BenchHeader(n int, goal board.Goal, workers int) string {
	return fmt.Sprintf("# %d instances, goal %s, %d worker(s), %s, GOMAXPROCS %d", n, goal.Name(), workers, runtime.Version(), runtime.GOMAXPROCS(0))
}

// BenchOptions configure Bench: instances solved at once, and the device each search
// runs on (solve.Options.Device).
type BenchOptions struct {
	Workers int
	Device  solve.Device
}

// Bench solves every instance with each heuristic through package solve's Batch (a
// heuristic may name a set's lookups after a slash, "7-8/dual", and the fast search's
// pruning after an at sign, "7-8@parent"), workers instances at a time, and calls each for
// every instance in order and total
// for every heuristic. Options that do not fit are reported before anything is solved
// (solve.ErrOptions).
func Bench(ctx context.Context, goal board.Goal, heuristics []string, instances []*instance.Instance, opt BenchOptions,
	each func(BenchRun), total func(BenchTotal)) error {
	workers := max(opt.Workers, 1)
	solvers := make([]*solve.Solver, len(heuristics))
	for i, name := range heuristics {
		name, pruning, _ := strings.Cut(name, "@")
		h, lookups, _ := strings.Cut(name, "/")
		s, err := solve.New(ctx, goal, solve.Options{Heuristic: h, Lookups: lookups, Pruning: pruning,
			Device: opt.Device})
		if err != nil {
			for _, done := range solvers[:i] {
				done.Close()
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		defer s.Close()
		solvers[i] = s
	}
	for k, s := range solvers {
		h := heuristics[k]
		if name, pruning, at := strings.Cut(h, "@"); name == "" || name == "auto" {
			h = s.Heuristic() // what auto chose
			if at {
				h += "@" + pruning
			}
		}
		tot := BenchTotal{Heuristic: h, Workers: workers, Instances: len(instances), AllOptimal: true}
		begin := time.Now()
		var failure error
		entries := make(chan instance.Entry)
		go func() {
			defer close(entries)
			for _, in := range instances {
				select {
				case entries <- instance.Entry{In: in, Line: in.Line}:
				case <-ctx.Done():
					return
				}
			}
		}()
		report.Batch(ctx, s, entries, report.BatchOptions{Workers: workers}, func(e instance.Entry, rec report.Record, err error) {
			in := e.In
			if err != nil {
				if failure == nil {
					failure = fmt.Errorf("%s with %v: %w", in.Name(), h, err)
				}
				return
			}
			run := BenchRun{Heuristic: h, ID: in.ID, KnownOptimal: in.Optimal, Length: rec.Length,
				OK: in.Optimal < 0 || rec.Length == in.Optimal, Nodes: rec.Nodes, Expanded: rec.Expanded,
				Seconds: rec.Seconds, NodesPerSecond: rec.NodesPerSecond}
			tot.AllOptimal = tot.AllOptimal && run.OK
			tot.LengthSum += run.Length
			tot.Nodes += run.Nodes
			tot.Expanded += run.Expanded
			tot.SearchSeconds += run.Seconds
			if run.Seconds > tot.MaxSeconds {
				tot.MaxSeconds, tot.MaxInstance = run.Seconds, in.Name()
			}
			each(run)
		})
		if failure == nil {
			failure = ctx.Err()
		}
		if failure != nil {
			return failure
		}
		tot.Seconds = time.Since(begin).Seconds()
		if tot.SearchSeconds > 0 {
			tot.NodesPerSecond = float64(tot.Nodes) / tot.SearchSeconds
		}
		total(tot)
	}
	return nil
}

// Text is the run as one line of a benchmark's human output.
func (r BenchRun) Text() string {
	mark := "ok"
	if !r.OK {
		mark = fmt.Sprintf("WRONG (known %d)", r.KnownOptimal)
	}
	return fmt.Sprintf("%-4s %4s  len %2d %-3s  nodes %14s  %8.3fs  %6.1f M nodes/s",
		r.Heuristic, r.ID, r.Length, mark, format.Thousands(r.Nodes), r.Seconds, r.NodesPerSecond/1e6)
}

// Text is the total as one line of a benchmark's human output.
func (t BenchTotal) Text() string {
	return fmt.Sprintf("total %s: %d instances, lengths sum %d, all optimal: %v; %s nodes, %.2fs wall, %.1f M nodes/s per worker; slowest %s %.2fs",
		t.Heuristic, t.Instances, t.LengthSum, t.AllOptimal, format.Thousands(t.Nodes), t.Seconds, t.NodesPerSecond/1e6, t.MaxInstance, t.MaxSeconds)
}

// BenchMarkdown writes totals as a markdown table, for docs/RESULTS.md.
func BenchMarkdown(totals []BenchTotal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| heuristic | workers | instances | all optimal | length sum | nodes generated | wall s | M nodes/s per worker | slowest |\n")
	fmt.Fprintf(&b, "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, t := range totals {
		h := t.Heuristic
		fmt.Fprintf(&b, "| %s | %d | %d | %v | %d | %s | %.2f | %.1f | %s (%.2f s) |\n",
			h, t.Workers, t.Instances, t.AllOptimal, t.LengthSum, format.Thousands(t.Nodes), t.Seconds, t.NodesPerSecond/1e6, t.MaxInstance, t.MaxSeconds)
	}
	return b.String()
}
