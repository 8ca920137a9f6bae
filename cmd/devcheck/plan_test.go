package main

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/solve"
)

// root is the repository's root, where the plans' paths start.
func root(t testing.TB) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..")
}

// overhead is what a check takes outside its steps' limits: reading and checking the
// tables, starting processes, writing the summary.
const overhead = 15 * time.Second

// bound is the most a plan's run may take: the builds on the GPU machine or the steps
// beside them, whichever is longer, then every other step's processes, each with its
// grace, and the overhead.
func bound(p *Plan) time.Duration {
	var builds, beside, rest time.Duration
	for _, t := range p.Tables {
		builds += seconds(t.Build)
	}
	for _, s := range p.Steps {
		l := seconds(s.Seconds) // a self-test's process
		switch s.Kind {
		case KindSelfTest:
			l += Grace
		case KindReference:
			l = time.Duration(len(s.Runs)) * (seconds(s.Seconds) + Grace)
		case KindCores:
			l = time.Duration(len(s.IDs))*(seconds(s.GPUSeconds)+seconds(s.CoresSeconds)+2*Grace) +
				time.Duration(len(s.OneCore))*(seconds(s.OneCoreSeconds)+oneCoreStart+Grace)
		}
		if s.Beside {
			beside += l
		} else {
			rest += l
		}
	}
	return max(builds, beside) + rest + overhead
}

// checkPlan says what is wrong with a plan: kinds with what each needs, names that may
// name files under --out, tables that exist, limits in range that fit its Seconds.
func checkPlan(p *Plan) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	inRange := func(s float64) bool { return s > 0 && s <= 86400 }
	if !inRange(p.Seconds) || len(p.Steps) == 0 {
		bad("a plan needs seconds (at most a day) and steps")
	}
	for _, t := range p.Tables {
		spec, err := pdb.SetByName(t.Set)
		_, serr := board.ParseSize(t.Automaton)
		switch {
		case (t.Set == "") == (t.Automaton == ""):
			bad("table %s: a set or an automaton", t)
		case t.Set != "" && (err != nil || t.Bits && !spec.ZeroAware || t.Depth != 0):
			bad("table %s: not a zero-aware set in bits, or a set with a depth (%v)", t, err)
		case t.Automaton != "" && (serr != nil || t.Depth < 2 || t.Depth > 24 || t.Bits):
			bad("table %s: an automaton's depth is 2 to 24, and it has no bit encoding", t)
		case t.Build < 0 || t.Build > 86400:
			bad("table %s: its build's seconds are out of range", t)
		}
	}
	names, runs := map[string]bool{}, map[string]bool{} // the steps so far, and their runs ("md warm")
	for _, s := range p.Steps {
		if !plainWord(s.Name) || names[s.Name] {
			bad("step %q: its name is not a plain word of its own", s.Name)
		}
		names[s.Name] = true
		for _, f := range []float64{s.Seconds, s.GPUSeconds, s.CoresSeconds, s.OneCoreSeconds} {
			if f < 0 || f > 86400 {
				bad("step %s: a limit is out of range", s.Name)
			}
		}
		searches := s.Kind == KindReference || s.Kind == KindCores
		if searches {
			if size, err := board.ParseSize(s.Board); err != nil {
				bad("step %s: %v", s.Name, err)
			} else if _, err := board.ParseGoal(size, cmp.Or(s.Goal, "blank-last")); err != nil {
				bad("step %s: %v", s.Name, err)
			}
			if s.Instances == "" {
				bad("step %s: a %s step needs instances", s.Name, s.Kind)
			}
			for _, a := range s.Args {
				if slices.Contains([]string{"--device", "--json", "-f", "--file", "--board", "--goal", "--workers", "-j", "--timeout"}, a) {
					bad("step %s: the check sets %s itself", s.Name, a)
				}
			}
		} else if s.Tune != "" {
			bad("step %s: tune is for the searches of a reference or cores step", s.Name)
		}
		if s.Tune != "" {
			if err := new(solve.Device).SetTune(s.Tune); err != nil {
				bad("step %s: tune: %v", s.Name, err)
			}
		}
		switch s.Kind {
		case KindSelfTest:
			if !inRange(s.Seconds) {
				bad("step %s: a %s step needs seconds", s.Name, s.Kind)
			}
		case KindReference:
			if !inRange(s.Seconds) || s.Reference == "" || len(s.Runs) == 0 {
				bad("step %s: a reference step needs seconds, a reference and runs", s.Name)
			}
		case KindCores:
			if len(s.IDs) == 0 || !inRange(s.GPUSeconds) || !inRange(s.CoresSeconds) || len(s.OneCore) > 0 && !inRange(s.OneCoreSeconds) {
				bad("step %s: a cores step needs ids, gpu and cores seconds, and one core's for its one core", s.Name)
			}
		default:
			bad("step %s: unknown kind %q", s.Name, s.Kind)
		}
		for _, list := range [][]string{s.IDs, s.Runs, s.OneCore} {
			if len(list) > 1000 {
				bad("step %s: at most 1000 ids, runs and one-core ids", s.Name)
			}
			for i, w := range list {
				if !plainWord(strings.ReplaceAll(w, " ", "")) || slices.Contains(list[:i], w) {
					bad("step %s: %q is not a plain word of its own", s.Name, w)
				}
			}
		}
		for _, id := range s.OneCore {
			if !slices.Contains(s.IDs, id) {
				bad("step %s: one core's %s is not one of its ids", s.Name, id)
			}
		}
		if s.Keep != "" && (s.Kind != KindReference || s.Complete) {
			bad("step %s: keep is for a reference step that is not complete: a campaign's budget", s.Name)
		}
		if s.Beside && s.Kind != KindSelfTest {
			bad("step %s: only the self-test runs beside the builds", s.Name)
		}
		if s.Against != "" && (s.Kind != KindReference || !runs[s.Against]) {
			bad("step %s: against %q is not a run of an earlier step", s.Name, s.Against)
		}
		for _, r := range s.Runs {
			runs[s.Name+" "+r] = true
		}
	}
	if b := bound(p); b > seconds(p.Seconds) {
		bad("its limits add up to %v, more than its %v s", b, p.Seconds)
	}
	return errors.Join(errs...)
}

