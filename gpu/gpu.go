// Package gpu runs IDA*'s passes on an NVIDIA GPU: a runner (passes.Runner) of ida's pass
// driver that searches a split pass's subtrees on the device, keeping ida's node protocol
// (docs/SEARCH.md), so that the solution and the serial counts are exactly ida's.
//
// The driver (libcuda.so.1, installed with the NVIDIA driver: no CUDA toolkit is needed) is
// loaded at run time without cgo (github.com/ebitengine/purego), on Linux for amd64 and
// arm64; elsewhere Open returns errUnsupported. The kernel (kernel/ida.cu, on
// kernel/pass.h) is PTX for compute_75 (Turing and later) made by go generate with nvcc
// 11.8 and embedded; the driver compiles it for the card at the first launch, which needs
// driver R520 or later.
//
// The scheme (after the GPU IDA* of Horie & Fukunaga, "Block-Parallel IDA* for GPUs", SoCS
// 2017, rebuilt for today's cards: one subtree a thread rather than a block, and work
// donated to idle threads):
//
//  1. The pass driver (package passes) has ida search the top of a pass on the CPU down
//     to a frontier of a few thousand nodes (the top), numbered in serial order. With the Manhattan distance the
//     card grows it (grow.go, kernel/grow.h): breadth first, a few depths a launch, each
//     level in serial order (a count of each node's nodes a few moves below, a scan, a
//     write), every node above the last level expanded and counted in its top subtree as
//     the search would, until the last level holds a few roots a thread; its roots are
//     then ordered by slack (the bound less their depth and value), the largest subtrees
//     first. The host reads a word a level and nothing a root.
//  2. Every thread of one persistent launch takes roots and searches below each, depth
//     first, with ida's order of children and its counts. A warp's threads without work
//     take roots together at the end of a turn: one of them claims for all, by one atomic
//     operation however many it takes (handing roots out one thread at a time, by
//     compare-and-swap, held a pass to about 100,000 roots a second on an H200); a thread
//     whose root ends within its turn takes the next alone.
//  3. Busy threads give the unexplored children of their shallowest open node to a queue,
//     from which threads take before the frontier: while threads are idle, and, from a
//     root that has proved large, while the queue is short, so that the threads keep to
//     the earliest subtrees and share the large ones early (without donation the end of a
//     pass leaves almost every thread idle). A donated node's counts are added to its top
//     subtree's.
//  4. A thread that meets the goal offers its top subtree's index as the earliest solving
//     one (an atomic minimum); nodes of later subtrees are abandoned. When the launch ends,
//     every subtree before the earliest solving one has been searched to its end: their
//     counts are the serial search's. The solving subtree is searched again split across
//     the solver's cores (passes.Deeper, its parts on passes.Workers, their replay),
//     which gives the serial search's solution and its counts up to it, never on one
//     core alone; the driver then replays the solution on the start before it is
//     believed.
//
// Cancellation reaches a running launch through a flag in mapped host memory that the
// threads of a block read in turn (each every 4,096 polls, a block's 256 at different
// ones), and sets the stop flag that every thread polls every 16 expansions: a search
// stops within milliseconds. The node limit may be overshot by at most a turn's and a
// poll's expansions' children a thread (48 expansions: about 150 nodes a thread), and by
// a level of the growth's.
// Data-centre cards have no display watchdog; a card that drives a display kills a launch
// after a few seconds (CUDA_ERROR_LAUNCH_TIMEOUT), reported as ErrLaunch.
//
// Three searches: the Manhattan distance (pass.h); a set of tables in nibbles that are
// not zero-aware with its reflection (set.h: all children first, BPMX, each subtree's root
// value read back for the driver's replay; a donated node carries the most its value may
// return without cutting its donor's node, and a subtree where one returned more is
// split further as one given up); and a catalogue or set of zero-aware tables, in nibbles
// or in the bit encoding, such as small-t (cat.h: ida's catalogue loop, each lookup's index
// stepped from its ranks as package zindex steps it, each subtree's root starting from its
// frontier node's lookups, uploaded with the frontier, and each donated node with its own).
//
// The scheduler's knobs (how long a thread searches before it donates, how often it
// polls, how long an idle thread sleeps) are Options.Tune's, so that the device check
// (cmd/devcheck, a step's tune) can compare settings on a card.
//
// The host build of the same search (kernel/host.cpp) runs the scheme with many virtual
// threads stepped in turn, or real threads racing; the tests compare it with ida subtree by
// subtree.
package gpu

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/tilekit/tilekit/internal/format"
)

