package repro

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/solve"
)

// A benchmark of three of Korf's instances: every length is the known optimum, the runs
// come in order and add up to the total.
func TestBench(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	src, name, err := BenchSource("", 0, 1, goal)
	require.NoError(t, err)
	defer src.Close()
	assert.Equal(t, "Korf's 100", name)
	ins, err := BenchInstances(context.Background(), src, name, goal, 3)
	require.NoError(t, err)
	require.Len(t, ins, 3)
	var runs []BenchRun
	var totals []BenchTotal
	require.NoError(t, Bench(context.Background(), goal, []string{"6-6-3/regular"}, ins, BenchOptions{Workers: 2},
		func(r BenchRun) { runs = append(runs, r) }, func(tot BenchTotal) { totals = append(totals, tot) }))
	require.Len(t, runs, 3)
	require.Len(t, totals, 1)
	var nodes uint64
	for i, r := range runs {
		assert.Equal(t, ins[i].ID, r.ID)
		assert.True(t, r.OK)
		assert.Equal(t, ins[i].Optimal, r.Length)
		nodes += r.Nodes
	}
	assert.Equal(t, nodes, totals[0].Nodes)
	assert.True(t, totals[0].AllOptimal)
	assert.Equal(t, 57+55+59, totals[0].LengthSum)
	assert.Contains(t, BenchMarkdown(totals), "| 6-6-3/regular | 2 | 3 | true | 171 |")

	// auto (the command's default) is named by what it chose, as solve15 chooses it.
	def, err := solve.New(context.Background(), goal, solve.Options{})
	require.NoError(t, err)
	totals = nil
	require.NoError(t, Bench(context.Background(), goal, []string{"auto", "@parent"}, ins[:1], BenchOptions{Workers: 1},
		func(BenchRun) {}, func(tot BenchTotal) { totals = append(totals, tot) }))
	require.Len(t, totals, 2)
	assert.Equal(t, def.Heuristic(), totals[0].Heuristic)
	assert.Equal(t, def.Heuristic()+"@parent", totals[1].Heuristic)

	err = Bench(context.Background(), goal, []string{"7-8/sideways"}, ins, BenchOptions{Workers: 1}, func(BenchRun) {}, func(BenchTotal) {})
	assert.ErrorIs(t, err, solve.ErrOptions)
	assert.Equal(t, []string{"md", "lc", "wd", "pdb", "max"}, BenchAll())
	_, err = BenchInstances(context.Background(), strings.NewReader("# nothing\n"), "empty", goal, 0)
	assert.ErrorContains(t, err, "no states in empty")
}
