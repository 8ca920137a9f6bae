package gpu

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
)

// hosts are the host builds made so far, by their flags: each is built once a test run.
var hosts struct {
	sync.Mutex
	dir  string
	bins map[string]string
}

// sanitizeEnv, when set, builds the host search with AddressSanitizer and
// UndefinedBehaviorSanitizer (.ci/run runs the emulations so once more).
const sanitizeEnv = "TILEKIT_HOST_SANITIZE"

// buildHost compiles the kernel's search as host C++ (kernel/host.cpp) with g++ and the
// given flags, and returns the program; without g++ the test is skipped, or fails under
// TILEKIT_E2E=require (.ci/run).
func buildHost(t *testing.T, flags ...string) string {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		if os.Getenv("TILEKIT_E2E") == "require" {
			t.Fatalf("no g++ to build the kernel's search on the host: %v", err)
		}
		t.Skipf("no g++ to build the kernel's search on the host: %v", err)
	}
	hosts.Lock()
	defer hosts.Unlock()
	key := strings.Join(flags, " ")
	if bin, ok := hosts.bins[key]; ok {
		return bin
	}
	if hosts.dir == "" {
		hosts.dir, err = os.MkdirTemp("", "tilekit-gpu-host")
		require.NoError(t, err)
		hosts.bins = map[string]string{}
	}
	bin := filepath.Join(hosts.dir, fmt.Sprintf("host%d", len(hosts.bins)))
	args := []string{"-std=c++17", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-DTK_HASH", "-DTK_TEST"}
	if os.Getenv(sanitizeEnv) != "" {
		// .ci/run's second look: out-of-bounds reads and writes, and undefined behaviour,
		// stop the search with a report.
		args = append(args, "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")
	}
	args = append(args, flags...)
	args = append(args, "-o", bin, "kernel/host.cpp")
	out, err := exec.Command(gxx, args...).CombinedOutput()
	require.NoError(t, err, "g++ %s:\n%s", strings.Join(args, " "), out)
	hosts.bins[key] = bin
	return bin
}

// TestMain removes the host builds once the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if hosts.dir != "" {
		os.RemoveAll(hosts.dir)
	}
	os.Exit(code)
}

// hostRunner is an passes.Runner that searches each batch with the host build of the
// kernel's search, threads virtual threads taking budget expansions a turn.
type hostRunner struct {
	t       *testing.T
	bin     string
	s       *ida.Solver
	m       *ida.Model
	threads int
	budget  int
	real    bool    // real threads, racing, rather than virtual ones stepped in turn
	after   int     // expansions below a root before a thread donates
	poll    int     // expansions between a thread's polls (0: the kernel's)
	grow    int     // the roots a batch's frontier grows to first (0: none)
	ordered bool    // the grown frontier ordered by slack (else in serial order)
	model   *arena  // the model's tables, laid out once
	at      modelAt // where
	// What the last launch reported (first: a batch's first, SearchSubtrees).
	last     *launch
	first    *launch
	launches int    // a batch's (SearchSubtrees)
	solving  uint64 // its subtrees where the first solution was met, searched again split
	hash     []uint64
	donated  uint64
	util     float64
	raised   int        // subtrees the launches so far marked raised (a donated part's value rose)
	heights  []int      // the last batch's roots' values as the search met them
	grown    []ida.Root // the last launch's roots when its frontier grew, and each one's subtree
	grownOf  []int
	// and their lookups (a catalogue's), as the engine lays them out
	grownSeeds []byte
	growth     growth
	levels     int // grown in all its launches
}

// SearchSubtrees searches the batch as the engine does (passRun), each launch run by the
// host build; then h.first is its first launch (the batch's own subtrees, as the threads
// counted them) and h.donated what all its launches donated.
func (h *hostRunner) SearchSubtrees(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
	h.heights = b.H
	var first *launch
	var donated uint64
	launches := 0
	r := &passRun{ctx: ctx, s: h.s, m: h.m, b: b, stats: &Stats{}, root: newLevel(b, h.m, nil, nil, nil), capacity: 1, parts: 1,
		grow: h.grow, launch: func(w work, _ []uint32, _ uint64) (*launch, error) {
			l, err := h.launch(ctx, w)
			if err == nil {
				first = cmp.Or(first, l)
				donated += h.donated
				launches++
			}
			return l, err
		}}
	res, err := r.run(nil)
	h.first, h.donated, h.launches, h.solving = first, donated, launches, r.stats.Solving
	return res, err
}

