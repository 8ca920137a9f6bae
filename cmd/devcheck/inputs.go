package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/tablefile"
)

// The prepared directory's parts: the tables carried to the GPU machine, and those built
// there; and the output's directory of a campaign's kept records (Step.Keep).
const (
	CarriedDir = "tables"
	BuiltDir   = "built"
	KeptDir    = "kept"
)

// The most an input file may hold: a reference (or kept records), an instances file.
const (
	maxReference = 256 << 20
	maxInstances = 16 << 20
)

// readRegular reads path, a regular file of at most limit bytes: not a FIFO that would
// hang the check, nor a device without an end.
func readRegular(path string, limit int64) ([]byte, error) {
	if info, err := os.Stat(path); err != nil { // before opening: a FIFO's open waits for a writer
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v)", path, info.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(raw)) > limit {
		err = fmt.Errorf("%s holds more than the %d bytes it may", path, limit)
	}
	return raw, err
}

// plainWord reports whether w may name a file under --out as it is: letters, digits, '-',
// '_' and '.', not first, at most 64 bytes (no separator, no "..", nothing hidden).
func plainWord(w string) bool {
	if w == "" || len(w) > 64 || w[0] == '.' {
		return false
	}
	return strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == ""
}

// String names the table for people.
func (t Table) String() string {
	if t.Set == "" {
		return fmt.Sprintf("the %s automaton of depth %d", t.Automaton, t.Depth)
	}
	return "set " + t.Set + map[bool]string{true: " in bits"}[t.Bits]
}

// files returns the names of the table's files (none for a set that does not exist).
func (t Table) files() []string {
	if t.Set == "" {
		size, _ := board.ParseSize(t.Automaton)
		return []string{data.AutomatonFile(size, t.Depth)}
	}
	spec, err := pdb.SetByName(t.Set)
	if err != nil {
		return nil
	}
	out := make([]string, len(spec.Tables))
	for i := range spec.Tables {
		out[i] = data.SetFile(spec, i)
	}
	return out
}

// accepted says why the table's files in dir are not what a search would take (a file
// missing, damaged, not the standard table, in the other encoding); none when all are.
func (t Table) accepted(dir string) (problems []string) {
	for _, name := range t.files() {
		path := filepath.Join(dir, name)
		if tab, err := data.Accepted(path); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", t, err))
		} else if bits := tab.Encoding == tablefile.EncodingBit; bits != t.Bits {
			problems = append(problems, fmt.Sprintf("%s (%s): in the %s encoding", path, t, map[bool]string{true: "bit", false: "nibble"}[bits]))
		}
	}
	return problems
}

// build builds the table's files into dir, with every core.
func (t Table) build(ctx context.Context, dir string) error {
	if t.Set == "" {
		size, err := board.ParseSize(t.Automaton)
		if err == nil {
			_, _, err = data.InstallAutomaton(ctx, size, t.Depth, dir, nil)
		}
		return err
	}
	spec, err := pdb.SetByName(t.Set)
	if err == nil {
		_, err = data.InstallSet(ctx, spec, dir, data.BuildOptions{Bits: t.Bits})
	}
	return err
}

// Prepare builds into dir/tables the plan's carried tables that are not there already
// and accepted, saying so on log. What dir holds in all is gpu/prepare.sh's to measure.
func Prepare(ctx context.Context, p *Plan, dir string, log io.Writer) error {
	carried := filepath.Join(dir, CarriedDir)
	for _, t := range p.Tables {
		if t.Build > 0 || len(t.accepted(carried)) == 0 {
			continue
		}
		fmt.Fprintf(log, "prepare: building %s into %s\n", t, carried)
		if err := t.build(ctx, carried); err != nil {
			return fmt.Errorf("building %s: %w", t, err)
		}
		if problems := t.accepted(carried); len(problems) > 0 {
			return fmt.Errorf("built %s, and it is not accepted: %s", t, strings.Join(problems, "; "))
		}
	}
	return nil
}

// inputs are what a check reads before it starts: each step's instances and reference,
// and the tables still to build on the GPU machine.
type inputs struct {
	instances map[string][]*instance.Instance // by step
	refs      map[string][]report.Record      // by step
	build     []Table
}

