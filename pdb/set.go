package pdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/zindex"
)

// A SetSpec is a disjoint, additive pattern database heuristic for one board and goal
// (Korf & Felner 2002): tables without the blank, and the lookups that cut a state into
// disjoint groups of tiles, each looked up in one of the tables. A lookup may map the
// board by a symmetry, so that groups which are images of each other share one table (on
// the 5x5 board, three 2x3 blocks share one).
//
// The heuristic is the sum of the lookups. Taking the same sum on the state reflected
// about the main diagonal, where the goal allows it, gives a second admissible value
// (Korf & Felner 2002), and so does the dual state (Zahavi, Felner et al. 2007).
type SetSpec struct {
	Name    string
	Goal    board.Goal // the goal of every table and lookup
	Tables  [][]int    // each table's tiles, in index order
	Lookups []Lookup
	// Partitions make the set a catalogue (Clausecker & Reinefeld 2017): each is a list of
	// lookups (indices into Lookups) that covers every tile once, and h is the largest of
	// the partitions' sums. nil is one partition of all the lookups.
	Partitions [][]int
	About      string // where the partition comes from, for people
	// ZeroAware sets keep each region of the blank's value (zero.go), where the others keep
	// the least over the regions (Korf & Felner).
	ZeroAware bool
	// Build says what building the set takes on a 2-core machine, for people.
	Build string
}

// Entries returns the number of entries of table t of the set.
func (s SetSpec) Entries(t int) int64 {
	k := len(s.Tables[t])
	if s.ZeroAware {
		if z, err := zindex.For(s.Size(), k); err == nil {
			return z.Entries()
		}
	}
	n := int64(1)
	for i := range k {
		n *= int64(s.Size().Cells() - i)
	}
	return n
}

// Resident returns the bytes the set's tables take in memory: 4 bits an entry.
func (s SetSpec) Resident() int64 {
	var n int64
	for t := range s.Tables {
		n += (s.Entries(t) + 1) / 2
	}
	return n
}

