package passes

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

// toyStart is a 3x3 position whose blank walks toyGoal to the goal toyBoard (its blank on
// the bottom-left cell), as the toy tree's goal node is (walker_test.go).
func toyStart(t *testing.T) (board.Goal, board.State) {
	t.Helper()
	goal, err := board.ParseGoal(board.Size{W: 3, H: 3}, "1 2 3 / 4 5 6 / 0 7 8")
	require.NoError(t, err)
	back := make([]board.Dir, len(toyGoal))
	for i, d := range toyGoal {
		back[len(toyGoal)-1-i] = d ^ 1 // the opposite move, last first
	}
	start, err := goal.Size().Replay(goal.Tiles(), back)
	require.NoError(t, err)
	return goal, start
}

// The driver's bounds loop and split passes, on the toy tree (walker_test.go): whole
// passes; a split pass whose serial counts are the top's up to the first subtree with a
// solution and the subtrees' up to it, the total all the work; a runner's broken
// contract, a raised value and the node limit each as the protocol says.
func TestRun(t *testing.T) {
	goal, start := toyStart(t)
	ctx := context.Background()
	const bound = 7 // toyGoal's length
	whole, err := Run(ctx, &toyWalker{}, goal, start, Plan{}, toySetup())
	require.NoError(t, err)
	assert.Equal(t, toyGoal, whole.Moves)
	assert.Equal(t, []int{1, 3, 5, 7}, boundsOf(whole.Passes))
	assert.Equal(t, Work{Nodes: whole.Nodes, Expanded: whole.Expanded}, whole.Serial)

	// The pass of bound 7 split at depth 1 (U, D, L, R: the goal is below R).
	split := func(p PassPlan) (int, func([]board.Dir) bool) {
		if p.Bound < bound {
			return 0, nil
		}
		return 3, nil
	}
	paths := [][]board.Dir{{board.Up}, {board.Down}, {board.Left}, {board.Right}}
	answer := func(results ...SubtreeResult) Runner {
		return RunnerFunc(func(_ context.Context, b *Batch) ([]SubtreeResult, error) {
			assert.Equal(t, paths, b.Paths)
			assert.Equal(t, []int{1, 1, 1, 1}, b.H)
			return results, nil
		})
	}
	searched := func(nodes uint64) SubtreeResult { return SubtreeResult{Searched: true, Work: Work{Nodes: nodes}} }
	found := SubtreeResult{Searched: true, Work: Work{Nodes: 7}, Moves: toyGoal}
	before := whole.Passes[0].Work()
	for _, p := range whole.Passes[1:3] {
		before.Add(p.Work())
	}
	res, err := Run(ctx, &toyWalker{}, goal, start, Plan{Split: split, Runner: answer(searched(5), searched(6), searched(100), found)}, toySetup())
	require.NoError(t, err)
	assert.Equal(t, toyGoal, res.Moves)
	// The top's walk to R (the root's four children) and the four subtrees.
	serial := before
	serial.Add(Work{Nodes: 4 + 5 + 6 + 100 + 7, Expanded: 1})
	assert.Equal(t, serial, res.Serial)
	assert.Equal(t, serial.Nodes, res.Nodes)

	// The solution below L: R's work counts in the total, not in the serial counts.
	left := slices.Clone(toyGoal)
	left[0] = board.Left
	for _, c := range []struct {
		name    string
		results []SubtreeResult
	}{
		{"too few results", []SubtreeResult{searched(1)}},
		{"a subtree unsearched before the solution", []SubtreeResult{{}, searched(1), searched(1), found}},
		{"a solution of another subtree", []SubtreeResult{searched(1), searched(1), {Searched: true, Moves: toyGoal}, searched(1)}},
		{"a solution of another length", []SubtreeResult{searched(1), searched(1), searched(1), {Searched: true, Moves: toyGoal[:5]}}},
	} {
		_, err = Run(ctx, &toyWalker{}, goal, start, Plan{Split: split, Runner: answer(c.results...)}, toySetup())
		assert.ErrorIs(t, err, ErrRunner, c.name)
	}

	// A value raised so far that it cuts the subtree's parent (1 + 9 > 7 + 2): the top is
	// replayed for the serial counts, the toy's tree cutting nothing.
	var replayed bool
	raised := SubtreeResult{Searched: true, Work: Work{Nodes: 5}, Value: 9}
	res, err = Run(ctx, &toyWalker{}, goal, start, Plan{Split: split, Runner: answer(raised, searched(6), searched(100), found),
		OnPass: func(_ Pass, sp *SplitPass) { replayed = replayed || sp != nil && sp.Replayed }}, toySetup())
	require.NoError(t, err)
	assert.True(t, replayed)
	assert.Equal(t, serial, res.Serial)
	assert.Equal(t, toyGoal, res.Moves)

	// The node limit: the runner is told what is left of it, and stopping there ends the
	// search with ErrNodeLimit and the bound proven so far.
	limited := RunnerFunc(func(_ context.Context, b *Batch) ([]SubtreeResult, error) {
		assert.Equal(t, uint64(1000-before.Nodes-4), b.MaxNodes)
		return []SubtreeResult{searched(50)}, ErrNodeLimit
	})
	res, err = Run(ctx, &toyWalker{}, goal, start, Plan{Split: split, Runner: limited}, Setup{H: 1, MaxNodes: 1000, Stride: 1, Engine: &toyEngine{}})
	assert.ErrorIs(t, err, ErrNodeLimit)
	assert.Equal(t, bound, res.LowerBound)
	assert.False(t, res.Solved)
}

func boundsOf(ps []Pass) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.Bound)
	}
	return out
}

// A runner's solution is checked against its subtree and the bound.
func TestCheckSolution(t *testing.T) {
	u, l := board.Up, board.Left
	for _, c := range []struct {
		moves, prefix []board.Dir
		bound         int
		want          string
	}{
		{[]board.Dir{u, u}, []board.Dir{u}, 2, ""},
		{[]board.Dir{u}, []board.Dir{u}, 2, "1 moves in the pass of bound 2"},
		{[]board.Dir{l, u}, []board.Dir{u}, 2, "does not begin with the subtree's path"},
		{[]board.Dir{u, 7}, []board.Dir{u}, 2, "move 2 is not a direction"},
	} {
		err := checkSolution(c.moves, c.prefix, c.bound)
		if c.want == "" {
			assert.NoError(t, err)
		} else {
			assert.ErrorContains(t, err, c.want)
		}
	}
}

// toySetup is the toy tree's setup: its start's value, and its frontier of one byte a node.
func toySetup() Setup {
	return Setup{H: 1, Stride: 1, Engine: &toyEngine{threads: 2}, Workers: 2}
}
