package ida

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
)

// splitAt solves start with s, the pass of bound split into at least want subtrees
// (refine, if set, splitting further) on the solver's workers and every other pass whole,
// and returns the result and that pass as the driver split it.
func splitAt(t *testing.T, s *Solver, start board.State, bound, want int, refine func([]board.Dir) bool) (*passes.Result, *passes.SplitPass) {
	t.Helper()
	var got *passes.SplitPass
	res, err := s.Run(context.Background(), start, passes.Plan{
		Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
			if p.Bound != bound {
				return 0, nil
			}
			return want, refine
		},
		OnPass: func(p passes.Pass, sp *passes.SplitPass) {
			if p.Bound == bound {
				got = sp
			}
		}})
	require.NoError(t, err)
	require.NotNil(t, got, "the pass of bound %d split", bound)
	return res, got
}

// Asked for more subtrees than any depth of the pass holds, the driver splits at the
// widest depth (collected once more, not every depth down to the bound): no depth holds
// more, as asking for one more than it gave shows, and their subtrees make the pass, node
// for node. With md, and with a catalogue's search (zero-aware tables, in bits), whose
// frontier nodes keep their lookups for the workers that search below them.
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
	}{{"md", Options{Heuristic: MD}}, {"5-5-5 zero-aware, bits", WithWorkersSplit(Options{Set: bits, Workers: 2})}} {
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
			res, sp := splitAt(t, s, start, bound, 1<<30, nil)
			paths := sp.Paths
			require.NotEmpty(t, paths)
			depth := len(paths[0])
			for _, p := range paths {
				require.Len(t, p, depth, "one depth")
			}
			assert.Less(t, depth+2, bound, "the widest depth lies well above the bound")
			_, more := splitAt(t, s, start, bound, len(paths)+1, nil)
			assert.Equal(t, paths, more.Paths, "no depth holds more")

			pass, err := s.SearchBelow(ctx, start, nil, bound)
			require.NoError(t, err)
			assert.Equal(t, pass.Work, sp.Serial, "the subtrees make the pass")
			// The split pass, searched by the solver's workers from the frontier's
			// lookups, is the serial one.
			assert.Equal(t, want.Moves, res.Moves)
			assert.Equal(t, want.Serial, res.Serial)
		})
	}
}

// collectedNode is a frontier node as the driver collects it: its depth, value, path and
// payload (board, blank, automaton state, lookups).
type collectedNode struct {
	g, h          int
	path, payload string
}

// errCollected stops a search once its frontier is collected (collectedAt).
var errCollected = errors.New("collected")

// collectedAt returns the frontier the driver collects for the pass of bound of start's
// search with s (at least want subtrees; refine, if set, splitting further), the passes
// before it searched whole and the pass itself not searched.
func collectedAt(t *testing.T, s *Solver, start board.State, bound, want int, refine func([]board.Dir) bool) []collectedNode {
	t.Helper()
	var nodes []collectedNode
	_, err := s.Run(context.Background(), start, passes.Plan{
		Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
			if p.Bound != bound {
				return 0, nil
			}
			return want, refine
		},
		Runner: passes.RunnerFunc(func(_ context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			f := b.Frontier()
			for i := range f.Len() {
				nodes = append(nodes, collectedNode{g: f.G(i), h: f.H(i), path: string(f.Path(i)), payload: string(f.Payload(i))})
			}
			return nil, errCollected
		})})
	require.ErrorIs(t, err, errCollected, "the pass of bound %d collected", bound)
	return nodes
}

// A frontier collected on several workers below a shallower one (the driver's
// collection below a frontier) is the frontier collected from the root on one: the same
// nodes in the same order, with the same paths, lookups, values and automaton states.
// Md; sets that are not zero-aware, regular, reflected and dual (whose BPMX may raise
// values: where a raise cuts a node's parent, the deeper depths are collected from the
// root); zero-aware sets in nibbles and in bits (a catalogue's search, with its lookups at
// each node); the 24-puzzle; frontiers of mixed depths (refine) and not; and the widest
// frontier when no depth is as wide as asked. (That the split passes' searches from those
// payloads are the serial ones: TestWidestFrontier, and the sets' and catalogues' tests.)
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
	fiveStart, _ := fiveGoal.RandomWalk(60, newRand(5))
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
			solver := func(workers, from int) *Solver {
				opt := c.opt
				opt.raised, opt.Workers, opt.frontierFrom = &raised, workers, from
				s, err := New(c.goal, opt)
				require.NoError(t, err)
				return s
			}
			one := solver(1, 1<<30)
			h0, err := one.H0(c.start)
			require.NoError(t, err)
			for _, bound := range []int{h0 + 4, h0 + 6} {
				for _, want := range []int{300, 5000, 1 << 30} {
					for _, refined := range []bool{false, true} {
						var refine func([]board.Dir) bool
						if refined {
							refine = func(p []board.Dir) bool { return p[len(p)-1]%2 == 0 && len(p) < 9 }
						}
						serial := collectedAt(t, one, c.start, bound, want, refine)
						require.NotEmpty(t, serial, "bound %d", bound)
						for _, workers := range []int{2, 3} {
							got := collectedAt(t, solver(workers, 4), c.start, bound, want, refine)
							msg := fmt.Sprintf("bound %d, %d wanted, refined %v, %d workers", bound, want, refined, workers)
							require.Equal(t, len(serial), len(got), msg)
							for i := range serial {
								if serial[i] != got[i] {
									require.Equal(t, serial[i], got[i], "node %d; %s", i, msg)
								}
							}
						}
					}
				}
			}
		})
	}
}
