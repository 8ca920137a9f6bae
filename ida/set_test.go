package ida

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/pdb"
)

var (
	set555Once sync.Once
	set555     *pdb.Set
)

// testSet555 builds the 5-5-5 set once for the package's tests (three tables of 524,160
// entries, under a second).
func testSet555(t testing.TB) *pdb.Set {
	set555Once.Do(func() { set555, _ = pdb.NewSet(context.Background(), pdb.Set555, 0) })
	require.NotNil(t, set555)
	return set555
}

// dual returns the dual of s for goal g: tile t stands in the dual on the home of the tile
// that stands on t's home (the formula of dualH, on any board).
func dual(g board.Goal, s board.State) board.State {
	tiles := g.Tiles()
	d := make(board.State, len(s))
	for c := range s {
		t := tiles[c] // the tile whose home is c
		d[g.Home(int(s[c]))] = t
	}
	return d
}

// The dual of a state whose blank is on its home cell is exactly as far from the goal as
// the state, for every such state of the 8-puzzle under several goals: a solution's moves,
// taken in reverse order as swaps of cells, solve the dual. (For other states the inverse
// can be farther or nearer, even unsolvable: TestDualNeedsTheBlankHome.)
func TestDualDistances(t *testing.T) {
	for _, goal := range []board.Goal{
		board.BlankFirst(board.Size{W: 3, H: 3}),
		board.BlankLast(board.Size{W: 3, H: 3}),
		board.BlankLast(board.Size{W: 3, H: 2}),
		must(board.ParseGoal(board.Size{W: 3, H: 3}, "2 5 4 8 0 7 1 6 3")),
	} {
		dist := corpus.Distances(goal)
		checked := 0
		for key, d := range dist {
			s := board.State(key)
			// Any state, with the blank taken home first: never farther than the state
			// plus the blank's way home.
			home, path := blankHome(goal, s)
			dh, ok := dist[string(dual(goal, home))]
			require.True(t, ok)
			require.LessOrEqual(t, dh-path, d, "%v: normalised dual of %v", goal.Name(), s)
			require.Equal(t, (dh-path+8)%2, d%2, "parity")
			if s.Blank() != goal.Home(0) {
				continue
			}
			checked++
			dd, ok := dist[string(dual(goal, s))]
			require.True(t, ok, "%v: the dual of %v is reachable", goal.Name(), s)
			require.Equal(t, d, dd, "%v: dual of %v", goal.Name(), s)
			require.Equal(t, s, dual(goal, dual(goal, s)), "the dual of the dual is the state")
		}
		assert.Equal(t, factorial(goal.Size().Cells()-1)/2, checked, "every state with the blank home")
	}
}

func factorial(n int) int {
	if n <= 1 {
		return 1
	}
	return n * factorial(n-1)
}

// blankHome moves the blank of s to the goal's blank home, rows first, and returns the
// state reached and the moves made (the path dualH takes).
func blankHome(g board.Goal, s board.State) (board.State, int) {
	size := g.Size()
	s = s.Clone()
	moves := 0
	for b := s.Blank(); b != g.Home(0); b = s.Blank() {
		var d board.Dir
		switch hr, hc := size.Row(g.Home(0)), size.Col(g.Home(0)); {
		case size.Row(b) < hr:
			d = board.Down
		case size.Row(b) > hr:
			d = board.Up
		case size.Col(b) < hc:
			d = board.Right
		default:
			d = board.Left
		}
		size.Move(s, d)
		moves++
	}
	return s, moves
}

// The plain inverse is not an admissible lookup once the blank has left home: after k
// moves of the blank along the top row, k moves from the goal, the inverse's Manhattan
// distance (a lower bound of any additive set's value on it) is already 2k-1.
func TestInverseOverestimates(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	s := goal.Tiles()
	for k := 1; k <= 3; k++ {
		require.True(t, goal.Size().Move(s, board.Right))
		assert.Equal(t, k, goal.Manhattan(s), "the state is k moves away (Manhattan is exact here)")
		assert.Equal(t, 2*k-1, goal.Manhattan(dual(goal, s)), "k = %d", k)
		home, path := blankHome(goal, s)
		assert.Equal(t, goal.Tiles(), home)
		assert.Equal(t, k, path, "the normalised dual pays the way home")
	}
}

