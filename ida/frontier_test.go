package ida

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
)

// Asked for more subtrees than any depth of the pass holds, Frontier gives the widest depth's
// nodes (collected once more, not every depth down to the bound): no depth holds more, as
// asking for one more than it gave shows, and their subtrees make the pass, node for node.
// With md, and with a catalogue's search (zero-aware tables, in bits), whose frontier nodes
// keep their lookups for the workers that search below them.
func TestWidestFrontier(t *testing.T) {
	ctx := context.Background()
	korf := corpus.Korf100()
	zero, err := pdb.NewSet(ctx, pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	bits, err := zero.ToBits(ctx, 0)
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		opt  Options
	}{{"md", Options{Heuristic: MD}}, {"5-5-5 zero-aware, bits", Options{Set: bits, Workers: 2}}} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(korf[0].Goal, c.opt)
			require.NoError(t, err)
			start, _ := korf[0].Goal.RandomWalk(300, newRand(3))
			h0, err := s.H0(start)
			require.NoError(t, err)
			want, err := s.Solve(ctx, start)
			require.NoError(t, err)
			bound := len(want.Moves) - 2 // the last pass without a solution
			require.GreaterOrEqual(t, bound, h0)
			paths, top, err := s.Frontier(ctx, start, bound, 1<<30, nil)
			require.NoError(t, err)
			require.NotEmpty(t, paths)
			depth := len(paths[0])
			for _, p := range paths {
				require.Len(t, p, depth, "one depth")
			}
			assert.Less(t, depth+2, bound, "the widest depth lies well above the bound")
			more, _, err := s.Frontier(ctx, start, bound, len(paths)+1, nil)
			require.NoError(t, err)
			assert.Equal(t, paths, more, "no depth holds more")

			pass, err := s.SearchBelow(ctx, start, nil, bound)
			require.NoError(t, err)
			sum := top
			for _, p := range paths {
				r, err := s.SearchBelow(ctx, start, p, bound)
				require.NoError(t, err)
				sum.Add(r.Work)
			}
			assert.Equal(t, pass.Work, sum, "the subtrees make the pass")

			// The split pass, searched by the solver's workers from the frontier's
			// lookups, is the serial one.
			res, err := s.Run(ctx, start, passes.Plan{Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				return 1 << 30, nil
			}})
			require.NoError(t, err)
			assert.Equal(t, want.Moves, res.Moves)
			assert.Equal(t, want.Serial, res.Serial)
		})
	}
}

// collectedNode is a frontier node as passes.Collect records it: its depth, value, work
// before it, path and payload (board, blank, automaton state, lookups).
type collectedNode struct {
	g, h          int
	before        Work
	path, payload string
}

// collected is a frontier as passes.Collect returns it, copied out of its walk, with the
// work it reports.
type collected struct {
	nodes []collectedNode
	top   Work
}

// collectWith collects the frontier of the pass of the given bound as Frontier does, on
// workers, collecting on them from from frontier nodes a worker (Options.frontierFrom).
func collectWith(t *testing.T, s *Solver, start board.State, bound, want, workers, from int, refine func([]board.Dir) bool) collected {
	t.Helper()
	st := s.newWalk(start)
	var stop atomic.Bool
	st.stop, st.ctx = &stop, context.Background()
	st.setBudget(0)
	st.bound = bound
	o := s.collection(bound, want, refine)
	o.Workers, o.From = workers, from
	f, top := passes.Collect(st, st, passes.NewFrontier(s.stride(), s), o)
	require.False(t, st.aborted)
	c := collected{top: top}
	for i := range f.Len() {
		c.nodes = append(c.nodes, collectedNode{g: f.G(i), h: f.H(i), before: f.Before(i), path: string(f.Path(i)), payload: string(f.Payload(i))})
	}
	return c
}

