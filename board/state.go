package board

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// State is an arrangement: State[p] is the tile on cell p, row-major, 0 for the blank.
type State []uint8

// String writes the tiles separated by spaces, rows separated by " / ".
// Without a size it cannot know the rows, so use Size.Format for that; String is flat.
func (s State) String() string {
	var b strings.Builder
	for i, t := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(t)))
	}
	return b.String()
}

// Format writes s with rows separated by " / ", for people.
func (sz Size) Format(s State) string {
	cells := make([]string, len(s))
	for i, t := range s {
		cells[i] = strconv.Itoa(int(t))
	}
	return sz.Layout(cells)
}

// Layout writes what each cell shows, in rows separated by " / ", for people.
func (sz Size) Layout(cells []string) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			if i%sz.W == 0 {
				b.WriteString(" / ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(c)
	}
	return b.String()
}

// Clone returns a copy of s.
func (s State) Clone() State { return append(State(nil), s...) }

// Equal reports whether s and t are the same arrangement.
func (s State) Equal(t State) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Blank returns the cell of the blank, or -1 if there is none.
func (s State) Blank() int {
	for p, t := range s {
		if t == 0 {
			return p
		}
	}
	return -1
}

// A Scan is a list of numbers as written, with the places of its row separators.
type Scan struct {
	Nums   []int
	Breaks []int // Breaks[i] = how many numbers came before the i-th row separator
}

// maxNumber bounds the numbers Scan accepts: tiles, ids and lengths are far smaller.
const maxNumber = 1_000_000

// ScanNumbers reads a list of non-negative decimal numbers separated by spaces, tabs, commas
// or semicolons, with '/' (anywhere) or a lone '-' (a word of its own) marking the end of a
// row. A number is written in plain decimal: no sign, no leading zero, at most a million.
// Any other word is an ErrSyntax error that quotes it.
func ScanNumbers(text string) (Scan, error) {
	var sc Scan
	words := strings.FieldsFunc(text, func(r rune) bool {
		switch r {
		case ' ', '\t', ',', ';', '\r', '\n':
			return true
		}
		return false
	})
	for _, w := range words {
		if w == "-" {
			sc.Breaks = append(sc.Breaks, len(sc.Nums))
			continue
		}
		for i, part := range strings.Split(w, "/") {
			if i > 0 {
				sc.Breaks = append(sc.Breaks, len(sc.Nums))
			}
			if part == "" {
				continue
			}
			n, err := number(part)
			if err != nil {
				return Scan{}, err
			}
			sc.Nums = append(sc.Nums, n)
		}
	}
	return sc, nil
}

// number reads one plain decimal number.
func number(w string) (int, error) {
	bad := func(why string) error { return fmt.Errorf("%w: %q is not %s", ErrSyntax, Quote(w), why) }
	if w == "" {
		return 0, fmt.Errorf("%w: a number is missing", ErrSyntax)
	}
	if w[0] == '-' || w[0] == '+' {
		return 0, bad("a tile number: numbers have no sign")
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return 0, bad("a number")
		}
	}
	if len(w) > 1 && w[0] == '0' {
		return 0, bad("a plain decimal number (no leading zeros)")
	}
	if len(w) > 7 {
		return 0, bad(fmt.Sprintf("a number up to %d", maxNumber))
	}
	n, _ := strconv.Atoi(w)
	if n > maxNumber {
		return 0, bad(fmt.Sprintf("a number up to %d", maxNumber))
	}
	return n, nil
}

// Quote shortens a word of outside input for an error message: at most 24 bytes, the rest
// elided. Callers quote it with %q, which escapes control and binary bytes.
func Quote(w string) string {
	if len(w) > 24 {
		return w[:24] + "..."
	}
	return w
}

// Fields reads a list of numbers, as ScanNumbers does, that has no row separators (a tile
// list such as "1,2,5,6").
func Fields(text string) ([]int, error) {
	sc, err := ScanNumbers(text)
	if err != nil {
		return nil, err
	}
	if len(sc.Breaks) > 0 {
		return nil, fmt.Errorf("%w: a list of numbers, not rows: %q", ErrSyntax, Quote(text))
	}
	return sc.Nums, nil
}

