package board_test

import (
	"fmt"

	"github.com/tilekit/tilekit/board"
)

// Parse a state, check it against a goal and replay moves on it.
func Example() {
	goal := board.BlankFirst(board.Size4x4)
	s, err := goal.Parse("1 0 2 3 / 4 5 6 7 / 8 9 10 11 / 12 13 14 15")
	if err != nil {
		panic(err)
	}
	moves, _ := board.ParseDirs("L")
	end, _ := board.Size4x4.Replay(s, moves)
	fmt.Println(end.Equal(goal.Tiles()))

	_, err = goal.Parse("0 1 2 3 / 4 5 6 7 / 8 9 10 11 / 12 13 15 14")
	fmt.Println(err != nil)
	// Output:
	// true
	// true
}

// The 180-degree turn maps a blank-first instance onto an equivalent blank-last one.
func ExampleRotate180() {
	s := board.State{1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	fmt.Println(board.Size4x4.Format(board.Rotate180(s)))
	// Output: 1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 0 15
}
