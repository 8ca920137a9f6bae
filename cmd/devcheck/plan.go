package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/solve"
)

// Plan is one run of the device check, a value of plans chosen by name.
type Plan struct {
	About string `json:"about"`
	// Seconds is the most the whole run may take: the check validates that its steps'
	// limits and its builds fit, and stops what is left when it is spent.
	Seconds float64  `json:"seconds"`
	Tables  []Table  `json:"tables"`
	Steps   []Step   `json:"steps"`
	Targets []Target `json:"targets"`
}

// Table is a table file (or a set's files) that steps need: a named set, or a board's
// duplicate-path automaton of a depth. Carried tables are built by Prepare on a machine
// with Go and taken along; the others are built on the GPU machine by the check, beside
// the steps marked Beside, within Seconds.
type Table struct {
	Set       string  `json:"set,omitempty"`
	Bits      bool    `json:"bits,omitempty"` // a zero-aware set in the bit encoding
	Automaton string  `json:"automaton,omitempty"`
	Depth     int     `json:"depth,omitempty"`
	OnCard    bool    `json:"on_card,omitempty"`
	Seconds   float64 `json:"seconds,omitempty"` // an on-card build's limit
}

// Step kinds.
const (
	KindSelfTest  = "self-test" // solve15 device --fault: the card, its JIT, the self-test against the CPU, a fault
	KindReference = "reference" // a batch on the GPU against a committed CPU run's records
	KindCores     = "cores"     // instances on the GPU, on all cores and on one, in the same run
	KindPTX       = "ptx"       // each kernel's registers, spills and local memory
)

// Step is one step of a plan.
type Step struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	What string `json:"what,omitempty"` // for people: what the step measures
	// Beside: the step runs while the on-card tables are built (only steps whose timings a
	// build cannot distort: the self-test, the PTX report).
	Beside bool `json:"beside_builds,omitempty"`
	// Seconds is the hard limit of each of the step's processes (a reference step's each
	// run; a self-test's process; the PTX report as a whole).
	Seconds float64 `json:"seconds,omitempty"`

	// The searches' board, goal and other solve15 arguments (reference and cores).
	Board     string   `json:"board,omitempty"`
	Goal      string   `json:"goal,omitempty"`
	Args      []string `json:"args,omitempty"`
	Instances string   `json:"instances,omitempty"` // a file of instances, from the repository's root
	// Tune sets the engine's knobs of the step's GPU searches ($TILEKIT_GPU_TUNE, as
	// gpu.ParseTune reads it): a step of its own compares them with the defaults, which
	// every other search of the check runs.
	Tune string   `json:"tune,omitempty"`
	IDs  []string `json:"ids,omitempty"` // which of the file's instances (all: none given); "line N" names one without an id

	// Reference steps: the committed records compared with, the runs (each a whole batch;
	// "cold" empties the driver's JIT cache first), and whether every instance must be
	// answered within Seconds (else the run is a budget: stopped there, what it finished
	// kept).
	Reference string `json:"reference,omitempty"`
	Runs      []Run  `json:"runs,omitempty"`
	Complete  bool   `json:"complete,omitempty"`
	// Keep names a file of the repository that holds the records a campaign made on the
	// GPU so far (absent: none yet): the runs pass over what it solved (solve15 --done)
	// and add to it the records that agree with the reference and went through the GPU;
	// the check writes it, so added to, under Out with its own name, to be committed. A
	// campaign so goes on over several short runs of the check.
	Keep string `json:"keep,omitempty"`

	// Cores steps: each instance's limits on the GPU and on every core, and the instances
	// searched on one core for at most OneCoreSeconds (its rate of expanded nodes).
	GPUSeconds     float64  `json:"gpu_seconds,omitempty"`
	CoresSeconds   float64  `json:"cores_seconds,omitempty"`
	OneCore        []string `json:"one_core,omitempty"`
	OneCoreSeconds float64  `json:"one_core_seconds,omitempty"`

	// PTX: the targets ptxas -v compiles the kernel for, when the machine has ptxas.
	Arch []string `json:"arch,omitempty"`
}

