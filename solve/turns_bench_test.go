package solve

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/fakegpu"
)

// BenchmarkGPUTurns runs GPU searches on the fake driver with an H100's threads (132
// multiprocessors of 4 blocks of 256: 135,168 virtual threads, stepped 7 nodes at a time,
// each warp's taking roots between the kernel's turns) and reports their length in nodes
// of one thread (rounds: the launches' steps summed, times 7), beside the device's and the
// serial search's expanded nodes: how well the kernel's threads share a search's work,
// which no machine without a GPU can time. TILEKIT_BENCH_TUNE is the tuning (e.g.
// turn=256,poll=128,donate=128, the knobs before 32); the sets and small-t need
// TILEKIT_BENCH_TABLES. Slow: the emulation runs every node of every thread on one core
// (md on Korf #2, 3 s; 6-6-6-6 on k24-40, 80 s; small-t on k24-40, 80 s).
func BenchmarkGPUTurns(b *testing.B) {
	lib := fakegpu.Build(b, "-march=native")
	dir := os.Getenv("TILEKIT_BENCH_TABLES")
	k24_40 := "2 17 4 13 7 12 10 3 0 16 21 24 8 5 18 20 15 19 14 9 22 11 6 1 23"
	cases := []struct {
		name  string
		size  board.Size
		start string
		opt   Options
	}{
		{"md/korf-2", board.Size4x4, "13 5 4 10 9 12 8 14 2 3 7 1 0 15 11 6", Options{Heuristic: "md", Pruning: PruneParent}},
		{"6-6-6-6/k24-40", board.Size5x5, k24_40, Options{Heuristic: "6-6-6-6", Tables: dir, PruningDepth: 14}},
		{"small-t/k24-40", board.Size5x5, k24_40, Options{Heuristic: "small-t", Tables: dir}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.opt.Tables == "" && c.opt.Heuristic != "md" {
				b.Skip("TILEKIT_BENCH_TABLES names no directory of tables")
			}
			log := filepath.Join(b.TempDir(), "launches")
			b.Setenv("TK_FAKE_CUDA", "")
			b.Setenv("TK_FAKE_SMS", "132")
			b.Setenv("TK_FAKE_BLOCKS", "4")
			b.Setenv("TK_FAKE_LOG", log)
			goal := board.BlankFirst(c.size)
			start, err := board.Parse(c.size, c.start)
			require.NoError(b, err)
			opt := c.opt
			opt.Device = Device{Kind: deviceGPU, Library: lib}
			require.NoError(b, opt.Device.SetTune(os.Getenv("TILEKIT_BENCH_TUNE")))
			s, err := New(context.Background(), goal, opt)
			require.NoError(b, err)
			defer s.Close()
			var res *Result
			for b.Loop() {
				require.NoError(b, os.RemoveAll(log))
				res, err = s.Solve(context.Background(), start)
				require.NoError(b, err)
			}
			require.NotNil(b, res.Device, "a pass on the GPU")
			f, err := os.Open(log)
			require.NoError(b, err)
			defer f.Close()
			rounds := 0
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var kernel string
				var threads, roots, step, steps int
				_, err := fmt.Sscan(sc.Text(), &kernel, &threads, &roots, &step, &steps)
				require.NoError(b, err)
				rounds += steps * step
			}
			require.NoError(b, sc.Err())
			b.ReportMetric(float64(rounds), "rounds")
			b.ReportMetric(float64(res.Device.Launches), "launches")
			b.ReportMetric(float64(res.Device.Expanded), "device-expanded")
			b.ReportMetric(float64(cmp.Or(res.SerialExpanded, res.Expanded)), "serial-expanded")
		})
	}
}