// CheckRows verifies that the row separators of sc, if any, cut the numbers from index
// first on into rows of the board's width: exactly one separator after each row but the
// last, and none elsewhere.
func (sz Size) CheckRows(sc Scan, first int) error {
	if len(sc.Breaks) == 0 {
		return nil
	}
	if len(sc.Breaks) != sz.H-1 {
		return fmt.Errorf("%w: %d row separators, a %s board has %d rows (%d separators)", ErrSyntax, len(sc.Breaks), sz, sz.H, sz.H-1)
	}
	for i, b := range sc.Breaks {
		if want := first + (i+1)*sz.W; b != want {
			return fmt.Errorf("%w: row %d has %d numbers, a %s board has rows of %d", ErrSyntax, i+1, b-first-i*sz.W, sz, sz.W)
		}
	}
	return nil
}

// Parse reads a state of the given size: W*H numbers separated by spaces or commas, with
// '/' or a lone '-' between rows, for example "1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 0".
// Row separators are optional, but where given they must separate rows of the board's
// width. It checks the numbers form an arrangement (each of 0..W*H-1 exactly once) but not
// solvability, which depends on the goal: see Goal.Check.
func Parse(size Size, text string) (State, error) {
	if err := size.Check(); err != nil {
		return nil, err
	}
	sc, err := ScanNumbers(text)
	if err != nil {
		return nil, err
	}
	if len(sc.Nums) != size.Cells() {
		return FromInts(size, sc.Nums) // the count error
	}
	if err := size.CheckRows(sc, 0); err != nil {
		return nil, err
	}
	return FromInts(size, sc.Nums)
}

// Ints returns the state as plain numbers (as JSON carries it): FromInts's inverse.
func (s State) Ints() []int {
	out := make([]int, len(s))
	for i, t := range s {
		out[i] = int(t)
	}
	return out
}

// FromInts checks that nums is an arrangement of the board and returns it as a State.
func FromInts(size Size, nums []int) (State, error) {
	if err := size.Check(); err != nil {
		return nil, err
	}
	n := size.Cells()
	if len(nums) != n {
		return nil, fmt.Errorf("%w: got %d numbers, a %s board needs %d", ErrCount, len(nums), size, n)
	}
	var seen [MaxCells]int // position+1 where each tile was seen
	s := make(State, n)
	for i, v := range nums {
		if v < 0 || v >= n {
			return nil, fmt.Errorf("%w: %d at position %d (tiles are 0 to %d)", ErrRange, v, i+1, n-1)
		}
		if seen[v] != 0 {
			return nil, fmt.Errorf("%w: %d at positions %d and %d", ErrDuplicate, v, seen[v], i+1)
		}
		seen[v] = i + 1
		s[i] = uint8(v)
	}
	return s, nil
}

// check verifies s is an arrangement of a board of the given size.
func (sz Size) check(s State) error {
	n := sz.Cells()
	if len(s) != n {
		return fmt.Errorf("%w: got %d tiles, a %s board needs %d", ErrCount, len(s), sz, n)
	}
	var seen [MaxCells]bool
	for i, t := range s {
		if int(t) >= n {
			return fmt.Errorf("%w: %d at position %d (tiles are 0 to %d)", ErrRange, t, i+1, n-1)
		}
		if seen[t] {
			return fmt.Errorf("%w: %d", ErrDuplicate, t)
		}
		seen[t] = true
	}
	for t := 0; t < n; t++ {
		if !seen[t] {
			return fmt.Errorf("%w: %d", ErrMissing, t)
		}
	}
	return nil
}

// Move slides the tile that the blank meets going d, in place. It reports false, changing
// nothing, when d leaves the board.
func (sz Size) Move(s State, d Dir) bool {
	b := s.Blank()
	q := sz.Step(b, d)
	if q < 0 {
		return false
	}
	s[b], s[q] = s[q], 0
	return true
}

