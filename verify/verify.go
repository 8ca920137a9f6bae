// Package verify proves a table file right, or says exactly what is wrong with it.
//
// A file passes through named checks, each reported on its own:
//
//   - integrity: magic, version, header fields consistent with each other, decoded length
//     and both checksums (package tablefile does the reading, with bounded memory);
//   - exactness: a Bellman certificate that every entry is the exact distance (below), or
//     for pattern databases without the blank a recomputation (additive.go);
//   - published: the figures of the literature (Takahashi's walking distance; Hilchie's IDA15; Korf & Felner 2002) where they apply;
//   - symmetry: where a table is used through a mirror or for a second axis, the mirrored
//     lookup agrees with a direct build (on a sample, or fully when deep);
//   - admissibility (deep, with instances): lookups never exceed known optimal lengths;
//   - rebuild (deep): an independent rebuild, compared entry by entry.
//
// The exactness certificate. With unit costs (walking distance), an entry is 0 exactly at
// the goal and every other entry is 1 + the least entry of its
// neighbours; a table that satisfies this everywhere is the distance table, because the
// equation has only one solution. With zero-cost moves (PDBs with the blank) the plain
// equation proves nothing: a group of states joined by zero-cost moves could share one
// too-low value. So the check works on groups: the states with the same pattern cells and
// the blank anywhere in one connected region of free cells. Every state of a group must
// carry one value; a group's value is 0 exactly when it holds the goal, and otherwise 1 +
// the least value among the groups one pattern-tile move away. Between groups every move
// costs 1, so again the solution is unique and passing is a proof.
package verify

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/sysmem"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// Names of the checks.
const (
	Integrity     = "integrity"
	Exactness     = "exactness"
	Published     = "published"
	Symmetry      = "symmetry"
	Admissibility = "admissibility"
	Rebuild       = "rebuild"
	Record        = "record" // with Options.Record, when the proof could not be recorded
)

// Statuses of a check.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
)

// Check is the outcome of one check.
type Check struct {
	Name     string   `json:"name"`
	Status   string   `json:"status"`
	Detail   string   `json:"detail"`
	Bad      int64    `json:"bad_entries,omitempty"` // entries found wrong
	Examples []string `json:"examples,omitempty"`    // the first few, readable
}

// Report is the outcome of verifying one table.
type Report struct {
	File       string  `json:"file"`
	Kind       string  `json:"kind,omitempty"`
	DecodedSHA string  `json:"decoded_sha256,omitempty"` // of the payload, once it is read
	Recorded   string  `json:"recorded,omitempty"`       // the record of the proof written (Options.Record)
	OK         bool    `json:"ok"`
	Checks     []Check `json:"checks"`
}

// Failed returns the checks that failed.
func (r *Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Status == Fail {
			out = append(out, c)
		}
	}
	return out
}

func (r *Report) add(c Check) {
	r.Checks = append(r.Checks, c)
	r.OK = r.OK && c.Status != Fail
}

// Instance is a start state with a known optimal length, for the admissibility check.
type Instance struct {
	Goal    board.Goal
	Start   board.State
	Optimal int
}

// MaxInstances bounds the instances ReadInstances reads.
const MaxInstances = 1_000_000

// ReadInstances reads a file of instances of goal that all carry their known optimal
// length (Korf's format), for the admissibility check.
func ReadInstances(path string, goal board.Goal) ([]Instance, error) {
	ins, err := instance.ReadKnown(path, goal, MaxInstances)
	if err != nil {
		return nil, err
	}
	out := make([]Instance, len(ins))
	for i, in := range ins {
		out[i] = Instance{Goal: goal, Start: in.State, Optimal: in.Optimal}
	}
	return out, nil
}

// Options tune verification. The zero value runs the fast checks with all cores.
type Options struct {
	Deep        bool       // full symmetry check, admissibility and an independent rebuild
	Rebuild     bool       // the rebuild without the rest of Deep
	Instances   []Instance // known optima for the admissibility check (deep only)
	Workers     int        // goroutines; 0 for all cores
	Samples     int        // states sampled by the symmetry check when not deep; 0 for 20,000
	MaxExamples int        // counter-examples kept per check; 0 for 5
	// MaxMemory bounds the memory a check that rebuilds a table may take, in bytes: a
	// rebuild that needs more fails its check with what it needs, and starts nothing. 0
	// for the memory available now (sysmem.Available); negative for no bound.
	MaxMemory int64
	// Record writes, beside a file that passes and is not a table pdbgen builds, the record
	// that it was proven (data.RecordVerified), which loaders then accept it by.
	Record bool
	// Progress, if set, hears of a check's rebuild of a table (minutes for the 7-8 set): the
	// check's name, done of total units of work, and what the units are ("distance 21": a
	// breadth-first layer of a table; "cells": an automaton's searches from each cell).
	Progress func(check string, done, total int64, note string)
}

