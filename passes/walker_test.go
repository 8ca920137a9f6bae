package passes

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

// toyEngine walks a made-up tree: every node has a child for each direction but the one
// that undoes its last move, in the order U, D, L, R; every node's value is 1 but the
// goal's (the path toyGoal), which is 0. So the pass of bound b holds every path of fewer
// than b moves, and its goal.
type toyEngine struct{ threads int }

var toyGoal = []board.Dir{board.Right, board.Down, board.Down, board.Left, board.Up, board.Left, board.Down}

func (e *toyEngine) Walkers(_ context.Context, b *Batch, n int) []Walker {
	ws := make([]Walker, n)
	for i := range ws {
		ws[i] = &toyWalker{bound: b.Bound}
	}
	return ws
}

func (e *toyEngine) Threads() int { return e.threads }

type toyWalker struct {
	bound   int
	path    []board.Dir
	work    Work
	moves   []board.Dir
	cut     *Cut
	aborted bool
}

func (w *toyWalker) Work() Work         { return w.work }
func (w *toyWalker) Aborted() bool      { return w.aborted }
func (w *toyWalker) Moves() []board.Dir { return w.moves }
func (w *toyWalker) Begin(bound int)    { w.bound = bound }
func (w *toyWalker) Apart() Walker      { return &toyWalker{bound: w.bound} }
func (w *toyWalker) Walkers(n int) []Walker {
	return (&toyEngine{}).Walkers(context.Background(), &Batch{Bound: w.bound}, n)
}
func (w *toyWalker) Gather(ws []Walker, outside Work) {
	w.work.Add(outside)
	for _, o := range ws {
		w.work.Add(o.Work())
	}
}

func (w *toyWalker) Walk(f *Frontier, i int, c *Cut) (bool, int, bool) {
	w.cut, w.path = c, nil
	h := 1
	if f != nil {
		w.path = slices.Clone(f.Path(i))
		h = f.H(i)
		if f.Payload(i)[0] != byte(len(w.path)) {
			panic("not the payload the walk wrote")
		}
	}
	found, value := w.dfs(h)
	return found, value, !w.aborted && (c == nil || !c.Gone())
}

func (w *toyWalker) dfs(h int) (bool, int) {
	g := len(w.path)
	if c := w.cut; c != nil && g >= c.At && (!c.Choosy() || c.Here(w.path)) {
		payload, r, stop := c.Meet(w.path, h, w.work)
		switch {
		case stop:
			return true, h
		case r != nil && r.Moves != nil:
			w.moves = r.Moves
			return true, h
		case r != nil:
			return false, max(h, r.Value)
		case payload != nil:
			payload[0] = byte(g)
		}
		return false, h
	}
	w.work.Expanded++
	for d := board.Up; d <= board.Right; d++ {
		if g > 0 && d^1 == w.path[g-1] { // U^1 = D, L^1 = R
			continue
		}
		w.work.Nodes++
		w.path = append(w.path, d)
		hc := 1
		if slices.Equal(w.path, toyGoal) {
			hc = 0
		}
		found := false
		switch {
		case g+1+hc > w.bound:
		case hc == 0:
			found, w.moves = true, slices.Clone(w.path)
		default:
			found, _ = w.dfs(hc)
		}
		w.path = w.path[:g]
		if found {
			return true, h
		}
	}
	return false, h
}

// toyNodes are a frontier's nodes, each as its path, depth and value.
func toyNodes(f *Frontier) []string {
	var out []string
	for i := range f.Len() {
		out = append(out, board.FormatDirs(f.Path(i))+":"+string(rune('0'+f.G(i)))+string(rune('0'+f.H(i))))
	}
	return out
}