// Replay applies the blank directions to a copy of start and returns the result. An
// illegal move is reported with its 1-based step number.
func (sz Size) Replay(start State, dirs []Dir) (State, error) {
	if err := sz.check(start); err != nil {
		return nil, err
	}
	s := start.Clone()
	for k, d := range dirs {
		if !sz.Move(s, d) {
			return nil, fmt.Errorf("%w at step %d: blank on cell %d cannot go %v", ErrMove, k+1, s.Blank(), d)
		}
	}
	return s, nil
}

// DirsToTiles converts blank directions into the tiles that slid, replaying from start.
func (sz Size) DirsToTiles(start State, dirs []Dir) ([]int, error) {
	if err := sz.check(start); err != nil {
		return nil, err
	}
	s := start.Clone()
	tiles := make([]int, 0, len(dirs))
	for k, d := range dirs {
		q := sz.Step(s.Blank(), d)
		if q < 0 {
			return nil, fmt.Errorf("%w at step %d: blank on cell %d cannot go %v", ErrMove, k+1, s.Blank(), d)
		}
		tiles = append(tiles, int(s[q]))
		sz.Move(s, d)
	}
	return tiles, nil
}

// TilesToDirs converts a list of tiles that slid into blank directions, replaying from start.
// A tile that is not next to the blank at its step is an illegal move.
func (sz Size) TilesToDirs(start State, tiles []int) ([]Dir, error) {
	if err := sz.check(start); err != nil {
		return nil, err
	}
	s := start.Clone()
	dirs := make([]Dir, 0, len(tiles))
	for k, t := range tiles {
		found := false
		for _, d := range Dirs {
			if q := sz.Step(s.Blank(), d); q >= 0 && int(s[q]) == t && t != 0 {
				dirs = append(dirs, d)
				sz.Move(s, d)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%w at step %d: tile %d is not next to the blank", ErrMove, k+1, t)
		}
	}
	return dirs, nil
}

// Rotate180 turns the board half a turn (cell p -> n-1-p) and relabels tile t -> n-t
// (the blank stays 0), where n = W*H. It maps blank-first instances onto equivalent
// blank-last ones and back; a move in direction d becomes d.Opposite().
func Rotate180(s State) State {
	n := len(s)
	r := make(State, n)
	for p, t := range s {
		if t != 0 {
			t = uint8(n) - t
		}
		r[n-1-p] = t
	}
	return r
}

// permutationParity returns 0 for an even permutation, 1 for odd. p must be a permutation
// of 0..len(p)-1.
func permutationParity(p []uint8) int {
	var seen [MaxCells]bool
	parity := 0
	for i := range p {
		if seen[i] {
			continue
		}
		length := 0
		for j := i; !seen[j]; j = int(p[j]) {
			seen[j] = true
			length++
		}
		parity ^= (length - 1) & 1
	}
	return parity
}

// Random returns a uniformly random state that can reach goal g.
func (g Goal) Random(rng *rand.Rand) State {
	s := g.tiles.Clone()
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	if !g.Solvable(s) {
		// Swapping two tiles flips solvability and is a bijection between the halves,
		// so the result stays uniform.
		i, j := 0, 1
		if s[i] == 0 {
			i = 2
		} else if s[j] == 0 {
			j = 2
		}
		s[i], s[j] = s[j], s[i]
	}
	return s
}

// RandomWalk returns the state reached from the goal by n random moves, never undoing the
// previous move, and the moves taken.
func (g Goal) RandomWalk(n int, rng *rand.Rand) (State, []Dir) {
	s := g.tiles.Clone()
	dirs := make([]Dir, 0, n)
	for len(dirs) < n {
		d := Dir(rng.IntN(4))
		if len(dirs) > 0 && d == dirs[len(dirs)-1].Opposite() {
			continue
		}
		if g.size.Move(s, d) {
			dirs = append(dirs, d)
		}
	}
	return s, dirs
}
