package repro

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/instances"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// The published figures of the twelve instances add up to the totals the literature
// states: Clausecker & Reinefeld's small-t 5.72e9 expanded, the max of Doebbelin et al.'s
// three large tables 3.55e9, Korf & Felner's 6.66e10 generated.
func TestKorf24Published(t *testing.T) {
	ids, pub, err := Korf24Published(instances.Korf24Twelve)
	require.NoError(t, err)
	require.Len(t, ids, 12)
	assert.Equal(t, "k24-38", ids[0])
	assert.Equal(t, "k24-03", ids[11])
	var small, dsr, kf uint64
	for _, id := range ids {
		small += pub[id]["small-t"]
		dsr += pub[id]["dsr13-max"]
		kf += pub[id]["kf02"]
	}
	assert.InDelta(t, 5.72e9, float64(small), 0.005e9)
	assert.InDelta(t, 3.55e9, float64(dsr), 0.005e9)
	assert.InDelta(t, 6.66e10, float64(kf), 0.005e10)
	assert.Equal(t, uint64(3_450_832), pub["k24-38"]["small-t"])

	// The campaign's 26: small-t's counts below 1e10 add up to 7.43e10, and the twelve are
	// among them with the same figures.
	campaign, cpub, err := Korf24Published(instances.Korf24Campaign)
	require.NoError(t, err)
	require.Len(t, campaign, 26)
	small = 0
	for i, id := range campaign {
		assert.Less(t, cpub[id]["small-t"], uint64(1e10), id)
		if i > 0 {
			assert.LessOrEqual(t, cpub[id]["small-t"], cpub[campaign[i-1]]["small-t"], "hardest first: %s", id)
		}
		small += cpub[id]["small-t"]
	}
	assert.Equal(t, uint64(74_251_234_969), small)
	for _, id := range ids {
		assert.Equal(t, pub[id], cpub[id], id)
	}
}

func TestKorf24Records(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	enc := json.NewEncoder(f)
	for _, rec := range []report.Record{
		{ID: "k24-38", Heuristic: "small-t", Solved: true, Length: 96, Nodes: 7_625_088, Expanded: 3_450_832, Seconds: 1.5},
		{ID: "k24-40", Heuristic: "small-t", Solved: true, Length: 82, Nodes: 19_188_966, Expanded: 8_296_164, Seconds: 3},
		{ID: "k24-38", Heuristic: "6-6-6-6", Solved: true, Length: 96, Nodes: 40_639_228, Expanded: 18_976_036, Seconds: 0.8},
		{ID: "k24-38", Heuristic: "small-t", Pruning: "automaton depth 14, 199632 states", Solved: true, Length: 96, Nodes: 5_000_000, Expanded: 2_452_838, Seconds: 0.9},
		// The same search with its large passes on a GPU: a run of its own.
		{ID: "k24-38", Heuristic: "small-t", Pruning: "automaton depth 14, 199632 states", Solved: true, Length: 96, Nodes: 5_000_000, Expanded: 2_452_838, Seconds: 0.5,
			Device: &solve.DeviceUse{Name: "NVIDIA H100 80GB HBM3", Stats: gpu.Stats{Passes: 3}}},
	} {
		require.NoError(t, enc.Encode(rec))
	}
	require.NoError(t, f.Close())
	r, err := Korf24([]string{path})
	require.NoError(t, err)
	assert.Equal(t, []string{"small-t", "6-6-6-6", "small-t + automaton", "small-t + automaton, GPU"}, r.Heuristics)
	md := r.Markdown()
	assert.Contains(t, md, "| k24-38 | 96 | 3,450,832 | 7,625,088 | 1.5 | 18,976,036 | 40,639,228 | 0.8 | 2,452,838 | 5,000,000 | 0.9 | 2,452,838 | 5,000,000 | 0.5 | 38,173,507 |")
	assert.Contains(t, md, "| total | | (2 of 12) | | | (1 of 12) | | | (1 of 12) | | | (1 of 12) | | |")
	assert.Contains(t, md, "small-t + automaton, GPU: 1 of 12 instances measured, expanding 0.71 times the nodes of small-t's published counts, 4.91 M a second on the GPU;")
	// The instances not measured, projected from those measured and small-t's counts.
	assert.Contains(t, md, "small-t: 2 of 12 instances measured, expanding 1.00 times the nodes of small-t's published counts, 2.61 M a second on one worker; the other 10 (5.7e+09 nodes by small-t's counts) would take about 0.6 worker-hours.")
	assert.Contains(t, md, "small-t + automaton: 1 of 12 instances measured, expanding 0.71 times")
	require.NoError(t, r.Plot(filepath.Join(dir, "k.svg")))

	assert.Equal(t, instances.Korf24Twelve, r.File)

	// A record of an instance beyond the twelve makes the rows the campaign's 26.
	more := filepath.Join(dir, "more.json")
	require.NoError(t, os.WriteFile(more, []byte(`{"id":"k24-07","heuristic":"small-t","solved":true,"length":104,"nodes":9,"expanded":4,"seconds":2}`+"\n"), 0o644))
	r, err = Korf24([]string{path, more})
	require.NoError(t, err)
	assert.Equal(t, instances.Korf24Campaign, r.File)
	require.Len(t, r.IDs, 26)
	md = r.Markdown()
	assert.Contains(t, md, "| k24-07 | 104 | 4 | 9 | 2.0 | | | | | | | | | | 106,321,592,792 |")
	assert.Contains(t, md, "| total | | (3 of 26) | | | (1 of 26) | | | (1 of 26) | | | (1 of 26) | | |")
	require.NoError(t, r.Plot(filepath.Join(dir, "k26.svg")))

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"id":"k24-99","solved":true}`+"\n"), 0o644))
	_, err = Korf24([]string{bad})
	assert.ErrorContains(t, err, "in none of")
	_, err = Korf24(nil)
	assert.Error(t, err)
}