// launch searches w's roots in one run of the host build: the launch's memory laid out
// as the engine lays it out for a GPU (putModel, buffers.stage), in an arena the host
// build maps at the same addresses.
func (h *hostRunner) launch(ctx context.Context, w work) (*launch, error) {
	k, kd, err := kindOf(h.m)
	if err != nil {
		return nil, err
	}
	if h.model == nil {
		h.model = &arena{}
		if h.at, err = putModel(h.model, h.m); err != nil {
			return nil, err
		}
	}
	mem := h.model.clone()
	nl, np := 0, 0
	if kd.seeds {
		nl, np = len(h.m.Set.Lookups), h.m.Set.Parts
	}
	b, err := newBuffers(mem, hostQueue, nl, np)
	if err != nil {
		return nil, err
	}
	b.hashes = true
	values := h.m.Set != nil
	knobs := passKnobs{limit: w.limit, donateAfter: uint32(h.after), pollEvery: uint32(h.poll), donates: true, values: values}
	if err := b.stage(mem, w, nil, knobs); err != nil {
		return nil, err
	}
	run := func(launch, threads uint32) error {
		le := binary.LittleEndian
		in := []byte("tkhost2\n")
		for _, v := range []uint64{hostBase, uint64(len(mem.data)), b.pass, h.at.tables} {
			in = le.AppendUint64(in, v)
		}
		mode := uint32(0)
		if h.real {
			mode = 1
		}
		for _, v := range []uint32{uint32(k), launch, threads, uint32(h.budget), mode} {
			in = le.AppendUint32(in, v)
		}
		cmd := exec.CommandContext(ctx, h.bin)
		cmd.Stdin = bytes.NewReader(append(in, mem.data...))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("host search: %w: %s", err, stderr.String())
		}
		if len(out) != len(mem.data) {
			return fmt.Errorf("host search: %d bytes back of %d", len(out), len(mem.data))
		}
		mem.data = out
		return nil
	}
	h.grown, h.grownOf, h.grownSeeds, h.growth = nil, nil, nil, growth{}
	if w.grow > 0 {
		grow := func(which int, blocks uint32) error { return run(uint32(which), blocks*growBlock) }
		if h.growth, err = b.grow(mem, grow, len(w.roots), w.grow, !h.ordered); err != nil {
			return nil, err
		}
		h.grown, h.grownOf = h.roots(mem, b)
		h.levels += h.growth.levels
	}
	if err := run(0, uint32(h.threads)); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	n := len(w.roots)
	l, pass, err := b.collect(mem, n, values)
	if err != nil {
		return nil, err
	}
	hashes := make([]byte, 8*n)
	require.NoError(h.t, mem.download(hashes, b.hash))
	h.hash = make([]uint64, n)
	for i := range h.hash {
		h.hash[i] = le.Uint64(hashes[8*i:])
	}
	h.donated = le.Uint64(pass[passDonated:])
	h.util = float64(le.Uint64(pass[passBusy:])) / float64(le.Uint64(pass[passCycles:]))
	for _, v := range l.value {
		if v == raised {
			h.raised++
		}
	}
	h.last = l
	return l, nil
}

// hostQueue is the donated roots the host build's queue holds: fewer threads than a GPU's.
const hostQueue = 1 << 15

// hostBase is where the host build maps its arena (host.cpp): far above a process's heap
// and stacks, and above AddressSanitizer's shadow memory.
const hostBase = 0x5a0000000000

// arena is the memory of a launch of the host build (memory): addresses from hostBase,
// each allocation aligned as cuMemAlloc's are (256 bytes; Pass's fields take 128).
type arena struct{ data []byte }

func (a *arena) alloc(n uint64, what string) (uint64, error) {
	at := (len(a.data) + 255) &^ 255
	a.data = append(a.data, make([]byte, at-len(a.data)+int(max(n, 1)))...)
	return hostBase + uint64(at), nil
}

func (a *arena) free(uint64) {}

// span is n bytes of the arena at address p.
func (a *arena) span(p, n uint64) ([]byte, error) {
	if p < hostBase || p-hostBase+n > uint64(len(a.data)) {
		return nil, fmt.Errorf("arena: %d bytes at %#x, outside its %d", n, p, len(a.data))
	}
	return a.data[p-hostBase : p-hostBase+n], nil
}

func (a *arena) upload(p uint64, b []byte) error {
	s, err := a.span(p, uint64(len(b)))
	copy(s, b)
	return err
}

func (a *arena) download(b []byte, p uint64) error {
	s, err := a.span(p, uint64(len(b)))
	copy(b, s)
	return err
}

func (a *arena) zero(p, n uint64) error {
	s, err := a.span(p, n)
	clear(s)
	return err
}

// clone is a copy of the arena, to grow apart from it.
func (a *arena) clone() *arena { return &arena{data: append([]byte(nil), a.data...)} }

// boardHash is the host build's hash of a board (pass.h).
func boardHash(b []uint8) uint64 {
	h := uint64(1469598103934665603)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h
}

