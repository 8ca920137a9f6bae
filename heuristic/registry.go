package heuristic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
)

// The names of the heuristics. Each is registered here and nowhere else; the additive sets
// are registered by package pdb (pdb.Sets) and enter the registry from there.
const (
	Auto       = "auto" // not a heuristic: the strongest one available (package solve decides)
	Hamming    = "hamming"
	MD         = "md"
	LC         = "lc"
	Chebyshev2 = "chebyshev2"
	WD         = "wd"
	PDB        = "pdb"
	Max        = "max"
	HH         = "hh"
)

// Engines say which searches compute a heuristic.
type Engines uint8

const (
	// General: package search's algorithms, on any board, through Heuristic.Eval.
	General Engines = 1 << iota
	// Fast: package ida's incremental IDA*, on the boards of Info.FastBoards.
	Fast
)

// Info describes one heuristic.
type Info struct {
	Name       string
	Admissible bool // never above the true distance
	Engines    Engines
	FastBoards []board.Size // where package ida computes it (with Fast)
	Set        bool         // an additive pattern database set of package pdb
	About      string       // for people
	NotOn      []board.Size // boards the general engine cannot serve it on
}

// GeneralOn reports whether the general search computes the heuristic on that board.
func (i Info) GeneralOn(size board.Size) bool {
	return i.Engines&General != 0 && !slices.Contains(i.NotOn, size)
}

// FastOn reports whether package ida computes the heuristic on that board.
func (i Info) FastOn(size board.Size) bool {
	return i.Engines&Fast != 0 && slices.Contains(i.FastBoards, size)
}

var fastBoth = []board.Size{board.Size4x4, board.Size5x5}
var fast4x4 = []board.Size{board.Size4x4}

// general lists the heuristics of this package, in the order of the package doc.
// noWD lists the boards without a walking-distance table (65,650,495 patterns on 5x5).
var noWD = []board.Size{board.Size5x5}

var general = []Info{
	{Hamming, true, General, nil, false, "tiles not on their goal cell", nil},
	{MD, true, General | Fast, fastBoth, false, "Manhattan distance", nil},
	{LC, true, General | Fast, fast4x4, false, "Manhattan distance plus linear conflicts", nil},
	{Chebyshev2, false, General, nil, false, "2 x the sum of the tiles' Chebyshev distances", nil},
	{WD, true, General | Fast, fast4x4, false, "walking distance, rows plus columns", noWD},
	{PDB, true, General | Fast, fast4x4, false, "disjoint additive pattern databases (IDA15's on 4x4)", nil},
	{Max, true, General | Fast, fast4x4, false, "the larger of pdb and wd", noWD},
	{HH, false, General, nil, false, "Hasan et al.'s hybrid of wd, conflicts and md/3", noWD},
}

// Registry returns every heuristic: the additive sets (pdb.Sets, strongest last on each
// board), then those of this package.
func Registry() []Info {
	var out []Info
	for _, s := range pdb.Sets {
		out = append(out, Info{Name: s.Name, Admissible: true, Engines: Fast, FastBoards: []board.Size{s.Size()}, Set: true, About: s.About})
	}
	return append(out, general...)
}

// Names returns the names of the heuristics computed by any of engines, in the order of
// Registry.
func Names(engines Engines) []string {
	var out []string
	for _, i := range Registry() {
		if i.Engines&engines != 0 {
			out = append(out, i.Name)
		}
	}
	return out
}

// Lookup returns the heuristic of that name (any case, surrounding spaces ignored). Its
// error lists the names, auto first.
func Lookup(name string) (Info, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, i := range Registry() {
		if i.Name == name {
			return i, nil
		}
	}
	return Info{}, fmt.Errorf("unknown heuristic %q (choose from %s)", name, strings.Join(append([]string{Auto}, Names(General|Fast)...), ", "))
}

// Usage describes the names for a command's help: "auto, a set (5-5-5, ...), hamming, ...".
func Usage() string {
	var sets []string
	for _, s := range pdb.Sets {
		sets = append(sets, s.Name)
	}
	return fmt.Sprintf("auto, a set (%s), %s", strings.Join(sets, ", "), orList(Names(General)))
}

// FastSummary says which heuristics the fast IDA* computes on each board, for help texts:
// "4x4: 5-5-5, 6-6-3, 7-8, md, lc, wd, pdb, max; 5x5: 6-6-6-6, md".
func FastSummary() string {
	var parts []string
	for _, size := range fastBoth {
		var names []string
		for _, i := range Registry() {
			if i.FastOn(size) {
				names = append(names, i.Name)
			}
		}
		parts = append(parts, size.String()+": "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// Inadmissible names the heuristics that may overestimate, as "a or b".
func Inadmissible() string {
	var names []string
	for _, i := range Registry() {
		if !i.Admissible {
			names = append(names, i.Name)
		}
	}
	return orList(names)
}

// Table lists the heuristics of the general search for a help text, a line each: the
// name, what it is, and whether it may overestimate.
func Table() string {
	var b strings.Builder
	for _, i := range general {
		note := ""
		if !i.Admissible {
			note = " (not admissible)"
		}
		for _, size := range i.NotOn {
			note += " (not on " + size.String() + ")"
		}
		fmt.Fprintf(&b, "  %-11s %s%s\n", i.Name, i.About, note)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