// SetList describes the sets for people, one line each: name, board, tables, what a
// build takes and the memory they take.
func SetList() string {
	var b strings.Builder
	for _, s := range Sets {
		what := format.Count(len(s.Tables), "table")
		if s.ZeroAware {
			what = format.Count(len(s.Tables), "zero-aware table")
		}
		if len(s.Lookups) != len(s.Tables) {
			what += fmt.Sprintf(" for %d groups", len(s.Lookups))
		}
		fmt.Fprintf(&b, "  %-9s %s, %s; build %s; %s resident\n", s.Name, s.Size(), what, s.Build, format.Bytes(s.Resident()))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// A Lookup takes the cells of Tiles in the state, maps each by Map, and looks the
// placement up in table Table, whose tiles the lookup's tiles play in order.
type Lookup struct {
	Table int
	Tiles []int
	Map   Symmetry
}

// A Symmetry maps the cells of a square board onto themselves.
type Symmetry int

// The symmetries of a square board. Rot90 turns it a quarter clockwise.
const (
	Identity Symmetry = iota
	Rot90
	Rot180
	Rot270
	Transpose   // reflection about the main diagonal: (r, c) -> (c, r)
	FlipColumns // (r, c) -> (r, w-1-c): the columns in reverse order
	FlipRows    // (r, c) -> (w-1-r, c): the rows in reverse order
	// AntiTranspose is the reflection about the other diagonal: (r, c) -> (w-1-c, w-1-r).
	AntiTranspose
)

var symmetryNames = []string{"identity", "rot90", "rot180", "rot270", "transpose", "columns", "rows", "antitranspose"}

// String names the symmetry as table files do ("columns" for FlipColumns).
func (s Symmetry) String() string {
	if int(s) < len(symmetryNames) {
		return symmetryNames[s]
	}
	return fmt.Sprintf("Symmetry(%d)", int(s))
}

// ParseSymmetry reads a symmetry's name.
func ParseSymmetry(name string) (Symmetry, error) {
	for i, n := range symmetryNames {
		if n == name {
			return Symmetry(i), nil
		}
	}
	return Identity, fmt.Errorf("pdb: unknown symmetry %q", name)
}

// Apply maps cell c of a square board of side w.
func (s Symmetry) Apply(w, c int) int {
	r, col := c/w, c%w
	switch s {
	case Rot90:
		r, col = col, w-1-r
	case Rot180:
		r, col = w-1-r, w-1-col
	case Rot270:
		r, col = w-1-col, r
	case Transpose:
		r, col = col, r
	case FlipColumns:
		col = w - 1 - col
	case FlipRows:
		r = w - 1 - r
	case AntiTranspose:
		r, col = w-1-col, w-1-r
	}
	return r*w + col
}

// The 4x4 sets are for the blank-last goal; the 5x5 set for blank-first (Korf's). Other
// goals with the blank in a corner are solved through a symmetry and a relabelling.
var (
	Set555 = SetSpec{
		Name:   "5-5-5",
		Goal:   board.BlankLast(board.Size4x4),
		Tables: [][]int{{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}},
		Build:  "about 0.2 s",
		About:  "three 5-tile tables; the partition of Felner, Korf & Hanan (2004) as commonly implemented for the blank-last goal",
	}
	Set663 = SetSpec{
		Name:   "6-6-3",
		Goal:   board.BlankLast(board.Size4x4),
		Tables: [][]int{{1, 5, 6, 9, 10, 13}, {7, 8, 11, 12, 14, 15}, {2, 3, 4}},
		Build:  "about 0.6 s (also embedded)",
		About:  "two 6-tile tables and a 3-tile one; the partition of Felner, Korf & Hanan (2004) as commonly implemented for the blank-last goal",
	}
	Set78 = SetSpec{
		Name:   "7-8",
		Goal:   board.BlankLast(board.Size4x4),
		Tables: [][]int{{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15}},
		Build:  "about 31 s, 0.97 GB while building",
		About:  "the top two rows and the bottom two: Korf & Felner (2002), Felner, Korf & Hanan (2004)",
	}
	Set6666 = SetSpec{
		Name: "6-6-6-6",
		Goal: board.BlankFirst(board.Size5x5),
		// One irregular group around the blank's home, and three 2x3 blocks that are
		// quarter turns of each other: one table serves them all.
		Tables: [][]int{{1, 2, 5, 6, 7, 12}, {3, 4, 8, 9, 13, 14}},
		Lookups: []Lookup{
			{Table: 0, Tiles: []int{1, 2, 5, 6, 7, 12}},
			{Table: 1, Tiles: []int{3, 4, 8, 9, 13, 14}},
			{Table: 1, Tiles: []int{21, 20, 16, 15, 11, 10}, Map: Rot180},
			{Table: 1, Tiles: []int{19, 24, 18, 23, 17, 22}, Map: Rot270},
		},
		Build: "about 7 s, 0.29 GB while building",
		About: "Korf & Felner (2002): four 6-tile groups for the 24-puzzle; the three 2x3 blocks are rotations of one another and share one table",
	}
)

// SmallT is the catalogue small-t of Clausecker & Reinefeld (2017): seven partitions of the
// 24-puzzle into four 6-tile groups, and their reflections about the main diagonal, over
// 11 zero-aware tables (28 groups: a group that is the image of another's under a symmetry
// of the board reads that table through the symmetry; NewCatalogue).
var SmallT = func() SetSpec {
	s := must(NewCatalogue("small-t", board.BlankFirst(board.Size5x5), true, true, [][][]int{
		{{1, 5, 6, 10, 11, 12}, {2, 3, 4, 7, 8, 9}, {13, 14, 18, 19, 23, 24}, {15, 16, 17, 20, 21, 22}},
		{{1, 2, 5, 6, 10, 11}, {3, 4, 7, 8, 9, 12}, {13, 14, 18, 19, 23, 24}, {15, 16, 17, 20, 21, 22}},
		{{1, 5, 6, 10, 11, 12}, {2, 3, 4, 7, 8, 9}, {13, 14, 15, 16, 17, 18}, {19, 20, 21, 22, 23, 24}},
		{{1, 2, 5, 6, 10, 11}, {3, 4, 7, 8, 9, 12}, {13, 14, 15, 16, 17, 18}, {19, 20, 21, 22, 23, 24}},
		{{1, 5, 6, 10, 15, 20}, {2, 3, 4, 7, 8, 9}, {11, 12, 16, 17, 21, 22}, {13, 14, 18, 19, 23, 24}},
		{{1, 2, 5, 6, 10, 11}, {3, 4, 9, 14, 19, 24}, {7, 8, 12, 13, 18, 23}, {15, 16, 17, 20, 21, 22}},
		{{1, 5, 6, 10, 15, 20}, {2, 3, 4, 7, 8, 9}, {11, 12, 13, 16, 17, 18}, {14, 19, 21, 22, 23, 24}},
	}))
	s.Build = "about 33 s, 0.28 GB while building (24 s, 0.21 GB with --bits)"
	s.About = "the catalogue small-t of Clausecker & Reinefeld (2017): 7 partitions into four 6-tile groups and their reflections, 11 zero-aware tables"
	return s
}()

func must(s SetSpec, err error) SetSpec {
	if err != nil {
		panic(err)
	}
	return s
}

// Sets lists the sets the toolkit builds, by name, each board's weakest first.
var Sets = []SetSpec{Set555, Set663, ZeroAwareOf(Set663, "about 0.9 s"), Set78,
	ZeroAwareOf(Set78, "about 53 s, 1.8 GB while building"), Set6666,
	ZeroAwareOf(Set6666, "about 7 s, 0.29 GB while building"), SmallT}

func init() {
	for i := range Sets {
		if Sets[i].Lookups == nil {
			Sets[i].Lookups = TableLookups(Sets[i].Tables)
		}
	}
	Set555, Set663, Set78, Set6666 = Sets[0], Sets[1], Sets[3], Sets[5]
}

// ZeroAwareOf is the zero-aware version of a set: the same partition and lookups, its
// name ending in "z"; build says what building it takes.
func ZeroAwareOf(s SetSpec, build string) SetSpec {
	s.Name += "z"
	s.ZeroAware, s.Build = true, build
	s.About = "zero-aware tables (Clausecker & Reinefeld 2017) of the " + strings.TrimSuffix(s.Name, "z") + " partition"
	return s
}

// TableLookups returns the lookups of a plain partition: each table once, on its own
// tiles.
func TableLookups(tables [][]int) []Lookup {
	out := make([]Lookup, len(tables))
	for t, tiles := range tables {
		out[t] = Lookup{Table: t, Tiles: tiles}
	}
	return out
}

// Recommended returns the set that pdbgen builds for a board when given no name: the
// strongest whose build fits 60 minutes and 20 GB on two cores, and whose tables fit
// 12 GB (4x4: 10 minutes and 4 GB).
func Recommended(size board.Size) (SetSpec, error) {
	name := map[board.Size]string{board.Size4x4: "7-8", board.Size5x5: "small-t"}[size]
	if name == "" {
		return SetSpec{}, fmt.Errorf("pdb: no set for the %s board (sets serve 4x4 and 5x5)", size)
	}
	return SetByName(name)
}

// SetNames lists the names of the sets, for people.
func SetNames() string {
	var names []string
	for _, s := range Sets {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// SetByName returns the set of that name.
func SetByName(name string) (SetSpec, error) {
	for _, s := range Sets {
		if s.Name == name {
			return s, nil
		}
	}
	return SetSpec{}, fmt.Errorf("pdb: no set %q (known: %s)", name, SetNames())
}

// Size returns the board size of the set.
func (s SetSpec) Size() board.Size { return s.Goal.Size() }

// Pattern returns the pattern of table t.
func (s SetSpec) Pattern(t int) (*Pattern, error) { return NewPattern(s.Goal, s.Tables[t], false) }

// Check verifies that the lookups cover every tile once, play tables of the same size,
// and map groups onto their tables' goal placements without changing the region of the
// blank's home, so that each lookup is admissible and their sum too.
func (s SetSpec) Check() error {
	for k, l := range s.Lookups {
		if err := s.checkLookup(k, l); err != nil {
			return err
		}
	}
	for p, part := range s.Parts() {
		var seen [board.MaxCells]bool
		for _, k := range part {
			if k < 0 || k >= len(s.Lookups) {
				return fmt.Errorf("pdb: set %s: partition %d names lookup %d of %d", s.Name, p, k, len(s.Lookups))
			}
			for _, t := range s.Lookups[k].Tiles {
				if seen[t] {
					return fmt.Errorf("pdb: set %s: partition %d has tile %d twice", s.Name, p, t)
				}
				seen[t] = true
			}
		}
		for t := 1; t < s.Size().Cells(); t++ {
			if !seen[t] {
				return fmt.Errorf("pdb: set %s: partition %d leaves tile %d out", s.Name, p, t)
			}
		}
	}
	return nil
}

// checkLookup checks lookup k: it reads its table through its symmetry, each of its tiles
// playing a table tile whose home is the image of its own, and the image of the blank's
// home in the blank's region (so that the abstract goals are the same, and the table's
// distances, zero-aware or not, are the lookup's).
func (s SetSpec) checkLookup(k int, l Lookup) error {
	size := s.Size()
	g := newGeometryCached(size)
	if l.Table < 0 || l.Table >= len(s.Tables) || len(l.Tiles) != len(s.Tables[l.Table]) {
		return fmt.Errorf("pdb: set %s: lookup %d does not fit its table", s.Name, k)
	}
	if l.Map != Identity && size.W != size.H {
		return fmt.Errorf("pdb: set %s: symmetries need a square board", s.Name)
	}
	var occ uint32
	for i, t := range l.Tiles {
		if t < 1 || t >= size.Cells() {
			return fmt.Errorf("pdb: set %s: lookup %d: no tile %d on %s", s.Name, k, t, size)
		}
		want := s.Goal.Home(s.Tables[l.Table][i])
		if got := l.Map.Apply(size.W, s.Goal.Home(t)); got != want {
			return fmt.Errorf("pdb: set %s: lookup %d maps tile %d's home to cell %d, not to tile %d's", s.Name, k, t, got, s.Tables[l.Table][i])
		}
		occ |= 1 << want
	}
	free := g.full &^ occ
	if mapped := l.Map.Apply(size.W, s.Goal.Home(0)); g.region(free, mapped) != g.region(free, s.Goal.Home(0)) {
		return fmt.Errorf("pdb: set %s: lookup %d moves the blank's home out of its region", s.Name, k)
	}
	return nil
}

// Parts returns the partitions: Partitions, or one of all the lookups.
func (s SetSpec) Parts() [][]int {
	if s.Partitions != nil {
		return s.Partitions
	}
	all := make([]int, len(s.Lookups))
	for k := range all {
		all[k] = k
	}
	return [][]int{all}
}

// A Set is a SetSpec with its tables.
type Set struct {
	SetSpec
	Tables []*Packed
}

// Eval returns the set's value for the state s of the set's goal: the sum of the lookups,
// or of a catalogue the largest sum of a partition.
func (s *Set) Eval(st board.State) int {
	w := s.Size().W
	var cells [board.MaxCells]uint8
	var pos [board.MaxCells]int
	for c, t := range st {
		pos[t] = c
	}
	values := make([]int, len(s.Lookups))
	for k, l := range s.Lookups {
		for i, t := range l.Tiles {
			cells[i] = uint8(l.Map.Apply(w, pos[t]))
		}
		tab := s.Tables[l.Table]
		if tab.Zero != nil {
			values[k] = tab.Value(tab.Zero.IndexBlank(cells[:len(l.Tiles)], l.Map.Apply(w, pos[0])), cells[:])
		} else {
			values[k] = tab.Value(tab.Rank(cells[:len(l.Tiles)]), cells[:])
		}
	}
	best := 0
	for _, part := range s.Parts() {
		sum := 0
		for _, k := range part {
			sum += values[k]
		}
		best = max(best, sum)
	}
	return best
}

// NewSet builds every table of a set in memory (for sets small enough to hold unpacked one
// table at a time; BuildSet hands each table over as soon as it is ready).
func NewSet(ctx context.Context, spec SetSpec, workers int) (*Set, error) {
	set := &Set{SetSpec: spec, Tables: make([]*Packed, len(spec.Tables))}
	err := BuildSet(ctx, spec, workers, nil, func(t int, p *Packed) error {
		set.Tables[t] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

// BuildSet builds the tables of a set, one after the other, and gives each packed table
// to keep as soon as it is ready (so that only one full table is in memory at a time).
// progress, if set, hears of each table's layers.
func BuildSet(ctx context.Context, spec SetSpec, workers int, progress func(table int, l bfs.Layer), keep func(table int, t *Packed) error) error {
	if err := spec.Check(); err != nil {
		return err
	}
	for i := range spec.Tables {
		opt := Options{Workers: workers}
		if progress != nil {
			opt.Progress = func(l bfs.Layer) { progress(i, l) }
		}
		packed, err := spec.BuildTable(ctx, i, opt)
		if err != nil {
			return err
		}
		if err := keep(i, packed); err != nil {
			return err
		}
	}
	return nil
}

// BuildTableBits builds table t of a zero-aware set in the bit encoding (ZeroAwareBits).
func (s SetSpec) BuildTableBits(ctx context.Context, t int, opt Options) (*Packed, error) {
	if !s.ZeroAware {
		return nil, fmt.Errorf("pdb: the %s set is not zero-aware: the bit encoding needs tables whose neighbours differ by exactly one", s.Name)
	}
	p, err := s.Pattern(t)
	if err != nil {
		return nil, err
	}
	return ZeroAwareBits(ctx, p, opt)
}

// BuildTable builds table t of the set, packed.
func (s SetSpec) BuildTable(ctx context.Context, t int, opt Options) (*Packed, error) {
	p, err := s.Pattern(t)
	if err != nil {
		return nil, err
	}
	if s.ZeroAware {
		return ZeroAware(ctx, p, opt)
	}
	return additivePacked(ctx, p, opt)
}

// Digest identifies the set's values to another machine: the SHA-256 of its tables'
// digests (of their files' decoded payloads) in order, as 16 hex digits; "" when a table
// was built in memory and has none.
func (s *Set) Digest() string {
	h := sha256.New()
	for _, t := range s.Tables {
		if t.Digest == ([32]byte{}) {
			return ""
		}
		h.Write(t.Digest[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// InBits reports whether the set's tables are in the bit encoding.
func (s *Set) InBits() bool {
	for _, t := range s.Tables {
		if t.Bitmap == nil {
			return false
		}
	}
	return len(s.Tables) > 0
}