// Errors of the package; each error returned matches one of them (errors.Is).
var (
	// ErrNoDriver reports that the NVIDIA driver library could not be loaded.
	ErrNoDriver = errors.New("gpu: no NVIDIA driver")
	// errInit reports that the driver did not initialise (cuInit failed).
	errInit = errors.New("gpu: the NVIDIA driver did not initialise")
	// errNoDevice reports that the driver sees no GPU, or not the one asked for.
	errNoDevice = errors.New("gpu: no such GPU")
	// errMemory reports a device too small for the tables and the frontier.
	errMemory = errors.New("gpu: not enough GPU memory")
	// ErrJIT reports that the driver could not compile the kernel for the card.
	ErrJIT = errors.New("gpu: the driver could not compile the kernel")
	// ErrLaunch reports a launch that failed, or a fault in the kernel; the device's
	// context is not usable afterwards (Open a new one).
	ErrLaunch = errors.New("gpu: a kernel failed")
	// errHeuristic reports a heuristic the GPU does not search yet.
	errHeuristic = errors.New("gpu: the GPU does not search this heuristic")
)

// driverError is a failed call of the driver: the call, its result code, and the driver's name
// and words for it.
type driverError struct {
	Call string
	Code int
	Name string // CUDA_ERROR_...
	Text string
}

func (e *driverError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("%s: CUDA error %d", e.Call, e.Code)
	}
	return fmt.Sprintf("%s: %s (%d): %s", e.Call, e.Name, e.Code, e.Text)
}

// Options choose the GPU and the driver.
type Options struct {
	// Ordinal is the GPU's number, as the driver counts them (nvidia-smi's order may differ
	// unless CUDA_DEVICE_ORDER=PCI_BUS_ID).
	Ordinal int
	// Library is the driver library to load; "" for libcuda.so.1 where the loader finds it.
	Library string
	// Tune sets the scheduler's knobs (zero: the defaults). The package reads no
	// environment: the commands read $TILEKIT_GPU_TUNE (TuneEnv) with ParseTune.
	Tune Tune
}

// Tune is the scheduler's knobs, for measuring on a card (a step's tune in the device
// check's plan). Zero fields take the defaults. How a pass is split for the GPU is package
// solve's rule (solve.SplitOptions), whose knobs $TILEKIT_GPU_TUNE names beside these
// (ParseTune's more).
type Tune struct {
	// DonateAfter is how many nodes a thread expands below a root before it donates
	// (then again after as many more; default 8).
	DonateAfter uint32
	// PollEvery is how many nodes a thread expands between its polls of the pass's state
	// (the node limit, the stop flag, donation; default 16).
	PollEvery uint32
	// WaitMax is the longest a warp's idle threads wait before they ask for work again,
	// and a warp with no work sleeps, in nanoseconds (the wait doubles from 128 ns;
	// default 65,536).
	WaitMax uint32
	// Turn is how many nodes a thread expands before its warp's threads without work look
	// for some (default 32): a warp's threads take turns together, so that none sleeps
	// while others search.
	Turn uint32
	// GiveUp is how many nodes a thread generates below a subtree before it gives the
	// subtree up (default: never; where a set's threads do not donate, NoDonate, 4 times a
	// thread's share of the pass's expected nodes, at least 2,048): the engine then splits
	// it further (passes.Deeper) and the threads share its parts in another launch.
	GiveUp uint32
	// NoDonate, when not zero, keeps the threads of a set that is not zero-aware from
	// donating: they give up what proves large instead (GiveUp). By default they donate,
	// and a subtree where a part donated would have cut its donor's node (BPMX) is split
	// further as one given up.
	NoDonate uint32
	// Chunk is the most subtrees a launch after a pass's first holds (default: 8,192
	// where the threads donate, else two a thread): what the pass still needs, in serial
	// order, the subtrees given up split into their parts, so that what lies after the
	// first solution is not searched.
	Chunk uint32
	// Parts is the least number of parts a subtree given up is split into (default 16).
	Parts uint32
	// PartGiveUp is how many nodes a thread generates below a part of a subtree given up
	// before it gives the part up in turn (default: a quarter of GiveUp's).
	PartGiveUp uint32
	// DonateMost is the most nodes a thread donates at a poll (default 8; at most what
	// lets every thread's donations fit the queue at once).
	DonateMost uint32
	// DonateAbove is how many moves above the bound a node must be for a thread to donate
	// its children (default 6): a node nearer the bound has too little below it.
	DonateAbove uint32
	// Roots is how many roots a pass's frontier grows to on the card, where its kind
	// grows it (md's; default: 4 a thread, at most 2,097,152): the host's top is expanded
	// breadth first, level by level, until a level holds as many. 1: no growth (the
	// host's frontier is the search's roots).
	Roots uint32
	// Keep is how many roots threads with a large root keep the queue at while no thread
	// is idle (default: one for every 8 threads): what they give is taken before the
	// frontier's roots.
	Keep uint32
}

