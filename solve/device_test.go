package solve

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/fakegpu"
	"github.com/tilekit/tilekit/passes"
)

// fakeGPU builds package gpu's fake driver (its launches run the kernel's search on the
// host) and returns its path.
func fakeGPU(t *testing.T) string { return fakegpu.Build(t) }

// --device gpu searches the large passes on the GPU (here the fake driver's emulation),
// with the CPU's solutions and serial counts, and says what the GPU did; a heuristic the
// GPU does not search is refused as a usage error; no driver is a failure that says so.
func TestDeviceGPU(t *testing.T) {
	lib := fakeGPU(t)
	t.Setenv("TK_FAKE_CUDA", "")
	goal := board.BlankFirst(board.Size4x4)
	cpu, err := New(context.Background(), goal, Options{Heuristic: "md", Pruning: PruneParent})
	require.NoError(t, err)
	s, err := New(context.Background(), goal, Options{Heuristic: "md", Pruning: PruneParent, Device: Device{Kind: deviceGPU, Library: lib}})
	require.NoError(t, err)
	defer s.Close()
	assert.Contains(t, s.About(), "Fake GPU")
	s.dev.force = 2000 // the fake driver's emulation is slow: small passes
	rng := rand.New(rand.NewPCG(6, 6))
	used := 0
	for k := 0; k < 3; k++ {
		start, _ := goal.RandomWalk(60, rng)
		want, err := cpu.Solve(context.Background(), start)
		require.NoError(t, err)
		got, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		assert.Equal(t, want.Moves, got.Moves)
		serial := got.Nodes
		if got.SerialNodes != 0 {
			serial = got.SerialNodes
		}
		assert.Equal(t, want.Nodes, serial)
		if got.Device != nil {
			used++
			assert.Equal(t, "Fake GPU", got.Device.Name)
			assert.Positive(t, got.Device.Passes)
			// Making each GPU pass's frontier takes some time, and less than the search.
			assert.Positive(t, got.Device.FrontierSeconds)
			assert.Less(t, got.Device.FrontierSeconds, got.Elapsed.Seconds())
		}
	}
	assert.Positive(t, used, "some search was large enough for the GPU")

	_, err = New(context.Background(), goal, Options{Heuristic: "pdb", Device: Device{Kind: deviceGPU, Library: lib}})
	assert.ErrorIs(t, err, ErrOptions)
	_, err = New(context.Background(), goal, Options{Heuristic: "md", Device: Device{Kind: deviceGPU, Library: filepath.Join(t.TempDir(), "none.so")}})
	assert.ErrorIs(t, err, gpu.ErrNoDriver)
	assert.NotErrorIs(t, err, ErrOptions)
	_, err = New(context.Background(), goal, Options{Heuristic: "md", Device: Device{Kind: "tpu"}})
	assert.ErrorIs(t, err, ErrOptions)
}

// --device auto without a usable GPU searches on the CPU, and says why.
func TestDeviceAutoWithoutGPU(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	s, err := New(context.Background(), goal, Options{Heuristic: "md", Device: Device{Kind: deviceAuto, Library: filepath.Join(t.TempDir(), "none.so")}})
	require.NoError(t, err)
	defer s.Close()
	start, _ := goal.RandomWalk(60, rand.New(rand.NewPCG(1, 1)))
	res, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	assert.True(t, res.Solved)
	assert.Nil(t, res.Device)
	s2, err := New(context.Background(), goal, Options{Heuristic: "pdb", Device: Device{Kind: deviceAuto}})
	require.NoError(t, err)
	assert.Contains(t, s2.Device(), "does not search pdb")
}

