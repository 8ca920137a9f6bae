package ida_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	. "github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
)

// reference is IDA* with the Manhattan distance and the move back, written from
// docs/SEARCH.md alone (sections 1 to 3, one child at a time): the protocol's other
// implementation, against which ida's counts are checked.
type reference struct {
	size     board.Size
	home     []int
	cells    board.State
	bound    int
	gen, exp uint64
	path     []board.Dir
}

func (r *reference) md() int {
	h := 0
	for c, t := range r.cells {
		if t != 0 {
			h += abs(c/r.size.W-r.home[t]/r.size.W) + abs(c%r.size.W-r.home[t]%r.size.W)
		}
	}
	return h
}

func abs(x int) int { return max(x, -x) }

// dfs searches below the node at depth g with value h, the blank on cell blank, last the
// direction that led to it (-1 at the root).
func (r *reference) dfs(g, h, blank, last int) bool {
	r.exp++
	for _, d := range []board.Dir{board.Up, board.Left, board.Right, board.Down} {
		q := r.size.Step(blank, d)
		if q < 0 || last >= 0 && d == board.Dir(last).Opposite() {
			continue
		}
		r.gen++
		t := int(r.cells[q])
		r.cells[blank], r.cells[q] = r.cells[q], 0
		nh := r.md()
		found := false
		if g+1+nh <= r.bound {
			r.path = append(r.path, d)
			found = nh == 0 || r.dfs(g+1, nh, q, int(d))
			if !found {
				r.path = r.path[:len(r.path)-1]
			}
		}
		r.cells[q], r.cells[blank] = uint8(t), 0
		if found {
			return true
		}
	}
	return false
}

// solve runs the reference's passes; it returns the solution and every pass.
func (r *reference) solve(goal board.Goal, start board.State) ([]board.Dir, []passes.Pass) {
	r.size, r.cells = goal.Size(), start.Clone()
	r.home = make([]int, r.size.Cells())
	for t := range r.home {
		r.home[t] = goal.Home(t)
	}
	var all []passes.Pass
	blank := 0
	for c, t := range r.cells {
		if t == 0 {
			blank = c
		}
	}
	h0 := r.md()
	for r.bound = h0; ; r.bound += 2 {
		r.gen, r.exp, r.path = 0, 0, nil
		found := h0 == 0 || r.dfs(0, h0, blank, -1)
		if h0 == 0 {
			r.exp = 0
		}
		all = append(all, passes.Pass{Bound: r.bound, Nodes: r.gen, Expanded: r.exp})
		if found {
			return r.path, all
		}
	}
}

// workedExample reads docs/SEARCH.md's worked example: the goal, the start, the solution
// and each pass's bound and counts.
func workedExample(t *testing.T) (board.Goal, board.State, string, []passes.Pass) {
	t.Helper()
	doc, err := os.ReadFile("../docs/SEARCH.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "<!-- example -->\n")
	require.True(t, ok, "docs/SEARCH.md has no worked example")
	block, _, ok := strings.Cut(rest, "<!-- /example -->")
	require.True(t, ok)
	var goal board.Goal
	var start board.State
	var moves string
	var all []passes.Pass
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "goal:"):
			goal, err = board.ParseGoal(board.Size4x4, strings.TrimSpace(strings.TrimPrefix(line, "goal:")))
			require.NoError(t, err)
		case strings.HasPrefix(line, "start:"):
			start, err = board.Parse(board.Size4x4, strings.TrimPrefix(line, "start:"))
			require.NoError(t, err)
		case strings.HasPrefix(line, "moves:"):
			moves = strings.TrimSpace(strings.TrimPrefix(line, "moves:"))
		case strings.HasPrefix(line, "|") && !strings.Contains(line, "---") && !strings.Contains(line, "pass"):
			var f []int
			for _, cell := range strings.Split(strings.Trim(line, "|"), "|") {
				n, err := strconv.Atoi(strings.TrimSpace(cell))
				require.NoError(t, err, "a row of the example's table: %q", line)
				f = append(f, n)
			}
			require.Len(t, f, 4)
			require.Equal(t, len(all)+1, f[0])
			all = append(all, passes.Pass{Bound: f[1], Nodes: uint64(f[2]), Expanded: uint64(f[3])})
		}
	}
	require.NotEmpty(t, all)
	require.NotEmpty(t, moves)
	return goal, start, moves, all
}

