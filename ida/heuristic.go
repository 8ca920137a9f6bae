package ida

import (
	"fmt"
	"strings"
)

// Heuristic says which estimate of the moves left a Solver computes. It names no
// heuristic for people: the names are registered once, in package heuristic, and package
// solve maps them to these.
//
// Every heuristic here has the parity of the Manhattan distance, so IDA*'s bound rises by 2.
type Heuristic uint8

// The heuristics other than an additive set (Options.Set), which needs no constant.
const (
	MD  Heuristic = iota // Manhattan distance (any board)
	LC                   // Manhattan distance plus linear conflicts, admissible form (4x4)
	WD                   // walking distance, rows plus columns (4x4; Options.WD)
	PDB                  // IDA15's additive pattern databases (4x4; Options.IDA15)
	Max                  // the larger of PDB and WD (4x4; Options.WD and Options.IDA15)

	additive // an additive set: Options.Set
)

// needsPDB reports whether h uses the IDA15 tables.
func (h Heuristic) needsPDB() bool { return h == PDB || h == Max }

// needsWD reports whether h uses walking distance.
func (h Heuristic) needsWD() bool { return h == WD || h == Max }

// Lookups chooses which of a set's lookups a search takes the maximum of. The zero value
// is the recommended choice (Recommended).
type Lookups uint8

// The lookups: the state itself is always looked up; Reflected adds the state reflected
// about the main diagonal (Korf & Felner 2002), Dual the dual state (Zahavi, Felner et
// al. 2007), and both together the reflected dual too. Dual values are inconsistent, so
// with Dual the search propagates them with BPMX.
const (
	Recommended Lookups = 0
	Regular     Lookups = 1
	Reflected   Lookups = 1 | 2
	Dual        Lookups = 1 | 4
	All         Lookups = 1 | 2 | 4
)

// recommended is what Recommended stands for (docs/RESULTS.md has the measurements).
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
	if l == Recommended {
		return recommended
	}
	return l | Regular
}

func (l Lookups) reflect() bool { return l.resolve()&2 != 0 }
func (l Lookups) dual() bool    { return l.resolve()&4 != 0 }

// ParseLookups reads "regular", "reflected", "dual" or "all" ("" or "recommended": the
// recommended ones).
func ParseLookups(name string) (Lookups, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "recommended":
		return Recommended, nil
	case "regular":
		return Regular, nil
	case "reflected":
		return Reflected, nil
	case "dual":
		return Dual, nil
	case "all":
		return All, nil
	}
	return Recommended, fmt.Errorf("unknown lookups %q (choose from regular, reflected, dual, all)", name)
}