// --device auto moves a search to the GPU once its passes are large, and back to the CPU
// for good once a GPU pass is slower than the CPU's last (here a fake GPU that sleeps),
// with the same solution and serial counts, and says so.
func TestDeviceAutoChoosesTheFaster(t *testing.T) {
	lib := fakeGPU(t)
	t.Setenv("TK_FAKE_CUDA", "slow")
	goal := board.BlankFirst(board.Size4x4)
	start, err := board.Parse(board.Size4x4, "4 5 7 2 9 14 12 13 0 3 6 11 8 1 15 10") // Korf's #42: 877,822 nodes with md
	require.NoError(t, err)
	cpu, err := New(context.Background(), goal, Options{Heuristic: "md", Pruning: PruneParent})
	require.NoError(t, err)
	want, err := cpu.Solve(context.Background(), start)
	require.NoError(t, err)
	s, err := New(context.Background(), goal, Options{Heuristic: "md", Pruning: PruneParent, Device: Device{Kind: deviceAuto, Library: lib}})
	require.NoError(t, err)
	defer s.Close()
	assert.Contains(t, s.Device(), "expected to search faster")
	s.dev.force = 20_000
	got, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	assert.Equal(t, want.Moves, got.Moves)
	assert.Equal(t, want.Nodes, got.SerialNodes)
	require.NotNil(t, got.Device, "a pass went to the GPU")
	assert.Equal(t, 1, got.Device.Passes, "one, then back to the CPU")
	assert.Contains(t, s.Device(), "searching on the CPU")
}

// A pass of many subtrees is ordered by a counting sort on sizeKey; it gives the order a
// comparison sort gives (largest key first, serial order within a key), in windows too,
// and estimates an eighth apart fall under different keys.
func TestHintsOfManySubtrees(t *testing.T) {
	const n = 20_000
	rng := rand.New(rand.NewPCG(3, 3))
	size := make([]float64, n)
	paths := make([][]board.Dir, n)
	for i := range size {
		size[i] = float64(rng.IntN(3)) * math.Exp(rng.Float64()*20) // a third of them 0
		// Eight moves naming the subtree's index, base 4.
		for k := 0; k < 8; k++ {
			paths[i] = append(paths[i], board.Dir(i>>(2*k)&3))
		}
	}
	est := func(p []board.Dir) float64 {
		i := 0
		for k, d := range p {
			i |= int(d) << (2 * k)
		}
		return size[i]
	}
	b := &passes.Batch{Paths: paths}
	for _, window := range []int{0, 5_000, 1_000} {
		want := make([]uint32, n)
		w := window
		if w == 0 {
			w = n
		}
		for from := 0; from < n; from += w {
			part := want[from:min(from+w, n)]
			for k := range part {
				part[k] = uint32(from + k)
			}
			slices.SortFunc(part, func(x, y uint32) int {
				if c := cmp.Compare(sizeKey(size[y]), sizeKey(size[x])); c != 0 {
					return c
				}
				return cmp.Compare(x, y)
			})
		}
		got := hints(b, est, 1, window)
		assert.Equal(t, want, got.Order, "window %d", window)
	}
	assert.Less(t, sizeKey(100), sizeKey(112.6), "an eighth apart")
	assert.Equal(t, sizeKey(100), sizeKey(101), "within an eighth")
	assert.Less(t, sizeKey(0), sizeKey(1e-300))
}

// A GPU pass's subtrees go out largest first, by the last split pass's sizes: a subtree
// under a large one of the last pass before one under a small one, ties in serial order,
// within windows in serial order where asked; the pass is expected to take at least the
// last one's nodes.
func TestHints(t *testing.T) {
	dirs := func(s string) []board.Dir { d, err := board.ParseDirs(s); require.NoError(t, err); return d }
	last := &passes.SplitPass{Paths: [][]board.Dir{dirs("U"), dirs("L"), dirs("R")},
		Results: []passes.SubtreeResult{{Work: passes.Work{Nodes: 10}}, {Work: passes.Work{Nodes: 1000}}, {Work: passes.Work{Nodes: 100}}}}
	history := []passes.Pass{{Bound: 40, Nodes: 1000}, {Bound: 42, Nodes: 5000}}
	b := &passes.Batch{Paths: [][]board.Dir{dirs("UL"), dirs("UR"), dirs("LU"), dirs("LD"), dirs("RU"), dirs("DD")}}
	sch := hints(b, passEstimate(last, history), 5000, 0)
	assert.Equal(t, gpu.Hints{Order: []uint32{2, 3, 4, 0, 1, 5}, Expected: 5000}, sch)
	sch = hints(b, passEstimate(last, history), 5000, 4)
	assert.Equal(t, gpu.Hints{Order: []uint32{2, 3, 0, 1, 4, 5}, Expected: 5000}, sch, "windows of 4 in serial order")
	sch = hints(b, passEstimate(last, history), 5000, 1)
	assert.Equal(t, gpu.Hints{Expected: 5000}, sch, "windows of 1: serial order")
	sch = hints(b, passEstimate(nil, history), 5000, 0)
	assert.Equal(t, gpu.Hints{Expected: 5000}, sch, "no split pass before: serial order")
	assert.Equal(t, 25_000.0, nextPass(history), "the last pass grown as it grew: 5,000 times 5")
	assert.Zero(t, nextPass(history[:1]), "one pass: no growth known")

	// Where the GPU's threads do not donate (a set's), a subtree expected above large
	// times the mean of the pass's subtrees is split further: here the pass is expected at
	// 25,000 nodes (5,000 grown 5 times), 6 subtrees, a mean of 4,167.
	split := splitLarge(passEstimate(last, history), history, 6, 1)
	require.NotNil(t, split)
	for _, c := range []struct {
		path  string
		split bool
	}{{"L", true}, {"LU", false}, {"R", false}, {"U", false}, {"D", false}} {
		assert.Equal(t, c.split, split(dirs(c.path)), c.path)
	}
	assert.Nil(t, splitLarge(passEstimate(last, history), history, 6, 0), "by default, none")
	assert.Nil(t, splitLarge(nil, history, 6, 1), "no estimates: no split")
}