// inspect finds and checks everything the plan needs before the card is used, and
// refuses the check with every problem found (a *cmdline.ExitError of status 2); then it makes --out and removes the
// previous run's summary, so that a check cut short leaves none that is not its own.
func (c *checker) inspect() (*inputs, error) {
	in := &inputs{instances: map[string][]*instance.Instance{}, refs: map[string][]report.Record{}}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if info, err := os.Stat(c.cfg.Binary); err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		fail("%s: not an executable solve15 (gpu/check.sh unpacks the one gpu/prepare.sh built; or give --solve15)", c.cfg.Binary)
	}
	for _, t := range c.cfg.Plan.Tables {
		switch p := t.accepted(c.dir(t)); {
		case len(p) > 0 && t.Build == 0:
			problems = append(append(problems, p...), "(carried tables are made by gpu/prepare.sh where Go is, into "+c.dir(t)+")")
		case len(p) > 0:
			in.build = append(in.build, t)
		}
	}
	for i := range c.cfg.Plan.Steps {
		s := &c.cfg.Plan.Steps[i]
		for _, t := range c.stepTables(s) {
			fail("step %s: its arguments need %s, which the plan neither carries nor builds", s.Name, t)
		}
		if s.Keep != "" {
			if base := filepath.Base(s.Keep); !plainWord(base) {
				fail("step %s: keep: %q is not a plain word: it names a file under --out", s.Name, base)
			} else if _, err := readRegular(c.path(s.Keep), maxReference); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fail("step %s: keep: %v", s.Name, err)
			}
		}
		if s.Instances == "" {
			continue
		}
		list, err := c.readInstances(s)
		if err != nil {
			fail("step %s: %v", s.Name, err)
			continue
		}
		in.instances[s.Name] = list
		for _, x := range list {
			if id := fileID(x); !plainWord(id) {
				fail("step %s: the instance id %q (line %d of %s) is not a plain word: it names files under --out", s.Name, id, x.Line, s.Instances)
			}
		}
		if s.Reference == "" {
			continue
		}
		if in.refs[s.Name], err = c.readReference(s, list); err != nil {
			fail("step %s: %v", s.Name, err)
		}
	}
	if len(problems) == 0 { // nothing written unless the check would start
		if err := c.clearOut(); err != nil {
			fail("the output directory %s: %v", c.cfg.Out, err)
		}
	}
	if len(problems) > 0 {
		// Exit status 2: the check would not start.
		return nil, &cmdline.ExitError{Code: 2, Err: errors.New("the device check will not start:\n  " + strings.Join(problems, "\n  "))}
	}
	return in, nil
}

// dir is where the table's files are: carried or built on the GPU machine.
func (c *checker) dir(t Table) string {
	if t.Build > 0 {
		return filepath.Join(c.cfg.Prepared, BuiltDir)
	}
	return filepath.Join(c.cfg.Prepared, CarriedDir)
}

// stepTables are the tables a step's arguments need (--heuristic's set, --pruning-depth's
// automaton) that the plan neither carries nor builds, and the binary does not embed.
func (c *checker) stepTables(s *Step) []Table {
	var need []Table
	for i := 0; i+1 < len(s.Args); i++ {
		if _, err := pdb.SetByName(s.Args[i+1]); err == nil && s.Args[i] == "--heuristic" {
			need = append(need, Table{Set: s.Args[i+1]})
		} else if d, err := strconv.Atoi(s.Args[i+1]); err == nil && s.Args[i] == "--pruning-depth" {
			need = append(need, Table{Automaton: s.Board, Depth: d})
		}
	}
	return slices.DeleteFunc(need, func(t Table) bool {
		if slices.ContainsFunc(c.cfg.Plan.Tables, func(p Table) bool { return p.Set == t.Set && p.Automaton == t.Automaton && p.Depth == t.Depth }) {
			return true
		}
		return !slices.ContainsFunc(t.files(), func(name string) bool { _, err := data.Embedded(name); return err != nil })
	})
}

// clearOut makes --out, checks that a file can be written in it, and removes the previous
// run's summary.
func (c *checker) clearOut() error {
	if err := os.MkdirAll(c.cfg.Out, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.cfg.Out, ".writable-*")
	if err != nil {
		return err
	}
	f.Close()
	os.Remove(f.Name())
	for _, name := range []string{"summary.json", "summary.md"} {
		if err := os.Remove(filepath.Join(c.cfg.Out, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// readInstances reads a step's instances (those of its ids, when it names them).
func (c *checker) readInstances(s *Step) ([]*instance.Instance, error) {
	path := c.path(s.Instances)
	size, err := board.ParseSize(s.Board)
	raw, rerr := readRegular(path, maxInstances)
	if err = cmp.Or(err, rerr); err != nil {
		return nil, err
	}
	goal, _ := board.ParseGoal(size, cmp.Or(s.Goal, "blank-last"))
	all, err := instance.ReadAll(context.Background(), bytes.NewReader(raw), path, goal, 0, maxInstances, false)
	switch {
	case err != nil:
		return nil, err
	case len(all) == 0:
		return nil, fmt.Errorf("%s holds no instances", path)
	case len(s.IDs) == 0:
		return all, nil
	}
	var out []*instance.Instance
	for _, id := range s.IDs {
		i := slices.IndexFunc(all, func(x *instance.Instance) bool { return x.Name() == id })
		if i < 0 {
			return nil, fmt.Errorf("%s has no instance %s", path, id)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// readReference reads a step's reference records: one at most of each instance, and (but
// for a campaign's, which holds what the CPU has made so far) a solved one of each of list.
func (c *checker) readReference(s *Step, list []*instance.Instance) ([]report.Record, error) {
	path := c.path(s.Reference)
	raw, err := readRegular(path, maxReference)
	if err != nil {
		return nil, err
	}
	refs, err := report.ReadRecords(bytes.NewReader(raw), path, maxReference)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for i, r := range refs {
		if j, ok := seen[fmt.Sprint(r.Start)]; ok {
			return nil, fmt.Errorf("the reference %s has two records of one instance (%s: records %d and %d)", path, r.Label(), j+1, i+1)
		}
		seen[fmt.Sprint(r.Start)] = i
	}
	for _, x := range list {
		if s.Keep == "" && !slices.ContainsFunc(refs, func(r report.Record) bool { return slices.Equal(r.Start, x.State.Ints()) && r.Solved }) {
			return nil, fmt.Errorf("the reference %s has no solved record of %s (line %d of %s)", path, x.Name(), x.Line, s.Instances)
		}
	}
	return refs, nil
}

// path is a plan's path: from the repository's root, unless absolute.
func (c *checker) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.cfg.Root, p)
}