// The worked example of docs/SEARCH.md is what ida does, and what the reference written
// from that page does, pass by pass; split at depth 2, its last pass gives the same
// solution and, summed, the same counts.
func TestWorkedExample(t *testing.T) {
	goal, start, moves, all := workedExample(t)
	s, err := New(goal, Options{Heuristic: MD})
	require.NoError(t, err)
	res, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	assert.Equal(t, moves, board.FormatDirs(res.Moves))
	assert.Equal(t, all, res.Passes)
	var ref reference
	refMoves, refPasses := ref.solve(goal, start)
	assert.Equal(t, moves, board.FormatDirs(refMoves))
	assert.Equal(t, all, refPasses)

	last := all[len(all)-1]
	var names []string
	plan := passes.Plan{Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
		if p.Bound == last.Bound {
			return 4, nil
		}
		return 0, nil
	}, Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
		for _, p := range b.Paths {
			names = append(names, board.FormatDirs(p))
		}
		return inOrder(s).SearchSubtrees(ctx, b)
	})}
	split, err := s.Run(context.Background(), start, plan)
	require.NoError(t, err)
	assert.Equal(t, []string{"UU", "UR", "RU", "RR"}, names, "the frontier at depth 2, in serial order")
	assert.Equal(t, moves, board.FormatDirs(split.Moves))
	// The top's work here is all of it; the serial search stops in the top where it meets
	// the solving subtree: the nodes the top generates after it are not the serial's.
	assert.GreaterOrEqual(t, split.Nodes, res.Nodes)
	assert.Equal(t, passes.Work{Nodes: res.Nodes, Expanded: res.Expanded}, split.Serial, "the serial counts of a split search")
}

// inOrder is a runner that searches a batch's subtrees here, one after another, up to the
// first solution.
func inOrder(s *Solver) passes.Runner {
	return passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
		out := make([]passes.SubtreeResult, len(b.Paths))
		for i, p := range b.Paths {
			r, err := s.SearchBelow(ctx, b.Start, p, b.Bound)
			out[i] = r
			if err != nil || r.Moves != nil {
				return out, err
			}
		}
		return out, nil
	})
}

// The reference written from docs/SEARCH.md counts what ida counts, pass by pass, on random
// positions of both boards.
func TestReferenceIsIDA(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 38))
	for _, size := range []board.Size{board.Size4x4, board.Size5x5} {
		for _, goal := range []board.Goal{board.BlankLast(size), board.BlankFirst(size)} {
			s, err := New(goal, Options{Heuristic: MD})
			require.NoError(t, err)
			for k := 0; k < 4; k++ {
				start, _ := goal.RandomWalk(24+4*k, rng)
				res, err := s.Solve(context.Background(), start)
				require.NoError(t, err)
				var ref reference
				moves, all := ref.solve(goal, start)
				assert.Equal(t, res.Passes, all, "%s %s", goal.Name(), start)
				assert.Equal(t, res.Moves, moves, "%s %s", goal.Name(), start)
			}
		}
	}
}

