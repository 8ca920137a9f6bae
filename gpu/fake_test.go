//go:build linux && (amd64 || arm64)

package gpu

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/fakegpu"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/pdb"
)

// fakeDriver builds the fake driver (internal/fakegpu/testdata/fakecuda.cpp) as a libcuda.so.1 of its own and returns its
// path (skipped without g++, failed under TILEKIT_E2E=require).
func fakeDriver(t *testing.T, flags ...string) string {
	t.Helper()
	return fakegpu.Build(t, flags...)
}

// openFake opens the device of the fake driver, in its plain mode, for the test; it is
// closed when the test ends.
func openFake(t *testing.T) *Device {
	t.Helper()
	lib := fakeDriver(t)
	t.Setenv("TK_FAKE_CUDA", "")
	dv, err := Open(Options{Library: lib})
	require.NoError(t, err)
	t.Cleanup(func() { dv.Close() })
	return dv
}

// mdEngine is an engine of the Manhattan distance toward the 4x4 blank-first goal on dv,
// closed when the test ends.
func mdEngine(t *testing.T, dv *Device) (board.Goal, *ida.Solver, *Engine) {
	t.Helper()
	goal := board.BlankFirst(board.Size4x4)
	s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	e, err := dv.Engine(s)
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return goal, s, e
}

// splitInto is a plan's Split that splits every pass into about n subtrees.
func splitInto(n int) func(passes.PassPlan) (int, func([]board.Dir) bool) {
	return func(passes.PassPlan) (int, func([]board.Dir) bool) { return n, nil }
}

