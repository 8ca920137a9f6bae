package gpu

import (
	"fmt"

	"github.com/tilekit/tilekit/ida"
)

// kind is one of the kernel's kinds of search (kernel/kinds.h): its entry, the models it
// searches, what it checks of one before the engine takes it, whether its roots carry
// their lookups (a catalogue's seeds, cat.h), and whether its frontier grows on the card
// (grow.h: its kernels entry_grow_count and entry_grow_write).
type kind struct {
	entry  string
	serves func(m *ida.Model) bool
	check  func(m *ida.Model) error
	seeds  bool
	grows  bool
}

// growCount and growWrite are the names of a kind's kernels of its frontier's growth.
func (k kind) growCount() string { return k.entry + "_grow_count" }
func (k kind) growWrite() string { return k.entry + "_grow_write" }

// kinds are the kernel's kinds, in kernel/kinds.h's order (TestKindsAreTheKernels);
// testKinds, after them, are the tests' own (TK_TEST_KINDS: the tests' host builds alone).
var kinds, testKinds = []kind{
	{"ida_pass", func(m *ida.Model) bool { return m.Set == nil && m.Heuristic == ida.MD }, nil, false, true},
	{"ida_pass_set", func(m *ida.Model) bool { return m.Set != nil && m.Set.Eager }, checkSet(setLook, setPart, setTouch), false, false},
	{"ida_pass_cat", func(m *ida.Model) bool { return m.Set != nil && !m.Set.Eager }, checkSet(maxLook, maxPart, maxTouch), true, true},
}, []kind(nil)

// kindOf returns the kind that searches m, checked, and its place in kinds (then
// testKinds: the kernel's dispatch counts them in that order), or errHeuristic.
func kindOf(m *ida.Model) (int, kind, error) {
	for i, k := range append(kinds[:len(kinds):len(kinds)], testKinds...) {
		if !k.serves(m) {
			continue
		}
		if k.check != nil {
			if err := k.check(m); err != nil {
				return 0, k, err
			}
		}
		return i, k, nil
	}
	if m.Set != nil {
		return 0, kind{}, fmt.Errorf("%w: this set", errHeuristic)
	}
	return 0, kind{}, fmt.Errorf("%w: %v", errHeuristic, m.Heuristic)
}

// checkSet refuses a set of more lookups, partitions or lookups of one tile than the
// kernel's structures hold (look, part, touch), or whose tables are in no encoding the
// kernel reads.
func checkSet(look, part, touch int) func(m *ida.Model) error {
	return func(m *ida.Model) error {
		set := m.Set
		if len(set.Lookups) > look || set.Parts > part {
			return fmt.Errorf("%w: a set of %d lookups in %d partitions (at most %d in %d)", errHeuristic, len(set.Lookups), set.Parts, look, part)
		}
		for t := range cells {
			if int(set.NTouch[t]) > touch {
				return fmt.Errorf("%w: a set that reads tile %d in %d lookups (at most %d)", errHeuristic, t, set.NTouch[t], touch)
			}
		}
		for _, l := range set.Lookups {
			if len(l.Table.Nibbles) == 0 && !l.InBits() {
				return fmt.Errorf("%w: a set whose tables are neither in nibbles nor in the bit encoding", errHeuristic)
			}
		}
		return nil
	}
}
