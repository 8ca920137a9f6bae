package ida

import (
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
)

// SplitSmallTrees returns opt with every pass past bound 8 split among its workers into
// 256 subtrees a worker, however small its tree, so that tests on easy positions exercise
// the parallel search (solve's rule splits passes past 100,000 nodes).
func SplitSmallTrees(opt Options) Options {
	opt.Split = splitAmongWorkers(opt.Workers, 1)
	return opt
}

// WithWorkersSplit returns opt with its passes past 100,000 nodes split among its workers,
// as package solve splits them.
func WithWorkersSplit(opt Options) Options {
	opt.Split = splitAmongWorkers(opt.Workers, 100_000)
	return opt
}

// splitAmongWorkers is the tests' rule: with several workers, a pass past bound 8 after
// one of from nodes split into 256 subtrees a worker.
func splitAmongWorkers(workers int, from uint64) func(passes.PassPlan) (int, func([]board.Dir) bool) {
	return func(p passes.PassPlan) (int, func([]board.Dir) bool) {
		if workers < 2 || p.Bound <= 8 || len(p.Passes) == 0 || p.Passes[len(p.Passes)-1].Nodes < from {
			return 0, nil
		}
		return 256 * workers, nil
	}
}

// Set5x5ForTests is set5x5, for the package's external tests.
var Set5x5ForTests = set5x5
