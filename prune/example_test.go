package prune_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/prune"
)

// A search steps the automaton with every move and skips the moves it prunes: on the
// 15-puzzle with the blank in a corner, the automaton of depth 12 lets through fewer
// strings of 12 moves than the move-back rule does: one for each position 12 moves away.
func ExampleBuild() {
	a, err := prune.Build(context.Background(), board.Size4x4, 12)
	if err != nil {
		fmt.Println(err)
		return
	}
	count := func(a *prune.Automaton, s uint32, left int) int {
		var walk func(s uint32, left int) int
		walk = func(s uint32, left int) int {
			if left == 0 {
				return 1
			}
			n := 0
			for _, d := range board.Dirs {
				if t := a.Next(s, d); t != prune.Pruned {
					n += walk(t, left-1)
				}
			}
			return n
		}
		return walk(s, left)
	}
	parent := prune.Parent(board.Size4x4)
	fmt.Println(a.Name())
	fmt.Println("move back:", count(parent, parent.Start(0), 12))
	fmt.Println("automaton:", count(a, a.Start(0), 12))
	// Output:
	// automaton depth 12, 11671 states
	// move back: 9880
	// automaton: 7808
}
