package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config is what a check runs with.
type Config struct {
	Plan     *Plan
	PlanName string
	Root     string    // the repository's root, where the plan's instances and references are read (default: the working directory)
	Prepared string    // what gpu/prepare.sh made: tables/ carried; built/ holds the tables built here
	Out      string    // the logs, each process's output, summary.json and summary.md
	Binary   string    // the solve15 whose searches are checked (default: the one running the check)
	Cores    int       // this machine's (default: all)
	Log      io.Writer // progress, a line a process
}

// complete fills in cfg's defaults, and makes its directories absolute (the steps' processes
// run elsewhere).
func (cfg *Config) complete() error {
	var err error
	if cfg.Root == "" {
		if cfg.Root, err = os.Getwd(); err != nil {
			return err
		}
	}
	if cfg.Binary == "" {
		if cfg.Binary, err = os.Executable(); err != nil {
			return err
		}
	}
	if cfg.Cores == 0 {
		cfg.Cores = runtime.NumCPU()
	}
	for _, dir := range []*string{&cfg.Prepared, &cfg.Out} {
		if *dir, err = filepath.Abs(*dir); err != nil {
			return err
		}
	}
	return nil
}

// checker is one run of a plan.
type checker struct {
	cfg     Config
	in      *inputs
	began   time.Time
	sum     *Summary
	figures map[string]*figure // by step, run or instance: what targets measure
	mu      sync.Mutex         // guards sum.Rows while a build runs beside steps
}

// Check runs the plan: it refuses (*Refused) a run whose inputs are missing or not
// accepted, before it uses the card; otherwise it runs every step, writes summary.json
// and summary.md under Out, and returns the summary, whose Passed is false when any row
// failed.
func Check(ctx context.Context, cfg Config) (*Summary, error) {
	if err := cfg.complete(); err != nil {
		return nil, err
	}
	c := &checker{cfg: cfg, figures: map[string]*figure{}}
	in, err := c.inspect()
	if err != nil {
		return nil, err
	}
	c.in = in
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, &Refused{[]string{fmt.Sprintf("the output directory: %v", err)}}
	}
	c.began = time.Now()
	c.sum = &Summary{Plan: cfg.PlanName, About: cfg.Plan.About, Cores: cfg.Cores, Bound: cfg.Plan.Bound().Seconds(), BoundText: cfg.Plan.BoundText()}
	if b, err := os.ReadFile(filepath.Join(cfg.Prepared, "bin", "BUILT_AT")); err == nil {
		c.sum.BuiltAt = strings.TrimSpace(string(b))
	}
	c.logf("the plan %s: at most %.0f s (%s)", cfg.PlanName, c.sum.Bound, c.sum.BoundText)

	ctx, cancel := context.WithTimeout(ctx, time.Duration(cfg.Plan.Seconds*float64(time.Second)))
	defer cancel()
	for _, d := range []string{BuiltDir} {
		if err := os.MkdirAll(filepath.Join(cfg.Prepared, d), 0o755); err != nil {
			return nil, &Refused{[]string{err.Error()}}
		}
	}

	for _, t := range c.in.built {
		c.sum.Rows = append(c.sum.Rows, Row{Step: "build", Run: t.String(), Result: Pass, Note: "built by an earlier check, accepted"})
	}
	// The builds on the card, beside the steps whose timings they cannot distort.
	var builds sync.WaitGroup
	builds.Add(1)
	go func() {
		defer builds.Done()
		for _, t := range c.in.build {
			c.build(ctx, t)
		}
	}()
	rows := make([][]Row, len(cfg.Plan.Steps))
	for i := range cfg.Plan.Steps {
		if cfg.Plan.Steps[i].Beside {
			rows[i] = c.step(ctx, &cfg.Plan.Steps[i])
		}
	}
	builds.Wait()
	for i := range cfg.Plan.Steps {
		if !cfg.Plan.Steps[i].Beside {
			rows[i] = c.step(ctx, &cfg.Plan.Steps[i])
		}
	}
	for _, r := range rows {
		c.sum.Rows = append(c.sum.Rows, r...)
	}
	c.sum.Targets = c.targets()
	c.sum.Seconds = time.Since(c.began).Seconds()
	c.sum.Passed = true
	for _, r := range c.sum.Rows {
		if r.Result != Pass {
			c.sum.Passed = false
		}
	}
	return c.sum, c.sum.write(cfg.Out)
}

// build builds one on-card table within its limit, and adds its row.
func (c *checker) build(ctx context.Context, t Table) {
	begin := time.Now()
	c.logf("building %s (at most %.0f s)", t, t.Seconds)
	bctx, cancel := context.WithTimeout(ctx, time.Duration(t.Seconds*float64(time.Second)))
	defer cancel()
	row := Row{Step: "build", Run: t.String(), Result: Pass}
	dir := filepath.Join(c.cfg.Prepared, BuiltDir)
	err := t.build(bctx, dir)
	if err == nil {
		if problems, _ := t.accepted(dir); len(problems) > 0 {
			err = errors.New(strings.Join(problems, "; "))
		}
	}
	row.Seconds = time.Since(begin).Seconds()
	if err != nil {
		if bctx.Err() != nil {
			err = fmt.Errorf("not built within %.0f s: %w", t.Seconds, err)
		}
		row.Result, row.Note = Fail, err.Error()
	}
	c.logf("built %s: %s in %.1f s %s", t, row.Result, row.Seconds, row.Note)
	c.mu.Lock()
	c.sum.Rows = append(c.sum.Rows, row)
	c.mu.Unlock()
}

