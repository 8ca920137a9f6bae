package solve

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
)

// TestRegistryIsTheEngines holds the registry of names (package heuristic) to the fast
// engine's own table of what it computes (ida.Kinds): every name the registry gives the
// fast engine is one of its kinds, on the same boards, a set exactly where the kind needs
// one; and every kind of the engine is in the registry.
func TestRegistryIsTheEngines(t *testing.T) {
	kinds := map[string]ida.Kind{}
	for _, k := range ida.Kinds() {
		require.NotContains(t, kinds, k.Name, "a kind named twice")
		kinds[k.Name] = k
	}
	fast := 0
	for _, info := range heuristic.Registry() {
		k, ok := kinds[info.Name]
		if info.Engines&heuristic.Fast == 0 {
			assert.False(t, ok, "%s: the engine computes it, the registry says not", info.Name)
			continue
		}
		fast++
		require.True(t, ok, "%s: the registry gives it to the engine, which has no such kind", info.Name)
		assert.Equal(t, info.FastBoards, k.Boards, info.Name)
		assert.Equal(t, info.Set, k.Set, info.Name)
		h, err := ida.ParseHeuristic(info.Name)
		require.NoError(t, err)
		assert.Equal(t, k.Heuristic, h, info.Name)
		if !info.Set {
			assert.Equal(t, info.Name, h.String())
		}
	}
	assert.Equal(t, len(kinds), fast, "kinds of the engine missing from the registry")
	_, err := ida.ParseHeuristic("hamming")
	assert.ErrorIs(t, err, ida.ErrOptions)
}
