package passes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

// toy is a Tree of made-up passes: the start (blank-last 3x3's goal after the blank's
// moves U U) has value 2, each pass costs 10 nodes whole, its frontier is the three
// subtrees L, D, R of depth 1 whose top costs 4 nodes, and a whole pass finds the goal
// (L R D D) at bound solveAt.
type toy struct {
	bound, solveAt int
	work           Work
	aborted        bool
	solution       []board.Dir
	replays        int
	left           uint64 // the node limit's nodes left (0: none)
}

var toyPaths = [][]board.Dir{{board.Left}, {board.Down}, {board.Right}}

func (t *toy) H() int          { return 2 }
func (t *toy) Begin(bound int) { t.bound = bound }
func (t *toy) Whole() bool {
	t.work.Add(Work{Nodes: 10, Expanded: 5})
	if t.bound == t.solveAt {
		t.solution = []board.Dir{board.Left, board.Right, board.Down, board.Down} // at bound 4
	}
	return t.bound == t.solveAt
}
func (t *toy) Frontier(int, func([]board.Dir) bool) (Subtrees, Work) {
	t.work.Add(Work{Nodes: 4, Expanded: 1})
	return toySubtrees{}, Work{Nodes: 4, Expanded: 1}
}
func (t *toy) Local(Subtrees) []SubtreeResult { panic("the tests give a runner") }
func (t *toy) Replay(_ Subtrees, results []SubtreeResult) (Work, int, error) {
	t.replays++
	return Work{Nodes: 9}, 1, nil // the serial counts, and the solution below D
}
func (t *toy) Take(moves []board.Dir) { t.solution = moves }
func (t *toy) Solution() []board.Dir  { return t.solution }
func (t *toy) Add(w Work)             { t.work.Add(w) }
func (t *toy) Work() Work             { return t.work }
func (t *toy) Cuts() uint64           { return 0 }
func (t *toy) Left() (uint64, bool)   { return t.left, t.left > 0 }
func (t *toy) Aborted() bool          { return t.aborted }
func (t *toy) Abort()                 { t.aborted = true }

type toySubtrees struct{}

func (toySubtrees) Len() int             { return 3 }
func (toySubtrees) Paths() [][]board.Dir { return toyPaths }
func (toySubtrees) H(int) int            { return 1 }
func (toySubtrees) G(int) int            { return 1 }
func (toySubtrees) Before(i int) Work    { return Work{Nodes: uint64(i + 1)} }

// The driver's bounds loop and split passes on a made-up engine: the serial counts are the
// top's up to the first subtree with a solution and the subtrees' up to it, the total all
// the work; a runner's broken contract, a raised value and the node limit each as the
// protocol says.
func TestRun(t *testing.T) {
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	start, err := goal.Size().Replay(goal.Tiles(), []board.Dir{board.Up, board.Up})
	require.NoError(t, err)
	down := []board.Dir{board.Down, board.Down}
	split := func(p PassPlan) (int, func([]board.Dir) bool) { return 3, nil }
	answer := func(results ...SubtreeResult) Runner {
		return RunnerFunc(func(_ context.Context, b *Batch) ([]SubtreeResult, error) {
			assert.Equal(t, toyPaths, b.Paths)
			assert.Equal(t, []int{1, 1, 1}, b.H)
			return results, nil
		})
	}
	searched := func(nodes uint64) SubtreeResult { return SubtreeResult{Searched: true, Work: Work{Nodes: nodes}} }

	// Whole passes: bounds 2 and 4, the goal at 4.
	res, err := Run(context.Background(), &toy{solveAt: 4}, goal, start, Plan{Split: func(PassPlan) (int, func([]board.Dir) bool) { return 0, nil }}, NewReporter(nil, 0))
	require.NoError(t, err)
	assert.Equal(t, []board.Dir{board.Left, board.Right, board.Down, board.Down}, res.Moves)
	assert.Equal(t, []Pass{{Bound: 2, Nodes: 10, Expanded: 5}, {Bound: 4, Nodes: 10, Expanded: 5}}, res.Passes)
	assert.Equal(t, Work{Nodes: 20, Expanded: 10}, res.Serial)

	// Split: the solution below D (the second subtree); the third's work counts in the
	// total, not in the serial counts (the work before D, 2, and L's and D's).
	found := SubtreeResult{Searched: true, Work: Work{Nodes: 7}, Moves: down}
	res, err = Run(context.Background(), &toy{}, goal, start, Plan{Split: split, Runner: answer(searched(5), found, searched(100))}, NewReporter(nil, 0))
	require.NoError(t, err)
	assert.Equal(t, down, res.Moves)
	assert.Equal(t, Work{Nodes: 2 + 5 + 7}, res.Serial)
	assert.Equal(t, uint64(4+5+7+100), res.Nodes)

	for _, c := range []struct {
		name    string
		results []SubtreeResult
	}{
		{"too few results", []SubtreeResult{searched(1)}},
		{"a subtree unsearched before the solution", []SubtreeResult{{}, found, searched(1)}},
		{"a solution of another subtree", []SubtreeResult{searched(1), {Searched: true, Moves: []board.Dir{board.Left, board.Down}}, searched(1)}},
		{"a solution of another length", []SubtreeResult{searched(1), {Searched: true, Moves: []board.Dir{board.Down}}, searched(1)}},
	} {
		_, err = Run(context.Background(), &toy{}, goal, start, Plan{Split: split, Runner: answer(c.results...)}, NewReporter(nil, 0))
		assert.ErrorIs(t, err, ErrRunner, c.name)
	}

	// A value raised so far that it cuts the subtree's parent (1 + 4 > 2 + 2): the top is
	// replayed for the serial counts.
	tr := &toy{}
	raised := SubtreeResult{Searched: true, Value: 4}
	res, err = Run(context.Background(), tr, goal, start, Plan{Split: split, Runner: answer(raised, found, searched(1))}, NewReporter(nil, 0))
	require.NoError(t, err)
	assert.Equal(t, 1, tr.replays)
	assert.Equal(t, Work{Nodes: 9}, res.Serial)
	assert.Equal(t, down, res.Moves)

	// The node limit: the runner is told of it, and stopping there ends the search with
	// ErrNodeLimit and the bound proven so far.
	limited := RunnerFunc(func(_ context.Context, b *Batch) ([]SubtreeResult, error) {
		assert.Equal(t, uint64(50), b.MaxNodes)
		return []SubtreeResult{searched(50)}, ErrNodeLimit
	})
	res, err = Run(context.Background(), &toy{left: 50}, goal, start, Plan{Split: split, Runner: limited}, NewReporter(nil, 0))
	assert.ErrorIs(t, err, ErrNodeLimit)
	assert.Equal(t, 2, res.LowerBound)
	assert.False(t, res.Solved)
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
		err := CheckSolution(c.moves, c.prefix, c.bound)
		if c.want == "" {
			assert.NoError(t, err)
		} else {
			assert.ErrorContains(t, err, c.want)
		}
	}
}
