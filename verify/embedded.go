package verify

import (
	"bytes"
	"context"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

// Bytes verifies a table file held in memory, named name in the report.
func Bytes(ctx context.Context, name string, raw []byte, opt Options) *Report {
	t, err := tablefile.Decode(bytes.NewReader(raw))
	return verify(ctx, name, t, err, opt)
}

// Korf100 returns Korf's 100 instances (blank-first goal) for the admissibility check.
func Korf100() []Instance {
	var out []Instance
	for _, in := range corpus.Korf100() {
		out = append(out, Instance{Goal: in.Goal, Start: in.Start, Optimal: in.Optimal})
	}
	return out
}

// Embedded verifies the tables built into the binary (the 4x4 automaton among them), one
// report per file, and adds a
// report for the set as solvers use it: the IDA15 sum and max(IDA15, WD) never above the
// optimal length, and of its parity, on the instances (Korf's 100 when opt has none).
func Embedded(ctx context.Context, opt Options) []*Report {
	var reports []*Report
	for _, spec := range data.Specs {
		raw, err := data.Embedded(spec.File)
		if err != nil {
			reports = append(reports, &Report{File: "embedded:" + spec.File, Checks: []Check{{Name: Integrity, Status: Fail, Detail: err.Error()}}})
			continue
		}
		reports = append(reports, Bytes(ctx, "embedded:"+spec.File, raw, opt))
	}
	// The 4x4 board's duplicate-pruning automaton, proven by a rebuild.
	fsm := data.AutomatonFile(board.Size4x4, prune.DefaultDepth(board.Size4x4))
	if raw, err := data.Embedded(fsm); err == nil {
		reports = append(reports, Bytes(ctx, "embedded:"+fsm, raw, opt))
	}
	set := &Report{File: "embedded set", Kind: "set", OK: true}
	tabs, err := data.Default()
	if err != nil {
		set.add(Check{Name: Integrity, Status: Fail, Detail: err.Error()})
		return append(reports, set)
	}
	instances := opt.Instances
	if len(instances) == 0 {
		instances = Korf100()
	}
	c := checkAdmissible(instances, board.BlankLast(board.Size4x4), true, "the IDA15 sum (same parity as the optimum)", tabs.IDA15.Eval)
	set.add(c)
	return append(reports, set)
}