// A GPU pass is split into one subtree for every 131,072 nodes of the last pass (that is,
// for every 1,048,576 of the pass expected), from 4,096 to 65,536 (or the tuning's most),
// never more than an eighth of the last pass.
func TestGPUSubtrees(t *testing.T) {
	for _, c := range []struct {
		last    uint64
		most    int
		donates bool
		want    int
	}{
		{0, 0, true, 1},
		{80, 0, true, 10},
		{1_000_000, 0, true, 4_096},
		{1_000_000_000, 0, true, 7_629},
		{64_000_000_000, 0, true, 65_536},
		{64_000_000_000, 100_000, true, 100_000},
		{1_000_000, 1_024, true, 1_024},
		{80, 16_384, true, 10},
		// Threads that do not donate (135,168 of them) start with two subtrees each.
		{1_000_000_000, 0, false, 270_336},
		{1_000_000, 0, false, 125_000},
		{1_000_000_000, 100_000, false, 7_629},
	} {
		assert.Equal(t, c.want, gpuSubtrees(c.last, SplitOptions{Subtrees: c.most}, 135_168, c.donates), "last %d, most %d, donates %v", c.last, c.most, c.donates)
	}
	// The rule before 7c76ca0, tuned: one subtree per 4,096 nodes, 65,536-262,144.
	old := SplitOptions{UnitNodes: 4096, LeastSubtrees: 65536, Subtrees: 262144}
	for _, c := range []struct {
		last uint64
		want int
	}{
		{1_000_000, 65_536},
		{100_000_000, 195_312},
		{1_000_000_000, 262_144},
		{80_000, 10_000}, // an eighth of the last pass
	} {
		assert.Equal(t, c.want, gpuSubtrees(c.last, old, 135_168, true), "last %d, the old rule", c.last)
	}
	// least above most: most wins.
	assert.Equal(t, 1_000, gpuSubtrees(1_000_000_000, SplitOptions{LeastSubtrees: 5_000, Subtrees: 1_000, UnitNodes: 1 << 30}, 135_168, true))
}

