// Package board models sliding-tile puzzles: boards of W columns and H rows holding tiles
// 1..W*H-1 and a blank (0), goal arrangements, parsing, solvability, moves and random states.
//
// A State lists the tile on every cell in row-major order. Moves are named either by the
// direction the blank travels (U, D, L, R) or by the tile that slides; both notations are
// supported and convertible. Solvability is always relative to a Goal: a state can reach a
// goal iff the parity of the permutation taking the goal to the state equals the parity of
// the taxicab distance between the two blank cells.
//
// The package is the slow, general reference; search code for the 4x4 board keeps its own
// fixed-size representation and is cross-checked against this one in tests.
package board

import (
	"errors"
	"fmt"
	"strings"
)

// Board sizes the package supports.
const (
	MinSide  = 2
	MaxSide  = 5
	MaxCells = MaxSide * MaxSide
)

// Errors describing bad states and moves. They are wrapped with details; compare with errors.Is.
var (
	ErrSize       = errors.New("board: unsupported board size")
	ErrCount      = errors.New("board: wrong number of tiles")
	ErrRange      = errors.New("board: tile out of range")
	ErrDuplicate  = errors.New("board: duplicate tile")
	ErrMissing    = errors.New("board: missing tile")
	ErrUnsolvable = errors.New("board: not solvable for this goal")
	ErrMove       = errors.New("board: illegal move")
	ErrSyntax     = errors.New("board: syntax error")
)

// Size is the shape of a board: W columns and H rows.
type Size struct{ W, H int }

// Size4x4 is the 15-puzzle board.
var Size4x4 = Size{4, 4}

// Size5x5 is the board of the 24-puzzle.
var Size5x5 = Size{5, 5}

// ParseSize reads a size written "WxH", such as "4x4" or "3x3".
func ParseSize(s string) (Size, error) {
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return Size{}, fmt.Errorf("%w: %q is not of the form WxH", ErrSize, s)
	}
	wi, err1 := number(w)
	hi, err2 := number(h)
	if err1 != nil || err2 != nil {
		return Size{}, fmt.Errorf("%w: %q is not of the form WxH", ErrSize, s)
	}
	sz := Size{wi, hi}
	return sz, sz.Check()
}

// Check reports whether the package supports the size (each side 2 to 5).
func (s Size) Check() error {
	if s.W < MinSide || s.W > MaxSide || s.H < MinSide || s.H > MaxSide {
		return fmt.Errorf("%w: %dx%d (each side must be %d to %d)", ErrSize, s.W, s.H, MinSide, MaxSide)
	}
	return nil
}

// Cells is the number of cells, W*H.
func (s Size) Cells() int { return s.W * s.H }

// String returns "WxH".
func (s Size) String() string { return fmt.Sprintf("%dx%d", s.W, s.H) }

// Row and Col give the row and column of cell p.
func (s Size) Row(p int) int { return p / s.W }

// Col gives the column of cell p.
func (s Size) Col(p int) int { return p % s.W }

// Cell gives the cell at row r, column c.
func (s Size) Cell(r, c int) int { return r*s.W + c }

// Dir is a move named by the direction the blank travels.
type Dir uint8

// The four blank directions. Their order is the order in which searches try them.
const (
	Up Dir = iota
	Down
	Left
	Right
)

// Dirs lists the four directions in order.
var Dirs = [4]Dir{Up, Down, Left, Right}

// String returns "U", "D", "L" or "R".
func (d Dir) String() string {
	if d > Right {
		return "?"
	}
	return "UDLR"[d : d+1]
}

// Opposite returns the direction that undoes d. It is also what d becomes when the board
// is turned 180 degrees.
func (d Dir) Opposite() Dir { return d ^ 1 }

// Step returns the cell the blank reaches from cell p going d, or -1 if d leaves the board.
func (s Size) Step(p int, d Dir) int {
	r, c := s.Row(p), s.Col(p)
	switch d {
	case Up:
		r--
	case Down:
		r++
	case Left:
		c--
	case Right:
		c++
	default:
		return -1
	}
	if r < 0 || r >= s.H || c < 0 || c >= s.W {
		return -1
	}
	return s.Cell(r, c)
}

// ParseDirs reads blank directions such as "ULDR" or "u l d r" (case and spaces ignored).
func ParseDirs(text string) ([]Dir, error) {
	var dirs []Dir
	for i, ch := range text {
		switch ch {
		case 'U', 'u':
			dirs = append(dirs, Up)
		case 'D', 'd':
			dirs = append(dirs, Down)
		case 'L', 'l':
			dirs = append(dirs, Left)
		case 'R', 'r':
			dirs = append(dirs, Right)
		case ' ', ',', '\t':
		default:
			return nil, fmt.Errorf("%w: %q at offset %d is not one of U, D, L, R", ErrSyntax, ch, i)
		}
	}
	return dirs, nil
}

// FormatDirs writes directions as a string such as "ULDR".
func FormatDirs(dirs []Dir) string {
	var b strings.Builder
	for _, d := range dirs {
		b.WriteString(d.String())
	}
	return b.String()
}
