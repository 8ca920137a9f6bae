package repro

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEffectiveBranching(t *testing.T) {
	// 1 + 2 + 4 + 8 = 15 nodes below the root at depth 4 with b = 2: 14 generated + root.
	assert.InDelta(t, 2.0, EffectiveBranching(30, 4), 1e-6)
	assert.InDelta(t, 1.0, EffectiveBranching(5, 5), 1e-6)
	assert.Equal(t, 0.0, EffectiveBranching(10, 0))
}

func TestEightPuzzleQuick(t *testing.T) {
	r, err := EightPuzzle(context.Background(), Options{Scale: 100, Seed: 3})
	require.NoError(t, err)
	require.Len(t, r.Rows, 3)
	for _, row := range r.Rows {
		assert.Equal(t, 100, row.Instances)
		if row.Heuristic != "chebyshev2" {
			assert.Equal(t, 100, row.Optimal, "%s is admissible: A* is optimal", row.Heuristic)
			assert.InDelta(t, r.MeanOptimal, row.MeanLength, 1e-9)
		} else {
			assert.GreaterOrEqual(t, row.MeanLength, r.MeanOptimal)
		}
		assert.Greater(t, row.MeanGenerated, row.MeanExpanded)
	}
	assert.Greater(t, r.Rows[0].MeanGenerated, r.Rows[1].MeanGenerated, "hamming is weaker than md")
	dir := t.TempDir()
	path := filepath.Join(dir, "eight.svg")
	require.NoError(t, r.Plot(path))
	svg, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(svg), "<svg"))
	assert.Contains(t, r.Markdown(), "| md |")
}

func TestWalksAndBAStarQuick(t *testing.T) {
	w, err := Walks(context.Background(), Options{Scale: 10, Seed: 1})
	require.NoError(t, err)
	assert.Len(t, w.Rows, len(WalkDepths)*4)
	for _, row := range w.Rows {
		if row.Depth <= 20 {
			assert.Equal(t, row.Instances, row.Solved, "short scrambles are always solved")
			assert.LessOrEqual(t, row.MeanLength, float64(row.Depth))
		}
	}
	b, err := BAStar(context.Background(), Options{Scale: 25})
	require.NoError(t, err)
	assert.Equal(t, 4, b.Instances)
	assert.GreaterOrEqual(t, b.MeanLength, b.MeanOptimal)
	total := 0
	for excess, n := range b.Excess {
		assert.GreaterOrEqual(t, excess, 0)
		total += n
	}
	assert.Equal(t, 4, total)
	require.NoError(t, b.Plot(filepath.Join(t.TempDir(), "b.svg")))
}

// Names takes all, or names Run knows, and refuses none or another.
func TestNames(t *testing.T) {
	got, err := Names([]string{"all"})
	require.NoError(t, err)
	assert.Equal(t, Experiments, got)
	got, err = Names([]string{"scale", "eight"})
	require.NoError(t, err)
	assert.Equal(t, []string{"scale", "eight"}, got)
	_, err = Names(nil)
	assert.ErrorContains(t, err, "name an experiment")
	_, err = Names([]string{"eight", "nine"})
	assert.ErrorContains(t, err, `unknown experiment "nine"`)
}