// reference searches below a root as docs/SEARCH.md says, with the model's tables (the
// Manhattan distance), to the end of the subtree: its counts and the sum of the hashes of
// its expanded boards.
func reference(m *ida.Model, r ida.Root, bound int) (gen, exp, hash uint64) {
	b := r.Board
	n := m.Size.Cells()
	var dfs func(g, h int, blank uint8, state uint32)
	dfs = func(g, h int, blank uint8, state uint32) {
		exp++
		hash += boardHash(b[:n])
		for i := 0; i < int(m.NMoves[blank]); i++ {
			ns := m.Pruning[state*4+uint32(m.MoveDir[blank][i])]
			if ns == prune.Pruned {
				continue
			}
			gen++
			q := m.MoveCell[blank][i]
			tile := b[q]
			nh := h + int(m.MD[tile][blank]) - int(m.MD[tile][q])
			if g+1+nh > bound || nh == 0 {
				continue
			}
			b[blank], b[q] = tile, 0
			dfs(g+1, nh, q, ns)
			b[q], b[blank] = tile, 0
		}
	}
	dfs(int(r.G), int(r.H), r.Blank, r.State)
	return gen, exp, hash
}

// solved makes the solver of goal with opt, its model, and its serial solution of start.
func solved(t *testing.T, goal board.Goal, opt ida.Options, start board.State) (*ida.Solver, *ida.Model, *passes.Result) {
	t.Helper()
	s, err := ida.New(goal, opt)
	require.NoError(t, err)
	m, err := s.Model()
	require.NoError(t, err)
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	return s, m, want
}

// The kernel's search, run on the host with many virtual threads that donate work to each
// other, gives ida's solution and serial counts, pass by pass, on positions of both boards
// and goals, with the move back and with an automaton; below every subtree before the
// solving one, its counts are ida's and the hash of its expanded boards the reference's.
func TestEmulatedSchemeIsIDA(t *testing.T) {
	bin := buildHost(t)
	fsm, err := prune.Build(context.Background(), board.Size4x4, 12)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(39, 39))
	four, five := board.BlankLast(board.Size4x4), board.BlankFirst(board.Size5x5)
	walk := func(g board.Goal, n int) board.State { s, _ := g.RandomWalk(n, rng); return s }
	cases := []struct {
		name  string
		goal  board.Goal
		start board.State
		opt   ida.Options
	}{
		{"4x4 blank-last", four, walk(four, 60), ida.Options{Heuristic: ida.MD}},
		{"4x4 blank-first, automaton", board.BlankFirst(board.Size4x4), walk(board.BlankFirst(board.Size4x4), 60), ida.Options{Heuristic: ida.MD, Pruning: fsm}},
		{"5x5 blank-first", five, walk(five, 44), ida.Options{Heuristic: ida.MD}},
	}
	donated := uint64(0)
	for _, c := range cases {
		for _, grow := range []int{0, 2000} {
			t.Run(fmt.Sprintf("%s, grown to %d", c.name, grow), func(t *testing.T) {
				emulatedScheme(t, bin, c.goal, c.opt, c.start, grow, &donated)
			})
		}
	}
	assert.Positive(t, donated, "threads donated work")
}

// emulatedScheme is a case of TestEmulatedSchemeIsIDA, its frontier grown to grow roots.
func emulatedScheme(t *testing.T, bin string, goal board.Goal, opt ida.Options, start board.State, grow int, donated *uint64) {
	s, m, want := solved(t, goal, opt, start)
	require.GreaterOrEqual(t, len(want.Passes), 5, "a test of at least five passes")
	h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 97, budget: 3, after: 8, grow: grow, ordered: true}
	checked, solving := 0, 0
	plan := passes.Plan{
		Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
			if p.Bound < want.H0+4 {
				return 0, nil
			}
			return 300, nil
		},
		Runner: h,
		OnPass: func(p passes.Pass, sp *passes.SplitPass) {
			if sp == nil {
				return
			}
			*donated += h.donated
			for _, w := range want.Passes {
				if w.Bound == p.Bound {
					assert.Equal(t, w.Work(), sp.Serial, "pass %d", p.Bound)
				}
			}
			// Subtree by subtree, before the solving one.
			for i := 0; i < h.first.best && i < len(sp.Paths) && checked < 400; i++ {
				r, err := s.SearchBelow(context.Background(), start, sp.Paths[i], p.Bound)
				require.NoError(t, err)
				assert.Equal(t, r.Work, sp.Results[i].Work, "pass %d, subtree %d", p.Bound, i)
				checked++
			}
			// The solving one: searched again split across the cores, its result
			// SearchBelow's, solution and counts.
			if best := h.first.best; best < len(sp.Paths) {
				r, err := s.SearchBelow(context.Background(), start, sp.Paths[best], p.Bound)
				require.NoError(t, err)
				require.NotNil(t, r.Moves)
				assert.Equal(t, r.Moves, sp.Results[best].Moves, "pass %d, the solving subtree %d", p.Bound, best)
				assert.Equal(t, r.Work, sp.Results[best].Work, "pass %d, the solving subtree %d", p.Bound, best)
				assert.Equal(t, uint64(1), h.solving, "pass %d: the solving subtree searched again, split", p.Bound)
				solving++
			}
		},
	}
	got, err := s.Run(context.Background(), start, plan)
	require.NoError(t, err)
	assert.Equal(t, want.Moves, got.Moves)
	assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial)
	assert.Positive(t, checked)
	assert.Equal(t, 1, solving, "the last pass's solving subtree")
}

