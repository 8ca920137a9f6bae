package gpu

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/prune"
)

// frontierAt returns ida's frontier of start's pass of the given bound with at least want
// nodes (its roots and paths, in serial order), as the driver hands it to a runner.
func frontierAt(t *testing.T, s *ida.Solver, start board.State, bound, want int) ([]ida.Root, [][]board.Dir) {
	roots, paths, _ := frontierSeeds(t, s, nil, start, bound, want)
	return roots, paths
}

// frontierSeeds is frontierAt with the roots' lookups for m's catalogue (nil without one).
func frontierSeeds(t *testing.T, s *ida.Solver, m *ida.Model, start board.State, bound, want int) ([]ida.Root, [][]board.Dir, []ida.Seed) {
	t.Helper()
	var roots []ida.Root
	var paths [][]board.Dir
	var seeds []ida.Seed
	taken := errors.New("frontier taken")
	_, err := s.Run(context.Background(), start, passes.Plan{
		Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
			if p.Bound != bound {
				return 0, nil
			}
			return want, nil
		},
		Runner: passes.RunnerFunc(func(_ context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			roots, paths = ida.Roots(b), b.Paths
			if m != nil {
				seeds = m.Seeds(b)
			}
			return nil, taken
		}),
	})
	require.ErrorIs(t, err, taken)
	return roots, paths, seeds
}

// The frontier grown on the card (kernel/grow.h, on the host build) is ida's frontier at
// its depth, node for node and in ida's order, each root in the subtree of the top node
// its path starts with: from a top of a few dozen nodes to a few thousand, on both boards,
// with the move back and with an automaton, with a catalogue of zero-aware tables in
// nibbles and in bits (each root with ida's lookups), and with the tests' kind of no
// heuristic. Ordered by slack, it is the same roots, the largest slack first and, within
// a slack, in serial order; and the counts of a pass searched from it are ida's.
func TestGrownFrontierIsIDAs(t *testing.T) {
	bin := buildHost(t)
	fsm, err := prune.Build(context.Background(), board.Size4x4, 12)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(58, 58))
	four, five := board.BlankFirst(board.Size4x4), board.BlankFirst(board.Size5x5)
	walk := func(g board.Goal, n int) board.State { s, _ := g.RandomWalk(n, rng); return s }
	cat, korf := testCatalogue(t), corpus.Korf100()
	cases := []struct {
		name  string
		goal  board.Goal
		start board.State
		opt   ida.Options
	}{
		{"4x4", four, walk(four, 60), ida.Options{Heuristic: ida.MD}},
		{"4x4, automaton", four, walk(four, 60), ida.Options{Heuristic: ida.MD, Pruning: fsm}},
		{"5x5", five, walk(five, 50), ida.Options{Heuristic: ida.MD}},
		{"4x4 catalogue, Korf #3", korf[2].Goal, korf[2].Start, ida.Options{Set: cat}},
		{"4x4 catalogue in bits, automaton, Korf #3", korf[2].Goal, korf[2].Start, ida.Options{Set: toBits(t, cat), Pruning: fsm}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m, want := solved(t, c.goal, c.opt, c.start)
			require.GreaterOrEqual(t, len(want.Passes), 4)
			bound := want.Passes[len(want.Passes)-2].Bound // the pass before the solution's
			var sm *ida.Model
			if m.Set != nil {
				sm = m
			}
			top, topPaths, topSeeds := frontierSeeds(t, s, sm, c.start, bound, 40)
			require.NotEmpty(t, top)
			for _, ordered := range []bool{false, true} {
				h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 64, budget: 3, after: 8, grow: 3000, ordered: ordered}
				l, err := h.launch(context.Background(), work{roots: top, seeds: topSeeds, bound: bound, grow: h.grow})
				require.NoError(t, err)
				require.Equal(t, len(top), l.best, "no solution in the pass")
				require.GreaterOrEqual(t, len(h.grown), h.grow, "grown to the target")
				require.Positive(t, h.growth.levels)
				grown, of := h.grown, h.grownOf
				serial, paths, seeds := frontierSeeds(t, s, sm, c.start, bound, len(grown))
				require.Len(t, serial, len(grown), "ida's frontier at the grown depth")
				require.Equal(t, serial[0].G, grown[0].G, "the grown depth")
				// The subtree of each of ida's roots: the top node its path starts with.
				subOf := make([]int, len(paths))
				for i, p := range paths {
					subOf[i] = slices.IndexFunc(topPaths, func(tp []board.Dir) bool { return slices.Equal(tp, p[:len(tp)]) })
					require.GreaterOrEqual(t, subOf[i], 0, "root %d below a top node", i)
				}
				if ordered {
					// ida's roots in the order of their slack, the largest first (a stable
					// sort: the host build's order keeps the serial order within a slack).
					order := make([]int, len(serial))
					for i := range order {
						order[i] = i
					}
					slack := func(r ida.Root) int { return bound - int(r.G) - int(r.H) }
					slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(slack(serial[b]), slack(serial[a])) })
					serial, subOf = permute(serial, order), permute(subOf, order)
					if seeds != nil {
						seeds = permute(seeds, order)
					}
					assert.Greater(t, slack(serial[0]), slack(serial[len(serial)-1]), "slacks to order")
				}
				assert.Equal(t, serial, grown, "ordered %v: the grown frontier is ida's", ordered)
				assert.Equal(t, subOf, of, "ordered %v: each root's subtree", ordered)
				if sm != nil {
					// Each root's lookups: ida's, as the engine lays them out.
					nl, np := len(m.Set.Lookups), m.Set.Parts
					order := make([]uint32, len(seeds))
					for i := range order {
						order[i] = uint32(i)
					}
					require.Equal(t, encodeSeeds(seeds, order, nl, np), h.grownSeeds, "ordered %v: the roots' lookups", ordered)
				}
				// Below each top node, the counts of its subtree searched from the roots
				// grown: ida's.
				for i := 0; i < len(top) && i < 12; i++ {
					r, err := s.SearchBelow(context.Background(), c.start, topPaths[i], bound)
					require.NoError(t, err)
					assert.Equal(t, r.Work, passes.Work{Nodes: l.gen[i], Expanded: l.exp[i]}, "ordered %v: subtree %d", ordered, i)
				}
			}
		})
	}
}

