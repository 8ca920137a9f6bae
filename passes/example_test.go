package passes_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
)

// Split every pass from the sixteenth move on into at least 64 subtrees, searched by a
// runner of one's own: here ida's workers, counting the subtrees they are handed. The
// solution and the serial counts are those of the search that splits nothing.
func ExampleRunner() {
	goal := board.BlankLast(board.Size4x4)
	start, err := goal.Parse("1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12")
	if err != nil {
		panic(err)
	}
	solver, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
	if err != nil {
		panic(err)
	}
	whole, err := solver.Run(context.Background(), start, passes.Plan{}) // one worker: nothing split
	if err != nil {
		panic(err)
	}
	workers, subtrees := passes.Workers(2), 0
	counting := passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
		subtrees += len(b.Paths)
		return workers.SearchSubtrees(ctx, b)
	})
	split := func(p passes.PassPlan) (int, func([]board.Dir) bool) {
		if p.Bound < 16 {
			return 0, nil
		}
		return 64, nil
	}
	res, err := solver.Run(context.Background(), start, passes.Plan{Split: split, Runner: counting})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res.Moves), board.FormatDirs(res.Moves) == board.FormatDirs(whole.Moves), res.Serial == whole.Serial, subtrees > 0)
	// Output: 29 true true true
}