// collect takes the shallowest depth with the nodes wanted; on several walkers below a
// shallower depth it collects the same frontier, with the same work before each node;
// refine splits the nodes it asks for; share finds the first solution in serial order
// with the serial counts up to it; replayTop gives those counts again; and a subtree
// split further (Deepen) gives the subtree's own result.
func TestWalkersSplitAPass(t *testing.T) {
	const bound = 7 // toyGoal's length: the pass that finds it
	e := &toyEngine{threads: 3}
	serial := func(f *Frontier, o collection) (*Frontier, Work) {
		return collect(&toyWalker{bound: bound}, f, o)
	}

	// 4 nodes at depth 1, 12 at 2, 36 at 3: 30 wanted is depth 3.
	f, top := serial(newFrontier(1, e), collection{Bound: bound, Want: 30})
	require.Equal(t, 36, f.Len())
	assert.Equal(t, "UUU:31", toyNodes(f)[0])
	assert.Equal(t, Work{Nodes: 4 + 12 + 36, Expanded: 1 + 4 + 12}, top)
	for i := 1; i < f.Len(); i++ {
		assert.Less(t, f.before(i-1).Nodes, f.before(i).Nodes, "serial order")
	}

	// The same frontier on two walkers, below the 4 nodes of depth 1.
	for _, want := range []int{30, 100, 1 << 20} {
		one, w1 := serial(newFrontier(1, e), collection{Bound: bound, Want: want})
		two, w2 := collect(&toyWalker{bound: bound}, newFrontier(1, e), collection{Bound: bound, Want: want, Workers: 2, From: 1})
		assert.Equal(t, toyNodes(one), toyNodes(two), "want %d", want)
		assert.Equal(t, w1, w2, "want %d", want)
		for i := range one.Len() {
			assert.Equal(t, one.before(i), two.before(i), "want %d, node %d", want, i)
		}
	}

	// Refined: the 9 nodes of depth 3 whose last move is U split one move deeper.
	up, _ := serial(newFrontier(1, e), collection{Bound: bound, Want: 30, Refine: func(p []board.Dir) bool {
		require.GreaterOrEqual(t, len(p), 3, "refine asked of the chosen depth and below only")
		return len(p) == 3 && p[2] == board.Up
	}})
	assert.Equal(t, 36-9+9*3, up.Len())
	assert.Equal(t, "UUUU:41", toyNodes(up)[0])

	// The pass searched whole, and split at depth 3 on three walkers.
	whole := &toyWalker{bound: bound}
	found, _, ok := whole.Walk(nil, 0, nil)
	require.True(t, found && ok)
	require.Equal(t, toyGoal, whole.Moves())
	results := share(e.Walkers(context.Background(), &Batch{Bound: bound}, 3), f)
	first := slices.IndexFunc(results, func(r SubtreeResult) bool { return r.Moves != nil })
	require.GreaterOrEqual(t, first, 0)
	assert.Equal(t, toyGoal, results[first].Moves)
	assert.Equal(t, "RDD", board.FormatDirs(f.Path(first)))
	sum := f.before(first)
	for i := 0; i <= first; i++ {
		require.True(t, results[i].Searched, "subtree %d", i)
		sum.Add(results[i].Work)
	}
	assert.Equal(t, whole.Work(), sum, "the serial counts up to the solution")
	replayed, at, err := replayTop(&toyWalker{bound: bound}, f, results)
	require.NoError(t, err)
	assert.Equal(t, first, at)
	assert.Equal(t, whole.Work(), replayed)
	results[first-1].Searched = false
	_, _, err = replayTop(&toyWalker{bound: bound}, f, results)
	assert.ErrorIs(t, err, ErrRunner, "a subtree before the solution unsearched")

	// The solution's subtree split into parts, searched apart: its own result.
	b := newBatch(nil, bound, 0, f)
	d, err := Deepen(context.Background(), b, []int{first}, 4)
	require.NoError(t, err)
	assert.Equal(t, 9, len(d.Batch.Paths), "RDD's nodes two moves below: 3 + 3 + 3")
	parts, err := Workers(2).SearchSubtrees(context.Background(), d.Batch)
	require.NoError(t, err)
	got, err := d.Results(context.Background(), parts)
	require.NoError(t, err)
	own := &toyWalker{bound: bound}
	_, _, _ = own.Walk(f, first, nil)
	assert.Equal(t, []SubtreeResult{{Searched: true, Work: own.Work(), Value: 1, Moves: toyGoal}}, got)
}
