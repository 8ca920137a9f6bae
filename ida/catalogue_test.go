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

// A catalogue of one partition and its reflection, searched with regular lookups, is the
// set with reflected lookups: the same values, so the same solutions; asking the closed
// catalogue for reflected lookups adds nothing (every reflection is there, read once).
// The nodes are those of the set but for BPMX: Korf & Felner's tables are inconsistent,
// and a child that the catalogue prunes by one partition shows BPMX only that
// partition's value, so a few more nodes are searched (at most 1% more here).
func TestCatalogueIsSetWithReflection(t *testing.T) {
	set := testSet555(t)
	spec, err := pdb.NewCatalogue("555-t", set.Goal, false, true, [][][]int{set.SetSpec.Tables})
	require.NoError(t, err)
	require.Len(t, spec.Partitions, 2)
	require.Len(t, spec.Tables, 3, "the reflected groups read the same three tables")
	cat := &pdb.Set{SetSpec: spec, Tables: set.Tables}
	korf := corpus.Korf100()
	plain, err := New(korf[0].Goal, Options{Set: set, Lookups: Reflected})
	require.NoError(t, err)
	for _, l := range []Lookups{recommendedLookups, Regular, Reflected} {
		c, err := New(korf[0].Goal, Options{Set: cat, Lookups: l})
		require.NoError(t, err)
		if l == Regular {
			require.Equal(t, 2, c.t.cat.np)
			require.Equal(t, 5, c.t.cat.nl, "8-11-12-14-15 is its own reflection: one lookup")
		}
		for _, i := range []int{0, 2, 11, 41} {
			want, err := plain.Solve(context.Background(), korf[i].Start)
			require.NoError(t, err)
			got, err := c.Solve(context.Background(), korf[i].Start)
			require.NoError(t, err)
			assert.Equal(t, want.Moves, got.Moves, "Korf %d", i+1)
			assert.GreaterOrEqual(t, got.Nodes, want.Nodes, "Korf %d", i+1)
			assert.LessOrEqual(t, float64(got.Nodes), 1.01*float64(want.Nodes), "Korf %d", i+1)
		}
	}
	_, err = New(korf[0].Goal, Options{Set: cat, Lookups: Dual})
	assert.ErrorIs(t, err, ErrOptions)
}

// A zero-aware catalogue of 4x4 partitions: the search's incremental sums equal sums from
// scratch at every node, its values agree with pdb.Set.Eval, and its solutions are those
// of optimal length.
func TestZeroAwareCatalogue(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	spec, err := pdb.NewCatalogue("4x4z", goal, true, true, [][][]int{
		{{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}},
		{{1, 2, 5, 6}, {3, 4, 7, 8}, {9, 10, 13, 14}, {11, 12, 15}},
	})
	require.NoError(t, err)
	set, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	plain := testSet555(t)
	rng := newRand(12)
	for _, g := range []board.Goal{goal, board.BlankFirst(board.Size4x4)} {
		s, err := New(g, Options{Set: set})
		require.NoError(t, err)
		p, err := New(g, Options{Set: plain})
		require.NoError(t, err)
		for i := 0; i < 6; i++ {
			start, _ := g.RandomWalk(45, rng)
			want, err := p.Solve(context.Background(), start)
			require.NoError(t, err)
			got, err := s.Solve(context.Background(), start)
			require.NoError(t, err)
			assert.Len(t, got.Moves, len(want.Moves))
			assert.GreaterOrEqual(t, got.H0, want.H0)
		}
	}
	// Split among workers, the search finds the same solutions, and counts the serial work.
	korf := corpus.Korf100()
	serial, err := New(korf[0].Goal, Options{Set: set})
	require.NoError(t, err)
	par, err := New(korf[0].Goal, SplitSmallTrees(Options{Set: set, Workers: 2}))
	require.NoError(t, err)
	for _, i := range []int{0, 11} {
		a, err := serial.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		b, err := par.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		assert.Equal(t, a.Moves, b.Moves)
		assert.Equal(t, a.Serial, b.Serial)
	}
	s, err := New(goal, Options{Set: set, Lookups: Regular})
	require.NoError(t, err)
	for i := 0; i < 300; i++ {
		st := goal.Random(rng)
		assert.Equal(t, set.Eval(st), s.newWalk(st).h(), "%v", st)
	}
}

// toBits returns the set with its tables in the bit encoding.
func toBits(t *testing.T, set *pdb.Set) *pdb.Set {
	t.Helper()
	bits, err := set.ToBits(context.Background(), 0)
	require.NoError(t, err)
	return bits
}

// Tables in the bit encoding give the very search of their half-excess originals: the
// same values at every node (checked from scratch, by descent, with debugCheck), the same
// nodes and solutions, serial or split; a plain set of them is searched as a catalogue.
func TestBitTables(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	spec, err := pdb.NewCatalogue("4x4z", goal, true, true, [][][]int{
		{{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}},
		{{1, 2, 5, 6}, {3, 4, 7, 8}, {9, 10, 13, 14}, {11, 12, 15}},
	})
	require.NoError(t, err)
	cat, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	plain, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	korf := corpus.Korf100()
	g := korf[0].Goal // blank-first: the tables are blank-last's, read through the frame
	rng := newRand(7)
	for _, set := range []*pdb.Set{cat, plain} {
		bits := toBits(t, set)
		for _, workers := range []int{1, 2} {
			want, err := New(g, WithWorkersSplit(Options{Set: set, Workers: workers}))
			require.NoError(t, err)
			got, err := New(g, WithWorkersSplit(Options{Set: bits, Workers: workers}))
			require.NoError(t, err)
			assert.Equal(t, want.Lookups(), got.Lookups(), set.Name)
			for i := 0; i < 3; i++ {
				start, _ := g.RandomWalk(50, rng)
				if i == 0 {
					start = korf[11].Start
				}
				a, err := want.Solve(context.Background(), start)
				require.NoError(t, err)
				b, err := got.Solve(context.Background(), start)
				require.NoError(t, err)
				assert.Equal(t, a.Moves, b.Moves, "%s %v", set.Name, start)
				assert.Equal(t, a.Nodes, b.Nodes, "%s %v", set.Name, start)
				assert.Equal(t, a.Serial, b.Serial)
			}
		}
	}
}