// A set's threads on the GPU donate, and the subtrees where a part donated would have
// cut its donor's node (BPMX) are split further. Tuned not to donate (nodonate=1),
// their large subtrees are split further: with the tuning's large=1 (a subtree expected
// above the mean is split), the GPU passes hand out more subtrees than by default; and a
// thread gives up a subtree beyond giveup=N nodes, which the engine splits further
// (passes.Deeper) and searches in another launch. The solutions and serial counts stay the
// CPU's.
func TestDeviceGPUSplitsASetsLargeSubtrees(t *testing.T) {
	lib := fakeGPU(t)
	t.Setenv("TK_FAKE_CUDA", "")
	korf := corpus.Korf100()[1]
	goal, start := korf.Goal, korf.Start
	cpu, err := New(context.Background(), goal, Options{Heuristic: "6-6-3", Pruning: PruneParent})
	require.NoError(t, err)
	want, err := cpu.Solve(context.Background(), start)
	require.NoError(t, err)
	subtrees, givenUp, launches := map[string]uint64{}, map[string]uint64{}, map[string]int{}
	var donated, raised uint64
	const never, alone = "nodonate=1,giveup=4000000000", "nodonate=1"
	for _, tune := range []string{never, "large=1," + never, alone, alone + ",giveup=256", alone + ",giveup=256,chunk=1", ""} {
		dev := Device{Kind: deviceGPU, Library: lib}
		require.NoError(t, dev.SetTune(tune))
		s, err := New(context.Background(), goal, Options{Heuristic: "6-6-3", Pruning: PruneParent, Device: dev})
		require.NoError(t, err)
		s.dev.force = 500 // the fake driver's emulation is slow: small passes
		got, err := s.Solve(context.Background(), start)
		require.NoError(t, err)
		require.NoError(t, s.Close())
		assert.Equal(t, want.Moves, got.Moves, tune)
		assert.Equal(t, want.Nodes, cmp.Or(got.SerialNodes, got.Nodes), tune)
		require.NotNil(t, got.Device, tune)
		require.GreaterOrEqual(t, got.Device.Passes, 2, "%s: a GPU pass after a split one", tune)
		subtrees[tune], givenUp[tune], launches[tune] = got.Device.Subtrees, got.Device.GivenUp, got.Device.Launches
		if strings.Contains(tune, alone) {
			assert.Zero(t, got.Device.Donated, tune)
			assert.Zero(t, got.Device.Raised, tune)
		} else {
			donated, raised = got.Device.Donated, got.Device.Raised
			assert.LessOrEqual(t, raised, got.Device.GivenUp, "subtrees raised are split as those given up")
		}
		assert.Positive(t, got.Device.Solving, "%s: the solving subtree split and searched again", tune)
		if givenUp[tune] == 0 {
			// A launch a pass, and one for each split of the solving subtree.
			assert.LessOrEqual(t, got.Device.Launches, got.Device.Passes+int(got.Device.Solving), tune)
		} else {
			assert.Greater(t, got.Device.Launches, got.Device.Passes, "%s: the parts of subtrees given up searched in more launches", tune)
		}
	}
	assert.Greater(t, subtrees["large=1,"+never], subtrees[never], "large subtrees split further")
	assert.Zero(t, givenUp[never])
	assert.Greater(t, givenUp[alone+",giveup=256"], givenUp[alone], "subtrees of more than 256 nodes given up, more than by default")
	assert.Greater(t, launches[alone+",giveup=256,chunk=1"], launches[alone+",giveup=256"], "a launch for each subtree, or for the parts of one given up")
	assert.Positive(t, donated, "a set's threads donate by default")
	t.Logf("given up: %v; launches: %v; by default %d donated, %d subtrees raised", givenUp, launches, donated, raised)
}

// A pass goes to the GPU when it is expected to take the cores longer than the GPU
// (pace.toGPU), from the rates measured: never before a pass on the cores was timed; with
// auto, a GPU not yet measured is tried once the cores would take longer than opening it
// and its host's part; once measured, by its rate; with gpu, whenever the cores would take
// longer than the GPU's costs beyond its launches.
func TestPaceChoosesTheSooner(t *testing.T) {
	const m = 1e6
	cases := []struct {
		name         string
		p            pace
		next         float64
		auto, opened bool
		want         bool
	}{
		{"nothing timed", pace{}, 1e12, true, true, false},
		{"nothing timed, gpu", pace{}, 1e12, false, true, false},
		{"no next pass", pace{cpuRate: m}, 0, false, true, false},
		{"a millisecond on the cores", pace{cpuRate: m}, 1e3, false, true, false},
		{"a second on the cores, gpu", pace{cpuRate: m}, 1e6, false, true, true},
		{"a second on the cores, gpu, closed", pace{cpuRate: m}, 1e6, false, false, true},
		{"a tenth of a second, gpu, closed: opening costs more", pace{cpuRate: m}, 1e5, false, false, false},
		{"a tenth of a second, gpu, open", pace{cpuRate: m}, 1e5, false, true, true},
		{"auto, unmeasured, closed, a tenth", pace{cpuRate: m}, 1e5, true, false, false},
		{"auto, unmeasured, closed, a second", pace{cpuRate: m}, 1e6, true, false, true},
		{"auto, the GPU ten times faster", pace{cpuRate: m, gpuRate: 10 * m, gpuHost: time.Millisecond}, 1e6, true, true, true},
		{"auto, the GPU slower", pace{cpuRate: m, gpuRate: m / 2, gpuHost: time.Millisecond}, 1e9, true, true, false},
		{"auto, the GPU faster but its host's part longer", pace{cpuRate: m, gpuRate: 10 * m, gpuHost: 2 * time.Second}, 1e6, true, true, false},
		{"gpu, the GPU slower: still the GPU's", pace{cpuRate: m, gpuRate: m / 2, gpuHost: time.Millisecond}, 1e9, false, true, true},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.p.toGPU(c.next, c.auto, c.opened), c.name)
	}
}

