package ida

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
)

// TestEveryLoopVariant runs every loop that can compute one heuristic, the zero-aware
// 5-5-5 set, on the same positions: the set loop on its tables in nibbles (additive.go,
// kept for dual lookups), the catalogue loop on the same tables in nibbles and in bits
// (catalogue.go), and split among workers (parallel.go).
// Each must find the same solution with the same serial counts, to the node, as the set
// loop.
func TestEveryLoopVariant(t *testing.T) {
	defer SplitSmallTrees()()
	plain, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	bits := toBits(t, plain)
	korf := corpus.Korf100()
	goal := korf[0].Goal
	variants := []struct {
		name string
		opt  Options
		loop string
	}{
		{"set loop, nibbles", Options{Set: plain}, "set"},
		{"catalogue loop, nibbles", Options{Set: plain}, "cat"},
		{"catalogue loop, bits", Options{Set: bits}, "cat"},
		{"catalogue loop, bits, 2 workers", Options{Set: bits, Workers: 2}, "cat"},
		{"set loop, nibbles, 2 workers", Options{Set: plain, Workers: 2}, "set"},
	}
	solvers := make([]*Solver, len(variants))
	for i, v := range variants {
		setLoop = v.loop == "set"
		s, err := New(goal, v.opt)
		setLoop = false
		require.NoError(t, err)
		switch v.loop {
		case "set":
			require.NotNil(t, s.t.set, v.name)
		case "cat":
			require.NotNil(t, s.t.cat, v.name)
		}
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
