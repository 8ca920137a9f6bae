package solve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
)

// The devices the fast IDA* searches on (Options.Device): the CPU by default, the others
// by name (Device.Kinds lists them: "gpu", "auto").
const (
	DeviceCPU  = "cpu"  // this process's goroutines (the default)
	deviceGPU  = "gpu"  // an NVIDIA GPU (package gpu): every large pass; no GPU is an error
	deviceAuto = "auto" // the CPU, and the GPU once a pass is large enough to pay for it, if there is one
)

// Device is where a process searches: this process's choice, as Options.Tables and Workers
// are (a cluster's job does not carry it). Its zero value is the CPU.
type Device struct {
	Kind    string   // DeviceCPU ("" too), deviceGPU or deviceAuto
	Ordinal int      // which GPU (0: the first)
	Library string   // the NVIDIA driver library ("": libcuda.so.1 where the loader finds it)
	Tune    gpu.Tune // the GPU's knobs, for measuring on a card (zero: the defaults)
	// Split is the GPU passes' split rule's knobs, for measuring on a card (zero fields:
	// the defaults; see SplitOptions for those it takes).
	Split SplitOptions
}

// SetTune sets the GPU's knobs, and its split rule's, from their text in $TILEKIT_GPU_TUNE
// (gpu.ParseTune, with Split's Knobs).
func (d *Device) SetTune(text string) error {
	split := d.Split
	t, err := gpu.ParseTune(text, split.Knobs())
	if err != nil {
		return err
	}
	d.Tune, d.Split = t, split
	return nil
}

// Kinds returns the kinds a Device takes.
func (Device) Kinds() []string { return []string{DeviceCPU, deviceGPU, deviceAuto} }

// Check says what is wrong with the choice: an unknown kind, a GPU's number below 0.
func (d Device) Check() error {
	if !slices.Contains(append(d.Kinds(), ""), d.Kind) {
		return badOptions("unknown device %q: cpu, gpu or auto", d.Kind)
	}
	if d.Ordinal < 0 {
		return badOptions("--gpu %d: a GPU's number is 0 or more", d.Ordinal)
	}
	return nil
}

// Usable opens the GPU of a gpu device once and closes it, so that a process that cannot
// use it says so at once rather than at every search; the CPU and auto need nothing.
func (d Device) Usable() error {
	if d.Kind != deviceGPU {
		return nil
	}
	dv, err := gpu.Open(gpu.Options{Ordinal: d.Ordinal, Library: d.Library, Tune: d.Tune})
	if err != nil {
		return err
	}
	return dv.Close()
}

// OnGPU reports whether a GPU may search (gpu or auto).
func (d Device) OnGPU() bool { return d.Kind == deviceGPU || d.Kind == deviceAuto }

// gpuAtOnce is how many instances are best searched at once on one GPU, each with every
// core: the GPU runs one launch at a time (gpu.Engine.Search), and one instance's CPU work
// (its small passes, its frontiers, its splits) goes on beside the other's launch.
const gpuAtOnce = 2

// AtOnce is how many instances of a batch are best searched at once on the device, with
// cores cores: one a core on the CPU, two on a GPU (each with every core).
func (d Device) AtOnce(cores int) int {
	if d.Kind == deviceGPU {
		return gpuAtOnce
	}
	return cores
}

// Share says how workers cores are shared: the goroutines of each instance's search
// (threads), and the instances solved at once. A single instance gets them all; a batch
// is split by instance, each searched by one goroutine, unless the number of workers was
// not chosen on a GPU, where the device's share holds (AtOnce: two at a time, each with
// every core for what the CPU does beside the other's launch).
func (d Device) Share(workers int, single, chosen bool) (threads, atOnce int) {
	switch {
	case single:
		return workers, 1
	case !chosen:
		atOnce = d.AtOnce(workers)
		return d.Goroutines(atOnce, workers), atOnce
	}
	return 1, workers
}

