// Package bfs runs parallel breadth-first searches over ranked state spaces: the states are
// the integers 0..n-1, the result is a flat array holding every state's distance from a set
// of goal states, and moves cost 0 or 1 (a 0-1 BFS).
//
// The search goes layer by layer. Layer d starts with the states first reached at distance
// d; then
//
//  1. zero-cost moves spread d through the layer, in rounds, until no new state is
//     reached; the unit-cost neighbours met on the way are set aside;
//  2. those set-aside neighbours that are still unreached form layer d+1.
//
// A state gets its value exactly once, by compare-and-swap from Unknown, so it is never
// written twice, and because step 1 finishes before step 2 begins, a state that can be
// reached at cost d is never first given d+1. Workers take chunks of each round's states;
// the distances are a function of the graph alone, so the result is identical for any
// number of workers and any scheduling.
//
// Cost: every state is expanded once, and every generated neighbour costs one atomic
// compare-and-swap on the shared array. Memory is one byte per state plus four bytes for
// each state of the current layer and each unit-cost neighbour it generates.
package bfs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Unknown is the value of states the search has not reached.
const Unknown = 0xFF

// MaxDepth is the largest distance the engine can record.
const MaxDepth = Unknown - 1

// ErrTooDeep reports a search whose distances do not fit in a byte.
var ErrTooDeep = errors.New("bfs: distances exceed 254")

// A Graph is a state space whose states are the integers 0..Len()-1.
//
// Expand is called by several goroutines at once, with chunks of states, and must be safe
// for concurrent use. For every state in src it appends the neighbours reached by a
// zero-cost move to zero and those reached by a unit-cost move to one, and returns both
// slices. The search goes from the goals outward, so for directed graphs Expand must list
// predecessors; the puzzle graphs are undirected.
type Graph interface {
	Len() int
	Expand(zero, one, src []uint32) ([]uint32, []uint32)
}

// Layer describes one finished layer, for progress reports.
type Layer struct {
	Depth   int   // distance of the layer
	States  int64 // states at that distance
	Reached int64 // states reached so far, this layer included
	Total   int64 // states in the space
}

// Options tune a search. The zero value uses all cores and reports nothing.
type Options struct {
	Workers  int         // goroutines; 0 means runtime.GOMAXPROCS(0)
	Progress func(Layer) // called after each layer, from the calling goroutine
}

// chunk is how many states a worker takes at a time: large enough to amortise the
// scheduling, small enough to balance two cores on a layer of a few thousand states.
const chunk = 1024

// Run computes the distance of every state of g from the goals. Unreached states keep the
// value Unknown. It stops early with ctx's error when ctx is cancelled.
func Run(ctx context.Context, g Graph, goals []uint32, opt Options) ([]uint8, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := g.Len()
	t := newTable(n)
	var layer []uint32
	for _, s := range goals {
		if int(s) >= n {
			return nil, fmt.Errorf("bfs: goal state %d outside the space of %d states", s, n)
		}
		if t.trySet(s, 0) {
			layer = append(layer, s)
		}
	}
	var reached int64
	for depth := 0; len(layer) > 0; depth++ {
		if depth > MaxDepth {
			return nil, ErrTooDeep
		}
		// Step 1: spread the layer's value over zero-cost moves, setting aside the
		// unit-cost neighbours.
		var pending []uint32
		for round := layer; len(round) > 0; {
			var more []uint32
			var err error
			round, more, err = expand(ctx, g, t, round, uint8(depth), workers)
			if err != nil {
				return nil, err
			}
			layer = append(layer, round...)
			pending = append(pending, more...)
		}
		reached += int64(len(layer))
		if opt.Progress != nil {
			opt.Progress(Layer{Depth: depth, States: int64(len(layer)), Reached: reached, Total: int64(n)})
		}
		// Step 2: the set-aside neighbours still unreached are the next layer. Past
		// MaxDepth the value would be Unknown, which trySet never writes: a non-empty
		// next layer then ends the loop with ErrTooDeep above.
		layer = claim(t, pending, uint8(depth+1), workers)
	}
	return t.bytes(), nil
}

// expand expands src: it gives every unreached zero-cost neighbour the value v and returns
// those, and returns all unit-cost neighbours.
func expand(ctx context.Context, g Graph, t *table, src []uint32, v uint8, workers int) (reached, one []uint32, err error) {
	workers = min(workers, (len(src)+chunk-1)/chunk)
	var next atomic.Int64 // index of the next chunk to take
	outs := make([][2][]uint32, max(workers, 1))
	work := func(w int) {
		var out, zero, one []uint32
		for ctx.Err() == nil {
			lo := int(next.Add(chunk)) - chunk
			if lo >= len(src) {
				break
			}
			hi := min(lo+chunk, len(src))
			zero, one = g.Expand(zero[:0], one, src[lo:hi])
			for _, s := range zero {
				if t.trySet(s, v) {
					out = append(out, s)
				}
			}
		}
		outs[w] = [2][]uint32{out, one}
	}
	if workers <= 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work(w)
			}()
		}
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return concat(outs, 0), concat(outs, 1), nil
}

// claim gives every unreached state of src the value v and returns those it gave it to.
func claim(t *table, src []uint32, v uint8, workers int) []uint32 {
	workers = max(1, min(workers, (len(src)+chunk-1)/chunk))
	outs := make([][2][]uint32, workers)
	var wg sync.WaitGroup
	per := (len(src) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out []uint32
			for _, s := range src[min(w*per, len(src)):min((w+1)*per, len(src))] {
				if t.trySet(s, v) {
					out = append(out, s)
				}
			}
			outs[w][0] = out
		}()
	}
	wg.Wait()
	return concat(outs, 0)
}

func concat(outs [][2][]uint32, k int) []uint32 {
	total := 0
	for _, o := range outs {
		total += len(o[k])
	}
	res := make([]uint32, 0, total)
	for _, o := range outs {
		res = append(res, o[k]...)
	}
	return res
}

// table holds one byte a state, four to a word, so that a state can be claimed by an
// atomic compare-and-swap (Go has no atomic bytes).
type table struct {
	n     int
	words []uint32
}

func newTable(n int) *table {
	t := &table{n: n, words: make([]uint32, (n+3)/4)}
	for i := range t.words {
		t.words[i] = 0xFFFFFFFF
	}
	return t
}

// trySet gives state s the value v if it has none yet, and reports whether it did. With
// v == Unknown it only reports whether s is unreached.
func (t *table) trySet(s uint32, v uint8) bool {
	w := &t.words[s>>2]
	shift := (s & 3) * 8
	for {
		old := atomic.LoadUint32(w)
		if (old>>shift)&0xFF != Unknown {
			return false
		}
		if v == Unknown {
			return true
		}
		if atomic.CompareAndSwapUint32(w, old, old&^(0xFF<<shift)|uint32(v)<<shift) {
			return true
		}
	}
}

func (t *table) bytes() []uint8 {
	out := make([]uint8, t.n)
	for i := range out {
		out[i] = uint8(t.words[i>>2] >> ((i & 3) * 8))
	}
	return out
}