// Every way the driver can fail gives its own error, which says what was wrong.
func TestDriverErrors(t *testing.T) {
	lib := fakeDriver(t)
	missing := fakeDriver(t, "-DTK_FAKE_MISSING")
	s, err := ida.New(board.BlankLast(board.Size4x4), ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	cases := []struct {
		mode, library string
		want          error
		says          []string
	}{
		{"", filepath.Join(t.TempDir(), "nowhere", "libcuda.so.1"), ErrNoDriver, []string{"nowhere", "install the NVIDIA driver"}},
		{"", missing, ErrNoDriver, []string{"has no cuMemsetD8_v2"}},
		{"init", lib, errInit, []string{"cuInit", "CUDA_ERROR_NOT_INITIALIZED"}},
		{"none", lib, errNoDevice, []string{"sees no GPU"}},
		{"old", lib, errNoDevice, []string{"compute capability 7.0", "7.5"}},
		{"jit", lib, ErrJIT, []string{"ptxas fatal", "the fake driver compiles nothing", "CUDA_ERROR_INVALID_PTX", "R520"}},
	}
	for _, c := range cases {
		t.Run(c.mode+filepath.Base(filepath.Dir(c.library)), func(t *testing.T) {
			t.Setenv("TK_FAKE_CUDA", c.mode)
			dv, err := Open(Options{Library: c.library})
			require.Error(t, err)
			assert.Nil(t, dv)
			assert.ErrorIs(t, err, c.want)
			for _, w := range c.says {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	t.Run("another ordinal", func(t *testing.T) {
		t.Setenv("TK_FAKE_CUDA", "")
		_, err := Open(Options{Library: lib, Ordinal: 3})
		assert.ErrorIs(t, err, errNoDevice)
		assert.Contains(t, err.Error(), "GPU 3 asked for, the driver sees 1")
	})
	t.Run("small", func(t *testing.T) {
		t.Setenv("TK_FAKE_CUDA", "small")
		dv, err := Open(Options{Library: lib})
		require.NoError(t, err)
		defer dv.Close()
		_, err = dv.Engine(s)
		assert.ErrorIs(t, err, errMemory)
		assert.Contains(t, err.Error(), "MB are free on Fake GPU")
	})
	t.Run("heuristic", func(t *testing.T) {
		t.Setenv("TK_FAKE_CUDA", "")
		dv, err := Open(Options{Library: lib})
		require.NoError(t, err)
		defer dv.Close()
		lcKind, err := ida.ParseHeuristic("lc")
		require.NoError(t, err)
		lc, err := ida.New(board.BlankLast(board.Size4x4), ida.Options{Heuristic: lcKind})
		require.NoError(t, err)
		_, err = dv.Engine(lc)
		assert.ErrorIs(t, err, errHeuristic)
	})
}

// With the fake driver, whose launches run the kernel's search on the host, the engine
// searches as ida does: the solution and serial counts of every pass, through the layout,
// the uploads and the results.
func TestEngineOnTheFakeDriver(t *testing.T) {
	dv := openFake(t)
	info := dv.Info()
	assert.Equal(t, "Fake GPU", info.Name)
	assert.Equal(t, [2]int{9, 0}, info.Capability)
	assert.Equal(t, 2, info.SMs)
	assert.Equal(t, "13.0", info.DriverVersion())
	goal, s, e := mdEngine(t, dv)
	rng := rand.New(rand.NewPCG(11, 11))
	for k := 0; k < 3; k++ {
		start, _ := goal.RandomWalk(60, rng)
		want, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		got, err := s.Run(context.Background(), start, passes.Plan{
			Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if p.Bound < want.H0+2 {
					return 0, nil
				}
				return 200, nil
			},
			Runner: e,
		})
		require.NoError(t, err)
		assert.Equal(t, want.Moves, got.Moves)
		assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial)
		// Handed out last first, the same.
		got, err = s.Run(context.Background(), start, passes.Plan{
			Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if p.Bound < want.H0+2 {
					return 0, nil
				}
				return 200, nil
			},
			Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
				order := make([]uint32, len(b.Paths))
				for i := range order {
					order[i] = uint32(len(order) - 1 - i)
				}
				return e.Search(ctx, b, Hints{Order: order})
			}),
		})
		require.NoError(t, err)
		assert.Equal(t, want.Moves, got.Moves)
		assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial)
		// An order that does not name every subtree is refused.
		_, err = s.Run(context.Background(), start, passes.Plan{
			Split: splitInto(200),
			Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
				return e.Search(ctx, b, Hints{Order: make([]uint32, len(b.Paths)-1)})
			}),
		})
		assert.ErrorContains(t, err, "an order of")
	}
	st := e.Stats()
	assert.Positive(t, st.Passes)
	assert.Positive(t, st.Nodes)
	assert.Equal(t, 512, st.Threads)
	// md's frontier grew on the card to four roots a thread (the narrowing passes short of it).
	assert.Positive(t, st.Levels)
	assert.Greater(t, st.Roots, st.Subtrees)
	assert.GreaterOrEqual(t, st.GrowLaunches, 2*st.Levels)
	assert.Greater(t, st.Utilisation, 0.0)
	assert.LessOrEqual(t, st.Utilisation, 1.0)
	// Claims took the roots, and a claim that found none ended each warp's part of each
	// launch.
	assert.Positive(t, st.Claims)
	assert.GreaterOrEqual(t, st.Misses, uint64(st.Launches*st.Threads/32))
}