// Goroutines is how many of cores each of units instances searched at once gets: one on
// the CPU; on a GPU, every core for each group of two, which take turns on the GPU.
func (d Device) Goroutines(units, cores int) int {
	if d.Kind != deviceGPU {
		return 1
	}
	return max(cores/max(units/gpuAtOnce, 1), 1)
}

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

// DeviceUse is what a search did on a GPU: the card, what opening it and the search took,
// and the device's own counts (which count work past the solution the serial counts do
// not). Its JSON is part of a record's.
type DeviceUse struct {
	Name        string  `json:"name"`
	Driver      string  `json:"driver"`     // the driver's CUDA version
	Capability  string  `json:"capability"` // compute capability
	OpenSeconds float64 `json:"open_seconds"`
	// Upload and search seconds of this search's launches, the seconds its GPU passes
	// spent making their frontiers on the CPU, and splitting the subtrees given up.
	UploadSeconds   float64 `json:"upload_seconds"`
	SearchSeconds   float64 `json:"search_seconds"`
	FrontierSeconds float64 `json:"frontier_seconds"`
	SplitSeconds    float64 `json:"split_seconds"`  // the CPU's work on subtrees given up (a set's)
	OrderSeconds    float64 `json:"order_seconds"`  // ordering the GPU passes' subtrees (largest first)
	CPUSeconds      float64 `json:"cpu_seconds"`    // the passes searched on the CPU, expected sooner there
	EngineSeconds   float64 `json:"engine_seconds"` // in the engine's searches of GPU passes: launches, copies, splits and their bookkeeping
	WaitSeconds     float64 `json:"wait_seconds"`   // of those, waiting for the GPU while another instance's pass had it
	Passes          int     `json:"passes"`
	Launches        int     `json:"launches"` // a pass's, and one each time its threads gave subtrees up
	Subtrees        uint64  `json:"subtrees"`
	Roots           uint64  `json:"roots"`         // the roots the launches searched: the subtrees, or the frontier they grew to on the GPU
	Levels          int     `json:"levels"`        // levels of the frontiers grown on the GPU
	GrowLaunches    int     `json:"grow_launches"` // the launches that grew them
	GrowSeconds     float64 `json:"grow_seconds"`  // of search_seconds, the growth's
	GivenUp         uint64  `json:"given_up"`      // subtrees split further after a thread gave them up (a set's)
	Raised          uint64  `json:"raised"`        // of those, where a part donated would have cut its donor's node (BPMX)
	Solving         uint64  `json:"solving"`       // subtrees where the GPU met the first solution, split and searched again for the counts up to it
	Nodes           uint64  `json:"nodes"`
	Expanded        uint64  `json:"expanded"`
	Donated         uint64  `json:"donated"`
	Claims          uint64  `json:"claims"` // claims of roots that took some, each for a warp's threads without one
	Misses          uint64  `json:"misses"` // claims that took none
	Threads         int     `json:"threads"`
	Utilisation     float64 `json:"utilisation"`
}