// clip is at most the first 64 bytes of s, for a message that quotes what it refuses.
func clip(s string) string { return format.Outside(s, 64) }

// TuneEnv names the environment variable that the commands read knobs from (ParseTune),
// for measuring on a card.
const TuneEnv = "TILEKIT_GPU_TUNE"

// ParseTune reads knobs written as donate=N,poll=N,wait=NS,turn=N,giveup=N,chunk=N,parts=N,
// partgiveup=N,nodonate=1,most=N,above=N,roots=N,keep=N (any of them, in any order; "" for
// none), and the knobs of more, each given to its setter (those of the split rule that
// package solve keeps: solve.SplitOptions.Knobs).
func ParseTune(text string, more map[string]func(uint32)) (Tune, error) {
	var t Tune
	if strings.TrimSpace(text) == "" {
		return t, nil
	}
	names := []string{"donate", "poll", "wait", "turn", "giveup", "chunk", "parts", "partgiveup", "nodonate", "most", "above", "roots", "keep"}
	knobs := []*uint32{&t.DonateAfter, &t.PollEvery, &t.WaitMax, &t.Turn, &t.GiveUp, &t.Chunk, &t.Parts, &t.PartGiveUp, &t.NoDonate, &t.DonateMost, &t.DonateAbove, &t.Roots, &t.Keep}
	setters := make([]func(uint32), len(knobs))
	for i := range knobs {
		setters[i] = func(n uint32) { *knobs[i] = n }
	}
	for _, k := range slices.Sorted(maps.Keys(more)) {
		names, setters = append(names, k), append(setters, more[k])
	}
	list := strings.Join(names, ", ")
	for _, kv := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
		if !ok || err != nil || n == 0 {
			return Tune{}, fmt.Errorf("gpu: %q in the tuning %q is not KNOB=N with N from 1 to 4294967295 (knobs: %s)", clip(kv), clip(text), list)
		}
		i := slices.Index(names, strings.TrimSpace(k))
		if i < 0 {
			return Tune{}, fmt.Errorf("gpu: no knob %q in the tuning %q (knobs: %s)", clip(k), clip(text), list)
		}
		setters[i](uint32(n))
	}
	return t, nil
}

// Info describes a GPU and its driver.
type Info struct {
	Ordinal    int
	Name       string
	Driver     int    // the driver's CUDA version, as 1000*major + 10*minor
	Capability [2]int // compute capability
	SMs        int    // multiprocessors
	// ThreadsPerSM is the most threads a multiprocessor holds at once: the driver reserves
	// a kernel's local memory for that many on each.
	ThreadsPerSM int
	Memory       uint64 // bytes in all
	Free         uint64 // bytes free when opened
}

// DriverVersion returns the driver's CUDA version as "major.minor".
func (i Info) DriverVersion() string { return fmt.Sprintf("%d.%d", i.Driver/1000, i.Driver%1000/10) }

func (i Info) String() string {
	return fmt.Sprintf("GPU %d: %s, compute capability %d.%d, %d multiprocessors, %.1f GB (%.1f GB free), driver CUDA %s",
		i.Ordinal, i.Name, i.Capability[0], i.Capability[1], i.SMs, float64(i.Memory)/1e9, float64(i.Free)/1e9, i.DriverVersion())
}