// With real threads, racing for the frontier and the queue as the GPU's do, the counts are
// still ida's, pass by pass, run after run.
func TestRacingThreadsAreIDA(t *testing.T) {
	bin := buildHost(t)
	rng := rand.New(rand.NewPCG(41, 41))
	donated := uint64(0)
	for _, goal := range []board.Goal{board.BlankFirst(board.Size4x4), board.BlankFirst(board.Size5x5)} {
		s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
		require.NoError(t, err)
		m, err := s.Model()
		require.NoError(t, err)
		for k := 0; k < 3; k++ {
			start, _ := goal.RandomWalk(64, rng)
			want, err := s.Solve(context.Background(), start)
			require.NoError(t, err)
			h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 48, budget: 1 << 30, real: true, after: 32, grow: []int{0, 400}[k%2], ordered: true}
			got, err := s.Run(context.Background(), start, passes.Plan{Runner: h, Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if len(p.Passes) == 0 {
					return 0, nil
				}
				return 64, nil
			}, OnPass: func(passes.Pass, *passes.SplitPass) { donated += h.donated }})
			require.NoError(t, err)
			assert.Equal(t, want.Moves, got.Moves)
			assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial, "%s %s", goal.Name(), start)
		}
	}
	assert.Positive(t, donated, "threads donated work")
}

// The hash of the expanded boards below each subtree, summed by the host build, is the
// reference's (written from docs/SEARCH.md): the same nodes, not only as many.
func TestEmulatedSchemeExpandsTheSameNodes(t *testing.T) {
	bin := buildHost(t)
	goal := board.BlankLast(board.Size4x4)
	start, _ := goal.RandomWalk(70, rand.New(rand.NewPCG(5, 5)))
	s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	m, err := s.Model()
	require.NoError(t, err)
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	bound := want.Passes[len(want.Passes)-2].Bound // a pass without a solution: every subtree searched
	// The frontier as the host made it, and grown on the card to about ten times as many
	// roots, ordered by slack: the same nodes below each subtree.
	for _, grow := range []int{0, 5000} {
		h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 61, budget: 2, after: 8, grow: grow, ordered: true}
		var roots []ida.Root
		_, err = s.Run(context.Background(), start, passes.Plan{
			Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if p.Bound != bound {
					return 0, nil
				}
				return 500, nil
			},
			Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
				roots = ida.Roots(b)
				return h.SearchSubtrees(ctx, b)
			}),
		})
		require.NoError(t, err)
		require.NotEmpty(t, roots)
		require.Equal(t, len(roots), h.last.best, "no solution in the pass")
		if grow > 0 {
			assert.GreaterOrEqual(t, len(h.grown), grow, "the frontier grew")
			assert.Positive(t, h.growth.levels)
		}
		for i, r := range roots {
			gen, exp, hash := reference(m, r, bound)
			assert.Equal(t, gen, h.last.gen[i], "grown to %d: subtree %d", grow, i)
			assert.Equal(t, exp, h.last.exp[i], "grown to %d: subtree %d", grow, i)
			assert.Equal(t, hash, h.hash[i], "grown to %d: subtree %d", grow, i)
		}
		assert.Positive(t, h.donated)
	}
}

// The kernel's order of children is ida's: with one thread (no donation), the counts below
// the solving subtree, up to its solution, are ida's; a build that tries the children in
// another order (TK_PERTURB) is caught.
func TestEmulatedOrderIsIDAs(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	m, err := s.Model()
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(8, 8))
	for _, perturbed := range []bool{false, true} {
		var flags []string
		if perturbed {
			flags = []string{"-DTK_PERTURB"}
		}
		bin := buildHost(t, flags...)
		differ := 0
		for k := 0; k < 6; k++ {
			start, _ := goal.RandomWalk(60, rng)
			h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 1, budget: 1000}
			var b *passes.Batch
			res, err := s.Run(context.Background(), start, passes.Plan{
				Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) { return 50, nil },
				Runner: passes.RunnerFunc(func(ctx context.Context, batch *passes.Batch) ([]passes.SubtreeResult, error) {
					b = batch
					return h.SearchSubtrees(ctx, batch)
				}),
			})
			require.NoError(t, err)
			require.True(t, res.Solved)
			best := h.first.best
			require.Less(t, best, len(b.Paths))
			r, err := s.SearchBelow(context.Background(), start, b.Paths[best], b.Bound)
			require.NoError(t, err)
			if (passes.Work{Nodes: h.first.gen[best], Expanded: h.first.exp[best]}) != r.Work {
				differ++
			}
		}
		if perturbed {
			assert.Positive(t, differ, "the perturbed order is noticed")
		} else {
			assert.Zero(t, differ, "the kernel's order is ida's")
		}
	}
}

