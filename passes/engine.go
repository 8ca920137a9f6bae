package passes

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/tilekit/tilekit/board"
)

// This file is the engine's side of the driver: what an engine (package ida) gives Run to
// walk its tree, and the Cut through which the driver steers each walk at a frontier. The
// driver calls the engine; the engine calls the driver back only through that Cut, while
// it walks. The runners' side is protocol.go.

// A Search is an engine's search of one start, as Run drives it: its own walk of each pass
// (the Walker), copies of that walk on other goroutines that share its node limit, and a
// walk apart, for replays. Everything else a split pass does (the frontier's collection,
// the subtrees on the engine's goroutines, the replay) is the driver's, made of walks.
type Search interface {
	Walker
	// Begin starts the pass of bound: the walks up to the next Begin are of that pass.
	Begin(bound int)
	// Walkers returns n walkers of the pass, for goroutines of their own, sharing what is
	// left of the search's node limit.
	Walkers(n int) []Walker
	// Gather adds the walkers' work, and outside work (a runner's, elsewhere), to the
	// search's, and takes back what the walkers left of the node limit.
	Gather(ws []Walker, outside Work)
	// Apart returns a walker of the pass whose work is its own, without a node limit or
	// progress, that stops for nothing: a replay's.
	Apart() Walker
}

// Setup is what Run needs of an engine's search beside its walks.
type Setup struct {
	H int // the start's heuristic value: the first pass's bound
	// Engine walks below the frontier nodes of the search's walks (for a runner of this
	// process, Workers, and Deepen), whose payloads are Stride bytes each (what the walk
	// keeps of a node to walk below it).
	Engine   Engine
	Stride   int
	Workers  int       // the engine's goroutines: for a split pass's subtrees and collection
	MaxNodes uint64    // the search's node limit (0: none)
	Reporter *Reporter // the search's progress
	// From and Raised tune the collection of frontiers, for tests: once a depth holds From
	// nodes a worker (0: 64), the deeper depths are tried on the workers below its nodes;
	// Raised, if set, counts the nodes of such a depth whose value rose below them short
	// of cutting their parent.
	From   int
	Raised *atomic.Int64
}

// A Walker is one goroutine's walk of an engine's pass (package ida's), its bound set. The
// driver's collections, parallel searches and replays steer it through a Cut: where it
// stops at a frontier instead of expanding, and what it does there. Its work adds up over
// its walks.
type Walker interface {
	// Walk walks the pass from the start (f nil) or below subtree i of f, under c (nil:
	// no frontier), and reports whether it found the goal (Moves) and the node's value as
	// BPMX left it. ok is false when it stopped early: cancelled or out of nodes
	// (Aborted), or cut off (Cut's).
	Walk(f *Frontier, i int, c *Cut) (found bool, value int, ok bool)
	// Work is the walker's work in its walks so far.
	Work() Work
	// Aborted says that a walk was cancelled or ran out of nodes: the walker walks no more.
	Aborted() bool
	// Moves is the solution of the last walk that found the goal, from the start, in the
	// caller's directions.
	Moves() []board.Dir
}

// An Engine walks below the nodes its walks met (Frontier.Engine): a Deeper's parts, or a
// runner of this process (Workers).
type Engine interface {
	// Walkers returns n walkers (at least one) of b's pass, sharing a limit of b.MaxNodes
	// (0: none), that stop when ctx is done.
	Walkers(ctx context.Context, b *Batch, n int) []Walker
	// Threads is how many goroutines the engine's own searches take.
	Threads() int
}

// never is the depth of a Cut without a frontier.
const never = 1 << 30

// A Cut steers a walk (Walker.Walk). The walk's nodes at depth At and deeper for which
// Here holds are frontier nodes: not expanded but met (Meet), which records them into a
// frontier, counts them, or in a replay gives each its subtree's result. A walk of a
// subtree of a parallel search is cut off once an earlier subtree has a solution (Gone).
type Cut struct {
	At int

	bound   int
	refine  func([]board.Dir) bool // asked of a node whether to go on below it
	into    *Frontier              // where Meet records (nil: counts)
	counted span
	replay  *replay
	start   Work // the walker's work when the walk began
	item    int64
	best    *atomic.Int64
}

// Choosy says whether Here must be asked of a node at depth At or deeper (else it holds).
func (c *Cut) Choosy() bool { return c.refine != nil || c.replay != nil }