// Searches from several goroutines take the engine in turn: each gets ida's answer, each
// tally holds its own launches (together the engine's), and a search still waiting for
// its turn returns as soon as its context is done.
func TestSearchesTakeTurns(t *testing.T) {
	goal, s, e := mdEngine(t, openFake(t))
	rng := rand.New(rand.NewPCG(5, 5))
	starts := make([]board.State, 4)
	for i := range starts {
		starts[i], _ = goal.RandomWalk(60, rng)
	}
	tallies := make([]Stats, len(starts))
	errs := make([]error, len(starts))
	results := make([]*passes.Result, len(starts))
	var wg sync.WaitGroup
	for i := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = s.Run(context.Background(), starts[i], passes.Plan{
				Split: splitInto(200),
				Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
					return e.Search(ctx, b, Hints{Tally: &tallies[i]})
				}),
			})
		}()
	}
	wg.Wait()
	var sum Stats
	for i, start := range starts {
		require.NoError(t, errs[i])
		want, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		assert.Equal(t, want.Moves, results[i].Moves)
		assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, results[i].Serial)
		assert.Positive(t, tallies[i].Launches)
		assert.Positive(t, tallies[i].Nodes)
		sum.Add(tallies[i])
	}
	st := e.Stats()
	assert.Equal(t, []any{st.Passes, st.Launches, st.Subtrees, st.Roots, st.Nodes, st.Expanded, st.Claims, st.Busy, st.Cycles},
		[]any{sum.Passes, sum.Launches, sum.Subtrees, sum.Roots, sum.Nodes, sum.Expanded, sum.Claims, sum.Busy, sum.Cycles})
	assert.InDelta(t, st.Utilisation, sum.Utilisation, 1e-9)

	// A search waiting for its turn counts the wait.
	e.turn <- struct{}{}
	go func() {
		time.Sleep(100 * time.Millisecond)
		<-e.turn
	}()
	var waited Stats
	_, err := s.Run(context.Background(), starts[0], passes.Plan{
		Split: splitInto(200),
		Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			return e.Search(ctx, b, Hints{Tally: &waited})
		}),
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, waited.WaitSeconds, 0.09)

	// A search waiting for its turn gives up with its context: the turn is held here
	// until it returns, so it can return only by giving up.
	e.turn <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.Run(ctx, starts[0], passes.Plan{Split: splitInto(200), Runner: e})
	<-e.turn
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A node limit stops a launch: the search ends with passes.ErrNodeLimit, having generated
// at most the limit and what each thread generates between two polls (gpu.go: at most
// a turn's and a poll's expansions' children a thread, 64 expansions). Threads that finish
// a root after the stop take no other.
func TestNodeLimitStopsALaunch(t *testing.T) {
	dv := openFake(t)
	korf := corpus.Korf100()
	const limit = 20_000_000 // Korf #1 takes 276 M: the limit falls inside its pass of 46 M
	s, err := ida.New(korf[0].Goal, ida.Options{Heuristic: ida.MD, MaxNodes: limit})
	require.NoError(t, err)
	e, err := dv.Engine(s)
	require.NoError(t, err)
	defer e.Close()
	got, err := s.Run(context.Background(), korf[0].Start, passes.Plan{
		Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
			if len(p.Passes) == 0 || p.Passes[len(p.Passes)-1].Nodes < 100_000 {
				return 0, nil
			}
			return 100_000, nil
		},
		Runner: e,
	})
	require.ErrorIs(t, err, passes.ErrNodeLimit)
	require.NotNil(t, got)
	threads := uint64(e.Stats().Threads)
	require.Positive(t, threads)
	assert.GreaterOrEqual(t, got.Nodes, uint64(limit))
	assert.LessOrEqual(t, got.Nodes, uint64(limit)+threads*64*3, "at most 64 expansions' children a thread past the limit")
	assert.Positive(t, e.Stats().Launches)
}

// A kernel that faults gives ErrLaunch and leaves the GPU unusable for the rest of the
// process, as driver 580 does (the fake keeps the error after the context is released):
// opening the device again says so, and the CPU still searches. (solve15 device --fault
// runs the fault in a process of its own, then opens the device again in its own.)
func TestFaultThenRecover(t *testing.T) {
	lib := fakeDriver(t)
	t.Setenv("TK_FAKE_CUDA", "")
	goal := board.BlankLast(board.Size4x4)
	start, _ := goal.RandomWalk(50, rand.New(rand.NewPCG(2, 2)))
	s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	dv, err := Open(Options{Library: lib})
	require.NoError(t, err)
	e, err := dv.Engine(s)
	require.NoError(t, err)
	split := func(p passes.PassPlan) (int, func([]board.Dir) bool) { return 100, nil }
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	got, err := s.Run(context.Background(), start, passes.Plan{Split: split, Runner: e})
	require.NoError(t, err)
	assert.Equal(t, want.Moves, got.Moves, "before the fault")

	err = dv.Trap()
	assert.ErrorIs(t, err, ErrLaunch)
	assert.Contains(t, err.Error(), "CUDA_ERROR_LAUNCH_FAILED")
	assert.Contains(t, err.Error(), "start a new one")
	assert.ErrorIs(t, dv.Trap(), ErrLaunch, "the device stays broken")
	_, err = s.Run(context.Background(), start, passes.Plan{Split: split, Runner: e})
	assert.ErrorIs(t, err, ErrLaunch, "its engine too")
	e.Close()
	dv.Close()

	_, err = Open(Options{Library: lib})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CUDA_ERROR_LAUNCH_FAILED")
	assert.Contains(t, err.Error(), "start a new process")

	got, err = s.Solve(context.Background(), start)
	require.NoError(t, err)
	assert.Equal(t, want.Moves, got.Moves, "the CPU after the fault")
}

