package search

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
)

// Turn sizes of BA* (Hasan et al. 2023): the forward search expands 75,000 states, then the
// backward one 75,000, then they alternate in turns of 15,000.
const (
	FirstTurn = 75_000
	Turn      = 15_000
)

// baStar runs bidirectional A* with HH = WD + linear conflicts + MD/3 in both directions:
// forward toward the goal, backward from the goal toward the start (HH taken with the start
// as the goal). As in Hasan et al.'s Algorithm 1, the search ends when a side generates a
// state the other side has generated (its "closed list" holds every state it has
// generated, its root included); the path is joined there. The result is near-optimal, not
// optimal.
func baStar(ctx context.Context, goal board.Goal, start board.State, opt Options) (*Result, error) {
	res := &Result{Algorithm: "bastar", Heuristic: heuristic.HH}
	hf, err := heuristic.New(heuristic.HH, goal, nil)
	if err != nil {
		return res, err
	}
	startGoal, err := board.NewGoal(goal.Size(), start)
	if err != nil {
		return res, err
	}
	hb, err := heuristic.New(heuristic.HH, startGoal, nil)
	if err != nil {
		return res, err
	}
	fwd, bwd := newFrontier(hf, start), newFrontier(hb, goal.Tiles())
	fwdRoot, bwdRoot := pack(start), pack(goal.Tiles())
	if fwdRoot == bwdRoot {
		res.Solved = true
		res.Moves = []board.Dir{}
		return res, nil
	}
	generated := func(f *frontier, k key) bool { _, ok := f.seen[k]; return ok }

	rep := opt.reporter()
	side, other := fwd, bwd
	exhausted := 0
	for turn := 0; ; turn++ {
		quota := Turn
		if turn < 2 {
			quota = FirstTurn
		}
		for i := 0; i < quota; i++ {
			it, ok := side.pop()
			if !ok {
				exhausted++
				if exhausted > 1 {
					return res, ErrNoSolution
				}
				break
			}
			if err := opt.limit(res); err != nil {
				return res, err
			}
			if res.Expanded%4096 == 0 {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				rep.tick(int(it.f), res.Nodes)
			}
			res.Expanded++
			var meet board.State
			res.Nodes += side.expand(it, func(child board.State, k key) {
				if meet == nil && generated(other, k) {
					meet = child
				}
			})
			res.PeakStored = max(res.PeakStored, len(fwd.seen)+len(bwd.seen))
			if meet != nil {
				res.Solved = true
				res.Moves = join(fwd.path(meet), bwd.path(meet))
				return res, nil
			}
			if len(fwd.seen)+len(bwd.seen) > opt.maxStates() {
				return res, fmt.Errorf("%w after %d states", ErrMemory, len(fwd.seen)+len(bwd.seen))
			}
		}
		side, other = other, side
	}
}

// join turns the forward path to the meeting state and the backward path (from the goal
// to it) into one path from the start to the goal.
func join(forward, backward []board.Dir) []board.Dir {
	out := append([]board.Dir(nil), forward...)
	for i := len(backward) - 1; i >= 0; i-- {
		out = append(out, backward[i].Opposite())
	}
	return out
}
