package pdb

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
)

// Korf & Felner's tables packed straight from the block search equal the old way, the
// table of bytes packed afterwards (Pack), mirror and escapes included, for any number of
// workers: a pattern that is its own mirror image (4x4's top row), one that is not, and a
// 3x3 table with escapes (half excesses of 15 or more).
func TestAdditivePackedIsPack(t *testing.T) {
	for _, c := range []struct {
		goal  board.Goal
		tiles []int
	}{
		{last4, []int{1, 2, 3, 4}},
		{last4, []int{9, 10, 13, 14, 15}},
		{board.BlankLast(board.Size{W: 3, H: 3}), []int{1, 2, 3, 4, 5, 6, 7}},
		{board.BlankFirst(board.Size5x5), []int{1, 2, 3}},
	} {
		p := pattern(t, c.goal, c.tiles, false)
		want, err := Pack(context.Background(), build(t, p, 2))
		require.NoError(t, err)
		for _, workers := range []int{1, 3} {
			got, err := additivePacked(context.Background(), p, Options{Workers: workers})
			require.NoError(t, err)
			require.Equal(t, want.Mirror, got.Mirror, p.Name())
			require.True(t, bytes.Equal(want.Nibbles, got.Nibbles), "%s, %d workers: the nibbles", p.Name(), workers)
			require.Equal(t, want.Escapes, got.Escapes, p.Name())
		}
	}
}

// Packing in place gives each pair of bytes' nibbles to one byte, for lengths odd and
// even, and past the first waves.
func TestPackInPlace(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1 << 20, 5<<20 + 3} {
		b := make([]byte, n+1)
		for i := 0; i < n; i++ {
			b[i] = byte(i*7+i/3) & 15
		}
		want := make([]byte, (n+1)/2)
		for i := 0; i < n; i++ {
			want[i/2] |= b[i] << (4 * (i & 1))
		}
		got := packInPlace(b, n, 3)
		require.Len(t, got, len(want))
		require.True(t, bytes.Equal(want, got), "%d bytes", n)
	}
}

// A layer of a 6-tile build is split into enough independent units that 16 workers each
// hold one at once: each of the first 16 workers to take a unit of the widest layer waits
// until all 16 hold theirs (a search that could not give them that much work would never
// release them, and the test would fail at its deadline). Every unit they hold has states
// at that distance or the next. The table is the one built by one worker.
func TestSixteenWorkersShareALayer(t *testing.T) {
	p := pattern(t, last4, []int{1, 2, 5, 6, 9, 13}, false)
	zg, err := newZGraph(p, 16)
	require.NoError(t, err)
	// The widest layer, from a first build.
	one, err := zeroNibbles(context.Background(), p, Options{Workers: 1})
	require.NoError(t, err)
	values, err := one.Values(context.Background(), 2)
	require.NoError(t, err)
	var hist [256]int
	for _, v := range values {
		hist[v]++
	}
	widest := 0
	for d := range hist[:bfs.MaxDepth] {
		if hist[d] > hist[widest] {
			widest = d
		}
	}
	require.Greater(t, len(zg.g.Units)-1, 16, "units in a layer")

	const workers = 16
	var mu sync.Mutex
	held := map[int]int{} // worker: unit
	all := make(chan struct{})
	deadline := time.After(2 * time.Minute)
	timedOut := false
	nibbles := make([]byte, len(one.Nibbles))
	places := zg.z.Places()
	_, err = bfs.RunBlocks(context.Background(), &zg.g, []int64{zg.goal}, func(w, b, depth int, fresh []uint64) {
		var v slotView
		zg.view(&v, b)
		each(fresh, func(o int) {
			i := v.base + int64(o)
			e, _ := halfExcess(depth, v.mdOf(places[o], p.m))
			nibbles[i/2] |= e << (4 * (i & 1))
		})
	}, bfs.BlockOptions{Options: Options{Workers: workers}, Took: func(depth, worker, unit int) {
		if depth != widest {
			return
		}
		mu.Lock()
		_, seen := held[worker]
		if !seen && len(held) < workers {
			held[worker] = unit
			if len(held) == workers {
				close(all)
			}
		}
		mu.Unlock()
		if seen {
			return
		}
		select {
		case <-all:
		case <-deadline:
			mu.Lock()
			timedOut = true
			mu.Unlock()
		}
	}})
	require.NoError(t, err)
	require.False(t, timedOut, "16 workers never held units of one layer at once")
	require.Len(t, held, workers)
	// The units held had work: states at the layer's distance or the next.
	fact := zg.g.Len
	for w, u := range held {
		lo, hi := zg.g.Units[u]*fact, zg.g.Units[u+1]*fact
		found := false
		for i := lo; i < hi && !found; i++ {
			found = values[i] == uint8(widest) || values[i] == uint8(widest+1)
		}
		assert.True(t, found, "worker %d held unit %d without states at distance %d or %d", w, u, widest, widest+1)
	}
	// The bytes do not depend on the workers.
	assert.True(t, bytes.Equal(one.Nibbles, nibbles), "16 workers build the table one builds")
}

// BenchmarkZeroAware6 builds the zero-aware table of 6-6-6-6z's first group on 5x5
// (181,008,000 entries) in half-excess nibbles: the block search and its emitter (go test
// -bench ZeroAware6 -benchtime 1x).
func BenchmarkZeroAware6(b *testing.B) {
	p := pattern(b, board.BlankFirst(board.Size5x5), []int{1, 2, 5, 6, 7, 12}, false)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				if _, err := ZeroAware(context.Background(), p, Options{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(181_008_000)*float64(b.N)/b.Elapsed().Seconds()/float64(workers), "entries/s/core")
		})
	}
}