// With a set (5-5-5, reflected), the engine on the fake driver searches as ida does: the
// kernel's set search, its tables uploaded, the roots' values read back for BPMX.
func TestSetEngineOnTheFakeDriver(t *testing.T) {
	set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	assertEngineIsIDA(t, set)
}

// Where a set's threads give subtrees up, the engine searches their parts in later
// launches, what the pass still needs in serial order, and each subtree's result is the
// serial search's below it (its value as valueAgrees allows), up to the first solution: with every launch holding one
// few subtrees or the parts of one, more, or all, each subtree given up split in 2 or 16
// parts or more.
func TestSetEngineGivesUp(t *testing.T) {
	set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	lib := fakeDriver(t)
	t.Setenv("TK_FAKE_CUDA", "")
	korf := corpus.Korf100()
	s, err := ida.New(korf[0].Goal, ida.Options{Set: set})
	require.NoError(t, err)
	for _, tune := range []string{"giveup=300,chunk=8,parts=2", "giveup=100,chunk=60", "giveup=100,parts=16"} {
		knobs, err := ParseTune(tune, nil)
		require.NoError(t, err)
		dv, err := Open(Options{Library: lib, Tune: knobs})
		require.NoError(t, err)
		e, err := dv.Engine(s)
		require.NoError(t, err)
		start := korf[2].Start
		want, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		batches := 0
		got, err := s.Run(context.Background(), start, passes.Plan{
			Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
				if len(p.Passes) == 0 {
					return 0, nil
				}
				return 300, nil
			},
			Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
				out, err := e.SearchSubtrees(ctx, b)
				if err != nil {
					return out, err
				}
				batches++
				for i := range out {
					below, err := s.SearchBelow(ctx, b.Start, b.Paths[i], b.Bound)
					require.NoError(t, err)
					assert.True(t, out[i].Searched || out[i].Moves != nil, "%s: subtree %d of bound %d", tune, i, b.Bound)
					assert.Equal(t, below.Work, out[i].Work, "%s: subtree %d of bound %d", tune, i, b.Bound)
					assert.True(t, valueAgrees(out[i].Value, below.Value, b.H[i], len(b.Paths[i]), b.Bound),
						"%s: subtree %d of bound %d: value %d, ida's %d", tune, i, b.Bound, out[i].Value, below.Value)
					assert.Equal(t, below.Moves, out[i].Moves, "%s: subtree %d of bound %d", tune, i, b.Bound)
					if below.Moves != nil {
						break // the rest need no search
					}
				}
				return out, nil
			}),
		})
		require.NoError(t, err)
		assert.Equal(t, want.Moves, got.Moves, tune)
		assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial, tune)
		st := e.Stats()
		assert.Positive(t, st.GivenUp, tune)
		assert.Greater(t, st.Launches, st.Passes, tune)
		assert.Equal(t, batches, st.Passes, tune)
		t.Logf("%s: %d passes, %d launches, %d given up", tune, st.Passes, st.Launches, st.GivenUp)
		require.NoError(t, e.Close())
		require.NoError(t, dv.Close())
	}
}

// assertEngineIsIDA checks that the engine on the fake driver searches Korf's #1 and #3
// with set as ida does.
func assertEngineIsIDA(t *testing.T, set *pdb.Set) {
	t.Helper()
	dv := openFake(t)
	korf := corpus.Korf100()
	s, err := ida.New(korf[0].Goal, ida.Options{Set: set})
	require.NoError(t, err)
	e, err := dv.Engine(s)
	require.NoError(t, err)
	defer e.Close()
	for _, k := range []int{0, 2} {
		assertIDAs(t, s, e, korf[k].Start, 300)
	}
	assert.Positive(t, e.Stats().Passes)
}

// With a catalogue of zero-aware tables in the bit encoding, the engine on the fake driver
// searches as ida does: the kernel's catalogue search (cat.h), the tables, bits and index
// schemes uploaded, each root's lookups with it.
func TestCatalogueEngineOnTheFakeDriver(t *testing.T) {
	spec, err := pdb.NewCatalogue("4x4z", board.BlankLast(board.Size4x4), true, true, [][][]int{
		{{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}},
		{{1, 2, 5, 6}, {3, 4, 7, 8}, {9, 10, 13, 14}, {11, 12, 15}},
	})
	require.NoError(t, err)
	cat, err := pdb.NewSet(context.Background(), spec, 0)
	require.NoError(t, err)
	assertEngineIsIDA(t, toBits(t, cat))
}

