package solve

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tilekit/tilekit/gpu"
	"github.com/tilekit/tilekit/ida"
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

// Usable checks the driver and the card of a gpu device (gpu.Probe), so that a process
// that cannot use them says so at once rather than at every search; the card itself is
// opened once, where a search first uses it. The CPU and auto need nothing.
func (d Device) Usable() error {
	if d.Kind != deviceGPU {
		return nil
	}
	_, err := gpu.Probe(gpu.Options{Ordinal: d.Ordinal, Library: d.Library})
	return err
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

// DeviceUse is what a search did on a GPU: the card, what opening it took, the host's work
// beside the launches, and the engine's counts of this search's launches (gpu.Stats, the
// one set of them: they count work past the solution that the serial counts do not). Its
// JSON is part of a record's.
type DeviceUse struct {
	Name        string  `json:"name"`
	Driver      string  `json:"driver"`     // the driver's CUDA version
	Capability  string  `json:"capability"` // compute capability
	OpenSeconds float64 `json:"open_seconds"`
	// The seconds the GPU passes spent making their frontiers on the CPU, ordering their
	// subtrees (largest first), on the passes searched on the CPU (expected sooner there),
	// and in the engine's searches of GPU passes (launches, copies, splits and their
	// bookkeeping).
	FrontierSeconds float64 `json:"frontier_seconds"`
	OrderSeconds    float64 `json:"order_seconds"`
	CPUSeconds      float64 `json:"cpu_seconds"`
	EngineSeconds   float64 `json:"engine_seconds"`
	gpu.Stats
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
