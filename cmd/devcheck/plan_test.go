package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository's root, where the plans' paths start.
func root(t testing.TB) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..")
}

// named is the plan of that name, checked.
func named(t testing.TB, name string) *Plan {
	t.Helper()
	p, err := planNamed(name, Inputs{})
	require.NoError(t, err)
	return p
}

// parsePlan is a plan written as JSON (the structs' keys) and checked: the tests' short
// notation for plans that are wrong. The check's plans are Go values (plans).
func parsePlan(text, name string) (*Plan, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &p, nil
}

// The one run on a card fits 8 minutes with every build and limit, and its steps come in
// the order that keeps the most important when a run is cut short; the fake driver's plan
// has the same steps, of the same kinds, so that CI runs every kind the card does.
func TestCommittedPlans(t *testing.T) {
	card, fake := named(t, "card"), named(t, "fake")
	assert.LessOrEqual(t, card.Seconds, 480.0)
	assert.LessOrEqual(t, card.Bound(), 8*time.Minute, card.BoundText())
	names := func(p *Plan) (out []string) {
		for _, s := range p.Steps {
			out = append(out, s.Name+":"+s.Kind)
		}
		return out
	}
	assert.Equal(t, []string{"device:self-test", "ptx:ptx", "md:reference", "small-t:cores", "6-6-6-6:cores", "twelve:reference"}, names(card))
	assert.Equal(t, names(card), names(fake))
	// small-t is built on the card, the rest carried.
	for _, tab := range card.Tables {
		assert.Equal(t, tab.Set == "small-t", tab.OnCard, tab.String())
	}
	// The campaign's plan: a run of its own, within the same 8 minutes, keeping what it
	// makes.
	campaign := named(t, "campaign")
	assert.LessOrEqual(t, campaign.Bound(), 8*time.Minute, campaign.BoundText())
	assert.Equal(t, []string{"device:self-test", "campaign:reference"}, names(campaign))
	assert.Equal(t, "docs/repro/campaign/gpu-records.jsonl", campaign.Steps[1].Keep)
	// Every target the card's plan measures names a step of it; the others say why not.
	for _, tg := range card.Targets {
		assert.True(t, tg.NotRun != "" || slices.ContainsFunc(card.Steps, func(s Step) bool { return s.Name == tg.Step }), tg.What)
	}
}

