package report

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/solve"
)

// A Value is one heuristic's estimate for a state.
type Value struct {
	Name  string
	Value int
}

// An Evaluator computes, for states of one goal, the default heuristic (solve15's, when it
// is not among the others: a set), every heuristic of the general search that applies to
// the goal (in the order of heuristic.Names), and on 4x4 the two halves of walking
// distance, wd_rows and wd_cols: for people who study heuristics.
type Evaluator struct {
	def     *solve.Solver // the default heuristic, when none of hs is it
	defName string
	hs      []*heuristic.Heuristic
	walking func(board.State) (rows, cols int)
}

// Default names the default heuristic, as solve15 takes it with these tables.
func (e *Evaluator) Default() string { return e.defName }

// NewEvaluator prepares an evaluator for the goal, with the tables of tables (as
// solve.Options.Tables: "" for the embedded ones).
func NewEvaluator(ctx context.Context, goal board.Goal, tables string) (*Evaluator, error) {
	// The names that do not apply to the goal are left out (their errors match
	// solve.ErrOptions); any other error is the tables'.
	hs, err := solve.Heuristics(ctx, goal, tables, heuristic.Names(heuristic.General)...)
	if err != nil && !errors.Is(err, solve.ErrOptions) {
		return nil, err
	}
	e := &Evaluator{}
	for _, h := range hs {
		if h != nil {
			e.hs = append(e.hs, h)
		}
	}
	def, err := solve.New(ctx, goal, solve.Options{Tables: tables})
	if err != nil {
		return nil, err
	}
	e.defName = def.Heuristic()
	if !slices.ContainsFunc(e.hs, func(h *heuristic.Heuristic) bool { return h.Name == e.defName }) {
		e.def = def
	}
	if goal.Size() == board.Size4x4 {
		if e.walking, err = heuristic.Walking(ctx, goal); err != nil {
			return nil, err
		}
	}
	return e, ctx.Err()
}

// Eval returns the values for s, a valid state of the goal.
func (e *Evaluator) Eval(s board.State) []Value {
	var out []Value
	if e.def != nil {
		if h, err := e.def.H0(s); err == nil {
			out = append(out, Value{e.defName, h})
		}
	}
	for _, h := range e.hs {
		out = append(out, Value{h.Name, h.Eval(s)})
	}
	if e.walking != nil {
		rows, cols := e.walking(s)
		out = append(out, Value{"wd_rows", rows}, Value{"wd_cols", cols})
	}
	return out
}

// JSON is the JSON form of the values of an instance: its line, board, goal, start, id and
// known optimum when it has them, and every value by name.
func (e *Evaluator) JSON(goal board.Goal, in *instance.Instance) map[string]any {
	out := map[string]any{"line": in.Line, "board": goal.Size().String(), "goal": goal.Name(), "start": in.State.Ints(),
		"default": e.defName}
	for _, v := range e.Eval(in.State) {
		out[v.Name] = v.Value
	}
	if in.ID != "" {
		out["id"] = in.ID
	}
	if in.Optimal >= 0 {
		out["known_optimal"] = in.Optimal
	}
	return out
}

// Text is the values of an instance for people, on one line: "line 1: md 9  lc 13 ...".
func (e *Evaluator) Text(in *instance.Instance) string {
	values := e.Eval(in.State)
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprintf("%s %d", v.Name, v.Value)
		if v.Name == e.defName {
			parts[i] = fmt.Sprintf("%s (default) %d", v.Name, v.Value)
		}
	}
	text := fmt.Sprintf("%s: %s", in.Name(), strings.Join(parts, "  "))
	if in.Optimal >= 0 {
		text += fmt.Sprintf(" (optimal %d)", in.Optimal)
	}
	return text
}
