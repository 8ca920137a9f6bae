package ida_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/ida"
)

// Solve a position optimally with the tables embedded in package data.
func ExampleSolver_Solve() {
	goal := board.BlankLast(board.Size4x4)
	start, err := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	if err != nil {
		panic(err)
	}
	tables, err := data.Default() // the tables embedded in the binary
	if err != nil {
		panic(err)
	}
	h, err := ida.ParseHeuristic("max") // the larger of walking distance and IDA15's tables
	if err != nil {
		panic(err)
	}
	solver, err := ida.New(goal, ida.Options{Heuristic: h, WD: tables.WDLast, IDA15: tables.IDA15})
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
