package solve

import (
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
)

// The one home of the policy that splits an IDA* search's passes into subtrees: the
// rules of this process's workers, of a cluster's coordinator and of a GPU are values of
// SplitOptions, their defaults in the table below, read by the plan of every search that
// solve runs (ida takes the workers' rule through ida.Options.Split, and splits nothing
// without it).

// SplitOptions configure SolveSplit: the policy that says which passes are split, and
// how finely.
type SplitOptions struct {
	// Subtrees is the most subtrees a split pass aims at (at least 1).
	Subtrees int
	// UnitNodes, if set, is the size (in nodes) a subtree should have: a pass expected to
	// be n nodes (the last one's times its growth) aims at n/UnitNodes subtrees, between 2
	// and Subtrees. 0: always Subtrees.
	UnitNodes uint64
	// SplitFrom is the size (in generated nodes) of the previous pass from which passes are
	// split; smaller passes are searched here, whole.
	SplitFrom uint64
	// MinBound: passes of this bound or less are searched whole (0: 2, the first that can
	// be split).
	MinBound int

	// The GPU's rule (Device.Split) takes Subtrees (the most), UnitNodes (the nodes a
	// subtree should take: a pass expected to take n nodes, eight times the last, aims at
	// n/UnitNodes subtrees) and:

	// LeastSubtrees is the fewest subtrees a pass on the GPU is split into.
	LeastSubtrees int
	// Large is how many times the mean a subtree is expected to be before a pass on the
	// GPU splits it further, where the threads do not donate (0: none, for the threads give
	// up what proves large: gpu.Tune.GiveUp).
	Large int
	// Window is how many subtrees, in serial order, a GPU pass's frontier is ordered
	// largest first within (0: all of them; 1: serial order).
	Window int
	// GPUFrom, when not zero, sends every pass after one of GPUFrom nodes to the GPU,
	// whatever the times (0: a pass goes where it is expected to take less time; for
	// measuring, and for the fake driver, whose emulation is far slower than the cores).
	GPUFrom uint64
	// Pass, if set, hears of each pass: its bound, whether it was split, and its work.
	Pass func(bound int, split bool, w passes.Work)
	// MaxUnitNodes, if set, is the size (in nodes) above which a subtree is split further:
	// one whose path had more than MaxUnitNodes / growth nodes below it in the pass before
	// (growth: the last pass's nodes over the one's before) is replaced by the subtrees one
	// move deeper, each taken as the parent's share (divided by the branching factor, 2)
	// until it is small enough.
	MaxUnitNodes uint64
}

// The rules' defaults.
var (
	// clusterSplit is a cluster's coordinator's (Coordinator.Split's zero fields): passes
	// after a million nodes split into subtrees of about a million nodes, at most 16,384,
	// those expected above four million split further.
	clusterSplit = SplitOptions{Subtrees: 16_384, UnitNodes: 1_000_000, SplitFrom: 1_000_000, MaxUnitNodes: 4_000_000}
	// workersSplit is this process's workers', per worker: a pass after one of 100,000 nodes
	// (a few times the last: a small tree is not worth splitting, since finding enough
	// subtrees in it would search it again and again), past bound 8, split into 256 subtrees
	// a worker, so that subtrees of very different sizes even out, and in the last pass
	// little work is spent after the solution's subtree (with 256 rather than 32, the
	// 24-puzzle's k24-38 took 12% fewer nodes on two workers; 1,024 did worse again).
	workersSplit = SplitOptions{Subtrees: 256, SplitFrom: 100_000, MinBound: 8}
	// gpuSplit is a GPU's: a pass split into about one subtree for every 2^20 nodes it is
	// expected to take (the last one's times 8), between 4,096 and 65,536. The CPU makes,
	// orders and accounts for every subtree (about half a microsecond each on the H200's
	// host), while the GPU's threads share a large subtree by donating it and claim roots
	// tens of millions a second: in the fake driver's emulation of Korf's 100 with md,
	// 4,096 subtrees a pass took 0-20% more of the threads' steps than 262,144, for a
	// tenth of the CPU's time (docs/RESULTS.md).
	gpuSplit = SplitOptions{Subtrees: 1 << 16, LeastSubtrees: 1 << 12, UnitNodes: 1 << 20}
)

// Knobs returns the setters of the GPU's split rule's knobs by their names in
// $TILEKIT_GPU_TUNE (gpu.ParseTune's more): subtrees, least, per, large, window, from.
func (opt *SplitOptions) Knobs() map[string]func(uint32) {
	return map[string]func(uint32){
		"subtrees": func(n uint32) { opt.Subtrees = int(n) },
		"least":    func(n uint32) { opt.LeastSubtrees = int(n) },
		"per":      func(n uint32) { opt.UnitNodes = uint64(n) },
		"large":    func(n uint32) { opt.Large = int(n) },
		"window":   func(n uint32) { opt.Window = int(n) },
		"from":     func(n uint32) { opt.GPUFrom = uint64(n) },
	}
}

// ClusterDefaults returns opt with its zero fields set to a cluster's defaults.
func (opt SplitOptions) ClusterDefaults() SplitOptions {
	d := clusterSplit
	if opt.Subtrees == 0 {
		opt.Subtrees = d.Subtrees
	}
	if opt.UnitNodes == 0 {
		opt.UnitNodes = d.UnitNodes
	}
	if opt.SplitFrom == 0 {
		opt.SplitFrom = d.SplitFrom
	}
	if opt.MaxUnitNodes == 0 {
		opt.MaxUnitNodes = d.MaxUnitNodes / d.UnitNodes * opt.UnitNodes
	}
	return opt
}

// workersRule is the workers' rule for n workers: none for fewer than two (every pass whole).
func workersRule(n int) func(passes.PassPlan) (int, func([]board.Dir) bool) {
	if n < 2 {
		return nil
	}
	opt := workersSplit
	opt.Subtrees *= n
	return opt.split
}

// split is the plan's policy: a pass is split once the last was SplitFrom nodes, into
// want subtrees, the large ones of the last split pass split further.
func (opt SplitOptions) split(p passes.PassPlan) (int, func([]board.Dir) bool) {
	var last, before uint64
	if n := len(p.Passes); n > 0 {
		last = p.Passes[n-1].Nodes
		if n > 1 {
			before = p.Passes[n-2].Nodes
		}
	}
	if last < opt.SplitFrom || p.Bound <= max(opt.MinBound, 2) {
		return 0, nil
	}
	var prev *pathTree
	if sp := p.LastSplit; sp != nil && opt.MaxUnitNodes > 0 {
		prev = subtreeSizes(sp.Paths, sp.Results)
	}
	return opt.want(last, before), opt.refine(estimate(prev, last, before))
}

// want is how many subtrees a split pass aims at, after passes of last and before nodes.
func (opt SplitOptions) want(last, before uint64) int {
	most := max(opt.Subtrees, 1)
	if opt.UnitNodes == 0 || before == 0 {
		return most
	}
	growth := float64(last) / float64(before)
	n := float64(last) * max(growth, 1) / float64(opt.UnitNodes)
	return int(min(max(n, 2), float64(most)))
}

// refine returns the frontier's refinement: split a path further when its subtree is
// expected above MaxUnitNodes (nil: no refinement).
func (opt SplitOptions) refine(est func([]board.Dir) float64) func([]board.Dir) bool {
	if opt.MaxUnitNodes == 0 || est == nil {
		return nil
	}
	limit := float64(opt.MaxUnitNodes)
	return func(path []board.Dir) bool { return est(path) > limit }
}