// Every plan is right; the one run on a card fits 8 minutes with every build and limit,
// and its steps come in the order that keeps the most important when a run is cut short;
// the fake driver's plan has the same steps, of the same kinds, so that CI runs every kind
// the card does.
func TestPlans(t *testing.T) {
	for name := range plans {
		p, err := planNamed(name)
		require.NoError(t, err)
		assert.NoError(t, checkPlan(p), name)
		assert.LessOrEqual(t, p.Seconds, 480.0, name)
	}
	card, _ := planNamed("card")
	fake, _ := planNamed("fake")
	names := func(p *Plan) (out []string) {
		for _, s := range p.Steps {
			out = append(out, s.Name+":"+s.Kind)
		}
		return out
	}
	assert.Equal(t, []string{"device:self-test", "md:reference", "small-t:cores", "6-6-6-6:cores", "twelve:reference", "flat:reference"}, names(card))
	assert.Equal(t, names(card), names(fake))
	for _, tab := range card.Tables { // small-t is built on the card, the rest carried
		assert.Equal(t, tab.Set == "small-t", tab.Build > 0, tab.String())
	}
	campaign, _ := planNamed("campaign")
	assert.Equal(t, []string{"device:self-test", "campaign:reference"}, names(campaign))
	assert.Equal(t, "docs/repro/campaign/gpu-records.jsonl", campaign.Steps[1].Keep)

	_, err := planNamed("none")
	assert.ErrorContains(t, err, `no plan "none" (campaign, card, fake)`)
	assert.ErrorContains(t, fake.replace("reference", "nope", "r.jsonl"), `no step "nope"`)
	require.NoError(t, fake.replace("reference", "md", "r.jsonl"))
	assert.Equal(t, "r.jsonl", fake.Steps[1].Reference)
}

