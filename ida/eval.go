package ida

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
)

// Values holds every heuristic's value for one state, for people who study heuristics.
// PDB and Max are -1 when the goal does not allow the IDA15 tables (see ErrGoal).
type Values struct {
	MD     int `json:"md"`
	LC     int `json:"lc"`
	WD     int `json:"wd"`
	WDRows int `json:"wd_rows"`
	WDCols int `json:"wd_cols"`
	PDB    int `json:"pdb"`
	Max    int `json:"max"`
}

// An Evaluator computes Values for states of one goal.
type Evaluator struct {
	goal  board.Goal
	frame frame
	t     *tables
}

// NewEvaluator prepares an evaluator for a 4x4 goal; tables nil means the embedded ones.
func NewEvaluator(goal board.Goal, tables *data.Tables) (*Evaluator, error) {
	if goal.Size() != board.Size4x4 {
		return nil, fmt.Errorf("ida: the evaluator is for the 4x4 board, not %s", goal.Size())
	}
	if tables == nil {
		var err error
		if tables, err = data.Default(); err != nil {
			return nil, err
		}
	}
	f := newFrame(goal)
	t, err := newTables(context.Background(), f, goal.Size(), true, f.canonical, tables)
	if err != nil {
		return nil, err
	}
	return &Evaluator{goal: goal, frame: f, t: t}, nil
}

// Eval returns every heuristic's value for s, which must be a valid state for the goal.
func (e *Evaluator) Eval(s board.State) (Values, error) {
	if err := e.goal.Check(s); err != nil {
		return Values{}, err
	}
	solver := &Solver{goal: e.goal, frame: e.frame, t: e.t}
	st := solver.newSearch(s)
	v := Values{
		MD:     st.md,
		LC:     st.md + st.lc,
		WDRows: int(e.t.wdRowDist[st.wdRow]),
		WDCols: int(e.t.wdColDist[st.wdCol]),
		PDB:    -1,
		Max:    -1,
	}
	v.WD = v.WDRows + v.WDCols
	if e.t.pdb != nil {
		v.PDB = st.pdbSum
		v.Max = max(v.PDB, v.WD)
	}
	return v, nil
}
