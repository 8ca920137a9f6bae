package ida

import (
	"fmt"
	"strings"

	"github.com/tilekit/tilekit/pdb"
)

// Heuristic names an admissible estimate of the moves left: one of the constants, or the
// name of an additive set of package pdb ("5-5-5", "6-6-3", "7-8", "6-6-6-6").
type Heuristic string

// The heuristics other than the sets. Every heuristic here has the parity of the Manhattan
// distance, so IDA*'s bound rises by 2.
const (
	Auto Heuristic = ""    // the recommended one: the strongest installed set, else Max where it applies, else WD or MD
	MD   Heuristic = "md"  // Manhattan distance
	LC   Heuristic = "lc"  // Manhattan distance plus linear conflicts, admissible form (4x4)
	WD   Heuristic = "wd"  // walking distance, rows plus columns (4x4)
	PDB  Heuristic = "pdb" // IDA15's additive pattern databases, embedded (4x4)
	Max  Heuristic = "max" // the larger of PDB and WD (4x4)
)

// Default is the heuristic Auto chooses on the 4x4 board when no set is installed: the
// fastest of the embedded ones on Korf's 100 (docs/RESULTS.md).
const Default = Max

// Heuristics lists every built-in heuristic in order, Auto excepted; the sets of
// pdb.Sets are heuristics too.
var Heuristics = []Heuristic{MD, LC, WD, PDB, Max}

// String returns the heuristic's name as ParseHeuristic reads it ("auto" for Auto).
func (h Heuristic) String() string {
	if h == Auto {
		return "auto"
	}
	return string(h)
}

// IsSet reports whether h names an additive set.
func (h Heuristic) IsSet() bool {
	_, err := pdb.SetByName(string(h))
	return err == nil
}

// ParseHeuristic reads a heuristic's name: auto, md, lc, wd, pdb, max, or a set's name.
func ParseHeuristic(name string) (Heuristic, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "auto" || name == "" {
		return Auto, nil
	}
	var names []string
	for _, h := range Heuristics {
		if name == string(h) {
			return h, nil
		}
		names = append(names, string(h))
	}
	for _, s := range pdb.Sets {
		if name == s.Name {
			return Heuristic(name), nil
		}
		names = append(names, s.Name)
	}
	return Auto, fmt.Errorf("unknown heuristic %q (choose from auto, %s)", name, strings.Join(names, ", "))
}

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

// String names the lookups: "regular", "reflected", "dual" or "all".
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

func (l Lookups) resolve() Lookups {
	if l == Recommended {
		return recommended
	}
	return l | Regular
}

func (l Lookups) reflect() bool { return l.resolve()&2 != 0 }
func (l Lookups) dual() bool    { return l.resolve()&4 != 0 }

// ParseLookups reads "regular", "reflected", "dual" or "all".
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