// permute returns xs in the order given (xs[order[0]], xs[order[1]], ...).
func permute[T any](xs []T, order []int) []T {
	out := make([]T, len(order))
	for i, k := range order {
		out[i] = xs[k]
	}
	return out
}

// A top that narrows towards the bound stops growing once a level is no larger than the
// one before (short of a target beyond any level), its counts ida's; a node limit stops
// the growth, and the launch.
func TestGrowthStops(t *testing.T) {
	bin := buildHost(t)
	goal := board.BlankFirst(board.Size4x4)
	start, _ := goal.RandomWalk(40, rand.New(rand.NewPCG(3, 3)))
	s, m, want := solved(t, goal, ida.Options{Heuristic: ida.MD}, start)
	bound := want.Passes[len(want.Passes)-2].Bound
	top, topPaths := frontierAt(t, s, start, bound, 20)
	require.Less(t, want.Passes[len(want.Passes)-2].Nodes, uint64(40000), "a pass narrower than the target")
	h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 32, budget: 3, after: 8, grow: 40000}
	l, err := h.launch(context.Background(), work{roots: top, bound: bound, grow: h.grow})
	require.NoError(t, err)
	assert.Less(t, len(h.grown), h.grow, "stopped short of the target")
	assert.Positive(t, h.growth.levels)
	for i := range top {
		r, err := s.SearchBelow(context.Background(), start, topPaths[i], bound)
		require.NoError(t, err)
		require.Equal(t, r.Work, passes.Work{Nodes: l.gen[i], Expanded: l.exp[i]}, "subtree %d", i)
	}
	// A node limit within the growth stops it, and the launch.
	h = &hostRunner{t: t, bin: bin, s: s, m: m, threads: 32, budget: 3, after: 8, grow: 40000}
	l, err = h.launch(context.Background(), work{roots: top, bound: bound, grow: h.grow, limit: 30})
	require.NoError(t, err)
	assert.True(t, l.stopped, "the node limit stopped the growth")
	assert.True(t, h.growth.stopped)
}