// build rebuilds p for the named check, reporting its progress.
func (o Options) build(ctx context.Context, check string, p *pdb.Pattern) (*pdb.Table, error) {
	return pdb.Build(ctx, p, o.pdbOptions(check))
}

// pdbOptions are the options of a rebuild for the named check: the workers, and the
// progress of its layers.
func (o Options) pdbOptions(check string) pdb.Options {
	po := pdb.Options{Workers: o.workers()}
	if o.Progress != nil {
		po.Progress = func(l bfs.Layer) { o.Progress(check, l.Reached, l.Total, fmt.Sprintf("distance %d", l.Depth)) }
	}
	return po
}

// afford returns a failed check named name when rebuilding p in form f (zeroAware: its
// zero-aware table), and extra bytes beside it, needs more memory than the options allow,
// or nil.
func (o Options) afford(name string, p *pdb.Pattern, f pdb.Form, zeroAware bool, extra int64) *Check {
	limit := o.MaxMemory
	if limit == 0 {
		limit = sysmem.Available()
	}
	need := p.BuildBytes(f, zeroAware) + extra
	if limit <= 0 || need <= limit {
		return nil
	}
	return &Check{Name: name, Status: Fail, Detail: fmt.Sprintf("rebuilding the %d entries of %s needs about %s, more than the %s allowed (the memory available now); not started: allow more with --max-memory (Options.MaxMemory)",
		p.Len(), p.Name(), sysmem.Format(need), sysmem.Format(limit))}
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) samples() int {
	if o.Samples > 0 {
		return o.Samples
	}
	return 20000
}

func (o Options) maxExamples() int {
	if o.MaxExamples > 0 {
		return o.MaxExamples
	}
	return 5
}

// File verifies the table file at path.
func File(ctx context.Context, path string, opt Options) *Report {
	t, err := tablefile.Read(path)
	r := verify(ctx, path, t, err, opt)
	if opt.Record && r.OK && !data.IsStandard(filepath.Base(path), r.DecodedSHA) {
		if err := data.RecordVerified(ctx, path, r.DecodedSHA); err != nil {
			r.add(Check{Name: Record, Status: Skip, Detail: "could not record that the table is proven: " + err.Error()})
		} else {
			r.Recorded = path + data.VerifiedSuffix
		}
	}
	if opt.Record && !r.OK {
		// A record that vouched for a file found false goes: the loaders would trust it.
		switch removed, err := data.RemoveRecord(path); {
		case err != nil:
			r.add(Check{Name: Record, Status: Fail, Detail: "could not remove the record that vouches for this false table: " + err.Error()})
		case removed:
			r.add(Check{Name: Record, Status: Fail, Detail: "removed " + path + data.VerifiedSuffix + ", which vouched for this table"})
		}
	}
	return r
}

// Table verifies a decoded table, as if read from a file named name.
func Table(ctx context.Context, name string, t *tablefile.Table, opt Options) *Report {
	return verify(ctx, name, t, nil, opt)
}

func verify(ctx context.Context, name string, t *tablefile.Table, readErr error, opt Options) *Report {
	r := &Report{File: name, OK: true}
	if readErr != nil {
		r.add(Check{Name: Integrity, Status: Fail, Detail: readErr.Error()})
		return r
	}
	r.Kind, r.DecodedSHA = t.Kind, fmt.Sprintf("%x", t.DecodedSHA)
	r.add(Check{Name: Integrity, Status: Pass, Detail: fmt.Sprintf("%s table, %d entries, checksums match", t.Kind, t.Header.Entries)})
	var v checker
	var err error
	switch t.Kind {
	case tablefile.KindWD:
		v, err = newWDTable(t)
	case tablefile.KindPDB:
		if t.BlankInIndex {
			v, err = newPDBTable(t)
		} else if s, _ := tablefile.SchemeOf(t.Index); s.ZeroAware && t.Encoding == tablefile.EncodingBit {
			v, err = newBitTable(t)
		} else if s.ZeroAware {
			v, err = newZeroTable(t)
		} else {
			v, err = newAdditiveTable(t)
		}
	case tablefile.KindPrune:
		v, err = newPruneTable(t)
	default: // the reader accepts no other kind; be safe all the same
		err = fmt.Errorf("verify: no checks for a %q table", t.Kind)
	}
	if err != nil {
		r.add(Check{Name: Exactness, Status: Fail, Detail: err.Error()})
		return r
	}
	checks := []func() Check{
		func() Check { return v.exactness(ctx, opt) },
		v.published,
		func() Check { return v.symmetry(ctx, opt) },
		func() Check { return v.admissibility(opt) },
		func() Check { return v.rebuild(ctx, opt) },
	}
	for _, check := range checks {
		if ctx.Err() != nil {
			r.add(Check{Name: "interrupted", Status: Fail, Detail: ctx.Err().Error()})
			return r
		}
		r.add(check())
	}
	return r
}