// Where BPMX cuts siblings (tables that are not zero-aware, dual lookups), a split search,
// whose subtrees' raised values cross the frontier, still reports the serial search's
// solution and counts, pass by pass, to the node: Korf's #3 with 5-5-5 (cuts at depths 26
// to 39 of all 55 to 59, 19 to 31 moves above the bound) with the reflection, split at a
// frontier 19 moves above the bound, by a runner searching in order and by this process's
// workers. (With the replay of section 6 turned off, the serial counts
// differ there, and at 9 more of 11 other such frontiers.) Passes whose subtrees' values
// rose short of cutting their parents are counted without a replay, to the same counts.
func TestSplitKeepsBPMXCuts(t *testing.T) {
	set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	korf := corpus.Korf100()
	start := korf[2].Start
	for _, lookups := range []Lookups{Reflected} {
		s, err := New(korf[0].Goal, WithWorkersSplit(Options{Set: set, Lookups: lookups, Workers: 2}))
		require.NoError(t, err)
		one, err := New(korf[0].Goal, Options{Set: set, Lookups: lookups})
		require.NoError(t, err)
		serial, err := one.Solve(context.Background(), start)
		require.NoError(t, err)
		require.NotZero(t, serial.Cuts, "the serial search has cuts")
		replayed, unseen := 0, 0 // all replayed; all with values raised short of a cut, not replayed
		for _, back := range []int{19} {
			split := func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if p.Bound < 50 {
					return 0, nil
				}
				return 2, func(path []board.Dir) bool { return len(path) < p.Bound-back }
			}
			var heights []int // the in-order runner's last batch's roots' values
			ordered := passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
				heights = b.H
				return inOrder(s).SearchSubtrees(ctx, b)
			})
			for _, runner := range []passes.Runner{ordered, nil} {
				heights = nil
				got, err := s.Run(context.Background(), start, passes.Plan{Split: split, Runner: runner, OnPass: func(p passes.Pass, sp *passes.SplitPass) {
					if sp == nil {
						return
					}
					for _, w := range serial.Passes {
						if w.Bound == p.Bound {
							assert.Equal(t, w.Work(), sp.Serial, "pass %d, frontier %d above it", p.Bound, back)
						}
					}
					if sp.Replayed {
						replayed++
					} else if heights != nil {
						for i, r := range sp.Results {
							if r.Value > heights[i] {
								unseen++
								break
							}
						}
					}
				}})
				require.NoError(t, err)
				assert.Equal(t, serial.Moves, got.Moves)
				assert.Equal(t, passes.Work{Nodes: serial.Nodes, Expanded: serial.Expanded}, got.Serial, "%s, frontier %d above the bound", lookups, back)
			}
		}
		assert.NotZero(t, replayed, "some subtree raised its root's value so far that it cut its parent")
		assert.NotZero(t, unseen, "all whose subtrees' values rose short of a cut, counted without a replay")
	}
}

// The heuristics docs/SEARCH.md calls consistent are: no move changes their value by more
// than 1, over random searches on both boards (md, IDA15's pdb, a zero-aware set, in nibbles and
// in bits); and a set that is not zero-aware is not.
func TestConsistentHeuristics(t *testing.T) {
	korf := corpus.Korf100()
	plain, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	zero, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	goal := korf[0].Goal
	cases := []struct {
		name       string
		goal       board.Goal
		opt        Options
		consistent bool
	}{
		{"md", goal, Options{Heuristic: MD}, true},
		{"md 5x5", board.BlankFirst(board.Size5x5), Options{Heuristic: MD}, true},
		{"5-5-5 zero-aware, reflected", goal, Options{Set: zero}, true},
		{"5-5-5 zero-aware, bits", goal, Options{Set: bitsOf(t, zero)}, true},
		{"5-5-5, reflected", goal, Options{Set: plain}, false},
	}
	for _, c := range cases {
		s, err := New(c.goal, c.opt)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(4, 4))
		worst := 0
		for walk := 0; walk < 60; walk++ {
			_, dirs := c.goal.RandomWalk(60, rng)
			st := c.goal.Tiles()
			prev, err := s.H0(st)
			require.NoError(t, err)
			for _, d := range dirs {
				st, err = c.goal.Size().Replay(st, []board.Dir{d})
				require.NoError(t, err)
				h, err := s.H0(st)
				require.NoError(t, err)
				worst = max(worst, abs(h-prev))
				prev = h
			}
		}
		if c.consistent {
			assert.LessOrEqual(t, worst, 1, c.name)
		} else {
			assert.Greater(t, worst, 1, c.name)
		}
	}
}

func bitsOf(t *testing.T, set *pdb.Set) *pdb.Set {
	t.Helper()
	out := &pdb.Set{SetSpec: set.SetSpec}
	for _, tab := range set.Tables {
		b, err := tab.ToBits(context.Background(), 0)
		require.NoError(t, err)
		out.Tables = append(out.Tables, b)
	}
	return out
}