// Run is one batch of a reference step.
type Run struct {
	Name string `json:"name"`
	JIT  string `json:"jit,omitempty"` // "cold": the driver's JIT cache emptied first
}

// Target is a figure an issue asks of the GPU, and the step that measures it; one the
// plan does not measure says why in NotRun.
type Target struct {
	Issue   int     `json:"issue"`
	What    string  `json:"what"`
	Step    string  `json:"step,omitempty"`
	Measure string  `json:"measure,omitempty"`
	Run     string  `json:"run,omitempty"` // of a reference step
	ID      string  `json:"id,omitempty"`  // of a cores step
	AtMost  float64 `json:"at_most,omitempty"`
	AtLeast float64 `json:"at_least,omitempty"`
	Aim     float64 `json:"aim,omitempty"`
	NotRun  string  `json:"not_run,omitempty"`
}

// Measures a target may take.
const (
	MeasureAgree        = "agree"              // the step's row passed
	MeasureSeconds      = "seconds"            // a reference run's wall, every instance answered and agreeing
	MeasureGPUOverCores = "gpu_over_cores"     // a cores step's instance: the GPU's seconds over all the cores'
	MeasureOverOneCore  = "rate_over_one_core" // the GPU's serial expanded nodes a second over one core's
	MeasureKept         = "kept"               // a reference step's kept records: their seconds summed, every instance kept
)

// Grace is how long a process has, after the SIGINT that ends its time, to print what it
// finished (solve15 takes 2 s) before it is killed.
const Grace = 3 * time.Second

// Overhead is what the check allows itself outside the steps' limits: reading and
// checking the tables, starting processes, writing the summary.
const Overhead = 15 * time.Second

