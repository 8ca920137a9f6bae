package solve_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/solve"
)

// Solve a position optimally: the zero Options choose the fastest way the installed tables
// allow, and the result says what was used.
func Example() {
	goal := board.BlankLast(board.Size4x4)
	start, err := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	if err != nil {
		panic(err)
	}
	res, err := solve.Solve(context.Background(), goal, start, solve.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Length(), res.Optimal, res.Algorithm)
	fmt.Println(board.FormatDirs(res.Moves))
	// Output:
	// 29 true idastar
	// UULLDLDRURURDLLURRDDDLLULDRRR
}