// Hints are what the engine is told of a batch before its search: in what order to hand
// its subtrees to the threads, how large it is expected to be, and where its figures go.
// (Package schedule is another matter: a split search's time on paper.)
type Hints struct {
	// Order is the order of the subtrees' serial indices to hand them out in (nil: serial
	// order): the largest expected first, so that the pass does not end with a few threads
	// on large subtrees.
	Order []uint32
	// Expected is the nodes the batch's search is expected to generate at the least (0:
	// unknown; solve gives the last pass's), from which a thread that does not donate
	// knows when to give a subtree up.
	Expected float64
	// Tally, if not nil, is where the search adds its own Stats (the engine's add up
	// every search's): a search's figures, though other searches share the engine.
	Tally *Stats
}

// Stats is what an engine's launches did, over all of them so far: the one set of GPU
// counts, which a record's JSON carries as they are (solve.DeviceUse). Its times are in
// seconds.
type Stats struct {
	Passes        int     `json:"passes"`         // batches searched
	Launches      int     `json:"launches"`       // a batch's, and one for each time its threads gave subtrees up
	Subtrees      uint64  `json:"subtrees"`       // frontier nodes handed to the GPU
	Roots         uint64  `json:"roots"`          // roots the launches' searches took: the frontier's, or those it grew to on the card
	Levels        int     `json:"levels"`         // levels of the frontiers grown on the card
	GrowLaunches  int     `json:"grow_launches"`  // the launches that grew them (two a level)
	GivenUp       uint64  `json:"given_up"`       // subtrees the threads gave up, split further and searched again
	Solving       uint64  `json:"solving"`        // subtrees where the first solution was met, split and searched again for the serial counts up to it
	Raised        uint64  `json:"raised"`         // of those given up, the subtrees where a part donated would have cut its donor's node (BPMX)
	Nodes         uint64  `json:"nodes"`          // nodes the GPU generated (counting work past the solution)
	Expanded      uint64  `json:"expanded"`       // nodes the GPU expanded
	Donated       uint64  `json:"donated"`        // nodes busy threads gave to idle ones
	Claims        uint64  `json:"claims"`         // claims that took roots, each for a warp's threads without one
	Misses        uint64  `json:"misses"`         // claims that took none
	Threads       int     `json:"threads"`        // threads a launch
	UploadSeconds float64 `json:"upload_seconds"` // copying frontiers to the device
	SearchSeconds float64 `json:"search_seconds"` // the launches, to their end (the growth's included)
	GrowSeconds   float64 `json:"grow_seconds"`   // of those, the growth's launches and the words read between them
	SplitSeconds  float64 `json:"split_seconds"`  // the CPU's work on subtrees given up: their parts, and their results from the parts
	WaitSeconds   float64 `json:"wait_seconds"`   // waiting for the device while another search had it
	// Utilisation is the share of the threads' time they held work to search (Busy over
	// Cycles: the threads' clock cycles with work and in all, summed over the launches; on
	// the fake driver, steps of a thread).
	Utilisation  float64 `json:"utilisation"`
	Busy, Cycles uint64  `json:"-"`
}

// Add adds o's figures to s's: every count and time summed, the threads o's (where it
// launched), the utilisation that of the summed cycles (unchanged without any: counts read
// back from a record's JSON, which does not carry them, are weighted by their reader).
func (s *Stats) Add(o Stats) {
	threads, util := cmp.Or(o.Threads, s.Threads), s.Utilisation
	sv, ov := reflect.ValueOf(s).Elem(), reflect.ValueOf(o)
	for i := range sv.NumField() {
		switch f, g := sv.Field(i), ov.Field(i); f.Kind() {
		case reflect.Int:
			f.SetInt(f.Int() + g.Int())
		case reflect.Uint64:
			f.SetUint(f.Uint() + g.Uint())
		case reflect.Float64:
			f.SetFloat(f.Float() + g.Float())
		}
	}
	s.Threads, s.Utilisation = threads, util
	if s.Cycles > 0 {
		s.Utilisation = float64(s.Busy) / float64(s.Cycles)
	}
}
