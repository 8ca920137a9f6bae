package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Plan is one run of the device check, a value of plans chosen by name. TestPlans checks
// every plan: its steps' kinds, names and limits, which must fit Seconds.
type Plan struct {
	About   string
	Seconds float64 // the most the whole run may take: what is left when it is spent fails
	Tables  []Table
	Steps   []Step
}

// Table is a table file (or a set's files) that steps need: a named set, or a board's
// duplicate-path automaton of a depth. Carried tables are built by devcheck prepare where
// Go is and taken along; a table with Build seconds is built on the GPU machine by the
// check, beside the steps marked Beside.
type Table struct {
	Set       string
	Bits      bool // a zero-aware set in the bit encoding
	Automaton string
	Depth     int
	Build     float64 // the most its build on the GPU machine may take; 0: carried
}

// Step kinds.
const (
	KindSelfTest  = "self-test" // solve15 device --fault: the card, its JIT and kernels, the self-test against the CPU, a fault
	KindReference = "reference" // batches on the GPU against a committed CPU run's records
	KindCores     = "cores"     // instances on the GPU, on all cores and on one, in the same run
)

// Step is one step of a plan; which fields it reads depends on its Kind.
type Step struct {
	Name, Kind string
	What       string // for people: what it measures, and the figure aimed at
	Beside     bool   // it runs while the tables are built (only the self-test, whose timings a build cannot distort)
	Seconds    float64

	// The searches: solve15's board, goal and other arguments; the instances file (from the
	// repository's root) and which of its instances (all when none; "line N" names one
	// without an id); the engine's knobs ($TILEKIT_GPU_TUNE) of the step's GPU searches.
	Board, Goal string
	Args        []string
	Instances   string
	IDs         []string
	Tune        string

	// Reference steps: the committed records compared with; the batches, each within
	// Seconds (a run named "cold" empties the driver's JIT cache first); whether every
	// instance must be answered (else a budget: what finished in time is kept); and Keep, a
	// campaign's records made on the GPU so far, which the runs pass over and add to (under
	// --out's kept/, to be committed), so that a campaign goes on over several short runs.
	Reference string
	Runs      []string
	Complete  bool
	Keep      string
	// Against names an earlier step's run ("md warm") whose answers through the GPU each
	// run's are set beside in its row's note, instance by instance: the same searches with
	// other knobs.
	Against string

	// Cores steps: each instance's limits on the GPU and on every core; those searched on one
	// core for at most OneCoreSeconds (its rate of expanded nodes).
	GPUSeconds, CoresSeconds float64
	OneCore                  []string
	OneCoreSeconds           float64
}

// Grace is how long a process has, after the SIGINT that ends its time, to print what it
// finished (solve15 takes 2 s) before it is killed; oneCoreStart what a one-core run may
// take beside its --timeout (loading its tables).
const (
	Grace        = 3 * time.Second
	oneCoreStart = 5 * time.Second
)

// planNamed returns a fresh copy of the plan of that name.
func planNamed(name string) (*Plan, error) {
	build, ok := plans[name]
	if !ok {
		return nil, fmt.Errorf("no plan %q (%s)", name, strings.Join(slices.Sorted(maps.Keys(plans)), ", "))
	}
	return build(), nil
}

// replace makes the step's input what (instances, reference or keep) the file, for a
// check of other inputs.
func (p *Plan) replace(what, step, file string) error {
	i := slices.IndexFunc(p.Steps, func(s Step) bool { return s.Name == step })
	if i < 0 {
		return fmt.Errorf("--%s %s=%s: no step %q", what, step, file, step)
	}
	*map[string]*string{"instances": &p.Steps[i].Instances, "reference": &p.Steps[i].Reference, "keep": &p.Steps[i].Keep}[what] = file
	return nil
}
