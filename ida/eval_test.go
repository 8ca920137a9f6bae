package ida

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
)

// Values holds every heuristic's value for one state, computed from scratch: the tests'
// view of the search's own evaluation.
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

// newEvaluator prepares an evaluator for a 4x4 goal with the embedded tables.
func newEvaluator(t testing.TB, goal board.Goal) *Evaluator {
	def, err := data.Default()
	require.NoError(t, err)
	f := newFrame(goal)
	tabs, err := newTables(context.Background(), f, goal.Size(), true, f.canonical, def.WDLast, def.IDA15)
	require.NoError(t, err)
	return &Evaluator{goal: goal, frame: f, t: tabs}
}

// Eval returns every heuristic's value for s, which must be a valid state for the goal.
func (e *Evaluator) Eval(s board.State) (Values, error) {
	if err := e.goal.Check(s); err != nil {
		return Values{}, err
	}
	solver := &Solver{goal: e.goal, frame: e.frame, t: e.t}
	st := solver.newWalk(s)
	v := Values{
		MD:     st.md,
		LC:     st.md + st.lc,
		WDRows: int(e.t.wdRowDist[st.wdRow]),
		WDCols: int(e.t.wdColDist[st.wdCol]),
		PDB:    -1,
		Max:    -1,
	}
	v.WD = v.WDRows + v.WDCols
	if e.t.ida15 != nil {
		v.PDB = st.pdbSum
		v.Max = max(v.PDB, v.WD)
	}
	return v, nil
}
