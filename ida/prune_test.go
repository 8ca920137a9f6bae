package ida

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
)

// TestPruningEveryLoop runs every loop of the search (dfs with md and each 4x4 heuristic, the
// additive set, the catalogue; 4x4 and 5x5; one and two goroutines) on the same positions
// with the move-back rule and with an automaton: the same optimal lengths, each solution
// replayed (Solve does), and never more nodes with the automaton; fewer over the lot. The
// node-by-node checks (debugCheck) run with the automaton.
func TestPruningEveryLoop(t *testing.T) {
	ctx := context.Background()
	four, err := prune.Build(ctx, board.Size4x4, 12)
	require.NoError(t, err)
	five, err := prune.Build(ctx, board.Size5x5, 10)
	require.NoError(t, err)
	cat, err := pdb.NewCatalogue("4x4z", board.BlankLast(board.Size4x4), true, true, [][][]int{
		{{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}},
		{{1, 2, 5, 6}, {3, 4, 7, 8}, {9, 10, 13, 14}, {11, 12, 15}},
	})
	require.NoError(t, err)
	catSet, err := pdb.NewSet(ctx, cat, 0)
	require.NoError(t, err)
	korf := corpus.Korf100()
	rng := newRand(29)
	fiveGoal := board.BlankFirst(board.Size5x5)
	var fiveStarts []board.State
	for range 3 {
		s, _ := fiveGoal.RandomWalk(44, rng)
		fiveStarts = append(fiveStarts, s)
	}
	var fourStarts []board.State
	for _, i := range []int{0, 11, 41} {
		fourStarts = append(fourStarts, korf[i].Start)
	}
	easy, _ := korf[0].Goal.RandomWalk(40, rng)
	cases := []struct {
		name   string
		goal   board.Goal
		starts []board.State
		opt    Options
		fsm    *prune.Automaton
	}{
		{"md", fiveGoal, fiveStarts[:1], Options{Heuristic: MD}, five},
		{"lc", korf[0].Goal, []board.State{easy}, withTables(t, Options{Heuristic: hLC}), four},
		{"wd", korf[0].Goal, []board.State{easy}, withTables(t, Options{Heuristic: hWD}), four},
		{"pdb", korf[0].Goal, []board.State{easy}, withTables(t, Options{Heuristic: hPDB}), four},
		{"max", korf[0].Goal, fourStarts, withTables(t, Options{Heuristic: hMax}), four},
		{"5-5-5", korf[0].Goal, fourStarts, Options{Set: testSet555(t)}, four},
		{"5-5-5 blank-last", board.BlankLast(board.Size4x4), []board.State{board.Rotate180(korf[4].Start)}, Options{Set: testSet555(t)}, four},
		{"catalogue", korf[0].Goal, fourStarts, Options{Set: catSet}, four},
		{"5x5 set", fiveGoal, fiveStarts, Options{Set: set5x5(t)}, five},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var parentNodes, fsmNodes uint64
			for _, workers := range []int{1, 2} {
				opt := c.opt
				opt.Workers = workers
				opt = SplitSmallTrees(opt)
				parent, err := New(c.goal, opt)
				require.NoError(t, err)
				opt.Pruning = c.fsm
				pruned, err := New(c.goal, opt)
				require.NoError(t, err)
				for _, start := range c.starts {
					want, err := parent.Solve(ctx, start)
					require.NoError(t, err)
					got, err := pruned.Solve(ctx, start)
					require.NoError(t, err)
					require.Len(t, got.Moves, len(want.Moves), "%v", start)
					require.Equal(t, len(want.Passes), len(got.Passes))
					// Pass by pass, the automaton generates no more than the move-back
					// rule (the last pass stops at the first solution, which may differ;
					// several goroutines count their splitting too).
					for i := 0; i+1 < len(got.Passes) && workers == 1; i++ {
						require.LessOrEqual(t, got.Passes[i].Nodes, want.Passes[i].Nodes, "pass %d of %v", i, start)
					}
					parentNodes += want.Serial.Nodes
					fsmNodes += got.Serial.Nodes
				}
			}
			require.Less(t, fsmNodes, parentNodes)
		})
	}
}

// TestPruningRefusesOtherBoards refuses an automaton built for another board.
func TestPruningRefusesOtherBoards(t *testing.T) {
	fsm, err := prune.Build(context.Background(), board.Size{W: 3, H: 3}, 6)
	require.NoError(t, err)
	_, err = New(board.BlankLast(board.Size4x4), Options{Pruning: fsm})
	require.ErrorIs(t, err, ErrOptions)
}
