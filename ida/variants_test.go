package ida

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
)

// TestEveryLoopVariant runs every way of computing one heuristic, the zero-aware 5-5-5
// set, on the same positions: its tables in nibbles and in bits (catalogue.go), searched
// serially and split among workers (the driver's own walkers). Each must find the same solution with
// the same serial counts, to the node, as the tables in nibbles searched serially.
func TestEveryLoopVariant(t *testing.T) {
	plain, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	bits := toBits(t, plain)
	korf := corpus.Korf100()
	goal := korf[0].Goal
	variants := []struct {
		name string
		opt  Options
	}{
		{"nibbles", Options{Set: plain}},
		{"bits", Options{Set: bits}},
		{"bits, 2 workers", Options{Set: bits, Workers: 2}},
		{"nibbles, 2 workers", Options{Set: plain, Workers: 2}},
	}
	solvers := make([]*Solver, len(variants))
	for i, v := range variants {
		s, err := New(goal, SplitSmallTrees(v.opt))
		require.NoError(t, err)
		solvers[i] = s
	}
	for _, k := range []int{0, 2, 11} {
		want, err := solvers[0].Solve(context.Background(), korf[k].Start)
		require.NoError(t, err)
		require.Equal(t, korf[k].Optimal, len(want.Moves))
		for i, s := range solvers[1:] {
			got, err := s.Solve(context.Background(), korf[k].Start)
			require.NoError(t, err)
			require.Equal(t, want.Moves, got.Moves, "%s, Korf %d", variants[i+1].name, k+1)
			require.Equal(t, want.Serial, got.Serial, "%s, Korf %d", variants[i+1].name, k+1)
		}
	}
}