// The structures' layout in package gpu (layout_gen.go) is the kernel's, as the compiler
// lays it out: go generate made it from this very output.
func TestLayout(t *testing.T) {
	out, err := exec.Command(buildHost(t), "layout").Output()
	require.NoError(t, err)
	got := map[string]int{}
	var lines [][2]string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		require.Len(t, f, 2)
		n, err := strconv.Atoi(f[1])
		require.NoError(t, err)
		got[f[0]] = n
		lines = append(lines, [2]string{f[0], f[1]})
	}
	if *update {
		makeLayout(t, lines)
		t.Skip("made layout_gen.go: run the tests again to check it")
	}
	assert.Equal(t, layoutOf, got, "layout_gen.go is stale: go generate ./gpu")
}

// The kernel's search with a set (set.h), on the host with many virtual threads: every
// pass's serial counts are ida's, and below every subtree before the solving one its counts
// are ida's and its root's value as BPMX left it what the protocol allows beside ida's
// (valueAgrees), with 5-5-5 (a table stored through a mirror) reflected on Korf
// instances, with and without the automaton, and a 5x5 set. The threads donate: subtrees
// where a donated part would have cut its donor's node are split further and made from
// their parts'; threads that trust every part (TK_UNCHECKED) are caught. Some subtrees'
// values are raised within the bound by a donated part, and so lower than ida's.
func TestEmulatedSetIsIDA(t *testing.T) {
	bin := buildHost(t)
	five, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	spec := pdb.SetSpec{Name: "4x6", Goal: board.BlankFirst(board.Size5x5),
		Tables: [][]int{{1, 2, 5, 6}, {3, 4, 8, 9}, {7, 12, 13, 14}, {10, 11, 15, 16}, {17, 18, 22, 23}, {19, 20, 21, 24}}}
	spec.Lookups = pdb.TableLookups(spec.Tables)
	small, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	fsm, err := prune.Build(context.Background(), board.Size4x4, 12)
	require.NoError(t, err)
	korf := corpus.Korf100()
	fiveGoal := board.BlankFirst(board.Size5x5)
	fiveStart, _ := fiveGoal.RandomWalk(50, rand.New(rand.NewPCG(7, 7)))
	cases := []struct {
		name    string
		goal    board.Goal
		start   board.State
		opt     ida.Options
		threads int
	}{
		{"5-5-5 reflected, Korf #1", korf[0].Goal, korf[0].Start, ida.Options{Set: five}, 37},
		{"5-5-5 regular, automaton, Korf #3", korf[2].Goal, korf[2].Start, ida.Options{Set: five, Lookups: ida.Regular, Pruning: fsm}, 37},
		{"4x6 on 5x5, regular", fiveGoal, fiveStart, ida.Options{Set: small, Lookups: ida.Regular}, 37},
		{"5-5-5 regular, Korf #3, deep frontier", korf[2].Goal, korf[2].Start, ida.Options{Set: five, Lookups: ida.Regular}, 37},
		// Values raised within the bound by a donated part.
		{"5-5-5 regular, Korf #4", korf[3].Goal, korf[3].Start, ida.Options{Set: five, Lookups: ida.Regular}, 100},
		// Where threads that trust every part they donate are wrong (below).
		{"5-5-5 regular, Korf #2", korf[1].Goal, korf[1].Start, ida.Options{Set: five, Lookups: ida.Regular}, 100},
		{"5-5-5 regular, Korf #11", korf[10].Goal, korf[10].Start, ida.Options{Set: five, Lookups: ida.Regular}, 100},
	}
	raised, spoiled, lower, donated := 0, 0, 0, uint64(0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m, want := solved(t, c.goal, c.opt, c.start)
			require.NotNil(t, m.Set)
			h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: c.threads, budget: 5}
			checked := 0
			got, err := s.Run(context.Background(), c.start, passes.Plan{
				Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
					if len(p.Passes) == 0 {
						return 0, nil
					}
					if strings.Contains(c.name, "deep") {
						// Subtrees 20 moves above the bound, where BPMX cuts (ida's
						// TestSplitKeepsBPMXCuts).
						return 2, func(path []board.Dir) bool { return len(path) < p.Bound-20 }
					}
					return 400, nil
				},
				Runner: passes.RunnerFunc(h.SearchSubtrees),
				OnPass: func(p passes.Pass, sp *passes.SplitPass) {
					if sp == nil {
						return
					}
					heights := h.heights
					for _, w := range want.Passes {
						if w.Bound == p.Bound {
							assert.Equal(t, w.Work(), sp.Serial, "pass %d", p.Bound)
						}
					}
					for i := 0; i < h.first.best && i < len(sp.Paths); i++ {
						r, err := s.SearchBelow(context.Background(), c.start, sp.Paths[i], p.Bound)
						require.NoError(t, err)
						got := sp.Results[i]
						assert.Equal(t, r.Work, got.Work, "pass %d, subtree %d", p.Bound, i)
						assert.True(t, valueAgrees(got.Value, r.Value, heights[i], len(sp.Paths[i]), p.Bound),
							"pass %d, subtree %d at depth %d (h %d): value %d, ida's %d", p.Bound, i, len(sp.Paths[i]), heights[i], got.Value, r.Value)
						if got.Value < r.Value {
							lower++
						}
						checked++
					}
					for i := 0; i < h.first.best && i < len(sp.Results); i++ {
						if sp.Results[i].Value > heights[i] {
							raised++
						}
					}
				},
			})
			require.NoError(t, err)
			assert.Equal(t, want.Moves, got.Moves)
			assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial)
			assert.Positive(t, checked)
			donated += h.donated
			spoiled += h.raised
			t.Logf("donated %d (last launch), subtrees marked raised %d", h.donated, h.raised)
		})
	}
	assert.Positive(t, raised, "BPMX raised some roots' values")
	assert.Positive(t, donated, "threads donated")
	assert.Positive(t, spoiled, "subtrees where a donated part would have cut its donor's node")
	assert.Positive(t, lower, "subtrees whose value a donated part raised within the bound")

	// Threads that trust every part they donated (TK_UNCHECKED) are not the serial search:
	// some pass's serial counts differ, or its replay fails. (With polls every 128
	// expansions: at 32, the kernel's default, none of these cases happens to show it.)
	t.Run("unchecked", func(t *testing.T) {
		unchecked := buildHost(t, "-DTK_UNCHECKED")
		differ := 0
		for _, c := range cases[5:] {
			s, m, want := solved(t, c.goal, c.opt, c.start)
			h := &hostRunner{t: t, bin: unchecked, s: s, m: m, threads: c.threads, budget: 5, poll: 128}
			_, err := s.Run(context.Background(), c.start, passes.Plan{
				Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
					if len(p.Passes) == 0 {
						return 0, nil
					}
					return 400, nil
				},
				Runner: passes.RunnerFunc(h.SearchSubtrees),
				OnPass: func(p passes.Pass, sp *passes.SplitPass) {
					if sp == nil {
						return
					}
					for _, w := range want.Passes {
						if w.Bound == p.Bound && w.Work() != sp.Serial {
							differ++
						}
					}
					for i := 0; i < h.first.best && i < len(sp.Paths); i++ {
						r, err := s.SearchBelow(context.Background(), c.start, sp.Paths[i], p.Bound)
						require.NoError(t, err)
						if r.Work != sp.Results[i].Work || !valueAgrees(sp.Results[i].Value, r.Value, h.heights[i], len(sp.Paths[i]), p.Bound) {
							differ++
						}
					}
				},
			})
			if err != nil {
				differ++
			}
		}
		assert.Positive(t, differ, "passes or subtrees whose serial counts differ from ida's with donated parts trusted")
	})
}

