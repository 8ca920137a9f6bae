// Package wd builds and evaluates walking-distance tables (Takahashi's walking distance,
// Takahashi's walking distance).
//
// Look at the rows only. Summarise a state by its pattern: the blank's row b and the matrix
// m[r][g], the number of tiles in row r whose goal row is g. One step moves a tile from a
// row next to the blank's row into it, so m[b±1][g] decreases, m[b][g] increases and the
// blank changes rows; the order of tiles inside a row is forgotten. The fewest steps from a
// state's pattern to the goal pattern is its row walking distance; the same over columns
// is its column walking distance, and their sum (WD) is an admissible heuristic that is
// never below the Manhattan distance. On the 4x4 board there are 24,964 patterns and the
// largest distance along one axis is 35.
//
// A Table covers one axis: Lines lines of LineLen cells, with the blank's goal in line
// BlankHome. Pattern ids are dense and canonical (see Key): the patterns sorted
// lexicographically by (b, m[0][0], m[0][1], ..., m[L-1][L-1]). Distances come from one
// breadth-first search backward from the goal pattern (package bfs), and Next gives the
// pattern reached by a step, so a search updates WD in O(1) per move.
package wd

import (
	"context"
	"fmt"
	"sort"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
)

// None marks a step that is not possible in Table.Next.
const None = ^uint32(0)

// Up and Down are the blank's moves between lines, as indices into Next.
const (
	Up   = 0 // the blank goes to line b-1
	Down = 1 // the blank goes to line b+1
)

// A Table is the walking-distance table of one axis.
type Table struct {
	Lines     int // number of lines (rows of the board for the row axis)
	LineLen   int // cells per line
	BlankHome int // line of the blank in the goal

	keys []uint64 // keys[id], ascending
	dist []uint8  // dist[id]
	next []uint32 // next[(id*2+dir)*Lines+g]: the id after moving a tile of group g; None if impossible
}

// A Pattern is a WD pattern: the blank's line and the matrix M[line][group].
type Pattern struct {
	Blank int
	M     [board.MaxSide][board.MaxSide]uint8
}

// Key packs a pattern into an integer whose order is the canonical order: three bits for
// the blank's line, then three for each count m[l][g] with g < Lines-1 in row-major order,
// most significant first (the last count of each line follows from the line's length).
func (t *Table) Key(p *Pattern) uint64 {
	k := uint64(p.Blank)
	for l := 0; l < t.Lines; l++ {
		for g := 0; g < t.Lines-1; g++ {
			k = k<<3 | uint64(p.M[l][g])
		}
	}
	return k
}

// pattern unpacks a key.
func (t *Table) pattern(k uint64) Pattern {
	var p Pattern
	p.Blank = int(k >> (3 * uint(t.Lines*(t.Lines-1))))
	for l := t.Lines - 1; l >= 0; l-- {
		sum := 0
		for g := t.Lines - 2; g >= 0; g-- {
			p.M[l][g] = uint8(k & 7)
			sum += int(k & 7)
			k >>= 3
		}
		p.M[l][t.Lines-1] = uint8(t.lineTiles(l, p.Blank) - sum)
	}
	return p
}

// lineTiles is the number of tiles in line l when the blank is in line b.
func (t *Table) lineTiles(l, b int) int {
	if l == b {
		return t.LineLen - 1
	}
	return t.LineLen
}

// Len returns the number of patterns.
func (t *Table) Len() int { return len(t.keys) }

// Dist returns the distance of pattern id.
func (t *Table) Dist(id uint32) int { return int(t.dist[id]) }

// Dists returns the distances of all patterns, by id. The slice must not be modified.
func (t *Table) Dists() []uint8 { return t.dist }

// Next returns the pattern reached from id when the blank moves in direction dir (Up or
// Down) and takes the place of a tile whose goal line is g, or None when no such tile is
// there.
func (t *Table) Next(id uint32, dir, g int) uint32 { return t.next[(int(id)*2+dir)*t.Lines+g] }

// Transitions returns the whole transition table, indexed as in Next.
func (t *Table) Transitions() []uint32 { return t.next }

// ID returns the id of a pattern, or false if it is not a valid pattern of the table.
func (t *Table) ID(p *Pattern) (uint32, bool) {
	k := t.Key(p)
	i := sort.Search(len(t.keys), func(i int) bool { return t.keys[i] >= k })
	if i == len(t.keys) || t.keys[i] != k {
		return 0, false
	}
	return uint32(i), true
}

// Pattern returns the pattern with the given id.
func (t *Table) Pattern(id uint32) Pattern { return t.pattern(t.keys[id]) }

// Goal returns the id of the goal pattern.
func (t *Table) Goal() uint32 {
	var p Pattern
	p.Blank = t.BlankHome
	for l := 0; l < t.Lines; l++ {
		p.M[l][l] = uint8(t.lineTiles(l, t.BlankHome))
	}
	id, _ := t.ID(&p)
	return id
}