// With the blank elsewhere the inverse is not a dual: some are not even solvable.
func TestDualNeedsTheBlankHome(t *testing.T) {
	goal := board.BlankFirst(board.Size{W: 3, H: 3})
	dist := corpus.Distances(goal)
	s := must(goal.Parse("5 1 2 3 6 4 8 7 0"))
	_, ok := dist[string(dual(goal, s))]
	assert.False(t, ok)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Every lookup variant of a set solves Korf's instances optimally, and h0 never exceeds
// the optimum; on the easier ones the incremental values match values computed from scratch
// at every node.
func TestSetLookups(t *testing.T) {
	set := testSet555(t)
	korf := corpus.Korf100()
	nodes := map[Lookups]uint64{}
	for _, l := range []Lookups{Regular, Reflected, Dual, All} {
		s, err := New(korf[0].Goal, Options{Set: set, Lookups: l})
		require.NoError(t, err)
		for _, i := range []int{0, 2, 11, 15, 41, 54, 78} {
			in := korf[i]
			res, err := s.Solve(context.Background(), in.Start)
			require.NoError(t, err)
			assert.Equal(t, in.Optimal, len(res.Moves), "%s with %v", in.Name, l)
			assert.LessOrEqual(t, res.H0, in.Optimal)
			nodes[l] += res.Nodes
		}
	}
	t.Logf("nodes: %v", nodes)
	assert.Less(t, nodes[Reflected], nodes[Regular], "the reflection prunes")
	assert.Less(t, nodes[All], nodes[Reflected], "the duals prune more")
	assert.Less(t, nodes[Dual], nodes[Regular], "the duals prune more")
}

// The set's values agree with pdb.Set.Eval (regular lookups) on random states, through the
// frame of either goal.
func TestSetAgreesWithTables(t *testing.T) {
	set := testSet555(t)
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)} {
		s, err := New(goal, Options{Set: set, Lookups: Regular})
		require.NoError(t, err)
		rng := newRand(7)
		for i := 0; i < 300; i++ {
			st := goal.Random(rng)
			w := s.newWalk(st)
			// In the frame the goal is blank-last: evaluate the framed state directly.
			framed := make(board.State, 16)
			for c := 0; c < 16; c++ {
				framed[c] = w.board[c]
			}
			framed[w.pos[0]] = 0
			assert.Equal(t, set.Eval(framed), w.h(), "%v", st)
		}
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// Tables stored through a mirror (one entry of each pair of images) give the same values
// as full tables: a set of four row tables, three of them mirrored, solves optimally and
// agrees with pdb.Set.Eval on random states.
func TestMirroredTables(t *testing.T) {
	spec := pdb.SetSpec{Name: "rows", Goal: board.BlankLast(board.Size4x4),
		Tables: [][]int{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15}}}
	spec.Lookups = pdb.TableLookups(spec.Tables)
	set, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	mirrored := 0
	for _, tab := range set.Tables {
		if tab.Mirror != pdb.Identity {
			mirrored++
		}
	}
	require.Equal(t, 3, mirrored)
	s, err := New(board.BlankLast(board.Size4x4), Options{Set: set, Lookups: Regular})
	require.NoError(t, err)
	rng := newRand(9)
	for i := 0; i < 2000; i++ {
		st := board.BlankLast(board.Size4x4).Random(rng)
		assert.Equal(t, set.Eval(st), s.newWalk(st).h(), "%v", st)
	}
	korf := corpus.Korf100()
	rs, err := New(korf[0].Goal, Options{Set: set, Lookups: Reflected})
	require.NoError(t, err)
	for _, i := range []int{11, 41} {
		res, err := rs.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		assert.Equal(t, korf[i].Optimal, len(res.Moves))
	}
}

