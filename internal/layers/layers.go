// Package layers holds the test of the module's layering rules (docs/ARCHITECTURE.md,
// "Layers"): which packages may not depend on which, checked against go list.
package layers