// The scheduler's knobs are read as the device check writes them, refused with a message
// when wrong, and leave the search ida's: with every knob turned, the engine on the fake
// driver still gives ida's answer and serial counts.
func TestTune(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Tune
		more map[string]uint32 // the knobs given to more
		err  string
	}{
		{"", Tune{}, nil, ""},
		{"donate=512", Tune{DonateAfter: 512}, nil, ""},
		{" wait=1000 , poll=64,donate=16", Tune{DonateAfter: 16, PollEvery: 64, WaitMax: 1000}, nil, ""},
		{"turn=64", Tune{Turn: 64}, nil, ""},
		{"subtrees=65536,turn=8", Tune{Turn: 8}, map[string]uint32{"subtrees": 65536}, ""},
		{"large=4", Tune{}, map[string]uint32{"large": 4}, ""},
		{"giveup=2,large=16", Tune{GiveUp: 2}, map[string]uint32{"large": 16}, ""},
		{"chunk=1,giveup=9", Tune{GiveUp: 9, Chunk: 1}, nil, ""},
		{"parts=3,partgiveup=70", Tune{Parts: 3, PartGiveUp: 70}, nil, ""},
		{"nodonate=1,giveup=5", Tune{GiveUp: 5, NoDonate: 1}, nil, ""},
		{"window=1024", Tune{}, map[string]uint32{"window": 1024}, ""},
		{"per=4096,least=65536,subtrees=262144", Tune{}, map[string]uint32{"per": 4096, "least": 65536, "subtrees": 262144}, ""},
		{"donate=0", Tune{}, nil, "not KNOB=N"},
		{"donate", Tune{}, nil, "not KNOB=N"},
		{"speed=9", Tune{}, nil, `no knob "speed"`},
		{"poll=-1", Tune{}, nil, "not KNOB=N"},
		{"roots=1,keep=9,from=1000000", Tune{Roots: 1, Keep: 9}, map[string]uint32{"from": 1000000}, ""},
		{strings.Repeat("a", 100000), Tune{}, nil, `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (100000 bytes)"`},
	} {
		got := map[string]uint32{}
		more := map[string]func(uint32){}
		for _, k := range []string{"subtrees", "least", "per", "large", "window", "from"} {
			more[k] = func(n uint32) { got[k] = n }
		}
		tune, err := ParseTune(tc.text, more)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.text)
			assert.Less(t, len(err.Error()), 400, "what it refuses, quoted in part")
			continue
		}
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, tune, tc.text)
		if tc.more == nil {
			tc.more = map[string]uint32{}
		}
		assert.Equal(t, tc.more, got, tc.text)
	}
	_, err := ParseTune("from=9", nil)
	assert.ErrorContains(t, err, `no knob "from"`, "another package's knob, where it is not given")

	lib := fakeDriver(t)
	t.Setenv("TK_FAKE_CUDA", "")
	knobs, err := ParseTune("donate=16,poll=8,wait=1000,turn=3", nil)
	require.NoError(t, err)
	dv, err := Open(Options{Library: lib, Tune: knobs})
	require.NoError(t, err)
	defer dv.Close()
	goal := board.BlankFirst(board.Size4x4)
	s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	e, err := dv.Engine(s)
	require.NoError(t, err)
	defer e.Close()
	start, _ := goal.RandomWalk(60, rand.New(rand.NewPCG(3, 3)))
	assertIDAs(t, s, e, start, 200)
	assert.Positive(t, e.Stats().Donated, "a thread donates after 16 nodes")
}

