package ida

import (
	"cmp"
	"context"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/instances"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/prune"
)

// BenchmarkCatalogue24 measures a 24-puzzle set's search on one worker with installed
// tables: TILEKIT_BENCH_TABLES names their directory, TILEKIT_BENCH_SET the set (small-t by
// default) and TILEKIT_BENCH_INSTANCES the instances of instances/korf24-twelve.txt
// (k24-38,k24-40 by default), and TILEKIT_BENCH_DEPTH the depth of the pruning automaton
// (0, the default: the move-back rule). It reports expanded nodes and their rate; without tables it
// is skipped. For a profile:
//
//	TILEKIT_BENCH_TABLES=DIR go test -run '^$' -bench Catalogue24 -benchtime 1x -cpuprofile cpu.out ./ida
func BenchmarkCatalogue24(b *testing.B) {
	dir := os.Getenv("TILEKIT_BENCH_TABLES")
	if dir == "" {
		b.Skip("TILEKIT_BENCH_TABLES names no directory of installed tables")
	}
	name := cmp.Or(os.Getenv("TILEKIT_BENCH_SET"), "small-t")
	ids := strings.Split(cmp.Or(os.Getenv("TILEKIT_BENCH_INSTANCES"), "k24-38,k24-40"), ",")
	set, _, err := data.LoadSet(name, []string{dir})
	require.NoError(b, err)
	var starts []*instance.Instance
	r := instance.NewReader(strings.NewReader(instances.Text(instances.Korf24Twelve)), board.Size5x5)
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(b, err)
		if slices.Contains(ids, in.ID) {
			starts = append(starts, in)
		}
	}
	require.Len(b, starts, len(ids), "instances %v in korf24-twelve.txt", ids)
	goal := board.BlankFirst(board.Size5x5)
	depth, err := strconv.Atoi(cmp.Or(os.Getenv("TILEKIT_BENCH_DEPTH"), "0"))
	require.NoError(b, err)
	fsm, err := prune.Build(context.Background(), board.Size5x5, 0)
	if depth > 0 {
		// Read from the directory when installed there: depth 18 takes 1.5 min to build.
		fsm, _, _, err = data.Automaton(context.Background(), board.Size5x5, depth, []string{dir}, nil)
	}
	require.NoError(b, err)
	s, err := New(goal, Options{Set: set, Pruning: fsm})
	require.NoError(b, err)
	var expanded, total uint64
	for b.Loop() {
		for _, in := range starts {
			res, err := s.Solve(context.Background(), in.State)
			require.NoError(b, err)
			require.Equal(b, in.Optimal, len(res.Moves), in.ID)
			expanded += res.Serial.Expanded
			total += res.Expanded
		}
	}
	b.ReportMetric(float64(expanded)/float64(b.N), "expanded/op")
	b.ReportMetric(float64(total)/float64(b.N), "searched/op")
	b.ReportMetric(float64(expanded)/b.Elapsed().Seconds(), "expanded/s")
}

// BenchmarkSet16 measures Korf's 100 with a 4x4 set of installed tables on one worker, with
// the board's default automaton: TILEKIT_BENCH_TABLES names their directory,
// TILEKIT_BENCH_SET the set (7-8z by default). It reports nodes and their rate; without
// tables it is skipped. For a profile:
//
//	TILEKIT_BENCH_TABLES=DIR go test -run '^$' -bench Set16 -benchtime 5x -cpuprofile cpu.out ./ida
func BenchmarkSet16(b *testing.B) {
	dir := os.Getenv("TILEKIT_BENCH_TABLES")
	if dir == "" {
		b.Skip("TILEKIT_BENCH_TABLES names no directory of installed tables")
	}
	set, _, err := data.LoadSet(cmp.Or(os.Getenv("TILEKIT_BENCH_SET"), "7-8z"), []string{dir})
	require.NoError(b, err)
	fsm, _, _, err := data.Automaton(context.Background(), board.Size4x4, 0, []string{dir}, nil)
	require.NoError(b, err)
	korf := corpus.Korf100()
	s, err := New(korf[0].Goal, Options{Set: set, Pruning: fsm})
	require.NoError(b, err)
	benchKorf(b, s, korf)
}