// valueAgrees says whether got, a subtree's value from the GPU's search, is what the
// protocol allows beside want, the serial search's, for a root of value h at depth depth
// in a pass of bound bound: the same, or, where the serial value lies within the bound,
// any value from h up to it. A donated part may raise a value within the bound unseen,
// which cuts nothing (docs/SEARCH.md, section 6). A value of 0 stands for h.
func valueAgrees(got, want, h, depth, bound int) bool {
	if got != 0 && got < h {
		return false
	}
	got, want = max(got, h), max(want, h)
	return got == want || depth+want <= bound && got < want
}

// A subtree marked raised whose part of the pass holds no node below its root splits into
// no parts (passes.Deeper), its result its own search's: a later launch may then have nothing
// to search although the pass was unsettled before it was taken (k24-01 on an H200 stopped
// with "left unsettled with nothing to search"). The pass settles, with ida's counts.
func TestRaisedSubtreesOfNoParts(t *testing.T) {
	bin := buildHost(t)
	five, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	korf := corpus.Korf100()
	for _, k := range []int{0, 2} {
		t.Run(fmt.Sprintf("Korf #%d", k+1), func(t *testing.T) {
			s, m, want := solved(t, korf[k].Goal, ida.Options{Set: five, Lookups: ida.Regular}, korf[k].Start)
			h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 37, budget: 5}
			marked := 0
			runner := func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
				first := true
				r := &passRun{ctx: ctx, s: s, m: m, b: b, stats: &Stats{}, root: newLevel(b, m, nil, nil, nil), capacity: 1 << 20, parts: 16,
					launch: func(w work, _ []uint32, _ uint64) (*launch, error) {
						l, err := h.launch(ctx, w)
						if err != nil || !first {
							return l, err
						}
						// Every subtree of the pass's first launch that expanded only its
						// root (so nothing below it is in the pass), but the solving one,
						// marked as if a donated part of it had been raised.
						first = false
						for j := range l.exp {
							if j != l.best && l.exp[j] <= 1 && l.value[j] >= 0 {
								l.value[j] = raised
								marked++
							}
						}
						return l, nil
					}}
				return r.run(nil)
			}
			got, err := s.Run(context.Background(), korf[k].Start, passes.Plan{
				Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
					if len(p.Passes) == 0 {
						return 0, nil
					}
					return 400, nil
				},
				Runner: passes.RunnerFunc(runner),
			})
			require.NoError(t, err)
			assert.Positive(t, marked)
			assert.Equal(t, want.Moves, got.Moves)
			assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial)
		})
	}
}