// A small search never opens the GPU, gpu or auto: its passes are too short to time, so
// they stay on the cores, and no context is made (the driver only probed, for gpu).
func TestSmallSearchesOpenNoContext(t *testing.T) {
	lib := fakeGPU(t)
	t.Setenv("TK_FAKE_CUDA", "")
	goal := board.BlankFirst(board.Size4x4)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, kind := range []string{deviceGPU, deviceAuto} {
		s, err := New(context.Background(), goal, Options{Heuristic: "md", Pruning: PruneParent, Device: Device{Kind: kind, Library: lib}})
		require.NoError(t, err)
		for k := 0; k < 5; k++ {
			start, _ := goal.RandomWalk(30, rng)
			res, err := s.Solve(context.Background(), start)
			require.NoError(t, err)
			require.True(t, res.Solved)
			assert.Less(t, res.Nodes, uint64(timedNodes), "%s: a small search", kind)
			assert.Nil(t, res.Device, kind)
		}
		assert.Nil(t, s.dev.dev, "%s: no device opened", kind)
		assert.Nil(t, s.dev.engine, kind)
		if kind == deviceGPU {
			assert.Contains(t, s.Device(), "Fake GPU", "probed")
		}
		require.NoError(t, s.Close())
	}
}

// --device gpu checks the driver and the card at the start, and opens the GPU at the
// first pass sent to it: a GPU that then cannot be opened (the kernel does not compile)
// fails the search, saying why, rather than leaving it to the cores unsaid.
func TestDeviceGPUThatCannotOpenFails(t *testing.T) {
	lib := fakeGPU(t)
	t.Setenv("TK_FAKE_CUDA", "jit")
	goal := board.BlankFirst(board.Size4x4)
	s, err := New(context.Background(), goal, Options{Heuristic: "md", Pruning: PruneParent, Device: Device{Kind: deviceGPU, Library: lib}})
	require.NoError(t, err, "the driver and the card are there")
	defer s.Close()
	s.dev.force = 2000
	start, _ := goal.RandomWalk(60, rand.New(rand.NewPCG(6, 6)))
	_, err = s.Solve(context.Background(), start)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrJIT)
	assert.Contains(t, s.Device(), "no GPU")
}

// --workers cores go to one instance's search, or a batch's instances, one goroutine each;
// a batch on the GPU goes two instances at a time (one's CPU work beside the other's GPU
// pass) with every core for each, unless --workers says otherwise.
func TestWorkersShared(t *testing.T) {
	for _, c := range []struct {
		single          bool
		device          string
		set             bool
		threads, atOnce int
	}{
		{true, "cpu", false, 16, 1},
		{true, "gpu", false, 16, 1},
		{false, "cpu", false, 1, 16},
		{false, "auto", false, 1, 16},
		{false, "gpu", false, 16, 2},
		{false, "gpu", true, 1, 16},
	} {
		threads, parallel := Device{Kind: c.device}.Share(16, c.single, c.set)
		assert.Equal(t, []int{c.threads, c.atOnce}, []int{threads, parallel}, "%+v", c)
	}
}

// One set of GPU counts: every count of the engine's (gpu.Stats) has its field in the
// record's (DeviceUse embeds them, their JSON keys its own), which the record's JSON carries, the
// summary and the device check's harness use, and the glossary explains (TestGlossary).
func TestDeviceUseCarriesEveryCount(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(DeviceUse{}), reflect.TypeOf(gpu.Stats{})} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			switch {
			case f.Anonymous: // the engine's counts, embedded: their JSON keys are the record's
				assert.Equal(t, reflect.TypeOf(gpu.Stats{}), f.Type)
			case f.Name == "Busy" || f.Name == "Cycles": // Utilisation's parts
				assert.Equal(t, "-", f.Tag.Get("json"))
			default:
				tag := f.Tag.Get("json")
				assert.True(t, tag != "" && tag != "-", "%s.%s has no JSON key", typ, f.Name)
			}
		}
	}
}
