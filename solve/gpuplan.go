package solve

// The GPU's plan of a search: which passes go to the card (pace, measured as the search
// goes), how a GPU pass is split and ordered, and the search itself (solveOnDevice). The
// device's choice and lifecycle are in device.go.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/passes"
)

// When a pass goes to the GPU: when the time it is expected to take on the cores is more
// than on the card (pace.toGPU), each measured as the search goes. Before they are
// measured: a GPU pass costs the host hostGuess beyond its launches (a frontier, an
// upload, the launches' start), and opening the device (a context, the kernel's
// compilation) openGuess; a pass of fewer than timedNodes nodes is too short to time, and
// the passes stay on the cores until one is timed, so a small search never opens the GPU.
const (
	timedNodes = 100_000
	hostGuess  = 5 * time.Millisecond
	openGuess  = 500 * time.Millisecond
)

// gpuSubtrees returns how many subtrees the pass after one of last nodes is split into,
// as tuned (t's Subtrees, LeastSubtrees and UnitNodes; zero: gpuSplit's): never more than
// an eighth of last, so that the frontier lies well inside the tree. Where the threads do
// not donate (a set's tuned so, gpu.Tune.NoDonate), the frontier holds at least two
// subtrees a thread (threads) unless t.Subtrees says otherwise: each thread then starts
// with one, and the shorter ones are followed by more.
func gpuSubtrees(last uint64, t SplitOptions, threads int, donates bool) int {
	d := gpuSplit
	hi := uint64(cmp.Or(t.Subtrees, d.Subtrees))
	per := cmp.Or(t.UnitNodes, d.UnitNodes)
	n := max(8*last/per, min(uint64(cmp.Or(t.LeastSubtrees, d.LeastSubtrees)), hi))
	if !donates && t.Subtrees == 0 {
		hi = max(hi, 2*uint64(threads))
		n = max(n, 2*uint64(threads))
	}
	return int(max(min(n, hi, last/8), 1))
}

// pace is what a solver measured of its passes: the serial nodes a second of its last
// timed pass on the cores, and of its last GPU pass's launches, with that pass's time on
// the host beyond its launches (0: not yet measured).
type pace struct {
	cpuRate, gpuRate float64
	gpuHost          time.Duration
}

// toGPU says whether a pass expected to take next serial nodes goes to the GPU: with
// auto, when the GPU is expected to take less time than the cores (its host time, its
// launches at their measured rate, and opening it unless it is open; a GPU not yet
// measured is tried when the rest of its cost is less than the cores' time); with gpu,
// whenever the cores would take longer than the GPU's costs beyond its launches. Never
// before a pass on the cores was timed.
func (p pace) toGPU(next float64, auto, opened bool) bool {
	if p.cpuRate <= 0 || next <= 0 {
		return false
	}
	cores := next / p.cpuRate
	cost := cmp.Or(p.gpuHost, hostGuess).Seconds()
	if !opened {
		cost += openGuess.Seconds()
	}
	if auto && p.gpuRate > 0 {
		cost += next / p.gpuRate
	}
	return cost < cores
}

// solveOnDevice runs the fast IDA* with the passes that the GPU is expected to search
// sooner than the cores on the GPU (device.goesToGPU): split into subtrees that the GPU
// searches; the others go to the CPU as Solve would send them (whole, or split among the
// solver's workers). Each pass's time is measured (device.measure), and the next pass's
// choice made from it. With auto, a GPU that cannot be opened leaves every pass to the
// CPU.
func (s *Solver) solveOnDevice(ctx context.Context, start board.State) (*passes.Result, *DeviceUse, error) {
	workers := max(s.opt.Workers, 1)
	g := &gpuSearch{s: s, workers: workers, local: passes.Workers(workers)}
	res, err := s.fast.Run(ctx, start, passes.Plan{Split: g.split, Runner: passes.RunnerFunc(g.run), OnPass: g.onPass})
	if g.engine == nil {
		return res, nil, err
	}
	return res, g.use(), err
}

// gpuSearch is one search's state across its passes on the device: the pass under way,
// where it goes, and the times and counts of the GPU's part.
type gpuSearch struct {
	s       *Solver
	workers int
	local   passes.Runner // the CPU's passes
	engine  *gpu.Engine   // opened at the first pass that goes to the GPU
	// unusable is why the device of gpu could not be opened for a pass sent to it.
	unusable error
	st       gpu.Stats // this search's launches (the engine's are every search's)
	// The pass under way: whether it is the GPU's, when it began, st.Search then, when its
	// frontier's making began, its subtrees' estimates, and its nodes at the least (the
	// last pass's).
	onGPU    bool
	began    time.Time
	launched float64
	made     time.Time
	est      func([]board.Dir) float64
	expect   float64
	// The GPU passes' frontiers' making, their subtrees' ordering, the passes on the CPU,
	// and engine.Search.
	frontier, order, cpu, inEngine time.Duration
}