// A frontier collected on several workers below a shallower one (collectBelow) is the
// frontier collected from the root on one: the same nodes in the same order, with the same
// paths, lookups, values, automaton states and serial work before each, and the same work
// for the top. Md; sets that are not zero-aware, regular, reflected and dual (whose BPMX
// may raise values: where a raise cuts a node's parent, the deeper depths are collected
// from the root); zero-aware sets in
// nibbles and in bits (a catalogue's search, with its lookups at each node); the
// 24-puzzle; frontiers of mixed depths (refine) and not; and the widest frontier when no
// depth is as wide as asked.
func TestParallelFrontierIsTheSerialOne(t *testing.T) {
	ctx := context.Background()
	korf := corpus.Korf100()
	plain, err := pdb.NewSet(ctx, pdb.Set555, 0)
	require.NoError(t, err)
	zero, err := pdb.NewSet(ctx, pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	bits, err := zero.ToBits(ctx, 0)
	require.NoError(t, err)
	five := set5x5(t)
	fiveGoal := board.BlankFirst(board.Size5x5)
	fiveStart, _ := fiveGoal.RandomWalk(40, newRand(5))
	cases := []struct {
		name  string
		goal  board.Goal
		start board.State
		opt   Options
	}{
		{"md", korf[0].Goal, korf[0].Start, Options{Heuristic: MD}},
		{"5-5-5", korf[2].Goal, korf[2].Start, Options{Set: plain, Lookups: Regular}},
		{"5-5-5 reflected", korf[2].Goal, korf[2].Start, Options{Set: plain, Lookups: Reflected}},
		{"5-5-5 dual", korf[2].Goal, korf[2].Start, Options{Set: plain, Lookups: Dual}},
		{"5-5-5 zero-aware", korf[2].Goal, korf[2].Start, Options{Set: zero}},
		{"5-5-5 zero-aware, bits", korf[11].Goal, korf[11].Start, Options{Set: bits}},
		{"4x6 on 5x5", fiveGoal, fiveStart, Options{Set: five}},
		{"md on 5x5", fiveGoal, fiveStart, Options{Heuristic: MD}},
	}
	var raised atomic.Int64
	defer func() {
		// Some node's value rose below the frontier short of cutting its parent, where the
		// workers' frontier stands (before, any raise sent the deeper depths to the root).
		assert.Positive(t, raised.Load())
	}()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opt.raised = &raised
			s, err := New(c.goal, c.opt)
			require.NoError(t, err)
			h0, err := s.H0(c.start)
			require.NoError(t, err)
			for _, bound := range []int{h0 + 4, h0 + 6} {
				for _, want := range []int{300, 5000, 1 << 30} {
					for _, refined := range []bool{false, true} {
						var refine func([]board.Dir) bool
						if refined {
							refine = func(p []board.Dir) bool { return p[len(p)-1]%2 == 0 && len(p) < 9 }
						}
						serial := collectWith(t, s, c.start, bound, want, 1, 1<<30, refine)
						require.NotEmpty(t, serial.nodes, "bound %d", bound)
						for _, workers := range []int{2, 3} {
							got := collectWith(t, s, c.start, bound, want, workers, 4, refine)
							msg := fmt.Sprintf("bound %d, %d wanted, refined %v, %d workers", bound, want, refined, workers)
							require.Equal(t, len(serial.nodes), len(got.nodes), msg)
							for i := range serial.nodes {
								if serial.nodes[i] != got.nodes[i] {
									require.Equal(t, serial.nodes[i], got.nodes[i], "node %d; %s", i, msg)
								}
							}
							assert.Equal(t, serial.top, got.top, msg)
						}
					}
				}
			}
		})
	}
}

// refine is asked only of the frontier's nodes: the depth is chosen by the nodes there,
// as without it, and then each node it asks for is split further. (It was asked from the
// first depth tried, so that a refinement of every large subtree made the frontier at
// depth 1, narrower than the plain one.)
func TestRefineSplitsTheChosenDepth(t *testing.T) {
	korf := corpus.Korf100()
	s, err := New(korf[0].Goal, Options{Heuristic: MD})
	require.NoError(t, err)
	h0, err := s.H0(korf[0].Start)
	require.NoError(t, err)
	bound := h0 + 6
	plain := collectWith(t, s, korf[0].Start, bound, 2000, 1, 1<<30, nil)
	d0 := plain.nodes[0].g
	require.Greater(t, d0, 3)
	paths := func(c collected) []string {
		out := make([]string, len(c.nodes))
		for i, n := range c.nodes {
			out[i] = n.path
		}
		return out
	}
	want := paths(plain)
	for _, workers := range []int{1, 2} {
		// Split every node whose last move is odd (D or R), once; and never split a node the
		// plain frontier does not hold.
		got := collectWith(t, s, korf[0].Start, bound, 2000, workers, 4, func(p []board.Dir) bool {
			require.GreaterOrEqual(t, len(p), d0, "refine asked of a node above the frontier")
			return len(p) == d0 && p[d0-1]%2 == 1
		})
		k := 0
		for _, p := range paths(got) {
			for k < len(want) && !strings.HasPrefix(p, want[k]) {
				k++
			}
			require.Less(t, k, len(want), "%d workers: %q lies below no plain frontier node", workers, p)
			if want[k][d0-1]%2 == 1 {
				assert.Len(t, p, d0+1, "%q is split", want[k])
			} else {
				assert.Equal(t, want[k], p)
			}
		}
		assert.Greater(t, len(got.nodes), len(plain.nodes), "%d workers", workers)
	}
}
