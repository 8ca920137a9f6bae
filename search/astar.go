package search

import (
	"container/heap"
	"context"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
)

// seen is what a best-first search remembers of a state: its best g, the blank move that
// reached it (noDir at the root), and whether it has been expanded.
type seen struct {
	g      int32
	dir    int8
	closed bool
}

const noDir = -1

type item struct {
	f, g  int32
	state board.State
	blank int8
}

// openList is a binary heap on f, ties toward larger g.
type openList []item

func (o openList) Len() int { return len(o) }
func (o openList) Less(i, j int) bool {
	if o[i].f != o[j].f {
		return o[i].f < o[j].f
	}
	return o[i].g > o[j].g
}
func (o openList) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o *openList) Push(x any)   { *o = append(*o, x.(item)) }
func (o *openList) Pop() any {
	old := *o
	it := old[len(old)-1]
	*o = old[:len(old)-1]
	return it
}

// frontier is one best-first search: A* itself, or one side of BA*.
type frontier struct {
	h     *heuristic.Heuristic
	size  board.Size
	moves *neighbours
	open  openList
	seen  map[key]seen
}

func newFrontier(h *heuristic.Heuristic, root board.State) *frontier {
	f := &frontier{h: h, size: h.Goal.Size(), moves: movesOf(h.Goal.Size()), seen: map[key]seen{}}
	f.seen[pack(root)] = seen{g: 0, dir: noDir}
	heap.Push(&f.open, item{f: int32(h.Eval(root)), g: 0, state: root.Clone(), blank: int8(root.Blank())})
	return f
}

// pop returns the next state to expand, skipping entries made stale by a better g.
func (f *frontier) pop() (item, bool) {
	for f.open.Len() > 0 {
		it := heap.Pop(&f.open).(item)
		k := pack(it.state)
		s := f.seen[k]
		if it.g > s.g || s.closed {
			continue
		}
		s.closed = true
		f.seen[k] = s
		return it, true
	}
	return item{}, false
}

// expand generates the children of it, calling visit for each new or improved one (after
// it is stored) and returns the number generated.
func (f *frontier) expand(it item, visit func(child board.State, k key)) uint64 {
	var generated uint64
	for _, mv := range f.moves[it.blank] {
		child := it.state.Clone()
		child[it.blank], child[mv.cell] = child[mv.cell], 0
		generated++
		k := pack(child)
		g := it.g + 1
		if old, ok := f.seen[k]; ok && old.g <= g {
			continue
		}
		f.seen[k] = seen{g: g, dir: int8(mv.dir)}
		heap.Push(&f.open, item{f: g + int32(f.h.Eval(child)), g: g, state: child, blank: int8(mv.cell)})
		if visit != nil {
			visit(child, k)
		}
	}
	return generated
}

// path returns the blank moves from the root to s, following the stored directions back.
func (f *frontier) path(s board.State) []board.Dir {
	s = s.Clone()
	var rev []board.Dir
	for {
		e := f.seen[pack(s)]
		if e.dir == noDir {
			break
		}
		d := board.Dir(e.dir)
		rev = append(rev, d)
		f.size.Move(s, d.Opposite())
	}
	out := make([]board.Dir, len(rev))
	for i, d := range rev {
		out[len(rev)-1-i] = d
	}
	return out
}

func aStar(ctx context.Context, h *heuristic.Heuristic, start board.State, opt Options) (*Result, error) {
	res := &Result{Algorithm: "astar"}
	goal := h.Goal.Tiles()
	rep := opt.reporter()
	f := newFrontier(h, start)
	for {
		it, ok := f.pop()
		if !ok {
			return res, ErrNoSolution
		}
		if it.state.Equal(goal) {
			res.Solved, res.Moves = true, f.path(it.state)
			return res, nil
		}
		if err := opt.limit(res); err != nil {
			return res, err
		}
		if res.Expanded%4096 == 0 {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			rep.tick(int(it.f), res.Nodes)
		}
		res.Expanded++
		res.Nodes += f.expand(it, nil)
		res.PeakStored = max(res.PeakStored, len(f.seen))
		if len(f.seen) > opt.maxStates() {
			return res, ErrMemory
		}
	}
}