// Enumerate returns a table's structure (patterns and transitions) without distances.
// Lines and LineLen must be 2..5 and BlankHome a line.
func Enumerate(lines, lineLen, blankHome int) (*Table, error) {
	if lines < board.MinSide || lines > board.MaxSide || lineLen < board.MinSide || lineLen > board.MaxSide {
		return nil, fmt.Errorf("wd: %d lines of %d cells: each must be %d to %d", lines, lineLen, board.MinSide, board.MaxSide)
	}
	if blankHome < 0 || blankHome >= lines {
		return nil, fmt.Errorf("wd: blank home line %d outside 0..%d", blankHome, lines-1)
	}
	if lines == 5 && lineLen == 5 {
		// 65,650,495 patterns and 2.6 GB of transitions: more than a heuristic is worth.
		return nil, fmt.Errorf("wd: a 5x5 table has 65,650,495 patterns; it is not supported")
	}
	t := &Table{Lines: lines, LineLen: lineLen, BlankHome: blankHome}
	// Enumerate the matrices in canonical order: blank line outermost, then the counts in
	// row-major order, each rising from 0. The keys come out sorted.
	var p Pattern
	var colLeft [board.MaxSide]int
	var fill func(l, g, rowLeft int)
	fill = func(l, g, rowLeft int) {
		if l == lines {
			t.keys = append(t.keys, t.Key(&p))
			return
		}
		if g == lines-1 { // the line's last count is forced
			if rowLeft > colLeft[g] {
				return
			}
			p.M[l][g] = uint8(rowLeft)
			colLeft[g] -= rowLeft
			fill(l+1, 0, t.lineTiles(l+1, p.Blank))
			colLeft[g] += rowLeft
			return
		}
		for v := 0; v <= rowLeft && v <= colLeft[g]; v++ {
			p.M[l][g] = uint8(v)
			colLeft[g] -= v
			fill(l, g+1, rowLeft-v)
			colLeft[g] += v
		}
	}
	for b := 0; b < lines; b++ {
		p = Pattern{Blank: b}
		for g := 0; g < lines; g++ {
			colLeft[g] = t.lineTiles(g, blankHome) // goal line g holds this many tiles
		}
		fill(0, 0, t.lineTiles(0, b))
	}
	// Transitions.
	t.next = make([]uint32, len(t.keys)*2*lines)
	for id, k := range t.keys {
		p := t.pattern(k)
		for dir, step := range [2]int{-1, +1} {
			from := p.Blank + step
			for g := 0; g < lines; g++ {
				slot := (id*2+dir)*lines + g
				t.next[slot] = None
				if from < 0 || from >= lines || p.M[from][g] == 0 {
					continue
				}
				q := p
				q.M[from][g]--
				q.M[p.Blank][g]++
				q.Blank = from
				nid, ok := t.ID(&q)
				if !ok {
					return nil, fmt.Errorf("wd: internal error: step from pattern %d leaves the table", id)
				}
				t.next[slot] = nid
			}
		}
	}
	return t, nil
}

// Build returns the walking-distance table for lines of lineLen cells with the blank's
// goal in line blankHome, its distances computed by a breadth-first search with the given
// number of workers (0 for all cores).
func Build(ctx context.Context, lines, lineLen, blankHome, workers int) (*Table, error) {
	t, err := Enumerate(lines, lineLen, blankHome)
	if err != nil {
		return nil, err
	}
	dist, err := bfs.Run(ctx, graph{t}, []uint32{t.Goal()}, bfs.Options{Workers: workers})
	if err != nil {
		return nil, err
	}
	for id, d := range dist {
		if d == bfs.Unknown {
			return nil, fmt.Errorf("wd: internal error: pattern %d unreachable", id)
		}
	}
	t.dist = dist
	return t, nil
}

// WithDists returns a copy of the table's structure carrying the given distances, as read
// from a file. It does not check them: package verify does.
func (t *Table) WithDists(dist []uint8) (*Table, error) {
	if len(dist) != len(t.keys) {
		return nil, fmt.Errorf("wd: %d distances for a table of %d patterns", len(dist), len(t.keys))
	}
	c := *t
	c.dist = dist
	return &c, nil
}

// graph presents a table to the bfs engine: every step costs 1 and steps are reversible.
type graph struct{ t *Table }

func (g graph) Len() int { return g.t.Len() }

func (g graph) Expand(zero, one, src []uint32) ([]uint32, []uint32) {
	w := 2 * g.t.Lines
	for _, s := range src {
		for _, n := range g.t.next[int(s)*w : int(s)*w+w] {
			if n != None {
				one = append(one, n)
			}
		}
	}
	return zero, one
}
