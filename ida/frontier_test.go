package ida

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
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
			res, err := s.Run(ctx, start, Plan{Split: func(p PassPlan) (int, func([]board.Dir) bool) {
				return 1 << 30, nil
			}})
			require.NoError(t, err)
			assert.Equal(t, want.Moves, res.Moves)
			assert.Equal(t, want.Serial, res.Serial)
		})
	}
}
