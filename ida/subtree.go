package ida

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/prune"
)

// Subtrees of a pass, for a search shared out among processes or machines: the top of a
// pass's tree is searched once, and the subtrees below its frontier are searched apart
// (Reinefeld & Schnecke's AIDA*, 1994). A pass searched as its frontier's subtrees, in
// order, generates the same nodes as the whole pass and finds the same first solution.

// H0 returns the heuristic value of start, the bound of the first pass.
func (s *Solver) H0(start board.State) (int, error) {
	if err := s.goal.Check(start); err != nil {
		return 0, err
	}
	return s.newWalk(start).h(), nil
}

// errPath is in the error for a path that is not a frontier path of the start: a move off the
// board, or one that the pruning automaton prunes (the move back, or a duplicate path).
var errPath = errors.New("ida: not a path of the search")

// SearchBelow searches the pass with the given bound below the node that path (blank
// directions from start) leads to, as the serial pass would, and returns what it found:
// the first solution there (the whole solution from start; nil if none), the work, and
// the node's value as the search left it (BPMX may raise it: docs/SEARCH.md). A nil path
// searches the whole pass. Options.MaxNodes and Progress apply; the error is ctx's, or
// passes.ErrNodeLimit, when the search stopped early (the result then holds the work done).
func (s *Solver) SearchBelow(ctx context.Context, start board.State, path []board.Dir, bound int) (passes.SubtreeResult, error) {
	if err := s.goal.Check(start); err != nil {
		return passes.SubtreeResult{}, err
	}
	if len(path) >= bound || bound >= len(walk{}.path) {
		return passes.SubtreeResult{}, fmt.Errorf("%w: %d moves at bound %d", errPath, len(path), bound)
	}
	st := s.newWalk(start)
	blank, state := st.pos[0], st.t.fsmStart[st.pos[0]]
	for i, e := range path {
		d := s.frame.inverse[e&3]
		var mv *move
		for k := range st.t.nmoves[blank] {
			if st.t.moves[blank][k].dir == d {
				mv = &st.t.moves[blank][k]
			}
		}
		if e > board.Right || mv == nil || st.t.fsm[state*4+uint32(d)] == prune.Pruned {
			return passes.SubtreeResult{}, fmt.Errorf("%w: move %d (%s) of %s", errPath, i+1, e, board.FormatDirs(path))
		}
		tile := st.board[mv.cell]
		st.board[blank], st.pos[tile] = tile, blank
		st.board[mv.cell], st.pos[0] = 0, mv.cell
		blank, state, st.path[i] = mv.cell, st.t.fsm[state*4+uint32(d)], d
	}
	st.init()
	var stop atomic.Bool
	st.stop, st.ctx = &stop, ctx
	st.rep = passes.NewReporter(s.opt.Progress, s.opt.ProgressEvery)
	st.rep.SetBound(bound)
	st.setBudget(s.opt.MaxNodes)
	st.bound = bound
	var found bool
	value := st.h()
	if g := len(path); g == 0 {
		found = st.root()
	} else {
		found, value = st.below(g, st.valueBelow(), blank, state)
	}
	r := passes.SubtreeResult{Work: passes.Work{Nodes: st.nodes, Expanded: st.expanded}, Value: value}
	if st.aborted {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		return r, passes.ErrNodeLimit
	}
	r.Searched = true
	if found {
		r.Moves = s.frame.caller(st.path[:st.depth])
	}
	return r, nil
}

// below searches the current pass below a node at depth g whose value is h (its board,
// positions and path set, and init called), whose blank is on blank, with the pruning
// automaton in state. It reports whether it found the goal, and the node's value as BPMX
// raised it (h where the loop has no BPMX).
func (st *walk) below(g, h int, blank uint8, state uint32) (bool, int) {
	switch {
	case st.t.cat != nil:
		return st.dfsCat(g, h, blank, state, &st.cat.sum, st.cat.bestPart(st.t.cat.np))
	}
	return st.dfs(g, h, blank, state), h
}