// device is a solver's GPU, opened when the solver is made (gpu) or at its first large
// pass (auto), and shared by its searches.
type device struct {
	Device // the choice: kind, ordinal, library, knobs
	// force sends every pass after one of force nodes to the GPU, whatever the times
	// (Device.Split.GPUFrom; the fake driver's emulation is far slower than the cores); 0: by
	// the times (pace).
	force uint64

	mu     sync.Mutex
	dev    *gpu.Device
	engine *gpu.Engine
	err    error // why the GPU could not be had (auto then stays on the CPU)
	open   time.Duration
	probed *gpu.Info // gpu: the card, as probed before it is opened
	pace   pace
	slower string // auto: why it keeps to the CPU, having found the GPU slower
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

// planDevice checks and, for gpu, opens the device the options ask for.
func (s *Solver) planDevice() error {
	if err := s.opt.Device.Check(); err != nil || !s.opt.Device.OnGPU() {
		return err
	}
	kind := s.opt.Device.Kind
	s.dev = &device{Device: s.opt.Device, force: s.opt.Device.Split.GPUFrom}
	if s.fast == nil {
		if kind == deviceAuto {
			s.dev.err = fmt.Errorf("%s with %s is searched on the CPU", s.algo, s.heuristic)
			return nil
		}
		return badOptions("the GPU runs the fast IDA* on 4x4 and 5x5 only, not %s with %s", s.algo, s.heuristic)
	}
	if _, err := s.fast.Model(); err != nil {
		if kind == deviceAuto {
			s.dev.err = fmt.Errorf("the GPU does not search %s yet", s.heuristic)
			return nil
		}
		return badOptions("the GPU does not search %s yet (%v): it searches md, the sets in nibbles that are not zero-aware (5-5-5, 6-6-3, 7-8, 6-6-6-6), and the sets and catalogues of zero-aware tables in nibbles or bits (small-t), with regular or reflected lookups; or --device cpu", s.heuristic, err)
	}
	// The driver and the card checked now; the context made at the first pass that goes
	// to it. With auto, a machine without a usable GPU stays on the CPU, and says so (-v).
	info, err := gpu.Probe(gpu.Options{Ordinal: s.dev.Ordinal, Library: s.dev.Library})
	if kind == deviceGPU {
		s.dev.probed = &info
		return err
	}
	if err != nil {
		s.dev.err = fmt.Errorf("%v; every pass is searched on the CPU", err)
		return nil
	}
	s.dev.probed = &info
	return nil
}

// get returns the device's engine, opening the device on first use.
func (d *device) get(fast *ida.Solver) (*gpu.Engine, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.engine != nil || d.err != nil {
		return d.engine, d.err
	}
	begin := time.Now()
	dev, err := gpu.Open(gpu.Options{Ordinal: d.Ordinal, Library: d.Library, Tune: d.Tune})
	if err == nil {
		d.dev = dev
		d.engine, err = dev.Engine(fast)
	}
	d.open = time.Since(begin)
	if err != nil {
		d.err = err
		if d.dev != nil {
			d.dev.Close()
			d.dev = nil
		}
	}
	return d.engine, err
}

// Device describes the GPU the solver searches on ("" for none yet), or says why it has
// none: for -v.
func (s *Solver) Device() string {
	if s.dev == nil {
		return ""
	}
	s.dev.mu.Lock()
	defer s.dev.mu.Unlock()
	switch {
	case s.dev.slower != "":
		return s.dev.dev.Info().String() + "; " + s.dev.slower
	case s.dev.dev != nil:
		return s.dev.dev.Info().String()
	case s.dev.err != nil:
		return "no GPU: " + s.dev.err.Error()
	case s.dev.probed != nil:
		return s.dev.probed.String() + "; opened for the first pass it is expected to search faster than the cores"
	}
	return "a GPU for the passes it is expected to search faster than the cores"
}

// Close releases the solver's GPU, if it opened one.
func (s *Solver) Close() error {
	if s.dev == nil {
		return nil
	}
	s.dev.mu.Lock()
	defer s.dev.mu.Unlock()
	if s.dev.engine != nil {
		s.dev.engine.Close()
		s.dev.engine = nil
	}
	if s.dev.dev != nil {
		s.dev.dev.Close()
		s.dev.dev = nil
	}
	if s.dev.err == nil {
		s.dev.err = errors.New("the solver is closed")
	}
	return nil
}

// solveOnDevice runs the fast IDA* with the passes that the GPU is expected to search
// sooner than the cores on the GPU (device.goesToGPU): split into subtrees that the GPU
// searches; the others go to the CPU as Solve would send them (whole, or split among the
// solver's workers). Each pass's time is measured (device.measure), and the next pass's
// choice made from it. With auto, a GPU that cannot be opened leaves every pass to the
// CPU.
func (s *Solver) solveOnDevice(ctx context.Context, start board.State) (*passes.Result, *DeviceUse, error) {
	workers := max(s.opt.Workers, 1)
	local := passes.Workers(workers)
	var engine *gpu.Engine
	var unusable error // gpu: the device could not be opened for a pass sent to it
	var st gpu.Stats   // this search's launches (the engine's are every search's)
	onGPU := false     // the pass under way is the GPU's
	var began time.Time
	var launched time.Duration             // st.Search when the pass under way began
	var frontier time.Duration             // the GPU passes' frontiers' making, the last from made
	var order, cpu, inEngine time.Duration // ordering the GPU passes' subtrees, the passes on the CPU, engine.Search
	var made time.Time
	var est func([]board.Dir) float64 // the GPU pass's estimates of its subtrees
	var expect float64                // the GPU pass's nodes at the least: the last pass's
	plan := passes.Plan{
		Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
			began, onGPU = time.Now(), false
			var last uint64
			if n := len(p.Passes); n > 0 {
				last = p.Passes[n-1].Nodes
			}
			if s.dev.goesToGPU(p.Passes) {
				if engine == nil {
					e, err := s.dev.get(s.fast)
					switch {
					case err == nil:
						engine = e
					case s.dev.Kind == deviceGPU:
						// The GPU asked for cannot be had: the pass fails (its runner says
						// why), rather than going to the cores unsaid.
						unusable = err
						return 1, nil
					}
				}
				if engine != nil {
					onGPU, made, launched = true, time.Now(), st.Search
					// Threads that donate share a large subtree; those that do not
					// (gpu.Engine.Donates) need their large subtrees split further.
					donates := engine.Donates()
					want := gpuSubtrees(last, s.dev.Split, engine.Stats().Threads, donates)
					est, expect = passEstimate(p.LastSplit, p.Passes), float64(last)
					if donates {
						return want, nil
					}
					return want, splitLarge(est, p.Passes, want, s.dev.Split.Large)
				}
			}
			if split := workersRule(workers); split != nil {
				return split(p) // as Solve splits among its workers
			}
			return 0, nil
		},
		Runner: passes.RunnerFunc(func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			if unusable != nil {
				return nil, unusable
			}
			if onGPU {
				frontier += time.Since(made)
				begin := time.Now()
				sch := hints(b, est, expect, s.dev.Split.Window)
				sch.Tally = &st
				order += time.Since(begin)
				begin = time.Now()
				res, err := engine.Search(ctx, b, sch)
				inEngine += time.Since(begin)
				return res, err
			}
			return local.SearchSubtrees(ctx, b)
		}),
		OnPass: func(p passes.Pass, sp *passes.SplitPass) {
			serial := p.Nodes
			if sp != nil {
				serial = sp.Serial.Nodes
			}
			took := time.Since(began)
			if !onGPU {
				cpu += took
				s.dev.measure(serial, took, 0)
			} else if sp != nil {
				s.dev.measure(serial, took, st.Search-launched)
			}
		},
	}
	res, err := s.fast.Run(ctx, start, plan)
	if engine == nil {
		return res, nil, err
	}
	info := s.dev.dev.Info()
	use := &DeviceUse{Name: info.Name, Driver: info.DriverVersion(), Capability: fmt.Sprintf("%d.%d", info.Capability[0], info.Capability[1]),
		OpenSeconds: s.dev.open.Seconds(), UploadSeconds: st.Upload.Seconds(), SearchSeconds: st.Search.Seconds(), FrontierSeconds: frontier.Seconds(),
		SplitSeconds: st.Split.Seconds(), WaitSeconds: st.Wait.Seconds(),
		OrderSeconds: order.Seconds(), CPUSeconds: cpu.Seconds(), EngineSeconds: inEngine.Seconds(),
		Passes: st.Passes, Launches: st.Launches, Subtrees: st.Subtrees, Roots: st.Roots, Levels: st.Levels, GrowLaunches: st.GrowLaunches,
		GrowSeconds: st.Grow.Seconds(), GivenUp: st.GivenUp, Solving: st.Solving, Raised: st.Raised,
		Nodes: st.Nodes, Expanded: st.Expanded, Donated: st.Donated, Claims: st.Claims, Misses: st.Misses,
		Threads: cmp.Or(st.Threads, engine.Stats().Threads), Utilisation: st.Utilisation}
	return res, use, err
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
