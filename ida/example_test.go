package ida_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
)

// Solve a position optimally with the embedded tables.
func ExampleSolver_Solve() {
	goal := board.BlankLast(board.Size4x4)
	start, err := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	if err != nil {
		panic(err)
	}
	solver, err := ida.New(goal, ida.Options{Heuristic: ida.Max})
	if err != nil {
		panic(err)
	}
	res, err := solver.Solve(context.Background(), start)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res.Moves), res.Optimal, board.FormatDirs(res.Moves))
	// Output: 29 true UULLDLDRURURDLLURRDDDLLULDRRR
}

// Every heuristic's value for one state.
func ExampleEvaluator_Eval() {
	goal := board.BlankLast(board.Size4x4)
	ev, err := ida.NewEvaluator(goal, nil)
	if err != nil {
		panic(err)
	}
	s, _ := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	v, _ := ev.Eval(s)
	fmt.Printf("md %d, lc %d, wd %d (%d + %d)\n", v.MD, v.LC, v.WD, v.WDRows, v.WDCols)
	// Output: md 9, lc 13, wd 11 (5 + 6)
}
