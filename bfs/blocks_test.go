package bfs

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomBlocks makes a random bipartite block graph: blocks of length entries, edges
// between blocks of opposite sides, a third of them the identity, the rest random
// permutations (each with its inverse for the way back).
func randomBlocks(rng *rand.Rand, blocks, length, edges, perms, unit int) *BlockGraph {
	g := &BlockGraph{Blocks: blocks, Len: length, Side: make([]uint64, (blocks+63)/64), Perms: [][]uint16{nil}}
	for b := 0; b < blocks; b++ {
		if rng.IntN(2) == 1 {
			g.Side[b/64] |= 1 << (b % 64)
		}
	}
	inverse := map[int]int{0: 0}
	for i := 0; i < perms; i++ {
		p := make([]uint16, length)
		q := make([]uint16, length)
		for o, x := range rng.Perm(length) {
			p[o] = uint16(x)
			q[x] = uint16(o)
		}
		g.Perms = append(g.Perms, p, q)
		inverse[len(g.Perms)-2], inverse[len(g.Perms)-1] = len(g.Perms)-1, len(g.Perms)-2
	}
	adj := make([][]Edge, blocks)
	for len(adj) > 0 && edges > 0 {
		a, b := rng.IntN(blocks), rng.IntN(blocks)
		if g.sideOf(a) == g.sideOf(b) {
			continue
		}
		p := 0
		if rng.IntN(3) > 0 {
			p = 1 + rng.IntN(len(g.Perms)-1)
		}
		adj[a] = append(adj[a], Edge{To: uint32(b), Perm: uint16(p)})
		adj[b] = append(adj[b], Edge{To: uint32(a), Perm: uint16(inverse[p])})
		edges--
	}
	for b := range adj {
		g.Start = append(g.Start, uint32(len(g.Edges)))
		g.Edges = append(g.Edges, adj[b]...)
	}
	g.Start = append(g.Start, uint32(len(g.Edges)))
	for b := 0; b < blocks; b += unit {
		g.Units = append(g.Units, b)
	}
	g.Units = append(g.Units, blocks)
	return g
}

// blockReference is a plain breadth-first search over the entries.
func blockReference(g *BlockGraph, goals []int64) []uint8 {
	n := int64(g.Blocks) * int64(g.Len)
	dist := make([]uint8, n)
	for i := range dist {
		dist[i] = Unknown
	}
	var queue []int64
	for _, x := range goals {
		dist[x] = 0
		queue = append(queue, x)
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		b, o := int(x/int64(g.Len)), int(x%int64(g.Len))
		for _, e := range g.Edges[g.Start[b]:g.Start[b+1]] {
			t := o
			if e.Perm != 0 {
				t = int(g.Perms[e.Perm][o])
			}
			y := int64(e.To)*int64(g.Len) + int64(t)
			if dist[y] == Unknown {
				dist[y] = dist[x] + 1
				queue = append(queue, y)
			}
		}
	}
	return dist
}

// collect runs the block search and returns each entry's distance as emit heard it,
// failing on an entry heard of twice.
func collect(t *testing.T, g *BlockGraph, goals []int64, workers int, dir direction) ([]uint8, []int64) {
	t.Helper()
	n := int64(g.Blocks) * int64(g.Len)
	dist := make([]uint8, n)
	heard := make([]bool, n)
	var mu sync.Mutex
	twice := 0
	hist, err := runBlocks(context.Background(), g, goals, func(w, b, depth int, fresh []uint64) {
		for i, x := range fresh {
			for j := 0; j < 32; j++ {
				if x>>(2*j)&1 == 0 {
					continue
				}
				e := int64(b)*int64(g.Len) + int64(i*32+j)
				if e >= int64(b+1)*int64(g.Len) {
					mu.Lock()
					twice++ // an entry past the block: padding
					mu.Unlock()
					continue
				}
				if heard[e] {
					mu.Lock()
					twice++
					mu.Unlock()
				}
				heard[e] = true
				dist[e] = uint8(depth)
			}
		}
	}, BlockOptions{Options: Options{Workers: workers}}, dir)
	require.NoError(t, err)
	require.Zero(t, twice, "entries heard of twice, or padding")
	for i, h := range heard {
		require.True(t, h, "entry %d never heard of", i)
	}
	return dist, hist
}

