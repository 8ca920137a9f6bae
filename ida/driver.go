package ida

import (
	"context"
	"sync/atomic"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
)

// The engine's part of the pass driver (package passes): a walk of the start is a
// passes.Search (split.go), which passes.Run drives. docs/SEARCH.md is the protocol every
// runner keeps.

// Solve searches for a shortest solution of start, splitting its passes as Options.Workers
// asks. It returns the result, with an error when the search was cancelled (ctx's error)
// or hit the node limit (passes.ErrNodeLimit); the result then carries the lower bound
// proven so far. The solution is replayed on start before it is returned; a mismatch is
// reported as an internal error.
func (s *Solver) Solve(ctx context.Context, start board.State) (*passes.Result, error) {
	return s.Run(ctx, start, passes.Plan{})
}

// Run searches for a shortest solution of start as Solve does, its passes split and searched
// as plan says (passes.Run; a nil plan.Split: Options.Split's rule).
func (s *Solver) Run(ctx context.Context, start board.State, plan passes.Plan) (*passes.Result, error) {
	if err := s.goal.Check(start); err != nil {
		return nil, err
	}
	st := s.newWalk(start)
	// The search polls for cancellation and reports progress itself, every pollEvery
	// expansions (no goroutine of its own: in WebAssembly none would run while it does).
	var stop atomic.Bool
	st.stop, st.ctx = &stop, ctx
	st.rep = passes.NewReporter(s.opt.Progress, s.opt.ProgressEvery)
	st.setBudget(s.opt.MaxNodes)
	if plan.Split == nil {
		plan.Split = s.opt.Split
	}
	res, err := passes.Run(ctx, st, s.goal, start, plan, passes.Setup{H: st.h(), Engine: s, Stride: s.stride(),
		Workers: s.Threads(), MaxNodes: s.opt.MaxNodes, Reporter: st.rep, From: s.opt.frontierFrom, Raised: s.opt.raised})
	if res != nil {
		res.Cuts = st.cuts
	}
	return res, err
}

// ownFrontier returns the frontier of a batch that this package's walks met, or nil.
func ownFrontier(b *passes.Batch) *passes.Frontier {
	if f := b.Frontier(); f != nil {
		if _, ours := f.Engine().(*Solver); ours {
			return f
		}
	}
	return nil
}

// caller returns a path of the frame as the caller's directions.
func (f *frame) caller(path []uint8) []board.Dir {
	out := make([]board.Dir, len(path))
	for i, d := range path {
		out[i] = board.Dir(f.dirMap[d])
	}
	return out
}

// own writes moves (the caller's directions, which the driver checked:
// passes.CheckSolution) into path in the frame, and returns how many.
func (f *frame) own(moves []board.Dir, path []uint8) int {
	for i, e := range moves {
		path[i] = f.inverse[e]
	}
	return len(moves)
}