// split decides where the pass of p goes, and how it is split there.
func (g *gpuSearch) split(p passes.PassPlan) (int, func([]board.Dir) bool) {
	s := g.s
	g.began, g.onGPU = time.Now(), false
	var last uint64
	if n := len(p.Passes); n > 0 {
		last = p.Passes[n-1].Nodes
	}
	if s.dev.goesToGPU(p.Passes) {
		if g.engine == nil {
			e, err := s.dev.get(s.fast)
			switch {
			case err == nil:
				g.engine = e
			case s.dev.Kind == deviceGPU:
				// The GPU asked for cannot be had: the pass fails (its runner says why),
				// rather than going to the cores unsaid.
				g.unusable = err
				return 1, nil
			}
		}
		if g.engine != nil {
			g.onGPU, g.made, g.launched = true, time.Now(), g.st.SearchSeconds
			// Threads that donate share a large subtree; those that do not
			// (gpu.Engine.Donates) need their large subtrees split further.
			donates := g.engine.Donates()
			want := gpuSubtrees(last, s.dev.Split, g.engine.Stats().Threads, donates)
			g.est, g.expect = passEstimate(p.LastSplit, p.Passes), float64(last)
			if donates {
				return want, nil
			}
			return want, splitLarge(g.est, p.Passes, want, s.dev.Split.Large)
		}
	}
	if split := workersRule(g.workers); split != nil {
		return split(p) // as Solve splits among its workers
	}
	return 0, nil
}

// run searches a split pass's subtrees where split sent the pass.
func (g *gpuSearch) run(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
	if g.unusable != nil {
		return nil, g.unusable
	}
	if !g.onGPU {
		return g.local.SearchSubtrees(ctx, b)
	}
	g.frontier += time.Since(g.made)
	begin := time.Now()
	sch := hints(b, g.est, g.expect, g.s.dev.Split.Window)
	sch.Tally = &g.st
	g.order += time.Since(begin)
	begin = time.Now()
	res, err := g.engine.Search(ctx, b, sch)
	g.inEngine += time.Since(begin)
	return res, err
}

// onPass measures a pass that ended, for the next one's choice.
func (g *gpuSearch) onPass(p passes.Pass, sp *passes.SplitPass) {
	serial := p.Nodes
	if sp != nil {
		serial = sp.Serial.Nodes
	}
	took := time.Since(g.began)
	if !g.onGPU {
		g.cpu += took
		g.s.dev.measure(serial, took, 0)
	} else if sp != nil {
		g.s.dev.measure(serial, took, time.Duration((g.st.SearchSeconds-g.launched)*float64(time.Second)))
	}
}

// use is what the search did on the GPU, the record's one set of GPU counts.
func (g *gpuSearch) use() *DeviceUse {
	s, st := g.s, g.st
	info := s.dev.dev.Info()
	st.Threads = cmp.Or(st.Threads, g.engine.Stats().Threads)
	return &DeviceUse{Name: info.Name, Driver: info.DriverVersion(), Capability: fmt.Sprintf("%d.%d", info.Capability[0], info.Capability[1]),
		OpenSeconds: s.dev.open.Seconds(), FrontierSeconds: g.frontier.Seconds(), OrderSeconds: g.order.Seconds(), CPUSeconds: g.cpu.Seconds(),
		EngineSeconds: g.inEngine.Seconds(), Stats: st}
}

// goesToGPU says whether the pass after passes goes to the GPU (pace.toGPU; with force,
// by its nodes), once it was opened or can be.
func (d *device) goesToGPU(history []passes.Pass) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(history)
	switch {
	case n == 0 || d.err != nil:
		return false
	case d.force > 0:
		return history[n-1].Nodes >= d.force && d.slower == ""
	}
	return d.pace.toGPU(nextPass(history), d.Kind == deviceAuto, d.engine != nil)
}

