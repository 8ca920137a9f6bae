package solve

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/prune"
)

// TestDeepestInstalledAutomaton: the plan takes the deepest trusted automaton installed
// above the board's default, the default when the deeper one is damaged (saying so, with
// its path), and the options' depth when they give one; Options tells it to a worker.
func TestDeepestInstalledAutomaton(t *testing.T) {
	ctx := context.Background()
	size := board.Size4x4
	goal := board.BlankLast(size)
	def := prune.DefaultDepth(size)
	install := func(dir string, depth int) string {
		path, tab, err := data.InstallAutomaton(ctx, size, depth, dir, nil)
		require.NoError(t, err)
		require.NoError(t, data.RecordVerified(ctx, path, fmt.Sprintf("%x", tab.DecodedSHA)))
		return path
	}
	good := t.TempDir()
	install(good, def-2)
	install(good, def+2)
	s, err := New(ctx, goal, Options{Heuristic: "md", Tables: good})
	require.NoError(t, err)
	require.Equal(t, def+2, s.Options().PruningDepth, "the deepest installed, not the shallower one")
	require.Contains(t, s.About(), good)
	require.Zero(t, s.opt.PruningDepth, "the plan records the depth, the options stay as given")

	s, err = New(ctx, goal, Options{Heuristic: "md", Tables: good, PruningDepth: def - 2})
	require.NoError(t, err)
	require.Equal(t, def-2, s.Options().PruningDepth, "the options' depth")

	damaged := t.TempDir()
	path := install(damaged, def+1)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)-3] ^= 0xFF
	require.NoError(t, os.WriteFile(path, b, 0o644))
	s, err = New(ctx, goal, Options{Heuristic: "md", Tables: damaged})
	require.NoError(t, err)
	require.Equal(t, def, s.Options().PruningDepth, "a damaged deeper file is passed over")
	require.Contains(t, s.About(), path, "and named")
	require.Contains(t, s.About(), fmt.Sprintf("depth %d instead", def))

	s, err = New(ctx, goal, Options{Heuristic: "md", Tables: damaged, Pruning: PruneParent})
	require.NoError(t, err)
	require.Zero(t, s.Options().PruningDepth)
	require.Contains(t, s.About(), "pruning: move back")
	_, err = New(ctx, goal, Options{Heuristic: "md", PruningDepth: prune.MaxDepth + 1})
	require.ErrorIs(t, err, ErrOptions)
}