// The self-test (solve15 device) runs its fixed positions, the catalogue's among them, on
// the fake driver: every one reaches the GPU (passes split onto it) and agrees with the CPU.
// Its catalogue is the kind small-t is (zero-aware, in bits, not eager), built in a moment.
func TestSelfTestPositionsReachTheGPU(t *testing.T) {
	dv := openFake(t)
	cat, err := selfTestCatalogue(context.Background())
	require.NoError(t, err)
	s, err := ida.New(board.BlankFirst(board.Size4x4), ida.Options{Set: cat})
	require.NoError(t, err)
	m, err := s.Model()
	require.NoError(t, err)
	require.False(t, m.Set.Eager)
	assert.True(t, m.Set.Lookups[0].InBits())

	cases := selfTestCases(cat)
	checks, err := selfTest(context.Background(), dv, 0)
	require.NoError(t, err)
	var want []string
	for _, c := range cases {
		want = append(want, c.starts...)
	}
	require.Len(t, checks, len(want), "every position, whatever the time")
	for i, c := range checks {
		start, err := board.Parse(board.Size4x4, want[i])
		if err != nil {
			start, err = board.Parse(board.Size5x5, want[i])
		}
		require.NoError(t, err)
		assert.Equal(t, start.String(), c.Start)
		assert.True(t, c.Agree, "%+v", c)
		assert.Positive(t, c.Passes, "%+v", c)
		assert.Positive(t, c.Device, "%+v: device nodes", c)
		assert.Greater(t, c.Serial, uint64(10_000), "%+v: large enough to split", c)
	}
	assert.Equal(t, "a zero-aware catalogue in bits", checks[len(checks)-1].Heuristic)
	assert.Equal(t, "5x5", checks[3].Board)
}

// A position solved in the first pass, which never reaches the GPU, fails the self-test:
// it cannot pass without the GPU having searched.
func TestSelfTestFailsWithoutTheGPU(t *testing.T) {
	dv := openFake(t)
	goal := board.BlankFirst(board.Size4x4)
	// Two moves from the goal: the Manhattan distance is exact, one pass.
	_, err := runCases(context.Background(), dv, []selfCase{
		{"md", goal, ida.Options{Heuristic: ida.MD}, []string{"1 5 2 3 4 0 6 7 8 9 10 11 12 13 14 15"}},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no pass went to the GPU")
	assert.Contains(t, err.Error(), "1 5 2 3")
}

// A limit the self-test cannot meet fails it and says how far it got; it does not make it
// check fewer positions and pass.
func TestSelfTestLimit(t *testing.T) {
	dv := openFake(t)
	_, err := selfTest(context.Background(), dv, time.Nanosecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not finish within 1ns")
	assert.Contains(t, err.Error(), "of its 9 positions checked")
}

// The kernel's local memory (the threads' paths) takes at most half the free memory for
// every thread the card could hold at once, which the driver reserves whatever a launch
// has: threads of 16 MB each would fit the fake card's 80 GB as the 512 a launch has,
// not as the 4,096 its two multiprocessors hold; the engine refuses them, and says why.
func TestThreadsFitTheMemory(t *testing.T) {
	lib := fakeDriver(t)
	s, err := ida.New(board.BlankFirst(board.Size4x4), ida.Options{Heuristic: ida.MD})
	require.NoError(t, err)
	threads := func(mode string) (int, error) {
		t.Setenv("TK_FAKE_CUDA", mode)
		dv, err := Open(Options{Library: lib})
		require.NoError(t, err)
		defer dv.Close()
		e, err := dv.Engine(s)
		if err != nil {
			return 0, err
		}
		defer e.Close()
		return e.Stats().Threads, nil
	}
	n, err := threads("")
	require.NoError(t, err)
	assert.Equal(t, 512, n, "two multiprocessors, a block of 256 each")
	_, err = threads("biglocal")
	assert.ErrorIs(t, err, errMemory)
	assert.ErrorContains(t, err, "16777.2 KB of local memory a thread, which the driver reserves for each of the 4096 threads Fake GPU holds at once: 68.7 GB")
	_, err = threads("hugelocal")
	assert.ErrorIs(t, err, errMemory)
	assert.ErrorContains(t, err, "1073741.8 KB of local memory")
}

// assertIDAs solves start with s, and again with every pass after the first split into
// about subtrees subtrees that e searches: the same moves and serial counts.
func assertIDAs(t *testing.T, s *ida.Solver, e *Engine, start board.State, subtrees int) {
	t.Helper()
	want, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	got, err := s.Run(context.Background(), start, passes.Plan{
		Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
			if len(p.Passes) == 0 {
				return 0, nil
			}
			return subtrees, nil
		},
		Runner: e,
	})
	require.NoError(t, err)
	assert.Equal(t, want.Moves, got.Moves, "%v", start)
	assert.Equal(t, passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}, got.Serial, "%v", start)
}
