// Package passes runs IDA*'s passes (Korf 1985), each searched whole or split at a frontier
// into subtrees that a Runner searches apart (Reinefeld & Schnecke's AIDA*, 1994): this
// process's workers, the units of a cluster, a GPU. It keeps the serial search's solution
// and node counts whatever the runner, replaying the top of a pass where a subtree's
// search raised its root's value (BPMX, Felner et al. 2011); docs/SEARCH.md is the
// protocol. The engine that walks the tree (package ida) is a Tree, each of its walks a
// Walker; the runners and the policy that splits (package solve) are the callers'.
//
// What every split pass needs of the walks is here too, so that an engine only walks: the
// frontier (Frontier), its depth chosen by the tries of its walk and collected on several
// goroutines below a shallower one (Collect); the subtrees walked on this process's
// goroutines, in order, up to the first solution (Share, Workers); the top walked again
// with the subtrees' results (Replay); and subtrees split further into parts of their own
// (Deepen). A Cut steers each walk at its frontier.
package passes

import (
	"context"
	"errors"
	"time"

	"github.com/tilekit/tilekit/board"
)

// Work counts the nodes of a search, or of a part of one: what records (package report),
// units of work (package cluster) and engines share. A node is generated when its parent
// makes it (before the bound tests it) and expanded when its own children are generated;
// docs/SEARCH.md says exactly when, for every engine.
type Work struct {
	Nodes    uint64 `json:"nodes"`    // nodes generated
	Expanded uint64 `json:"expanded"` // nodes whose children were generated
}

// Add adds o to w.
func (w *Work) Add(o Work) {
	w.Nodes += o.Nodes
	w.Expanded += o.Expanded
}

// Pass is the work of one IDA* pass (iteration) with its bound on f = g + h.
type Pass struct {
	Bound    int    `json:"bound"`
	Nodes    uint64 `json:"nodes"`    // nodes generated
	Expanded uint64 `json:"expanded"` // nodes whose children were generated
}

// Work returns the pass's counts.
func (p Pass) Work() Work { return Work{Nodes: p.Nodes, Expanded: p.Expanded} }

// ErrNodeLimit reports a search stopped by its node limit.
var ErrNodeLimit = errors.New("passes: node limit reached")

// ErrRunner is matched by the errors of a split pass whose runner broke its contract
// (Runner): too few results, a subtree before the first solution left unsearched, or a
// solution that is not one of its subtree.
var ErrRunner = errors.New("passes: the runner's results break its contract")

// A Runner walks the subtrees of a split pass.
//
// SearchSubtrees returns one result per subtree of b, in b's order. It must search every
// subtree up to the first one (in that order) that holds a solution, and that one; it may
// leave those after it unsearched, or report them partly searched (their work then counts
// in the search's total, not in its serial counts). It returns ErrNodeLimit once it has
// generated b.MaxNodes nodes (when set), and ctx's error when cancelled, with the results
// it has. Results with a solution give it from the start (Moves, b.Bound moves starting
// with the subtree's path): the first in serial order is the answer, whatever order the
// runner searched in.
type Runner interface {
	SearchSubtrees(ctx context.Context, b *Batch) ([]SubtreeResult, error)
}

// RunnerFunc makes a function a Runner.
type RunnerFunc func(ctx context.Context, b *Batch) ([]SubtreeResult, error)

// SearchSubtrees calls f.
func (f RunnerFunc) SearchSubtrees(ctx context.Context, b *Batch) ([]SubtreeResult, error) {
	return f(ctx, b)
}

// A Batch is the frontier of a split pass: the subtrees to search, numbered by their
// place in the serial search's order (their serial index).
type Batch struct {
	Start board.State
	Bound int
	// Paths are the subtrees' roots as blank directions from Start, in serial order.
	Paths [][]board.Dir
	// H is the heuristic value of each subtree's root, as the search met it.
	H []int
	// MaxNodes is how many nodes the runner may generate (0: no limit).
	MaxNodes uint64

	nodes *Frontier // the engine's, which its own runners read (Frontier)
	rep   *Reporter // the search's progress, which Did feeds
	base  uint64    // the search's nodes before the batch
}

