package ida

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
)

// Heuristic says which estimate of the moves left a Solver computes: one of the kinds
// below (Kinds), by the names package heuristic registers them under.
//
// Every heuristic here has the parity of the Manhattan distance, so IDA*'s bound rises by 2.
type Heuristic uint8

// The heuristics.
const (
	MD   Heuristic = iota // Manhattan distance (any board)
	hLC                   // Manhattan distance plus linear conflicts, admissible form (4x4)
	hWD                   // walking distance, rows plus columns (4x4; Options.WD)
	hPDB                  // IDA15's additive pattern databases (4x4; Options.IDA15)
	hMax                  // the larger of hPDB and hWD (4x4; Options.WD and Options.IDA15)
	hSet                  // an additive set or a catalogue of them: Options.Set
)

// A Kind is a heuristic the solver computes: its name (package heuristic's), the boards it
// serves, and the tables it takes: Options.WD (built when nil), Options.IDA15, Options.Set.
type Kind struct {
	Heuristic      Heuristic
	Name           string
	Boards         []board.Size
	WD, IDA15, Set bool
}

var (
	both    = []board.Size{board.Size4x4, board.Size5x5}
	only4x4 = []board.Size{board.Size4x4}
)

// kinds is the table of the solver's heuristics but the sets. A new one is a row here and
// its update in a loop (dfs_table.go: a component of search and its step); the test
// TestRegistryIsTheEngines holds package heuristic's registry to this table.
var kinds = []Kind{
	{Heuristic: MD, Name: "md", Boards: both},
	{Heuristic: hLC, Name: "lc", Boards: only4x4},
	{Heuristic: hWD, Name: "wd", Boards: only4x4, WD: true},
	{Heuristic: hPDB, Name: "pdb", Boards: only4x4, IDA15: true},
	{Heuristic: hMax, Name: "max", Boards: only4x4, WD: true, IDA15: true},
}

// Kinds returns the heuristics the solver computes: the table above, then each set of
// pdb.Sets on its board (a catalogue is a set the user writes: Additive too).
func Kinds() []Kind {
	out := slices.Clone(kinds)
	for _, s := range pdb.Sets {
		out = append(out, Kind{Heuristic: hSet, Name: s.Name, Boards: []board.Size{s.Size()}, Set: true})
	}
	return out
}

// ParseHeuristic returns the heuristic of that name (a set's name gives Additive, whose
// tables Options.Set then carries).
func ParseHeuristic(name string) (Heuristic, error) {
	for _, k := range Kinds() {
		if k.Name == name {
			return k.Heuristic, nil
		}
	}
	return 0, badOptions("ida: unknown heuristic %q", name)
}

// String returns the heuristic's name ("set" for Additive).
func (h Heuristic) String() string {
	if int(h) < len(kinds) {
		return kinds[h].Name
	}
	if h == hSet {
		return "set"
	}
	return fmt.Sprintf("heuristic(%d)", uint8(h))
}

// Kind returns the heuristic's kind: its name and the tables it takes (for Additive, any
// set's: named "set", on no board in particular).
func (h Heuristic) Kind() Kind {
	if int(h) < len(kinds) {
		return kinds[h]
	}
	return Kind{Heuristic: h, Name: h.String(), Set: true}
}

// Lookups chooses which of a set's lookups a search takes the maximum of. The zero value
// is the recommended choice.
type Lookups uint8

// The lookups: the state itself is always looked up; Reflected adds the state reflected
// about the main diagonal (Korf & Felner 2002), Dual the dual state (Zahavi, Felner et
// al. 2007), and both together the reflected dual too. Dual values are inconsistent, so
// with Dual the search propagates them with BPMX.
const (
	recommendedLookups Lookups = 0
	Regular            Lookups = 1
	Reflected          Lookups = 1 | 2
	Dual               Lookups = 1 | 4
	All                Lookups = 1 | 2 | 4
)

// recommended is what the zero value stands for (docs/RESULTS.md has the measurements).
const recommended = Reflected

// String describes the lookups taken: "regular", "regular+reflected", "regular+dual" or
// "regular+reflected+dual+reflected dual".
func (l Lookups) String() string {
	switch l.resolve() {
	case Regular:
		return "regular"
	case Reflected:
		return "regular+reflected"
	case Dual:
		return "regular+dual"
	}
	return "regular+reflected+dual+reflected dual"
}

// reflectedString describes the lookups of a catalogue, whose reflections are partitions.
func (l Lookups) reflectedString() string {
	if l == Reflected {
		return "partitions+reflected"
	}
	return "partitions"
}

func (l Lookups) resolve() Lookups {
	if l == recommendedLookups {
		return recommended
	}
	return l | Regular
}

func (l Lookups) dual() bool { return l.resolve()&4 != 0 }

// ParseLookups reads "regular", "reflected", "dual" or "all" ("" or "recommended": the
// recommended ones).
func ParseLookups(name string) (Lookups, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "recommended":
		return recommendedLookups, nil
	case "regular":
		return Regular, nil
	case "reflected":
		return Reflected, nil
	case "dual":
		return Dual, nil
	case "all":
		return All, nil
	}
	return recommendedLookups, fmt.Errorf("unknown lookups %q (choose from regular, reflected, dual, all)", name)
}
