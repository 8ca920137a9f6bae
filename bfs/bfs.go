// Package bfs runs parallel breadth-first searches over ranked state spaces, with results
// identical for any number of workers. It has two engines:
//
//   - Run, a 0-1 search: the states are the integers 0..n-1, the result is a flat array
//     holding every state's distance from a set of goal states, and moves cost 0 or 1
//     (the pattern databases with the blank in their index, IDA15's);
//   - RunBlocks, a search over a graph cut into blocks, whose every edge joins two blocks
//     entry by entry through a permutation (the pattern databases without the blank,
//     zero-aware or not: blocks.go), two bits an entry, expanded from the frontier or
//     from the unreached (Beamer et al. 2012), its layers handed to the caller.
//
// Run goes layer by layer. Layer d starts with the states first reached at distance
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

	"github.com/tilekit/tilekit/internal/par"
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
	Progress func(Layer) // called before the search (nothing reached) and after each layer, from the calling goroutine
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
	if opt.Progress != nil {
		// Said before the table is filled: a large one takes seconds to fill.
		opt.Progress(Layer{Depth: 0, Total: int64(n)})
	}
	t := newTable(n)
	e := newEngine(g, t, workers)
	var first []uint32
	for _, s := range goals {
		if int(s) >= n {
			return nil, fmt.Errorf("bfs: goal state %d outside the space of %d states", s, n)
		}
		if t.trySet(s, 0) {
			first = append(first, s)
		}
	}
	layer := lists{first}
	var reached int64
	for depth := 0; layer.len() > 0; depth++ {
		if depth > MaxDepth {
			return nil, ErrTooDeep
		}
		// Step 1: spread the layer's value over zero-cost moves, setting aside the
		// unit-cost neighbours.
		e.resetPending()
		size := int64(0)
		for round := layer; round.len() > 0; {
			size += int64(round.len())
			round = e.expand(ctx, round, uint8(depth))
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		reached += size
		if opt.Progress != nil {
			opt.Progress(Layer{Depth: depth, States: size, Reached: reached, Total: int64(n)})
		}
		// Step 2: the set-aside neighbours still unreached are the next layer. Past
		// MaxDepth the value would be Unknown, which trySet never writes: a non-empty
		// next layer then ends the loop with ErrTooDeep above.
		layer = e.claim(uint8(depth + 1))
	}
	return t.bytes(), nil
}

// lists is a set of states held as one slice per worker, so no step has to gather them.
type lists [][]uint32

func (l lists) len() int {
	n := 0
	for _, s := range l {
		n += len(s)
	}
	return n
}

// chunks cuts the lists into pieces of at most chunk states, the unit workers take.
func (l lists) chunks(dst [][]uint32) [][]uint32 {
	dst = dst[:0]
	for _, s := range l {
		for lo := 0; lo < len(s); lo += chunk {
			dst = append(dst, s[lo:min(lo+chunk, len(s))])
		}
	}
	return dst
}

// engine holds the workers' buffers, reused from layer to layer: after the first layers the
// search allocates almost nothing, so the garbage collector does not compete with the
// workers for the cores.
type engine struct {
	g       Graph
	t       *table
	workers int
	out     [2]lists // outputs of alternate steps: one is read while the other is written
	flip    int
	pending lists // unit-cost neighbours set aside during the current layer
	zero    [][]uint32
	pieces  [][]uint32
	buckets [][nBuckets][]uint32 // per worker: pending states sorted by index range
	shift   uint                 // state >> shift is its bucket
}

// nBuckets is how many index ranges claim sorts the pending states into, so that each
// range's compare-and-swaps stay within a cache-sized slice of the table.
const nBuckets = 256

func newEngine(g Graph, t *table, workers int) *engine {
	e := &engine{g: g, t: t, workers: workers, pending: make(lists, workers), zero: make([][]uint32, workers)}
	e.out[0], e.out[1] = make(lists, workers), make(lists, workers)
	e.buckets = make([][nBuckets][]uint32, workers)
	for uint64(g.Len())>>e.shift > nBuckets {
		e.shift++
	}
	return e
}

func (e *engine) resetPending() {
	for w := range e.pending {
		e.pending[w] = e.pending[w][:0]
	}
}

// outputs returns the buffers for the next step's results, emptied.
func (e *engine) outputs() lists {
	e.flip ^= 1
	out := e.out[e.flip]
	for w := range out {
		out[w] = out[w][:0]
	}
	return out
}

// parallel runs fn(w, piece) over the pieces on the workers.
func (e *engine) parallel(ctx context.Context, pieces [][]uint32, fn func(w int, piece []uint32)) {
	par.For(ctx, max(e.workers, 1), len(pieces), func(w, i int) { fn(w, pieces[i]) })
}

// expand expands src: it gives every unreached zero-cost neighbour the value v and returns
// those, and sets the unit-cost neighbours aside.
func (e *engine) expand(ctx context.Context, src lists, v uint8) lists {
	e.pieces = src.chunks(e.pieces)
	out := e.outputs()
	e.parallel(ctx, e.pieces, func(w int, piece []uint32) {
		e.zero[w], e.pending[w] = e.g.Expand(e.zero[w][:0], e.pending[w], piece)
		for _, s := range e.zero[w] {
			if e.t.trySet(s, v) {
				out[w] = append(out[w], s)
			}
		}
	})
	return out
}

// claim gives every unreached set-aside state the value v and returns those it gave it to.
// Each worker first sorts its own pending states into index ranges; then each range, from
// all workers, is claimed by one worker, so the random writes of a range stay in cache.
func (e *engine) claim(v uint8) lists {
	var wg sync.WaitGroup
	for w := range e.pending {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bk := &e.buckets[w]
			for b := range bk {
				bk[b] = bk[b][:0]
			}
			for _, s := range e.pending[w] {
				b := s >> e.shift
				bk[b] = append(bk[b], s)
			}
		}()
	}
	wg.Wait()
	out := e.outputs()
	var next atomic.Int64
	workers := min(e.workers, nBuckets)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1)) - 1
				if b >= nBuckets {
					return
				}
				for src := range e.buckets {
					for _, s := range e.buckets[src][b] {
						if e.t.trySet(s, v) {
							out[w] = append(out[w], s)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return out
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