// newBatch makes the batch of an engine's frontier: its paths and values, and the
// frontier, which the engine's own runners read back (Frontier).
func newBatch(start board.State, bound int, maxNodes uint64, f *Frontier) *Batch {
	b := &Batch{Start: start, Bound: bound, MaxNodes: maxNodes, nodes: f, Paths: f.pathsCopy(), H: make([]int, f.Len())}
	for i := range b.H {
		b.H[i] = f.H(i)
	}
	return b
}

// Frontier returns the engine's frontier the batch was made of, nil for a batch made
// otherwise (by a caller of Runner).
func (b *Batch) Frontier() *Frontier {
	if b.nodes != nil && b.nodes.engine != nil {
		return b.nodes
	}
	return nil
}

// Did tells the search that the runner has generated nodes nodes below the batch so far,
// for its progress: a runner whose searches do not report as they go (the GPU's) calls it
// as its work grows. It may be called from any goroutine.
func (b *Batch) Did(nodes uint64) {
	if b.rep != nil {
		b.rep.atLeast(b.base + nodes)
	}
}

// SubtreeResult is what the search below one subtree found.
type SubtreeResult struct {
	// Searched is set when the subtree was searched to its end, or to its first solution.
	Searched bool
	Work     Work
	// Value is the subtree root's value as its search left it: its heuristic value, or
	// more where BPMX raised it (docs/SEARCH.md); 0 stands for the root's own value.
	Value int
	// Moves is the subtree's first solution, from the start; nil if it has none.
	Moves []board.Dir
}

// A Plan says how a search's passes are searched: whole, here, or split at a frontier into
// subtrees that a runner searches.
type Plan struct {
	// Split is asked before each pass whether to split it. It returns how many subtrees
	// the frontier should hold at least (0: search the pass whole, here), and refine (nil:
	// none), asked of each frontier node whether to split it further (see Tree.Frontier).
	// nil: every pass whole (an engine's Run may give its own plan instead).
	Split func(p PassPlan) (want int, refine func(path []board.Dir) bool)
	// Runner searches the split passes' subtrees; nil: the engine's own workers.
	Runner Runner
	// OnPass, if set, hears of each pass once it ends: its work and, when it was split,
	// its frontier and the runner's results.
	OnPass func(p Pass, split *SplitPass)
}

// PassPlan is what a plan knows before a pass.
type PassPlan struct {
	Bound     int
	Passes    []Pass     // the passes before, with all their work
	LastSplit *SplitPass // the last pass that was split, or nil
}

// SplitPass is a split pass's frontier and what the runner found below it.
type SplitPass struct {
	Bound   int
	Paths   [][]board.Dir
	Results []SubtreeResult
	// Serial is the serial search's work in the pass; Replayed says that it was found by
	// searching the top of the tree again with the subtrees' results, because a subtree
	// raised its root's value (docs/SEARCH.md, section 6).
	Serial   Work
	Replayed bool
}

// Result is the outcome of a search.
type Result struct {
	Start      board.State
	Moves      []board.Dir // blank directions, in the caller's frame; nil if not solved
	Solved     bool
	Optimal    bool // proven optimal: solved with an admissible heuristic
	LowerBound int  // the optimal length is at least this (equal to it when solved)
	H0         int  // heuristic value of the start
	Nodes      uint64
	Expanded   uint64
	// Serial is the work one goroutine would have done (Workers 1): Nodes and Expanded
	// less what several spend on splitting passes and on subtrees after the solution's.
	// It does not depend on the number of workers.
	Serial Work
	// Cuts counts the nodes whose search BPMX ended early: a child's search raised the
	// node's value above the bound while a later child within it was still to be searched
	// (docs/SEARCH.md). Only sets in nibbles that are not zero-aware, and dual lookups,
	// have such values. Like Nodes, it counts all the work done.
	Cuts    uint64
	Passes  []Pass
	Elapsed time.Duration
}