// A plan that is wrong fails checkPlan, saying what is wrong.
func TestPlanErrors(t *testing.T) {
	self := Step{Name: "device", Kind: KindSelfTest, Seconds: 10}
	ref := Step{Name: "md", Kind: KindReference, Seconds: 10, Board: "4x4", Instances: "i.txt", Reference: "r.jsonl", Runs: []string{"a"}}
	cores := Step{Name: "c", Kind: KindCores, Board: "4x4", Instances: "i", IDs: []string{"a"}, GPUSeconds: 1, CoresSeconds: 1}
	with := func(s Step, edit func(*Step)) Step { edit(&s); return s }
	plan := func(tables []Table, steps ...Step) *Plan { return &Plan{Seconds: 100, Tables: tables, Steps: steps} }
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprint("i", i)
	}
	for _, c := range []struct {
		name string
		p    *Plan
		want string
	}{
		{"no steps", plan(nil), "needs seconds (at most a day) and steps"},
		{"an unknown kind", plan(nil, Step{Name: "x", Kind: "bench", Seconds: 1}), `unknown kind "bench"`},
		{"a name twice", plan(nil, self, self), `step "device": its name is not a plain word of its own`},
		{"a name that climbs", plan(nil, with(self, func(s *Step) { s.Name = ".." })), `step "..": its name`},
		{"a name with a slash", plan(nil, with(self, func(s *Step) { s.Name = "a/b" })), `step "a/b": its name`},
		{"a run that climbs", plan(nil, with(ref, func(s *Step) { s.Runs = []string{"../x"} })), `"../x" is not a plain word`},
		{"an id that climbs", plan(nil, with(cores, func(s *Step) { s.IDs = []string{"a/../../x"} })), `"a/../../x" is not a plain word`},
		{"an id twice", plan(nil, with(cores, func(s *Step) { s.IDs = []string{"a", "a"} })), `"a" is not a plain word of its own`},
		{"too many ids", plan(nil, with(cores, func(s *Step) { s.IDs = many })), "at most 1000 ids"},
		{"an unknown set", plan([]Table{{Set: "9-9-9"}}, self), "table set 9-9-9"},
		{"bits of a set not zero-aware", plan([]Table{{Set: "5-5-5", Bits: true}}, self), "not a zero-aware set in bits"},
		{"an automaton too deep", plan([]Table{{Automaton: "5x5", Depth: 40}}, self), "depth is 2 to 24"},
		{"a reference step without a reference", plan(nil, with(ref, func(s *Step) { s.Reference = "" })), "needs seconds, a reference and runs"},
		{"arguments the check sets", plan(nil, with(ref, func(s *Step) { s.Args = []string{"--device", "cpu"} })), "the check sets --device itself"},
		{"knobs that do not parse", plan(nil, with(ref, func(s *Step) { s.Tune = "turns=3" })), "tune: "},
		{"knobs of a self-test", plan(nil, with(self, func(s *Step) { s.Tune = "turn=64" })), "tune is for the searches"},
		{"a reference step beside the builds", plan(nil, with(ref, func(s *Step) { s.Beside = true })), "only the self-test runs beside"},
		{"a one-core id not searched", plan(nil, with(cores, func(s *Step) { s.OneCore, s.OneCoreSeconds = []string{"b"}, 1 })), "one core's b is not one of its ids"},
		{"a complete step that keeps", plan(nil, with(ref, func(s *Step) { s.Complete, s.Keep = true, "k.jsonl" })), "keep is for a reference step that is not complete"},
		{"against a later step", plan(nil, with(ref, func(s *Step) { s.Against = "md2 a" }), with(ref, func(s *Step) { s.Name = "md2" })), `against "md2 a" is not a run of an earlier step`},
		{"against a run it does not have", plan(nil, ref, with(ref, func(s *Step) { s.Name, s.Against = "md2", "md b" })), `against "md b"`},
		{"limits past its seconds", &Plan{Seconds: 5, Steps: []Step{self}}, "its limits add up to 28s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.ErrorContains(t, checkPlan(c.p), c.want)
		})
	}
	assert.NoError(t, checkPlan(plan(nil, self, ref, cores, with(ref, func(s *Step) { s.Name, s.Against = "md2", "md a" }))))
}

// The bound is the builds or the steps beside them, whichever is longer, then every
// other step's processes, each with its grace, and the overhead.
func TestBound(t *testing.T) {
	p := &Plan{Seconds: 1000, Tables: []Table{{Set: "5-5-5", Build: 100}}, Steps: []Step{
		{Name: "device", Kind: KindSelfTest, Beside: true, Seconds: 20},
		{Name: "md", Kind: KindReference, Seconds: 10, Runs: []string{"a", "b"}},
		{Name: "c", Kind: KindCores, IDs: []string{"x", "y"}, GPUSeconds: 4, CoresSeconds: 2, OneCore: []string{"y"}, OneCoreSeconds: 7},
	}}
	want := 100*time.Second + // the build, longer than 20+3 beside it
		2*(10*time.Second+Grace) +
		2*(6*time.Second+2*Grace) + 7*time.Second + oneCoreStart + Grace +
		overhead
	assert.Equal(t, want, bound(p))
}
