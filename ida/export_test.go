package ida

// SplitSmallTrees returns opt with every pass past the first few parallel, however small
// its tree, so that tests on easy positions exercise the parallel search.
func SplitSmallTrees(opt Options) Options {
	opt.splitFrom = 1
	return opt
}

// Set5x5ForTests is set5x5, for the package's external tests.
var Set5x5ForTests = set5x5
