package verify

import (
	"context"
	"fmt"
	"slices"

	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

// pruneTable is a duplicate-path automaton (package prune) under verification. It has no
// values to prove: it is proven by building it again, which takes seconds, and comparing
// every transition. The generator's own tests prove, exhaustively on small boards, that
// what it builds keeps a shortest path to every position.
type pruneTable struct {
	t *tablefile.Table
	a *prune.Automaton
}

func newPruneTable(t *tablefile.Table) (*pruneTable, error) {
	a, err := prune.FromFile(t)
	if err != nil {
		return nil, err
	}
	return &pruneTable{t: t, a: a}, nil
}

func (v *pruneTable) exactness(context.Context, Options) Check {
	return Check{Name: Exactness, Status: Pass, Detail: fmt.Sprintf("%d states, every one reached from the start states on one cell, every transition on the board", v.a.States())}
}

func (v *pruneTable) published() Check {
	return skip(Published, "no published figures for this automaton")
}

func (v *pruneTable) symmetry(context.Context, Options) Check {
	return skip(Symmetry, "the rebuild compares every transition")
}

func (v *pruneTable) admissibility(Options) Check {
	return skip(Admissibility, "an automaton has no values; the rebuild shows it is the generator's, which keeps a shortest path to every position")
}

func (v *pruneTable) rebuild(ctx context.Context, o Options) Check {
	var progress prune.Progress
	if o.Progress != nil {
		progress = func(done, total int) { o.Progress(Rebuild, int64(done), int64(total), prune.StepNote(done, total)) }
	}
	fresh, err := prune.BuildProgress(ctx, v.a.Size(), v.a.Depth(), progress)
	if err != nil {
		return Check{Name: Rebuild, Status: Fail, Detail: err.Error()}
	}
	want, got := fresh.Transitions(), v.a.Transitions()
	if slices.Equal(want, got) {
		return Check{Name: Rebuild, Status: Pass, Detail: fmt.Sprintf("a rebuild of depth %d equals all %d transitions", v.a.Depth(), len(got))}
	}
	if len(want) != len(got) {
		return Check{Name: Rebuild, Status: Fail, Detail: fmt.Sprintf("a rebuild of depth %d has %d states, the file %d", v.a.Depth(), fresh.States(), v.a.States())}
	}
	for i := range want {
		if want[i] != got[i] {
			return Check{Name: Rebuild, Status: Fail, Detail: fmt.Sprintf("transition %d (state %d, move %d): file %d, rebuild %d", i, i/4, i%4, got[i], want[i])}
		}
	}
	return Check{Name: Rebuild, Status: Fail}
}
