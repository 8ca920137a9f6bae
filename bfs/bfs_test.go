package bfs

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adjGraph is a small undirected graph with 0- and 1-cost edges, for tests.
type adjGraph struct {
	adj [2][][]uint32 // adj[cost][s]
}

func (g *adjGraph) Len() int { return len(g.adj[0]) }

func (g *adjGraph) Expand(zero, one, src []uint32) ([]uint32, []uint32) {
	for _, s := range src {
		zero = append(zero, g.adj[0][s]...)
		one = append(one, g.adj[1][s]...)
	}
	return zero, one
}

func randomGraph(n, edges int, zeroShare float64, seed uint64) *adjGraph {
	rng := rand.New(rand.NewPCG(seed, 7))
	g := &adjGraph{}
	g.adj[0] = make([][]uint32, n)
	g.adj[1] = make([][]uint32, n)
	for i := 0; i < edges; i++ {
		a, b := uint32(rng.IntN(n)), uint32(rng.IntN(n))
		c := 1
		if rng.Float64() < zeroShare {
			c = 0
		}
		g.adj[c][a] = append(g.adj[c][a], b)
		g.adj[c][b] = append(g.adj[c][b], a)
	}
	return g
}

// reference is a plain sequential 0-1 BFS with a deque.
func reference(g *adjGraph, goals []uint32) []uint8 {
	n := g.Len()
	dist := make([]int, n)
	for i := range dist {
		dist[i] = 1 << 30
	}
	var deque []uint32
	for _, s := range goals {
		dist[s] = 0
		deque = append(deque, s)
	}
	for len(deque) > 0 {
		s := deque[0]
		deque = deque[1:]
		for c := 0; c < 2; c++ {
			for _, t := range g.adj[c][s] {
				if dist[s]+c < dist[t] {
					dist[t] = dist[s] + c
					if c == 0 {
						deque = append([]uint32{t}, deque...)
					} else {
						deque = append(deque, t)
					}
				}
			}
		}
	}
	out := make([]uint8, n)
	for i, d := range dist {
		if d == 1<<30 {
			out[i] = Unknown
		} else {
			out[i] = uint8(d)
		}
	}
	return out
}

func TestMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		n, edges int
		zero     float64
	}{
		{50, 60, 0},
		{3000, 3500, 0.3},
		{5000, 9000, 0.6},
		{20000, 25000, 0.5},
	} {
		g := randomGraph(tc.n, tc.edges, tc.zero, uint64(tc.n))
		goals := []uint32{0, 3, 3}
		want := reference(g, goals)
		for _, workers := range []int{1, 2, 3, 8} {
			got, err := Run(context.Background(), g, goals, Options{Workers: workers})
			require.NoError(t, err)
			require.Equal(t, want, got, "n=%d workers=%d", tc.n, workers)
		}
	}
}

func TestProgressCountsEveryReachedState(t *testing.T) {
	g := randomGraph(4000, 6000, 0.4, 9)
	var layers []Layer
	got, err := Run(context.Background(), g, []uint32{1}, Options{Workers: 2, Progress: func(l Layer) { layers = append(layers, l) }})
	require.NoError(t, err)
	hist := map[int]int64{}
	for _, v := range got {
		if v != Unknown {
			hist[int(v)]++
		}
	}
	// First a call before the search, nothing reached; then one a layer.
	require.Len(t, layers, len(hist)+1)
	assert.Equal(t, Layer{Total: 4000}, layers[0])
	layers = layers[1:]
	for i, l := range layers {
		assert.Equal(t, i, l.Depth)
		assert.Equal(t, hist[i], l.States, "layer %d", i)
	}
	assert.Equal(t, int64(4000), layers[0].Total)
}

func TestTooDeep(t *testing.T) {
	// A path of 300 unit edges is deeper than a byte can say.
	g := &adjGraph{}
	n := 300
	g.adj[0] = make([][]uint32, n)
	g.adj[1] = make([][]uint32, n)
	for i := 0; i+1 < n; i++ {
		g.adj[1][i] = append(g.adj[1][i], uint32(i+1))
		g.adj[1][i+1] = append(g.adj[1][i+1], uint32(i))
	}
	_, err := Run(context.Background(), g, []uint32{0}, Options{})
	assert.ErrorIs(t, err, ErrTooDeep)
	// 255 states (distances 0..254) just fit.
	g.adj[0], g.adj[1] = g.adj[0][:255], g.adj[1][:255]
	g.adj[1][254] = []uint32{253}
	out, err := Run(context.Background(), g, []uint32{0}, Options{})
	require.NoError(t, err)
	assert.Equal(t, uint8(254), out[254])
}

func TestCancel(t *testing.T) {
	g := randomGraph(20000, 30000, 0.2, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, g, []uint32{0}, Options{Workers: 2})
	assert.True(t, errors.Is(err, context.Canceled))
	_, err = Run(context.Background(), g, []uint32{20000}, Options{})
	assert.ErrorContains(t, err, "outside")
}