// Here reports whether the node whose path from the start is path (at depth At or deeper)
// is a frontier node: in a replay, one of its subtrees; else unless refine asks to go on
// below it, which stops two moves above the bound.
func (c *Cut) Here(path []board.Dir) bool {
	if c.replay != nil {
		_, ok := c.replay.index[string(path)]
		return ok
	}
	return c.refine == nil || len(path)+2 >= c.bound || !c.refine(path)
}

// Count counts a frontier node at depth g and reports true when the walk only counts its
// frontier nodes (a try of Collect's below a shallower frontier); otherwise the node is to
// be met (Meet). A walk asks it first to spare making the node's path for Meet.
func (c *Cut) Count(g int) bool {
	if c.into != nil || c.replay != nil {
		return false
	}
	c.counted.nodes++
	c.counted.paths += g
	return true
}

// Meet meets a frontier node whose path from the start is path and whose value is h, the
// walker's work being work: it returns the room for the node's payload, which the walk
// fills, when it records; in a replay the subtree's result, which the walk takes in place
// of its search (its solution, else its value), or stop when the replay went wrong (the
// walk then unwinds as if it had found the goal). Counting (Count), it returns nothing.
func (c *Cut) Meet(path []board.Dir, h int, work Work) (payload []byte, r *SubtreeResult, stop bool) {
	switch {
	case c.replay != nil:
		r = c.replay.reach(path)
		return nil, r, r == nil
	case c.Count(len(path)):
		return nil, nil, false
	}
	moves, payload := c.into.add(len(path), h, since(work, c.start))
	copy(moves, path)
	return payload, nil, false
}

// Gone reports whether the walk is of a subtree that no longer matters: one after the
// first with a solution so far, in a parallel search (Share).
func (c *Cut) Gone() bool { return c.best != nil && c.item > c.best.Load() }

// walk has w walk below subtree i of f (f nil: from the start) under c, c.start set to
// w's work before, and returns what it reports with the work of the walk.
func walk(w Walker, f *Frontier, i int, c *Cut) (found bool, value int, ok bool, work Work) {
	c.start = w.Work()
	found, value, ok = w.Walk(f, i, c)
	return found, value, ok, since(w.Work(), c.start)
}

// replay is a walk of the top of a pass, or of a subtree, again, with its subtrees'
// results in place of their searches (replayTop, Deeper.Results).
type replay struct {
	index   map[string]int // a subtree's path to its place in results
	results []SubtreeResult
	work    Work // the work of the subtrees that the walk reached
	found   int  // the subtree whose solution it took, or -1
	err     error
}

// replayOf returns the replay of f's subtrees from to to (exclusive) with their results,
// and the cut of its walk.
func replayOf(f *Frontier, from, to int, results []SubtreeResult) (*replay, *Cut) {
	rp := &replay{index: make(map[string]int, to-from), results: results, found: -1}
	c := &Cut{At: never, replay: rp}
	for i := from; i < to; i++ {
		rp.index[string(f.Path(i))] = i
		c.At = min(c.At, f.G(i))
	}
	return rp, c
}

// reach is the replay at the frontier node of path: its subtree's result, or nil when that
// is not to be had (err says why).
func (rp *replay) reach(path []board.Dir) *SubtreeResult {
	i, ok := rp.index[string(path)]
	if !ok { // Here said it was one
		rp.err = fmt.Errorf("passes: internal error: a replay met a node that is no subtree")
		return nil
	}
	r := &rp.results[i]
	if !r.Searched && r.Moves == nil {
		rp.err = fmt.Errorf("%w: subtree %d, which the serial search reaches, is not searched", ErrRunner, i)
		return nil
	}
	rp.work.Add(r.Work)
	if r.Moves != nil {
		rp.found = i
	}
	return r
}

// replayTop walks the top of the pass again with w (a walker whose work is its own, without
// a node limit), taking at each of f's subtrees its result in place of its search: its
// work, its solution, and its value as BPMX raised it, which the walk then propagates as
// the serial search does. It returns the serial search's work in the pass and the subtree
// whose solution it found (-1: none).
func replayTop(w Walker, f *Frontier, results []SubtreeResult) (Work, int, error) {
	rp, c := replayOf(f, 0, f.Len(), results)
	found, _, _, work := walk(w, nil, 0, c)
	if rp.err != nil {
		return Work{}, -1, rp.err
	}
	if found != (rp.found >= 0) {
		return Work{}, -1, fmt.Errorf("passes: internal error: the replay of a split pass found %v, its subtrees %d", found, rp.found)
	}
	work.Add(rp.work)
	return work, rp.found, nil
}