// The block search finds the plain search's distances, pushing, pulling or choosing, on
// one worker or several, for blocks that fill their words and blocks that do not; the
// unreached entries are heard of last, with Unknown, and the histogram counts the rest.
func TestBlocksMatchReference(t *testing.T) {
	for _, c := range []struct {
		blocks, length, edges, perms, unit int
	}{{1, 1, 0, 0, 1}, {40, 3, 60, 2, 3}, {200, 32, 500, 4, 7}, {300, 120, 700, 6, 16}, {150, 720, 400, 5, 1}, {64, 45, 64, 3, 64}} {
		rng := rand.New(rand.NewPCG(uint64(c.blocks), uint64(c.length)))
		g := randomBlocks(rng, c.blocks, c.length, c.edges, c.perms, c.unit)
		require.NoError(t, g.Check())
		goals := []int64{int64(rng.IntN(c.blocks * c.length))}
		// A second goal on the first one's side.
		gb := int(goals[0]) / c.length
		for b := 0; b < c.blocks; b++ {
			if b != gb && g.sideOf(b) == g.sideOf(gb) {
				goals = append(goals, int64(b*c.length+rng.IntN(c.length)))
				break
			}
		}
		want := blockReference(g, goals)
		var wantHist []int64
		for _, d := range want {
			if d != Unknown {
				for int(d) >= len(wantHist) {
					wantHist = append(wantHist, 0)
				}
				wantHist[d]++
			}
		}
		for _, dir := range []direction{auto, alwaysPush, alwaysPull} {
			for _, workers := range []int{1, 3} {
				got, hist := collect(t, g, goals, workers, dir)
				require.Equal(t, want, got, "%+v, direction %d, %d workers", c, dir, workers)
				require.Equal(t, wantHist, hist)
			}
		}
	}
}

// Goals on both sides, outside the graph, or none are refused; so is a graph whose parts
// disagree.
func TestBlocksRefuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	g := randomBlocks(rng, 10, 4, 20, 1, 2)
	emit := func(w, b, depth int, fresh []uint64) {}
	_, err := RunBlocks(context.Background(), g, nil, emit, BlockOptions{})
	assert.ErrorContains(t, err, "no goal")
	_, err = RunBlocks(context.Background(), g, []int64{40}, emit, BlockOptions{})
	assert.ErrorContains(t, err, "outside")
	var a, b int
	for b = 1; g.sideOf(b) == g.sideOf(a); b++ {
	}
	_, err = RunBlocks(context.Background(), g, []int64{int64(a * 4), int64(b * 4)}, emit, BlockOptions{})
	assert.ErrorContains(t, err, "both sides")
	bad := *g
	bad.Units = []int{0, 5}
	_, err = RunBlocks(context.Background(), &bad, []int64{0}, emit, BlockOptions{})
	assert.ErrorIs(t, err, ErrGraph)
	bad = *g
	bad.Edges = append([]Edge(nil), g.Edges...)
	bad.Edges[0].To = 10
	_, err = RunBlocks(context.Background(), &bad, []int64{0}, emit, BlockOptions{})
	assert.ErrorIs(t, err, ErrGraph)
}

// A cancelled search stops with the context's error.
func TestBlocksCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	g := randomBlocks(rng, 100, 64, 300, 2, 4)
	ctx, cancel := context.WithCancel(context.Background())
	layers := 0
	_, err := RunBlocks(ctx, g, []int64{0}, func(w, b, depth int, fresh []uint64) {}, BlockOptions{Options: Options{Progress: func(l Layer) {
		if layers++; layers == 2 {
			cancel()
		}
	}}})
	assert.ErrorIs(t, err, context.Canceled)
}
