package main

import (
	"bytes"
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
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/tablefile"
)

// Refused is the error of a check that will not start, before it has used the card: what
// is missing or not accepted, each with its path.
type Refused struct{ Problems []string }

func (r *Refused) Error() string {
	return "the device check will not start:\n  " + strings.Join(r.Problems, "\n  ")
}

// The prepared directory's parts: the tables carried to the GPU machine, and those built
// there; and the output's directory of a campaign's kept records (Step.Keep).
const (
	CarriedDir = "tables"
	BuiltDir   = "built"
	KeptDir    = "kept"
)

// regular checks that path is a regular file of at most limit bytes: not a FIFO that
// would hang the check, nor a device without an end.
func regular(path string, limit int64) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%v)", path, info.Mode().Type())
	case info.Size() > limit:
		return fmt.Errorf("%s holds %d bytes, more than the %d it may", path, info.Size(), limit)
	}
	return nil
}

// readRegular reads path, a regular file of at most limit bytes.
func readRegular(path string, limit int64) ([]byte, error) {
	if err := regular(path, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(raw)) > limit {
		err = fmt.Errorf("%s grew past %d bytes", path, limit)
	}
	return raw, err
}

// String names the table for people.
func (t Table) String() string {
	if t.Set != "" {
		if t.Bits {
			return "set " + t.Set + " in bits"
		}
		return "set " + t.Set
	}
	return fmt.Sprintf("the %s automaton of depth %d", t.Automaton, t.Depth)
}

// files returns the names of the table's files.
func (t Table) files() []string {
	if t.Set != "" {
		spec, err := pdb.SetByName(t.Set)
		if err != nil {
			return nil // checked with the plan
		}
		var out []string
		for i := range spec.Tables {
			out = append(out, data.SetFile(spec, i))
		}
		return out
	}
	size, _ := board.ParseSize(t.Automaton)
	return []string{data.AutomatonFile(size, t.Depth)}
}

// accepted reports why the table's files in dir are not what a search would take: a file
// missing, damaged, not the standard table, or in the wrong encoding; nil when every
// file is accepted. It also returns the files' total size.
func (t Table) accepted(dir string) (problems []string, size int64) {
	for _, name := range t.files() {
		path := filepath.Join(dir, name)
		info, err := os.Stat(path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s (%s): %v", path, t, errors.Unwrap(err)))
			continue
		}
		size += info.Size()
		tab, err := data.Accepted(path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s (%s): this binary does not accept it: %v", path, t, err))
			continue
		}
		if bits := tab.Encoding == tablefile.EncodingBit; bits != t.Bits {
			problems = append(problems, fmt.Sprintf("%s (%s): in the %s encoding", path, t, map[bool]string{true: "bit", false: "nibble"}[bits]))
		}
	}
	return problems, size
}

// build builds the table's files into dir, with every core.
func (t Table) build(ctx context.Context, dir string) error {
	if t.Set != "" {
		spec, err := pdb.SetByName(t.Set)
		if err != nil {
			return err
		}
		_, err = data.InstallSet(ctx, spec, dir, data.BuildOptions{Bits: t.Bits})
		return err
	}
	size, err := board.ParseSize(t.Automaton)
	if err != nil {
		return err
	}
	_, _, err = data.InstallAutomaton(ctx, size, t.Depth, dir, nil)
	return err
}

// Prepare builds into dir/tables the plan's carried tables that are not there already
// and accepted, saying so on log, and returns what the directory holds in bytes: what a
// GPU machine is given (the binaries, the tables), measured on the directory itself. A
// limit on it is the caller's (gpu/prepare.sh's argument).
func Prepare(ctx context.Context, p *Plan, dir string, log io.Writer) (int64, error) {
	if err := prepareTables(ctx, p, dir, log); err != nil {
		return 0, err
	}
	return dirSize(dir)
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
		}
		return err
	})
	return total, err
}

// prepareTables is Prepare's building, each table's size said on log.
func prepareTables(ctx context.Context, p *Plan, dir string, log io.Writer) error {
	carried := filepath.Join(dir, CarriedDir)
	for _, t := range p.Tables {
		if t.OnCard {
			continue
		}
		problems, size := t.accepted(carried)
		if len(problems) > 0 {
			fmt.Fprintf(log, "prepare: building %s into %s\n", t, carried)
			if err := t.build(ctx, carried); err != nil {
				return fmt.Errorf("building %s: %w", t, err)
			}
			if problems, size = t.accepted(carried); len(problems) > 0 {
				return fmt.Errorf("built %s, and it is not accepted: %s", t, strings.Join(problems, "; "))
			}
		}
		fmt.Fprintf(log, "prepare: %s: %.1f MB\n", t, float64(size)/1e6)
	}
	return nil
}

// inputs are what a check reads before it starts: the instances and references of each
// step, and the on-card tables still to build.
type inputs struct {
	instances map[string][]*instance.Instance // by step
	refs      map[string][]report.Record      // by step
	build     []Table
	built     []Table // on-card tables an earlier check built, accepted
}

// maxReference bounds a reference file, maxInstances an instances file.
const (
	maxReference = 256 << 20
	maxInstances = 16 << 20
)

