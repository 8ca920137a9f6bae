package pdb_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
)

// Build a pattern database and look a state up.
func ExampleBuild() {
	goal := board.BlankLast(board.Size4x4)
	p, err := pdb.NewPattern(goal, []int{11, 12, 15}, true)
	if err != nil {
		panic(err)
	}
	t, err := pdb.Build(context.Background(), p, pdb.Options{})
	if err != nil {
		panic(err)
	}
	s, _ := goal.Parse("1 2 3 4 / 5 6 7 8 / 9 10 12 11 / 13 14 15 0")
	fmt.Println(p.Len(), t.Lookup(s))
	// Output: 43680 6
}
