package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tilekit/tilekit/gpu"
)

// Config is what a check runs with.
type Config struct {
	Plan     *Plan
	PlanName string
	Root     string    // the repository's root, where the plan's instances and references are read (default: the working directory)
	Prepared string    // what gpu/prepare.sh made: tables/ carried; built/ holds the tables built here
	Out      string    // the logs, each process's output, summary.json and summary.md
	Binary   string    // the solve15 whose searches are checked
	Cores    int       // this machine's (default: all)
	Log      io.Writer // progress, a line a process
}

// checker is one run of a plan.
type checker struct {
	cfg   Config
	in    *inputs
	began time.Time
	sum   *Summary
	log   *os.File   // Out/check.log
	mu    sync.Mutex // guards sum while a build runs beside steps
}

// Check runs the plan: it refuses (exit status 2) a run whose inputs are missing or not
// accepted, before it uses the card; otherwise it runs every step, writes summary.json
// and summary.md under Out, and returns the summary, whose Passed is false when any row
// failed.
func Check(ctx context.Context, cfg Config) (*Summary, error) {
	var err error
	for _, dir := range []*string{&cfg.Root, &cfg.Prepared, &cfg.Out} { // the steps' processes run elsewhere
		if err == nil {
			*dir, err = filepath.Abs(*dir) // "": the working directory
		}
	}
	if err != nil {
		return nil, err
	}
	cfg.Cores = cmp.Or(cfg.Cores, runtime.NumCPU())
	c := &checker{cfg: cfg, began: time.Now()}
	if c.in, err = c.inspect(); err != nil {
		return nil, err
	}
	if c.log, err = os.OpenFile(filepath.Join(cfg.Out, "check.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err != nil {
		return nil, err
	}
	defer c.log.Close()
	c.sum = &Summary{Plan: cfg.PlanName, About: cfg.Plan.About, Cores: cfg.Cores}
	if b, err := os.ReadFile(filepath.Join(cfg.Prepared, "bin", "BUILT_AT")); err == nil {
		c.sum.BuiltAt = strings.TrimSpace(string(b))
	}
	c.logf("the plan %s: at most %.0f s", cfg.PlanName, cfg.Plan.Seconds)
	ctx, cancel := context.WithTimeoutCause(ctx, seconds(cfg.Plan.Seconds), fmt.Errorf("the check's %.0f s were spent", cfg.Plan.Seconds))
	defer cancel()

	// The builds, beside the steps whose timings they cannot distort.
	var builds sync.WaitGroup
	builds.Add(1)
	go func() {
		defer builds.Done()
		for _, t := range c.in.build {
			c.add(c.build(ctx, t))
		}
	}()
	rows := make([][]Row, len(cfg.Plan.Steps))
	for _, beside := range []bool{true, false} {
		for i := range cfg.Plan.Steps {
			if cfg.Plan.Steps[i].Beside == beside {
				rows[i] = c.step(ctx, &cfg.Plan.Steps[i])
			}
		}
		builds.Wait()
	}
	for _, r := range rows {
		c.add(r...)
	}
	c.sum.Seconds = time.Since(c.began).Seconds()
	c.sum.Passed = !slices.ContainsFunc(c.sum.Rows, func(r Row) bool { return r.Result != Pass })
	return c.sum, c.sum.write(cfg.Out)
}

// add adds rows to the summary.
func (c *checker) add(rows ...Row) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sum.Rows = append(c.sum.Rows, rows...)
}

// build builds one table on the GPU machine within its limit.
func (c *checker) build(ctx context.Context, t Table) Row {
	begin := time.Now()
	c.logf("building %s (at most %.0f s)", t, t.Build)
	bctx, cancel := context.WithTimeout(ctx, seconds(t.Build))
	defer cancel()
	err := t.build(bctx, c.dir(t))
	if problems := t.accepted(c.dir(t)); err == nil && len(problems) > 0 {
		err = errors.New(strings.Join(problems, "; "))
	}
	row := Row{Step: "build", Run: t.String(), Result: Pass, Seconds: time.Since(begin).Seconds()}
	if err != nil {
		if bctx.Err() != nil {
			err = fmt.Errorf("not built within %.0f s: %w", t.Build, err)
		}
		row.Result, row.Note = Fail, err.Error()
	}
	c.logf("built %s: %s in %.1f s %s", t, row.Result, row.Seconds, row.Note)
	return row
}