// planNamed returns a fresh copy of the plan of that name, its inputs replaced as inputs
// says (Inputs), and checked (Plan.check).
func planNamed(name string, inputs Inputs) (*Plan, error) {
	build, ok := plans[name]
	if !ok {
		return nil, fmt.Errorf("no plan %q (%s)", name, strings.Join(slices.Sorted(maps.Keys(plans)), ", "))
	}
	p := build()
	if err := inputs.apply(p); err != nil {
		return nil, fmt.Errorf("plan %s: %w", name, err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("plan %s: %w", name, err)
	}
	return p, nil
}

// Inputs replace the files a plan's steps read, by step: their instances, their reference,
// and a campaign's kept records (for a check of other inputs, and for the tests' bad ones).
type Inputs struct {
	Instances, Reference, Keep map[string]string
}

// apply replaces p's steps' inputs; a step that is not p's is an error.
func (in Inputs) apply(p *Plan) error {
	for _, c := range []struct {
		what string
		m    map[string]string
		set  func(s *Step, v string)
	}{
		{"instances", in.Instances, func(s *Step, v string) { s.Instances = v }},
		{"reference", in.Reference, func(s *Step, v string) { s.Reference = v }},
		{"keep", in.Keep, func(s *Step, v string) { s.Keep = v }},
	} {
		for step, v := range c.m {
			i := slices.IndexFunc(p.Steps, func(s Step) bool { return s.Name == step })
			if i < 0 {
				return fmt.Errorf("--%s %s=%s: no step %q", c.what, step, v, step)
			}
			c.set(&p.Steps[i], v)
		}
	}
	return nil
}

// check validates the plan: known kinds with what each needs, unique names, targets of
// steps that exist, and limits that fit the plan's Seconds (Bound).
func (p *Plan) check() error {
	if !inRange(p.Seconds) {
		return fmt.Errorf("seconds: the run's limit is more than 0 and at most %v s, not %v", maxSeconds, p.Seconds)
	}
	if len(p.Steps) == 0 {
		return errors.New("no steps")
	}
	for i, t := range p.Tables {
		if err := t.check(); err != nil {
			return fmt.Errorf("table %d: %w", i+1, err)
		}
	}
	names := map[string]*Step{}
	for i := range p.Steps {
		s := &p.Steps[i]
		if !plainWord(s.Name) {
			return fmt.Errorf("step %d: its name %q is not a plain word (%s)", i+1, s.Name, plainWords)
		}
		if names[s.Name] != nil {
			return fmt.Errorf("step %d: the name %q is taken", i+1, s.Name)
		}
		names[s.Name] = s
		if err := s.check(); err != nil {
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
	}
	for i, t := range p.Targets {
		if err := t.check(names); err != nil {
			return fmt.Errorf("target %d (%s): %w", i+1, t.What, err)
		}
	}
	if b := p.Bound(); b > time.Duration(p.Seconds*float64(time.Second)) {
		return fmt.Errorf("its limits add up to %v (%s), more than its %v s", b.Round(time.Second), p.BoundText(), p.Seconds)
	}
	return nil
}

func (t Table) check() error {
	switch {
	case t.Set != "" && t.Automaton != "":
		return errors.New("a set or an automaton, not both")
	case t.Set != "":
		spec, err := pdb.SetByName(t.Set)
		if err != nil {
			return err
		}
		if t.Bits && !spec.ZeroAware {
			return fmt.Errorf("the set %s is not zero-aware: no bit encoding", t.Set)
		}
		if t.Depth != 0 {
			return errors.New("a set has no depth")
		}
	case t.Automaton != "":
		if _, err := board.ParseSize(t.Automaton); err != nil {
			return err
		}
		if t.Depth < 2 || t.Depth > 24 {
			return fmt.Errorf("an automaton's depth is 2 to 24, not %d", t.Depth)
		}
		if t.Bits {
			return errors.New("an automaton has no bit encoding")
		}
	default:
		return errors.New("a set or an automaton is needed")
	}
	if t.OnCard != (t.Seconds != 0) {
		return errors.New("a table built on the card needs its seconds, and only such a table has them")
	}
	if t.OnCard && !inRange(t.Seconds) {
		return fmt.Errorf("seconds: more than 0 and at most %v, not %v", maxSeconds, t.Seconds)
	}
	return nil
}

// maxIDs bounds a step's lists (its ids, runs, archs): its limits' sum stays far within a
// duration's range.
const maxIDs = 1000

// duplicate returns a word given twice in list, or "".
func duplicate(list []string) string {
	seen := map[string]bool{}
	for _, w := range list {
		if seen[w] {
			return w
		}
		seen[w] = true
	}
	return ""
}

// plainWords says what plainWord takes.
const plainWords = "letters, digits, '-', '_' and '.', not first, at most 64: it names files under --out"

// plainWord reports whether w may name a file under the check's output directory as it
// is: letters, digits, '-', '_' and '.', not first, at most 64 bytes (no separator, no
// "..", nothing hidden).
func plainWord(w string) bool {
	if w == "" || len(w) > 64 || w[0] == '.' {
		return false
	}
	for _, r := range w {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// maxSeconds bounds every limit of a plan (a day).
const maxSeconds = 86400

func inRange(s float64) bool { return s > 0 && s <= maxSeconds }

func (s *Step) check() error {
	needs := func(what string, ok bool) error {
		if !ok {
			return fmt.Errorf("a %s step needs %s", s.Kind, what)
		}
		return nil
	}
	searches := func() error {
		if _, err := board.ParseSize(s.Board); err != nil {
			return err
		}
		if _, err := s.goal(); err != nil {
			return err
		}
		for _, a := range s.Args {
			switch a {
			case "--device", "--json", "-f", "--file", "--board", "--goal", "--workers", "-j", "--timeout":
				return fmt.Errorf("the check sets %s itself", a)
			}
		}
		return needs("instances", s.Instances != "")
	}
	for _, f := range []float64{s.Seconds, s.GPUSeconds, s.CoresSeconds, s.OneCoreSeconds} {
		if f != 0 && !inRange(f) {
			return fmt.Errorf("a limit is more than 0 and at most %v s, not %v", maxSeconds, f)
		}
	}
	var err error
	switch s.Kind {
	case KindSelfTest, KindPTX:
		err = needs("seconds", s.Seconds > 0)
	case KindReference:
		err = errors.Join(searches(), needs("seconds", s.Seconds > 0), needs("a reference", s.Reference != ""), needs("runs", len(s.Runs) > 0))
		seen := map[string]bool{}
		for _, r := range s.Runs {
			if seen[r.Name] || !plainWord(r.Name) {
				err = errors.Join(err, fmt.Errorf("a run needs a name of its own that is a plain word (%q: %s)", r.Name, plainWords))
			}
			seen[r.Name] = true
			if r.JIT != "" && r.JIT != "cold" {
				err = errors.Join(err, fmt.Errorf("run %s: jit is \"cold\" or absent, not %q", r.Name, r.JIT))
			}
		}
	case KindCores:
		err = errors.Join(searches(), needs("ids", len(s.IDs) > 0), needs(fmt.Sprintf("at most %d ids", maxIDs), len(s.IDs) <= maxIDs), needs("gpu_seconds and cores_seconds", s.GPUSeconds > 0 && s.CoresSeconds > 0),
			needs("one_core_seconds for its one_core", len(s.OneCore) == 0 || s.OneCoreSeconds > 0))
		for _, id := range s.OneCore {
			if !slices.Contains(s.IDs, id) {
				err = errors.Join(err, fmt.Errorf("one_core's %s is not one of its ids", id))
			}
		}
	default:
		return fmt.Errorf("unknown kind %q (%s, %s, %s or %s)", s.Kind, KindSelfTest, KindReference, KindCores, KindPTX)
	}
	if len(s.IDs) > maxIDs || len(s.Runs) > maxIDs || len(s.OneCore) > maxIDs || len(s.Arch) > maxIDs {
		err = errors.Join(err, fmt.Errorf("at most %d ids, runs, one_core ids and arch names", maxIDs))
	}
	for _, id := range s.IDs {
		if !plainWord(strings.ReplaceAll(id, " ", "")) { // "line 5" names the file's line5
			err = errors.Join(err, fmt.Errorf("the id %q is not a plain word (%s)", id, plainWords))
		}
	}
	if dup := duplicate(s.IDs); dup != "" {
		err = errors.Join(err, fmt.Errorf("the id %q is given twice", dup))
	}
	if dup := duplicate(s.OneCore); dup != "" {
		err = errors.Join(err, fmt.Errorf("one_core's %q is given twice", dup))
	}
	for _, arch := range s.Arch {
		if !plainWord(arch) || !strings.HasPrefix(arch, "sm_") && !strings.HasPrefix(arch, "compute_") {
			err = errors.Join(err, fmt.Errorf("arch %q is not a GPU's name for ptxas (sm_90, compute_75)", arch))
		}
	}
	if s.Keep != "" && (s.Kind != KindReference || s.Complete) {
		err = errors.Join(err, errors.New("keep is for a reference step that is not complete: a campaign's budget"))
	}
	if s.Tune != "" {
		if terr := new(solve.Device).SetTune(s.Tune); terr != nil {
			err = errors.Join(err, fmt.Errorf("tune: %w", terr))
		}
		if s.Kind != KindReference && s.Kind != KindCores {
			err = errors.Join(err, errors.New("tune is for the searches of a reference or cores step"))
		}
	}
	if s.Beside && s.Kind != KindSelfTest && s.Kind != KindPTX {
		err = errors.Join(err, errors.New("only the self-test and the PTX report run beside the builds: a build would distort other timings"))
	}
	return err
}

func (s *Step) goal() (board.Goal, error) {
	size, err := board.ParseSize(s.Board)
	if err != nil {
		return board.Goal{}, err
	}
	name := s.Goal
	if name == "" {
		name = "blank-last"
	}
	return board.ParseGoal(size, name)
}

func (t Target) check(steps map[string]*Step) error {
	if t.Issue <= 0 || t.What == "" {
		return errors.New("an issue and what it asks are needed")
	}
	if t.NotRun != "" {
		if t.Step != "" || t.Measure != "" {
			return errors.New("a target not run names no step or measure")
		}
		return nil
	}
	s := steps[t.Step]
	if s == nil {
		return fmt.Errorf("no step %q", t.Step)
	}
	switch t.Measure {
	case MeasureAgree:
	case MeasureSeconds:
		if s.Kind != KindReference || !slices.ContainsFunc(s.Runs, func(r Run) bool { return r.Name == t.Run }) {
			return fmt.Errorf("%s measures a run of a reference step: step %s has no run %q", t.Measure, t.Step, t.Run)
		}
	case MeasureKept:
		if s.Keep == "" {
			return fmt.Errorf("%s measures the records a step keeps: step %s keeps none", t.Measure, t.Step)
		}
	case MeasureGPUOverCores, MeasureOverOneCore:
		if s.Kind != KindCores || !slices.Contains(s.IDs, t.ID) {
			return fmt.Errorf("%s measures an instance of a cores step: step %s has no id %q", t.Measure, t.Step, t.ID)
		}
		if t.Measure == MeasureOverOneCore && !slices.Contains(s.OneCore, t.ID) {
			return fmt.Errorf("step %s does not search %s on one core", t.Step, t.ID)
		}
	default:
		return fmt.Errorf("unknown measure %q", t.Measure)
	}
	return nil
}

// limit returns the most a step may take: its processes' limits, each with its grace.
func (s *Step) limit() time.Duration {
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	switch s.Kind {
	case KindSelfTest:
		return sec(s.Seconds) + Grace
	case KindPTX:
		return sec(s.Seconds)
	case KindReference:
		return time.Duration(len(s.Runs)) * (sec(s.Seconds) + Grace)
	case KindCores:
		return time.Duration(len(s.IDs))*(sec(s.GPUSeconds)+sec(s.CoresSeconds)+2*Grace) +
			time.Duration(len(s.OneCore))*(sec(s.OneCoreSeconds)+oneCoreStart+Grace)
	}
	return 0
}

// oneCoreStart is what a one-core run may take beside its --timeout: loading its tables.
const oneCoreStart = 5 * time.Second

// Bound returns the most the run may take: the builds on the card beside the steps that
// run with them (whichever is longer), then every other step's limit, and the Overhead.
func (p *Plan) Bound() time.Duration {
	builds, beside, rest := p.limits()
	total := max(builds, beside) + Overhead
	for _, l := range rest {
		total += l
	}
	return total
}

// BoundText shows Bound's sum, for the check's log and errors.
func (p *Plan) BoundText() string {
	builds, beside, rest := p.limits()
	parts := []string{fmt.Sprintf("max(builds %v, the steps beside them %v)", builds, beside)}
	for i, s := range p.Steps {
		if !s.Beside {
			parts = append(parts, fmt.Sprintf("%s %v", s.Name, rest[i]))
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("overhead %v", Overhead)), " + ")
}

// limits returns the on-card builds' limits, the limits of the steps beside them, and
// every other step's (0 for those beside), in the plan's order.
func (p *Plan) limits() (builds, beside time.Duration, rest []time.Duration) {
	for _, t := range p.Tables {
		if t.OnCard {
			builds += time.Duration(t.Seconds * float64(time.Second))
		}
	}
	rest = make([]time.Duration, len(p.Steps))
	for i := range p.Steps {
		if p.Steps[i].Beside {
			beside += p.Steps[i].limit()
		} else {
			rest[i] = p.Steps[i].limit()
		}
	}
	return builds, beside, rest
}
