//go:build idadebug

package ida

// debugCheck makes every node compare its incrementally updated heuristic with one computed
// from scratch (and panic where they differ). It is on in builds with the tag idadebug,
// which .ci/run runs the package's tests with; otherwise it is a constant false, and the
// checks cost nothing.
const debugCheck = true
