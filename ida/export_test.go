package ida

// SplitSmallTrees makes every pass past the first few parallel, however small its tree,
// so that tests on easy positions exercise the parallel search; the returned function
// restores the threshold.
func SplitSmallTrees() (restore func()) {
	old := parallelFrom
	parallelFrom = 0
	return func() { parallelFrom = old }
}

// Set5x5ForTests is set5x5, for the package's external tests.
var Set5x5ForTests = set5x5
