package fifteen

import (
	"fmt"
	"strings"
)

// Heuristic names an admissible estimate of the moves left on the 4x4 board.
type Heuristic int

// The heuristics, weakest first after Auto. All of them have the parity of the Manhattan
// distance, so IDA*'s bound rises by 2.
const (
	Auto Heuristic = iota // the recommended one for the goal: Max where it applies, else WD
	MD                    // Manhattan distance
	LC                    // Manhattan distance plus linear conflicts, admissible form
	WD                    // walking distance, rows plus columns
	PDB                   // IDA15's additive pattern databases
	Max                   // the larger of PDB and WD
)

// Default is the heuristic Auto chooses where the IDA15 tables apply: the fastest on
// Korf's 100 (docs/RESULTS.md).
const Default = Max

// Heuristics lists every heuristic in order, Auto excepted.
var Heuristics = []Heuristic{MD, LC, WD, PDB, Max}

var names = [...]string{"auto", "md", "lc", "wd", "pdb", "max"}

// String returns the heuristic's name as ParseHeuristic reads it.
func (h Heuristic) String() string {
	if h < 0 || int(h) >= len(names) {
		return fmt.Sprintf("Heuristic(%d)", int(h))
	}
	return names[h]
}

// ParseHeuristic reads a heuristic's name: auto, md, lc, wd, pdb or max.
func ParseHeuristic(name string) (Heuristic, error) {
	for i, n := range names {
		if strings.EqualFold(strings.TrimSpace(name), n) {
			return Heuristic(i), nil
		}
	}
	return 0, fmt.Errorf("unknown heuristic %q (choose from %s)", name, strings.Join(names[1:], ", "))
}

// needsPDB reports whether h uses the IDA15 tables.
func (h Heuristic) needsPDB() bool { return h == PDB || h == Max }

// needsWD reports whether h uses walking distance.
func (h Heuristic) needsWD() bool { return h == WD || h == Max }