// Maxing a set with walking distance keeps every solution optimal and never raises nodes
// much; the values are at least those of the set alone.
func TestSetWithWD(t *testing.T) {
	set := testSet555(t)
	korf := corpus.Korf100()
	plain, err := New(korf[0].Goal, Options{Set: set})
	require.NoError(t, err)
	withWD, err := New(korf[0].Goal, Options{Set: set, WithWD: true})
	require.NoError(t, err)
	for _, i := range []int{0, 11, 41} {
		a, err := plain.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		b, err := withWD.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		assert.Equal(t, korf[i].Optimal, len(b.Moves))
		assert.GreaterOrEqual(t, b.H0, a.H0)
		assert.LessOrEqual(t, b.Nodes, a.Nodes)
	}
}

// On the 5x5 board the incremental values of a set match values computed from scratch at
// every node.
func TestFiveByFiveIncremental(t *testing.T) {
	spec := pdb.SetSpec{Name: "rows5", Goal: board.BlankFirst(board.Size5x5),
		Tables: [][]int{{1, 2, 3}, {4, 8, 9}, {5, 6, 7}, {10, 11, 12}, {13, 14, 19}, {15, 16, 17}, {18, 23, 24}, {20, 21, 22}}}
	spec.Lookups = pdb.TableLookups(spec.Tables)
	set, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	goal := board.BlankLast(board.Size5x5)
	s, err := New(goal, Options{Set: set, Lookups: All})
	require.NoError(t, err)
	rng := newRand(25)
	for i := 0; i < 3; i++ {
		start, _ := goal.RandomWalk(30, rng)
		res, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(res.Moves), 30)
	}
}

// A zero-aware set solves optimally, its incremental lookups (one table per move, the
// blank's region included) equal the lookups from scratch at every node, it agrees with
// pdb.Set.Eval, and it is at least as strong as the same partition's minimum over regions.
func TestZeroAwareSet(t *testing.T) {
	spec := pdb.ZeroAwareOf(pdb.Set555, "")
	spec.Lookups = pdb.TableLookups(spec.Tables)
	set, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	plain := testSet555(t)
	korf := corpus.Korf100()
	rng := newRand(11)
	for _, goal := range []board.Goal{board.BlankLast(board.Size4x4), board.BlankFirst(board.Size4x4)} {
		for _, lookups := range []Lookups{Regular, Reflected, All} {
			z, err := New(goal, Options{Set: set, Lookups: lookups})
			require.NoError(t, err)
			p, err := New(goal, Options{Set: plain, Lookups: lookups})
			require.NoError(t, err)
			for i := 0; i < 6; i++ {
				start, _ := goal.RandomWalk(45, rng)
				want, err := p.Solve(context.Background(), start)
				require.NoError(t, err)
				got, err := z.Solve(context.Background(), start)
				require.NoError(t, err)
				assert.Equal(t, len(want.Moves), len(got.Moves))
				assert.GreaterOrEqual(t, got.H0, want.H0)
				assert.LessOrEqual(t, got.Nodes, want.Nodes)
			}
		}
	}
	s, err := New(korf[0].Goal, Options{Set: set, Lookups: Regular})
	require.NoError(t, err)
	for _, i := range []int{0, 1, 2} {
		res, err := s.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		assert.Equal(t, korf[i].Optimal, len(res.Moves), "Korf %d", i+1)
	}
	for i := 0; i < 300; i++ {
		st := board.BlankLast(board.Size4x4).Random(rng)
		z, _ := New(board.BlankLast(board.Size4x4), Options{Set: set, Lookups: Regular})
		assert.Equal(t, set.Eval(st), z.newWalk(st).h(), "%v", st)
	}
}

// BenchmarkSet555 measures the set search's node rate on Korf's instances 0 to 9 (the
// 5-5-5 set, regular and reflected lookups).
func BenchmarkSet555(b *testing.B) {
	korf := corpus.Korf100()[:10]
	s, err := New(korf[0].Goal, Options{Set: testSet555(b)})
	require.NoError(b, err)
	benchKorf(b, s, korf)
}

// benchKorf solves the instances with s in each round, checks their lengths, and reports
// the nodes of a round and their rate.
func benchKorf(b *testing.B, s *Solver, korf []corpus.Case) {
	var nodes uint64
	for b.Loop() {
		for _, in := range korf {
			res, err := s.Solve(context.Background(), in.Start)
			require.NoError(b, err)
			require.Equal(b, in.Optimal, len(res.Moves), in.Name)
			nodes += res.Nodes
		}
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