// step runs one step, or fails it when the check's time is spent.
func (c *checker) step(ctx context.Context, s *Step) []Row {
	if ctx.Err() != nil {
		return []Row{{Step: s.Name, Result: Fail, Note: fmt.Sprintf("not run: the check's %.0f s were spent", c.cfg.Plan.Seconds)}}
	}
	c.logf("step %s (%s): %s", s.Name, s.Kind, s.What)
	begin := time.Now()
	var rows []Row
	switch s.Kind {
	case KindSelfTest:
		rows = []Row{c.selfTest(ctx, s)}
	case KindPTX:
		rows = []Row{c.ptx(ctx, s)}
	case KindReference:
		rows = c.reference(ctx, s)
	case KindCores:
		rows = []Row{c.cores(ctx, s)}
	}
	for i := range rows {
		rows[i].Step = s.Name
		c.logf("%s %s: %s, %d compared, %d through the GPU, %.1f s %s", s.Name, rows[i].Run, rows[i].Result, rows[i].Compared, rows[i].GPURecords, rows[i].Seconds, rows[i].Note)
	}
	c.logf("step %s took %.1f s", s.Name, time.Since(begin).Seconds())
	return rows
}

func (c *checker) logf(format string, args ...any) {
	line := fmt.Sprintf("[%6.1fs] ", time.Since(c.began).Seconds()) + fmt.Sprintf(format, args...)
	if c.cfg.Log != nil {
		fmt.Fprintln(c.cfg.Log, line)
	}
	if f, err := os.OpenFile(filepath.Join(c.cfg.Out, "check.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
}

// outcome is how one process of a step ended.
type outcome struct {
	code    int // its exit status; -1 when a signal ended it
	wall    time.Duration
	stopped bool // its time ran out: the check interrupted it
	killed  bool // it did not end within Grace of that, and was killed
	err     error
	stdout  []byte
	stderr  string // its last lines
}

// ok reports whether the process ended with one of the codes.
func (o outcome) ok(codes ...int) bool {
	if o.err != nil || o.killed {
		return false
	}
	for _, c := range codes {
		if o.code == c {
			return true
		}
	}
	return false
}

// problem says how the process ended, for a row.
func (o outcome) problem() string {
	switch {
	case o.err != nil:
		return o.err.Error()
	case o.killed:
		return fmt.Sprintf("killed %v after its time ran out", Grace)
	}
	s := fmt.Sprintf("exit status %d", o.code)
	if o.stopped {
		s += " (its time ran out)"
	}
	if o.stderr != "" {
		s += ": " + o.stderr
	}
	return s
}

// maxOutput bounds what the check reads back of a process's output.
const maxOutput = 256 << 20

// run runs solve15 with args for at most limit (then SIGINT, and after Grace SIGKILL),
// its output in Out/name.out and Out/name.err, with the check's environment plus env.
func (c *checker) run(ctx context.Context, name string, limit time.Duration, env []string, args ...string) outcome {
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	outPath := filepath.Join(c.cfg.Out, name+".out")
	errPath := filepath.Join(c.cfg.Out, name+".err")
	stdout, err := os.Create(outPath)
	if err != nil {
		return outcome{err: err}
	}
	defer stdout.Close()
	stderr, err := os.Create(errPath)
	if err != nil {
		return outcome{err: err}
	}
	defer stderr.Close()
	cmd := exec.CommandContext(rctx, c.cfg.Binary, args...)
	cmd.Dir = c.cfg.Root
	cmd.Env = append(c.env(), env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = Grace
	begin := time.Now()
	err = cmd.Run()
	o := outcome{wall: time.Since(begin), stopped: rctx.Err() != nil}
	if ps := cmd.ProcessState; ps != nil {
		o.code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			o.killed = true
		}
	} else if err != nil {
		o.err = err
	}
	o.stdout, _ = readCapped(outPath, maxOutput)
	tail, _ := readCapped(errPath, maxOutput)
	o.stderr = lastLines(tail, 3, 600)
	return o
}

// env is the environment of the check's processes: the tables carried and built, the
// driver's JIT cache under Out, a cache directory of their own (no tables of the user's),
// and no tuning of the engine's knobs.
func (c *checker) env() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TILEKIT_TABLES", "TILEKIT_GPU_TUNE", "CUDA_CACHE_PATH", "CUDA_CACHE_DISABLE", "XDG_CACHE_HOME":
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"TILEKIT_TABLES="+filepath.Join(c.cfg.Prepared, CarriedDir)+string(os.PathListSeparator)+filepath.Join(c.cfg.Prepared, BuiltDir),
		"CUDA_CACHE_PATH="+c.jitCache(),
		"XDG_CACHE_HOME="+filepath.Join(c.cfg.Out, "cache"))
}

// jitCache is the driver's JIT cache of the check's processes.
func (c *checker) jitCache() string { return filepath.Join(c.cfg.Out, "jit-cache") }

func readCapped(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// lastLines returns the last n lines of b, at most max bytes, on one line.
func lastLines(b []byte, n, max int) string {
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte("?")))), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	s := strings.Join(lines, " | ")
	if len(s) > max {
		s = "..." + s[len(s)-max:]
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, s)
}