// measure records a pass of serial nodes that took took: on the cores (launches 0), timed
// when it has timedNodes nodes at least; or on the GPU, of which launches in its launches.
// With auto, a GPU slower than the cores is said (-v).
func (d *device) measure(serial uint64, took, launches time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if launches == 0 {
		if serial >= cmp.Or(d.force/4, timedNodes) {
			d.pace.cpuRate = float64(serial) / max(took.Seconds(), 1e-9)
		}
		return
	}
	d.pace.gpuRate = float64(serial) / max(launches.Seconds(), 1e-9)
	d.pace.gpuHost = max(took-launches, 0)
	if d.Kind == deviceAuto && d.slower == "" && d.pace.cpuRate > 0 && float64(serial)/max(took.Seconds(), 1e-9) < d.pace.cpuRate {
		d.slower = fmt.Sprintf("the GPU searched %.3g serial nodes a second, the CPU %.3g: searching on the CPU", float64(serial)/took.Seconds(), d.pace.cpuRate)
	}
}

// splitLarge returns the refinement of a GPU pass whose threads do not donate, with the
// tuning's large (nil without it, or without estimates): a subtree expected above large
// times the mean of the pass's want subtrees (the last pass times its growth) is split
// further. Off by default: the threads give up a subtree that proves large, and the
// engine splits it then (gpu.Tune.GiveUp), from what the search met rather than an
// estimate.
func splitLarge(est func([]board.Dir) float64, history []passes.Pass, want, large int) func([]board.Dir) bool {
	n := len(history)
	if large == 0 || est == nil || n < 2 || history[n-2].Nodes == 0 || want < 1 {
		return nil
	}
	limit := nextPass(history) / float64(want) * float64(large)
	return func(path []board.Dir) bool { return est(path) > limit }
}

// passEstimate returns the nodes expected below each subtree of the next pass, from the
// last split pass's subtrees (as the cluster's policy estimates them: their work times the
// passes' growth); nil without one.
func passEstimate(last *passes.SplitPass, history []passes.Pass) func([]board.Dir) float64 {
	n := len(history)
	if last == nil || n < 2 {
		return nil
	}
	return estimate(subtreeSizes(last.Paths, last.Results), history[n-1].Nodes, history[n-2].Nodes)
}

// hints are how a GPU pass's subtrees go to the threads: in windows of window subtrees
// in serial order (0: one window), each ordered by the nodes est expects below each,
// largest first, estimates within an eighth of each other counted as ties, and ties in
// serial order (without an estimate, in serial order); the pass expected to take at least
// least nodes. (Not the estimates' sum: the passes' growth varies, and the last pass ends
// at its solution. A thread that does not donate gives a subtree up after a few times its
// share of it: better too soon than too late.)
func hints(b *passes.Batch, est func([]board.Dir) float64, least float64, window int) gpu.Hints {
	sch := gpu.Hints{Expected: least}
	if est == nil || window == 1 {
		return sch
	}
	n := len(b.Paths)
	if window <= 0 {
		window = n
	}
	// Two stable counting sorts: every subtree by its estimate's key, largest first (serial
	// order within a key), then by its window, keeping that order within each. A pass of a
	// million subtrees takes milliseconds (a comparison sort took a tenth of a second).
	serial := make([]uint32, n)
	for i := range serial {
		serial[i] = uint32(i)
	}
	key := make([]uint16, n)
	for i, p := range b.Paths {
		key[i] = sizeKey(est(p))
	}
	byKey := countingSort(serial, sizeKeys, func(i uint32) int { return sizeKeys - 1 - int(key[i]) })
	sch.Order = byKey
	if window < n {
		sch.Order = countingSort(byKey, (n+window-1)/window, func(i uint32) int { return int(i) / window })
	}
	return sch
}

// countingSort returns the indices of from in the order of their buckets (from 0 to
// buckets - 1), keeping from's order within a bucket.
func countingSort(from []uint32, buckets int, bucket func(uint32) int) []uint32 {
	start := make([]int, buckets+1)
	for _, i := range from {
		start[bucket(i)+1]++
	}
	for k := 1; k <= buckets; k++ {
		start[k] += start[k-1]
	}
	out := make([]uint32, len(from))
	for _, i := range from {
		b := bucket(i)
		out[start[b]] = i
		start[b]++
	}
	return out
}

// sizeKeys is the number of sizeKey's values.
const sizeKeys = 1 << 14

// sizeKey orders estimates: a non-negative float's exponent and the top three bits of its
// mantissa, which grow with it, so that estimates within an eighth of each other share a
// key.
func sizeKey(size float64) uint16 { return uint16(math.Float64bits(max(size, 0)) >> 49) }

// nextPass is the nodes the pass after passes is expected to take: the last one's times
// the last growth (0 before two passes).
func nextPass(history []passes.Pass) float64 {
	n := len(history)
	if n < 2 || history[n-2].Nodes == 0 {
		return 0
	}
	last, before := float64(history[n-1].Nodes), float64(history[n-2].Nodes)
	return last * max(last/before, 1)
}
