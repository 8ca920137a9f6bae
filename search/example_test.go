package search_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/search"
)

// Solve the hardest 8-puzzle with A* and the Manhattan distance.
func ExampleRun() {
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	start, _ := goal.Parse("8 6 7 2 5 4 3 0 1")
	h, err := heuristic.New("md", goal, nil)
	if err != nil {
		panic(err)
	}
	res, err := search.Run(context.Background(), "astar", h, start, search.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res.Moves), res.Optimal)
	// Output: 31 true
}