// checker is a table under verification, one kind of table each.
type checker interface {
	exactness(context.Context, Options) Check
	published() Check
	symmetry(context.Context, Options) Check
	admissibility(Options) Check
	rebuild(context.Context, Options) Check
}

func skip(name, why string) Check { return Check{Name: name, Status: Skip, Detail: why} }

// bad collects counter-examples from parallel workers: the count of bad entries and the
// ones with the smallest indices, so reports do not depend on scheduling.
type bad struct {
	count    int64
	examples []example
}

type example struct {
	index uint32
	text  string
}

func (b *bad) add(index uint32, text func() string, keep int) {
	b.count++
	if len(b.examples) < keep {
		b.examples = append(b.examples, example{index, text()})
		return
	}
	// Keep the smallest indices: workers scan ranges in order, so a later index only
	// replaces the largest kept when it is smaller.
	hi := 0
	for i, e := range b.examples {
		if e.index > b.examples[hi].index {
			hi = i
		}
	}
	if index < b.examples[hi].index {
		b.examples[hi] = example{index, text()}
	}
}

func merge(parts []bad, keep int) (int64, []string) {
	var all []example
	var n int64
	for _, p := range parts {
		n += p.count
		all = append(all, p.examples...)
	}
	for i := 1; i < len(all); i++ { // insertion sort: a handful of items
		for j := i; j > 0 && all[j].index < all[j-1].index; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	if len(all) > keep {
		all = all[:keep]
	}
	out := make([]string, len(all))
	for i, e := range all {
		out[i] = e.text
	}
	return n, out
}

// parallel runs fn over [0, n) split into chunks among the workers, each with its own bad.
func parallel(ctx context.Context, n int, workers int, progress func(done, total int64), fn func(lo, hi int, b *bad)) []bad {
	const chunk = 1 << 14
	parts := make([]bad, workers)
	next := make(chan int, workers)
	go func() {
		defer close(next)
		for lo := 0; lo < n; lo += chunk {
			select {
			case next <- lo:
			case <-ctx.Done():
				return
			}
		}
	}()
	var finished atomic.Int64
	done := make(chan struct{})
	for w := 0; w < workers; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for lo := range next {
				hi := min(lo+chunk, n)
				fn(lo, hi, &parts[w])
				finished.Add(int64(hi - lo))
			}
		}()
	}
	// The progress is told from here, the calling goroutine: at once, twice a second, and
	// at the end.
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	if progress != nil {
		progress(0, int64(n))
	}
	for w := 0; w < workers; {
		select {
		case <-done:
			w++
		case <-tick.C:
			if progress != nil {
				progress(finished.Load(), int64(n))
			}
		}
	}
	if progress != nil {
		progress(finished.Load(), int64(n))
	}
	return parts
}

// entriesProgress is a check's Progress over a table's entries (nil when the options hear
// of none).
func (o Options) entriesProgress(check string) func(done, total int64) {
	if o.Progress == nil {
		return nil
	}
	return func(done, total int64) { o.Progress(check, done, total, "entries") }
}

// exactnessResult turns merged counter-examples into a check.
func exactnessResult(ctx context.Context, parts []bad, opt Options, entries int, what string) Check {
	if err := ctx.Err(); err != nil {
		return Check{Name: Exactness, Status: Fail, Detail: "interrupted: " + err.Error()}
	}
	n, ex := merge(parts, opt.maxExamples())
	if n == 0 {
		return Check{Name: Exactness, Status: Pass, Detail: fmt.Sprintf("all %d entries satisfy the %s", entries, what)}
	}
	return Check{Name: Exactness, Status: Fail, Bad: n, Examples: ex,
		Detail: fmt.Sprintf("%d of %d entries break the %s", n, entries, what)}
}

// WriteText writes the report for people: OK and the checks passed, or each failed check
// with its first counter-examples.
func (r *Report) WriteText(w io.Writer) {
	var passed []string
	var skipped []Check
	for _, c := range r.Checks {
		switch c.Status {
		case Pass:
			passed = append(passed, c.Name)
		case Skip:
			skipped = append(skipped, c)
		}
	}
	if r.OK {
		fmt.Fprintf(w, "%s: OK (%s)\n", r.File, strings.Join(passed, ", "))
	} else {
		fmt.Fprintf(w, "%s: FAILED\n", r.File)
		for _, c := range r.Failed() {
			fmt.Fprintf(w, "  %s: %s\n", c.Name, c.Detail)
			for _, e := range c.Examples {
				fmt.Fprintf(w, "    e.g. %s\n", e)
			}
		}
		if len(passed) > 0 {
			fmt.Fprintf(w, "  passed: %s\n", strings.Join(passed, ", "))
		}
	}
	for _, c := range skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", c.Name, c.Detail)
	}
	if r.Recorded != "" {
		fmt.Fprintf(w, "  recorded in %s, so that solvers accept the table\n", r.Recorded)
	}
}