// The kernel's search with a catalogue of zero-aware tables (cat.h), in nibbles and in
// the bit encoding, on the host with many virtual threads: every pass's serial counts are
// ida's, and below subtrees before the solving one their counts too; with a catalogue of
// two 4x4 partitions and their reflections, a zero-aware 5-5-5 with the automaton, and a
// zero-aware set on 5x5; with threads that donate (each donated root with its lookups),
// racing real threads, and one thread a subtree (whose solving subtree's counts are then
// ida's to the solution). A child order perturbed (TK_PERTURB) is noticed.
func TestEmulatedCatalogueIsIDA(t *testing.T) {
	bin := buildHost(t)
	cat := testCatalogue(t)
	five, err := pdb.NewSet(context.Background(), pdb.ZeroAwareOf(pdb.Set555, ""), 0)
	require.NoError(t, err)
	fiveSpec := pdb.ZeroAwareOf(pdb.SetSpec{Name: "4x6", Goal: board.BlankFirst(board.Size5x5),
		Tables: [][]int{{1, 2, 5, 6}, {3, 4, 8, 9}, {7, 12, 13, 14}, {10, 11, 15, 16}, {17, 18, 22, 23}, {19, 20, 21, 24}}}, "")
	fiveSpec.Lookups = pdb.TableLookups(fiveSpec.Tables)
	small, err := pdb.NewSet(context.Background(), fiveSpec, 0)
	require.NoError(t, err)
	fsm, err := prune.Build(context.Background(), board.Size4x4, 12)
	require.NoError(t, err)
	korf := corpus.Korf100()
	fiveGoal := board.BlankFirst(board.Size5x5)
	fiveStart, _ := fiveGoal.RandomWalk(60, rand.New(rand.NewPCG(9, 9)))
	cases := []testCase{
		{"4x4 catalogue, Korf #1", korf[0].Goal, korf[0].Start, ida.Options{Set: cat}},
		{"4x4 catalogue in bits, Korf #3", korf[2].Goal, korf[2].Start, ida.Options{Set: toBits(t, cat)}},
		{"zero-aware 5-5-5 in bits, automaton, Korf #3", korf[2].Goal, korf[2].Start, ida.Options{Set: toBits(t, five), Pruning: fsm}},
		{"zero-aware 4x6 on 5x5 in bits", fiveGoal, fiveStart, ida.Options{Set: toBits(t, small), Lookups: ida.Regular}},
	}
	// run searches case c with the host build bin, checks the serial counts pass by pass
	// and subtrees before the solving one, and returns in how many passes the solving
	// subtree's counts up to its solution differed from ida's (they depend on the order of
	// the children).
	run := func(t *testing.T, bin string, c testCase, after int, racing bool, grow int) (differ int, donated uint64) {
		s, m, want := solved(t, c.goal, c.opt, c.start)
		require.NotNil(t, m.Set)
		require.False(t, m.Set.Eager)
		_, k, err := kindOf(m)
		require.NoError(t, err)
		require.Equal(t, "ida_pass_cat", k.entry)
		h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: 37, budget: 5, after: after, real: racing, grow: grow, ordered: true}
		checked, split := 0, 0
		got, err := s.Run(context.Background(), c.start, passes.Plan{
			Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if len(p.Passes) == 0 {
					return 0, nil
				}
				return 400, nil
			},
			Runner: h,
			OnPass: func(p passes.Pass, sp *passes.SplitPass) {
				if sp == nil {
					return
				}
				split++
				donated += h.donated
				for _, w := range want.Passes {
					if w.Bound == p.Bound {
						assert.Equal(t, w.Work(), sp.Serial, "pass %d", p.Bound)
					}
				}
				for i := 0; i < h.first.best && i < len(sp.Paths) && checked < 200; i += 5 {
					r, err := s.SearchBelow(context.Background(), c.start, sp.Paths[i], p.Bound)
					require.NoError(t, err)
					assert.Equal(t, r.Work, sp.Results[i].Work, "pass %d, subtree %d", p.Bound, i)
					checked++
				}
				if best := h.first.best; best < len(sp.Paths) {
					if (passes.Work{Nodes: h.first.gen[best], Expanded: h.first.exp[best]}) != sp.Results[best].Work {
						differ++
					}
				}
			},
		})
		require.NoError(t, err)
		assert.Equal(t, want.Moves, got.Moves)
		assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial)
		assert.Positive(t, checked)
		assert.GreaterOrEqual(t, split, 2)
		if grow > 0 {
			assert.Positive(t, h.levels, "frontiers grown on the card")
		}
		return differ, donated
	}
	const never = 1 << 30
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Threads that donate, each donated root with its lookups.
			_, donated := run(t, bin, c, 20, false, 0)
			assert.Positive(t, donated)
		})
	}
	t.Run("racing threads", func(t *testing.T) {
		run(t, bin, cases[0], 20, true, 0)
	})
	// Each pass's frontier grown on the card (to 2,000 roots, ordered by slack), each root
	// with its lookups; threads that donate.
	for _, c := range cases[1:3] {
		t.Run("grown, "+c.name, func(t *testing.T) {
			_, donated := run(t, bin, c, 20, false, 2000)
			assert.Positive(t, donated)
		})
	}
	t.Run("one thread a subtree", func(t *testing.T) {
		differ, donated := run(t, bin, cases[1], never, false, 0)
		assert.Zero(t, differ, "the solving subtree's counts up to its solution are ida's")
		assert.Zero(t, donated)
	})
	t.Run("perturbed", func(t *testing.T) {
		differ, _ := run(t, buildHost(t, "-DTK_PERTURB"), cases[1], never, false, 0)
		assert.Positive(t, differ, "another order of children is noticed")
	})
}