// step runs one step, or fails it when the check's time is spent.
func (c *checker) step(ctx context.Context, s *Step) []Row {
	if err := context.Cause(ctx); err != nil {
		return []Row{{Step: s.Name, Result: Fail, Note: "not run: " + err.Error()}}
	}
	c.logf("step %s (%s): %s", s.Name, s.Kind, s.What)
	var rows []Row
	switch s.Kind {
	case KindSelfTest:
		rows = []Row{c.selfTest(ctx, s)}
	case KindReference:
		rows = c.reference(ctx, s)
	case KindCores:
		rows = []Row{c.cores(ctx, s)}
	}
	for i := range rows {
		rows[i].Step = s.Name
		c.logf("%s %s: %s, %d compared, %d through the GPU, %.1f s %s", s.Name, rows[i].Run, rows[i].Result, rows[i].Compared, rows[i].GPURecords, rows[i].Seconds, rows[i].Note)
	}
	return rows
}

// logf says how the check goes, on Log and in Out/check.log.
func (c *checker) logf(format string, args ...any) {
	line := fmt.Sprintf("[%6.1fs] ", time.Since(c.began).Seconds()) + fmt.Sprintf(format, args...)
	fmt.Fprintln(c.log, line)
	if c.cfg.Log != nil {
		fmt.Fprintln(c.cfg.Log, line)
	}
}

// outcome is how one process of a step ended: its exit status (-1 when it did not end by
// itself: it could not start, or was killed Grace after its time ran out), whether its
// time ran out (the check interrupted it), its output, and how it ended for a row.
type outcome struct {
	code    int
	wall    time.Duration
	stopped bool
	stdout  []byte
	problem string
}

// ok reports whether the process ended by itself with one of the codes.
func (o outcome) ok(codes ...int) bool { return o.code >= 0 && slices.Contains(codes, o.code) }

// maxOutput bounds what the check reads back of a process's output.
const maxOutput = 256 << 20

// run runs solve15 with args for at most limit (then SIGINT, and after Grace SIGKILL),
// its output in Out/name.out and Out/name.err, with the check's environment and the
// step's knobs, if any.
func (c *checker) run(ctx context.Context, name string, limit time.Duration, tune string, args ...string) outcome {
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	outPath, errPath := filepath.Join(c.cfg.Out, name+".out"), filepath.Join(c.cfg.Out, name+".err")
	stdout, err := os.Create(outPath)
	if err != nil {
		return outcome{code: -1, problem: err.Error()}
	}
	defer stdout.Close()
	stderr, err := os.Create(errPath)
	if err != nil {
		return outcome{code: -1, problem: err.Error()}
	}
	defer stderr.Close()
	cmd := exec.CommandContext(rctx, c.cfg.Binary, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = c.cfg.Root, c.env(tune), stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = Grace
	begin := time.Now()
	err = cmd.Run()
	o := outcome{code: -1, wall: time.Since(begin), stopped: rctx.Err() != nil}
	o.stdout, _ = readRegular(outPath, maxOutput) // past the bound: what fits, which does not parse
	tail, _ := readRegular(errPath, maxOutput)
	if cmd.ProcessState == nil {
		o.problem = err.Error()
		return o
	}
	switch ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); {
	case ws.Signaled() && ws.Signal() == syscall.SIGKILL:
		o.problem = fmt.Sprintf("killed %v after its time ran out", Grace)
	default:
		o.code = cmd.ProcessState.ExitCode()
		o.problem = fmt.Sprintf("exit status %d", o.code) + map[bool]string{true: " (its time ran out)"}[o.stopped]
		if t := lastLines(tail, 3, 600); t != "" {
			o.problem += ": " + t
		}
	}
	return o
}

// env is the environment of the check's processes: the tables carried and built, the
// driver's JIT cache under Out, a cache directory of their own (no tables of the user's),
// and the step's knobs of the engine, or none.
func (c *checker) env(tune string) []string {
	var out []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "TILEKIT_TABLES", "TILEKIT_GPU_TUNE", "CUDA_CACHE_PATH", "CUDA_CACHE_DISABLE", "XDG_CACHE_HOME":
		default:
			out = append(out, kv)
		}
	}
	out = append(out, "TILEKIT_TABLES="+filepath.Join(c.cfg.Prepared, CarriedDir)+string(os.PathListSeparator)+filepath.Join(c.cfg.Prepared, BuiltDir),
		"CUDA_CACHE_PATH="+c.jitCache(), "XDG_CACHE_HOME="+filepath.Join(c.cfg.Out, "cache"))
	if tune != "" {
		out = append(out, gpu.TuneEnv+"="+tune)
	}
	return out
}

// jitCache is the driver's JIT cache of the check's processes.
func (c *checker) jitCache() string { return filepath.Join(c.cfg.Out, "jit-cache") }

// lastLines returns the last n lines of b, at most limit bytes, on one line.
func lastLines(b []byte, n, limit int) string {
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte("?")))), "\n")
	s := strings.Join(lines[max(len(lines)-n, 0):], " | ")
	if len(s) > limit {
		s = "..." + s[len(s)-limit:]
	}
	return strings.Map(func(r rune) rune { return max(r, ' ') }, s)
}