// A plan that is wrong is refused with what is wrong, naming the step, table or target.
func TestPlanErrors(t *testing.T) {
	const self = `{"name": "device", "kind": "self-test", "seconds": 10}`
	plan := func(tables, steps, targets string) string {
		return `{"seconds": 100, "tables": [` + tables + `], "steps": [` + steps + `], "targets": [` + targets + `]}`
	}
	ref := `{"name": "md", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "i.txt", "reference": "r.jsonl", "runs": [{"name": "a"}]}`
	for _, c := range []struct{ name, text, want string }{
		{"no steps", plan("", "", ""), "no steps"},
		{"no seconds", `{"steps": [` + self + `]}`, "seconds"},
		{"an unknown kind", plan("", `{"name": "x", "kind": "bench", "seconds": 1}`, ""), `step x: unknown kind "bench"`},
		{"a name twice", plan("", self+","+self, ""), `the name "device" is taken`},
		{"a name with a slash", plan("", `{"name": "a/b", "kind": "ptx", "seconds": 1}`, ""), `its name "a/b" is not a plain word`},
		{"a name that climbs", plan("", `{"name": "..", "kind": "ptx", "seconds": 1}`, ""), `its name ".." is not a plain word`},
		{"an arch that climbs", plan("", `{"name": "p", "kind": "ptx", "seconds": 1, "arch": ["sm_90/../../x"]}`, ""), `arch "sm_90/../../x" is not a GPU's name`},
		{"an id that climbs", plan("", `{"name": "c", "kind": "cores", "board": "4x4", "instances": "i", "ids": ["a/../../x"], "gpu_seconds": 1, "cores_seconds": 1}`, ""), `the id "a/../../x" is not a plain word`},
		{"an id twice", plan("", `{"name": "c", "kind": "cores", "board": "4x4", "instances": "i", "ids": ["a", "a"], "gpu_seconds": 1, "cores_seconds": 1}`, ""), `the id "a" is given twice`},
		{"too many ids", plan("", `{"name": "c", "kind": "cores", "board": "4x4", "instances": "i", "ids": [`+manyIDs(1001)+`], "gpu_seconds": 1, "cores_seconds": 1}`, ""), "at most 1000 ids"},
		{"an unknown set", plan(`{"set": "9-9-9"}`, self, ""), "table 1"},
		{"bits of a set not zero-aware", plan(`{"set": "5-5-5", "bits": true}`, self, ""), "not zero-aware"},
		{"an automaton too deep", plan(`{"automaton": "5x5", "depth": 40}`, self, ""), "depth is 2 to 24"},
		{"an on-card build without seconds", plan(`{"set": "5-5-5", "on_card": true}`, self, ""), "needs its seconds"},
		{"a reference step without a reference", plan("", strings.Replace(ref, `"reference": "r.jsonl", `, "", 1), ""), "needs a reference"},
		{"arguments the check sets", plan("", strings.Replace(ref, `"board"`, `"args": ["--device", "cpu"], "board"`, 1), ""), "the check sets --device itself"},
		{"knobs that do not parse", plan("", strings.Replace(ref, `"board"`, `"tune": "turns=3", "board"`, 1), ""), "tune: "},
		{"knobs of a self-test", plan("", `{"name": "d", "kind": "self-test", "seconds": 1, "tune": "turn=64"}`, ""), "tune is for the searches"},
		{"a cold run misspelt", plan("", strings.Replace(ref, `{"name": "a"}`, `{"name": "a", "jit": "warm"}`, 1), ""), `jit is "cold" or absent`},
		{"a reference step beside the builds", plan("", strings.Replace(ref, `"seconds"`, `"beside_builds": true, "seconds"`, 1), ""), "only the self-test and the PTX report"},
		{"a one-core id not searched", plan("", `{"name": "c", "kind": "cores", "board": "4x4", "instances": "i", "ids": ["a"], "gpu_seconds": 1, "cores_seconds": 1, "one_core": ["b"], "one_core_seconds": 1}`, ""), "one_core's b is not one of its ids"},
		{"a complete step that keeps", plan("", strings.Replace(ref, `"runs"`, `"complete": true, "keep": "k.jsonl", "runs"`, 1), ""), "keep is for a reference step that is not complete"},
		{"kept records measured where none are kept", plan("", ref, `{"issue": 1, "what": "w", "step": "md", "measure": "kept"}`), "step md keeps none"},
		{"a target of no step", plan("", self, `{"issue": 1, "what": "w", "step": "nope", "measure": "agree"}`), `no step "nope"`},
		{"a target of a run not there", plan("", ref, `{"issue": 1, "what": "w", "step": "md", "measure": "seconds", "run": "b"}`), `has no run "b"`},
		{"a target of no issue", plan("", self, `{"what": "w", "not_run": "x"}`), "an issue and what it asks"},
		{"limits past its seconds", `{"seconds": 5, "steps": [` + self + `]}`, "its limits add up to 28s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parsePlan(c.text, "p.json")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "p.json")
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := parsePlan(plan("", self, ""), "p.json")
	assert.NoError(t, err)
	_, err = planNamed("none", Inputs{})
	assert.ErrorContains(t, err, `no plan "none" (campaign, card, fake)`)
	_, err = planNamed("fake", Inputs{Reference: map[string]string{"nope": "r.jsonl"}})
	assert.ErrorContains(t, err, `no step "nope"`)
}

// manyIDs is n distinct ids as a JSON list's items.
func manyIDs(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%q", fmt.Sprint("i", i))
	}
	return strings.Join(ids, ", ")
}

// Bound is the builds or the steps beside them, whichever is longer, then every other
// step's processes, each with its grace, and the overhead.
func TestBound(t *testing.T) {
	p, err := parsePlan(`{"seconds": 1000,
		"tables": [{"set": "5-5-5", "on_card": true, "seconds": 100}],
		"steps": [
			{"name": "device", "kind": "self-test", "beside_builds": true, "seconds": 20},
			{"name": "ptx", "kind": "ptx", "beside_builds": true, "seconds": 10},
			{"name": "md", "kind": "reference", "seconds": 10, "board": "4x4", "instances": "i", "reference": "r", "runs": [{"name": "a"}, {"name": "b"}]},
			{"name": "c", "kind": "cores", "board": "4x4", "instances": "i", "ids": ["x", "y"], "gpu_seconds": 4, "cores_seconds": 2, "one_core": ["y"], "one_core_seconds": 7}]}`, "p")
	require.NoError(t, err)
	want := 100*time.Second + // the build, longer than 20+3+10 beside it
		2*(10*time.Second+Grace) +
		2*(6*time.Second+2*Grace) + 7*time.Second + oneCoreStart + Grace +
		Overhead
	assert.Equal(t, want, p.Bound())
	assert.Contains(t, p.BoundText(), "max(builds 1m40s, the steps beside them 33s) + md 26s")
}