// testCatalogue is a catalogue of zero-aware tables on 4x4 (blank last): two partitions,
// with their reflections.
func testCatalogue(t *testing.T) *pdb.Set {
	t.Helper()
	spec, err := pdb.NewCatalogue("4x4z", board.BlankLast(board.Size4x4), true, true, [][][]int{
		{{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}},
		{{1, 2, 5, 6}, {3, 4, 7, 8}, {9, 10, 13, 14}, {11, 12, 15}},
	})
	require.NoError(t, err)
	cat, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	return cat
}

// testCase is a position to search, with the solver's options.
type testCase struct {
	name  string
	goal  board.Goal
	start board.State
	opt   ida.Options
}

// toBits returns the set with its tables in the bit encoding.
func toBits(t *testing.T, set *pdb.Set) *pdb.Set {
	t.Helper()
	bits, err := set.ToBits(context.Background(), 0)
	require.NoError(t, err)
	return bits
}

// roots reads back the roots that the pass in mem's buffers b searches (its frontier, or
// the level it grew to), each with its subtree.
func (h *hostRunner) roots(mem *arena, b *buffers) ([]ida.Root, []int) {
	le := binary.LittleEndian
	var pass [passSize]byte
	require.NoError(h.t, mem.download(pass[:], b.pass))
	n := int(le.Uint32(pass[passNroots:]))
	raw := make([]byte, n*rootSize)
	require.NoError(h.t, mem.download(raw, le.Uint64(pass[passRoots:])))
	roots, subs := make([]ida.Root, n), make([]int, n)
	for i := range roots {
		o := raw[i*rootSize:]
		r := &roots[i]
		copy(r.Board[:], o[:cells])
		r.Blank, r.G, r.H = o[rootBlank], o[rootG], o[rootH]
		r.State = le.Uint32(o[rootState:])
		subs[i] = int(le.Uint32(o[rootSub:]))
		if h.m.Set == nil || h.growth.levels == 0 {
			require.Equal(h.t, uint8(kOwner), o[rootThr], "root %d's owner", i)
		} else {
			// A catalogue's grown roots do not own their top subtree's value: each may
			// return at most what leaves its parent uncut.
			bound := int(le.Uint32(pass[passBound:]))
			require.Equal(h.t, uint8(bound-int(r.G)+2), o[rootThr], "root %d's limit", i)
		}
	}
	if b.stride > 0 {
		h.grownSeeds = make([]byte, n*b.stride)
		require.NoError(h.t, mem.download(h.grownSeeds, le.Uint64(pass[passSeeds:])))
	}
	return roots, subs
}
