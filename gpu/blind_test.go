package gpu

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/prune"
)

// blind is the tests' heuristic h = 0 (kernel/blind.h), a value no ida heuristic takes.
const blind ida.Heuristic = 200

func init() {
	testKinds = append(testKinds, kind{"ida_pass_blind", func(m *ida.Model) bool { return m.Heuristic == blind }, nil, false, true})
}

// The recipe for a new kind, followed for one the tests alone have (kernel/blind.h, a line
// of kinds.h, the row above): IDA* with no heuristic searches, on the host build with
// threads that donate, every node within a pass's bound below each root, counted as
// docs/SEARCH.md says, as a depth-first search with h = 0 does; and finds the goal where
// the bound reaches it. The roots are those of ida's frontier (its frame, its automaton's
// states), their values taken as 0.
func TestBlindKind(t *testing.T) {
	bin := buildHost(t)
	goal := board.BlankLast(board.Size4x4)
	s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	md, err := s.Model()
	require.NoError(t, err)
	m := *md
	m.Heuristic = blind
	start, _ := goal.RandomWalk(40, rand.New(rand.NewPCG(7, 7)))
	var roots []ida.Root
	taken := errors.New("roots taken")
	_, err = s.Run(context.Background(), start, passes.Plan{
		Split: func(passes.PassPlan) (int, func([]board.Dir) bool) { return 16, nil },
		Runner: passes.RunnerFunc(func(_ context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			roots = ida.Roots(b)
			return nil, taken
		}),
	})
	require.ErrorIs(t, err, taken)
	require.NotEmpty(t, roots)
	for i := range roots {
		roots[i].H = 0
	}
	for _, depth := range []int{6, 10} {
		// The frontier as it is, and grown on the card (the kind's distance grows it too).
		for _, grow := range []int{0, 400} {
			h := &hostRunner{t: t, bin: bin, s: s, m: &m, threads: 29, budget: 3, after: 4, grow: grow, ordered: true}
			bound := int(roots[0].G) + depth
			l, err := h.launch(context.Background(), work{roots: roots, bound: bound, grow: grow})
			require.NoError(t, err)
			require.Equal(t, len(roots), l.best, "depth %d: no solution", depth)
			if grow > 0 {
				assert.Positive(t, h.growth.levels, "depth %d: grown", depth)
			}
			for i, r := range roots {
				gen, exp := blindReference(&m, r, bound)
				require.Positive(t, gen, "subtree %d: a tree to search", i)
				assert.Equal(t, gen, l.gen[i], "depth %d, grown to %d, subtree %d", depth, grow, i)
				assert.Equal(t, exp, l.exp[i], "depth %d, grown to %d, subtree %d", depth, grow, i)
			}
			if grow == 0 {
				assert.Positive(t, h.donated, "depth %d: threads shared the trees", depth)
			}
		}
	}
	// Near the goal, a pass whose bound reaches it: the earliest subtree that holds the goal
	// within the bound is the one found.
	near, _ := goal.RandomWalk(9, rand.New(rand.NewPCG(8, 8)))
	sol, err := s.Solve(context.Background(), near)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(sol.Moves), 4)
	roots = nil
	_, err = s.Run(context.Background(), near, passes.Plan{
		Split: func(passes.PassPlan) (int, func([]board.Dir) bool) { return 16, nil },
		Runner: passes.RunnerFunc(func(_ context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			roots = ida.Roots(b)
			return nil, taken
		}),
	})
	require.ErrorIs(t, err, taken)
	first := slices.IndexFunc(roots, func(r ida.Root) bool { return reachesGoal(&m, r, len(sol.Moves)) })
	require.GreaterOrEqual(t, first, 0)
	for i := range roots {
		roots[i].H = 0
	}
	h := &hostRunner{t: t, bin: bin, s: s, m: &m, threads: 29, budget: 3, after: 4}
	l, err := h.launch(context.Background(), work{roots: roots, bound: len(sol.Moves)})
	require.NoError(t, err)
	assert.Equal(t, first, l.best, "the earliest subtree with the goal within the bound")
}

// blindReference searches below a root as docs/SEARCH.md says with h = 0, to the end of
// the subtree (it holds no goal): its counts.
func blindReference(m *ida.Model, r ida.Root, bound int) (gen, exp uint64) {
	b := r.Board
	var dfs func(g int, blank uint8, state uint32)
	dfs = func(g int, blank uint8, state uint32) {
		exp++
		for i := 0; i < int(m.NMoves[blank]); i++ {
			ns := m.Pruning[state*4+uint32(m.MoveDir[blank][i])]
			if ns == prune.Pruned {
				continue
			}
			gen++
			if g+1 > bound {
				continue
			}
			q := m.MoveCell[blank][i]
			b[blank], b[q] = b[q], 0
			dfs(g+1, q, ns)
			b[q], b[blank] = b[blank], 0
		}
	}
	dfs(int(r.G), r.Blank, r.State)
	return gen, exp
}

// reachesGoal says whether a node within bound below r is the goal (every tile at
// Manhattan distance 0).
func reachesGoal(m *ida.Model, r ida.Root, bound int) bool {
	b := r.Board
	n := m.Size.Cells()
	home := func() bool {
		for c := 0; c < n; c++ {
			if m.MD[b[c]][c] != 0 {
				return false
			}
		}
		return true
	}
	var dfs func(g int, blank uint8, state uint32) bool
	dfs = func(g int, blank uint8, state uint32) bool {
		if home() {
			return true
		}
		if g == bound {
			return false
		}
		for i := 0; i < int(m.NMoves[blank]); i++ {
			ns := m.Pruning[state*4+uint32(m.MoveDir[blank][i])]
			if ns == prune.Pruned {
				continue
			}
			q := m.MoveCell[blank][i]
			b[blank], b[q] = b[q], 0
			found := dfs(g+1, q, ns)
			b[q], b[blank] = b[blank], 0
			if found {
				return true
			}
		}
		return false
	}
	return dfs(int(r.G), r.Blank, r.State)
}
