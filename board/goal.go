package board

import (
	"fmt"
	"strings"
)

// A Goal is the arrangement a puzzle must reach. The zero Goal is not usable: build one
// with BlankLast, BlankFirst, NewGoal or ParseGoal.
type Goal struct {
	size  Size
	tiles State
	home  [MaxCells]uint8 // home[t] is the goal cell of tile t (t = 0 for the blank)
}

// BlankLast is the goal 1 2 ... n-1 0 (the blank in the bottom-right corner).
func BlankLast(size Size) Goal {
	n := size.Cells()
	s := make(State, n)
	for p := 0; p < n-1; p++ {
		s[p] = uint8(p + 1)
	}
	g, _ := NewGoal(size, s)
	return g
}

// BlankFirst is the goal 0 1 ... n-1 (the blank in the top-left corner), used by Korf's 100.
func BlankFirst(size Size) Goal {
	n := size.Cells()
	s := make(State, n)
	for p := range s {
		s[p] = uint8(p)
	}
	g, _ := NewGoal(size, s)
	return g
}

// NewGoal makes a goal from any arrangement of the board.
func NewGoal(size Size, tiles State) (Goal, error) {
	if err := size.Check(); err != nil {
		return Goal{}, err
	}
	if err := size.check(tiles); err != nil {
		return Goal{}, fmt.Errorf("goal: %w", err)
	}
	g := Goal{size: size, tiles: tiles.Clone()}
	for p, t := range tiles {
		g.home[t] = uint8(p)
	}
	return g, nil
}

// ParseGoal reads "blank-last", "blank-first" or an arrangement written as for Parse.
func ParseGoal(size Size, spec string) (Goal, error) {
	if err := size.Check(); err != nil {
		return Goal{}, err
	}
	switch strings.ToLower(strings.TrimSpace(spec)) {
	case "blank-last", "last", "":
		return BlankLast(size), nil
	case "blank-first", "first":
		return BlankFirst(size), nil
	}
	s, err := Parse(size, spec)
	if err != nil {
		return Goal{}, fmt.Errorf("goal %q is neither blank-last, blank-first nor an arrangement: %w", spec, err)
	}
	return NewGoal(size, s)
}

// Size returns the board size.
func (g Goal) Size() Size { return g.size }

// Tiles returns a copy of the goal arrangement.
func (g Goal) Tiles() State { return g.tiles.Clone() }

// Home returns the goal cell of tile t (t = 0 for the blank).
func (g Goal) Home(t int) int { return int(g.home[t]) }

// Name returns "blank-last", "blank-first", or the arrangement itself.
func (g Goal) Name() string {
	switch {
	case g.tiles.Equal(BlankLast(g.size).tiles):
		return "blank-last"
	case g.tiles.Equal(BlankFirst(g.size).tiles):
		return "blank-first"
	}
	return g.tiles.String()
}

// Equal reports whether two goals are the same board and arrangement.
func (g Goal) Equal(h Goal) bool { return g.size == h.size && g.tiles.Equal(h.tiles) }

// Rotate180 returns the goal turned half a turn, as board.Rotate180 turns states.
// It maps blank-first to blank-last and back.
func (g Goal) Rotate180() Goal {
	r, _ := NewGoal(g.size, Rotate180(g.tiles))
	return r
}

// Solvable reports whether s, an arrangement of the board, can reach the goal.
func (g Goal) Solvable(s State) bool {
	// perm[p] = goal cell of the tile on cell p: the permutation taking the goal to s.
	var perm [MaxCells]uint8
	n := len(s)
	for p, t := range s {
		perm[p] = g.home[t]
	}
	b := s.Blank()
	hb := g.Home(0)
	dist := abs(g.size.Row(b)-g.size.Row(hb)) + abs(g.size.Col(b)-g.size.Col(hb))
	return permutationParity(perm[:n]) == dist&1
}

// Check verifies that s is an arrangement of the goal's board that can reach the goal.
func (g Goal) Check(s State) error {
	if err := g.size.check(s); err != nil {
		return err
	}
	if !g.Solvable(s) {
		return fmt.Errorf("%w (%s): %s", ErrUnsolvable, g.Name(), g.size.Format(s))
	}
	return nil
}

// Parse reads a state of the goal's board and checks it can reach the goal.
func (g Goal) Parse(text string) (State, error) {
	s, err := Parse(g.size, text)
	if err != nil {
		return nil, err
	}
	return s, g.Check(s)
}

// Manhattan returns the sum over tiles of the row and column distances to their goal cells.
func (g Goal) Manhattan(s State) int {
	md := 0
	for p, t := range s {
		if t != 0 {
			h := g.Home(int(t))
			md += abs(g.size.Row(p)-g.size.Row(h)) + abs(g.size.Col(p)-g.size.Col(h))
		}
	}
	return md
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
