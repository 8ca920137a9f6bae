// Package corpus is the shared set of test cases with known optimal solution lengths:
// Korf's 100 random 15-puzzle instances (Korf 1985, blank-first goal; the list is package
// instances' file, read by instance.Reader, the one parser of instance lists) and small
// named boards. Every solver and heuristic is tested against it.
package corpus

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/instances"
)

var korf100 = instances.Text(instances.Korf100)

// A Case is a test case: a start state, the goal it is for (which an instance list's line
// leaves to its reader) and its known optimal solution length.
type Case struct {
	Name    string
	Goal    board.Goal
	Start   board.State
	Optimal int
}

// Korf100 returns Korf's 100 instances, whose optimal lengths add up to 5305.
func Korf100() []Case {
	goal := board.BlankFirst(board.Size4x4)
	var out []Case
	r := instance.NewReader(strings.NewReader(korf100), board.Size4x4) // the one parser of instance lists
	for {
		in, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil || in.Optimal < 0 {
			panic(fmt.Sprintf("corpus: %s: %v (or no optimal length)", instances.Korf100, err))
		}
		out = append(out, Case{Name: fmt.Sprintf("korf%d", len(out)+1), Goal: goal, Start: in.State, Optimal: in.Optimal})
	}
}

// ByOptimum returns Korf's 100 instances shortest optimum first (in file order within a
// length): tests take the easiest from the front, the hardest from the back.
func ByOptimum() []Case {
	out := Korf100()
	slices.SortStableFunc(out, func(a, b Case) int { return a.Optimal - b.Optimal })
	return out
}

// KorfFile returns the text of the Korf-100 file, for command-line tests.
func KorfFile() string { return korf100 }

// Small returns named boards with optimal lengths checked by exhaustive search, in both
// goal conventions and on several board sizes.
func Small() []Case {
	mk := func(name string, size board.Size, goal, start string, opt int) Case {
		g, err := board.ParseGoal(size, goal)
		if err != nil {
			panic(err)
		}
		s, err := g.Parse(start)
		if err != nil {
			panic(err)
		}
		return Case{Name: name, Goal: g, Start: s, Optimal: opt}
	}
	s4, s3 := board.Size4x4, board.Size{W: 3, H: 3}
	return []Case{
		mk("goal-last", s4, "blank-last", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0", 0),
		mk("goal-first", s4, "blank-first", "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", 0),
		mk("spec-wd-example", s4, "blank-last", "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12", 29),
		mk("korf16-last", s4, "blank-last", "0 9 12 4 5 3 2 8 10 1 7 6 11 14 13 15", 42), // korf16 turned 180 degrees
		mk("korf16", s4, "blank-first", "1 3 2 5 10 9 15 6 8 14 13 11 12 4 7 0", 42),
		mk("korf12", s4, "blank-first", "14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15", 45),
		mk("8-puzzle-hardest", s3, "blank-last", "8 6 7 2 5 4 3 0 1", 31),
	}
}

// Distances maps every state that reaches g to its distance, by a plain breadth-first
// search from the goal: the slow, obviously right reference for boards of up to 9 cells.
func Distances(g board.Goal) map[string]int {
	start := g.Tiles()
	dist := map[string]int{string(start): 0}
	queue := []board.State{start}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, d := range board.Dirs {
			n := s.Clone()
			if g.Size().Move(n, d) {
				if _, ok := dist[string(n)]; !ok {
					dist[string(n)] = dist[string(s)] + 1
					queue = append(queue, n)
				}
			}
		}
	}
	return dist
}