// inspect finds and checks everything the plan needs before the card is used, and
// refuses the check with every problem found.
func (c *checker) inspect() (*inputs, error) {
	in := &inputs{instances: map[string][]*instance.Instance{}, refs: map[string][]report.Record{}}
	var problems []string
	if info, err := os.Stat(c.cfg.Binary); err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		problems = append(problems, fmt.Sprintf("%s: not an executable solve15 (gpu/check.sh unpacks the one gpu/prepare.sh built; or give --solve15)", c.cfg.Binary))
	}
	for _, t := range c.cfg.Plan.Tables {
		if !t.OnCard {
			p, _ := t.accepted(filepath.Join(c.cfg.Prepared, CarriedDir))
			if len(p) > 0 {
				p = append(p, fmt.Sprintf("(carried tables are made by gpu/prepare.sh where Go is, into %s)", filepath.Join(c.cfg.Prepared, CarriedDir)))
			}
			problems = append(problems, p...)
			continue
		}
		built := filepath.Join(c.cfg.Prepared, BuiltDir)
		switch p, _ := t.accepted(built); {
		case len(p) == 0:
			in.built = append(in.built, t)
		case slices.ContainsFunc(t.files(), func(name string) bool { _, err := os.Stat(filepath.Join(built, name)); return err == nil }):
			problems = append(problems, p...) // there, and not accepted: remove it to build it again
		default:
			in.build = append(in.build, t)
		}
	}
	for i := range c.cfg.Plan.Steps {
		s := &c.cfg.Plan.Steps[i]
		for _, t := range c.stepTables(s) {
			problems = append(problems, fmt.Sprintf("step %s: its arguments need %s, which the plan neither carries nor builds", s.Name, t))
		}
		if s.Keep != "" {
			if base := filepath.Base(s.Keep); !plainWord(base) {
				problems = append(problems, fmt.Sprintf("step %s: keep: %q is not a plain word (%s)", s.Name, base, plainWords))
			} else if err := regular(c.path(s.Keep), maxReference); err != nil && !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, fmt.Sprintf("step %s: keep: %v", s.Name, err))
			}
		}
		if s.Instances == "" {
			continue
		}
		list, err := c.readInstances(s)
		if err != nil {
			problems = append(problems, fmt.Sprintf("step %s: %v", s.Name, err))
			continue
		}
		if s.Kind == KindCores {
			for _, in := range list {
				if id := fileID(in); !plainWord(id) {
					problems = append(problems, fmt.Sprintf("step %s: the instance id %q (line %d of %s) is not a plain word (%s)", s.Name, id, in.Line, s.Instances, plainWords))
				}
			}
		}
		in.instances[s.Name] = list
		if s.Reference == "" {
			continue
		}
		refs, err := c.readReference(s, list)
		if err != nil {
			problems = append(problems, fmt.Sprintf("step %s: %v", s.Name, err))
			continue
		}
		in.refs[s.Name] = refs
	}
	if len(problems) == 0 { // nothing written unless the check would start
		if err := c.outWritable(); err != nil {
			problems = append(problems, fmt.Sprintf("the output directory %s: %v", c.cfg.Out, err))
		}
	}
	if len(problems) > 0 {
		return nil, &Refused{problems}
	}
	return in, nil
}

// stepTables are the tables a step's arguments need (--heuristic's set, --pruning-depth's
// automaton) that the plan neither carries nor builds, and the binary does not embed.
func (c *checker) stepTables(s *Step) []Table {
	var need []Table
	for i := 0; i+1 < len(s.Args); i++ {
		switch s.Args[i] {
		case "--heuristic":
			if _, err := pdb.SetByName(s.Args[i+1]); err == nil {
				need = append(need, Table{Set: s.Args[i+1]})
			}
		case "--pruning-depth":
			if d, err := strconv.Atoi(s.Args[i+1]); err == nil {
				need = append(need, Table{Automaton: s.Board, Depth: d})
			}
		}
	}
	return slices.DeleteFunc(need, func(t Table) bool {
		if slices.ContainsFunc(c.cfg.Plan.Tables, func(p Table) bool {
			return p.Set == t.Set && p.Automaton == t.Automaton && p.Depth == t.Depth
		}) {
			return true
		}
		for _, name := range t.files() {
			if _, err := data.Embedded(name); err != nil {
				return false
			}
		}
		return len(t.files()) > 0
	})
}

// outWritable makes the output directory, checks that a file can be written in it, and
// removes the previous run's summary, so that a check cut short leaves none that is not
// its own.
func (c *checker) outWritable() error {
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

// readInstances reads a step's instances (those of its ids, for a cores step).
func (c *checker) readInstances(s *Step) ([]*instance.Instance, error) {
	goal, _ := s.goal()
	path := c.path(s.Instances)
	raw, err := readRegular(path, maxInstances)
	if err != nil {
		return nil, err
	}
	r := instance.NewReader(bytes.NewReader(raw), goal.Size())
	var all []*instance.Instance
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		all = append(all, in)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s holds no instances", path)
	}
	if len(s.IDs) == 0 {
		return all, nil
	}
	var out []*instance.Instance
	for _, id := range s.IDs {
		i := slices.IndexFunc(all, func(in *instance.Instance) bool { return in.Name() == id })
		if i < 0 {
			return nil, fmt.Errorf("%s has no instance %s", path, id)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// readReference reads a step's reference records, and checks that each instance has one.
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
		key := fmt.Sprint(r.Start)
		if j, ok := seen[key]; ok {
			return nil, fmt.Errorf("the reference %s has two records of one instance (%s: records %d and %d)", path, label(r), j+1, i+1)
		}
		seen[key] = i
	}
	for _, in := range list {
		if s.Keep != "" {
			break // a campaign's: the reference holds what the CPU made so far (answer)
		}
		if !slices.ContainsFunc(refs, func(r report.Record) bool { return slices.Equal(r.Start, in.State.Ints()) && r.Solved }) {
			return nil, fmt.Errorf("the reference %s has no solved record of %s (line %d of %s)", path, in.Name(), in.Line, s.Instances)
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
