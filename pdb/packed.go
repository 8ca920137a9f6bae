package pdb

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/par"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/zindex"
)

// A Packed table holds a pattern database in 4 bits per entry. A move of a pattern tile
// changes the tiles' Manhattan distance by one and costs one, so an entry minus the
// Manhattan distance of its pattern tiles (md) is even and small: the table stores half
// that excess, e = (value - md) / 2, two entries to a byte (entry i in the low nibble of
// byte i/2 when i is even, the high nibble when odd). The nibble 15 is an escape: the value
// is in the sorted list of exceptions, which holds every entry whose excess does not fit
// (or is not even, or that is Unreachable). On the 7-8 partition the 8-tile table takes
// 259 MB instead of 519.
//
// Searches add the Manhattan distance of the whole state, which they keep up to date
// anyway, to twice the sum of the nibbles of its groups.
//
// When the pattern is its own mirror image (Pattern.Mirror: the 8-tile table of the 7-8
// set under the column flip), a placement and its mirror image have the same entry, and
// only the one with the smaller index is stored: the other's nibble is 0 and never read.
// Half the table is then zeros in long runs, which costs almost nothing in a file.
type Packed struct {
	*Pattern
	Nibbles []byte
	// Escapes are the entries the nibbles cannot hold, by index, ascending.
	Escapes []Escape
	// Mirror is the symmetry under which only the smaller index of each pair is stored,
	// or Identity when every entry is.
	Mirror Symmetry
	// Digest is the SHA-256 of the decoded payload of the file it was read from (zero for
	// a table built in memory): what identifies its values to another machine.
	Digest [32]byte
	// Zero is the index of a zero-aware table (zero.go): its entries are (placement, blank
	// region) states, ranked by Zero; nil for Korf & Felner's minimum over the regions.
	Zero *zindex.Scheme
	// Bitmap holds a zero-aware table in the bit encoding (bits.go), one bit an entry;
	// Nibbles and Escapes are then empty.
	Bitmap []byte
	md     [board.MaxCells][board.MaxCells]uint8 // md[i][c]: distance of pattern tile i on cell c
	mirror mirror
}

// mirror maps placements onto their mirror images.
type mirror struct {
	cell [board.MaxCells]uint8 // the symmetry on cells
	perm [board.MaxCells]uint8 // perm[j]: the index position of the image of pattern tile j
}

// Mirror returns a symmetry of the board under which the pattern's table (without the
// blank) is its own image: the symmetry takes every pattern tile's home to a pattern tile's
// home, and the blank's home to a cell in the same region of free cells as itself when the
// pattern is home, so that a placement and its image are equally far from the goal.
func (p *Pattern) Mirror() (Symmetry, bool) {
	size := p.goal.Size()
	if p.blank || size.W != size.H {
		return Identity, false
	}
	g := newGeometryCached(size)
	var occ uint32
	for _, t := range p.tiles {
		occ |= 1 << p.goal.Home(t)
	}
	for _, sym := range []Symmetry{FlipColumns, FlipRows, Transpose} {
		ok := true
		for _, t := range p.tiles {
			if occ&(1<<sym.Apply(size.W, p.goal.Home(t))) == 0 {
				ok = false
			}
		}
		free := g.full &^ occ
		home := p.goal.Home(0)
		if ok && g.region(free, sym.Apply(size.W, home)) == g.region(free, home) {
			return sym, true
		}
	}
	return Identity, false
}

// newMirror prepares the map of placements onto their images under sym.
func (p *Pattern) newMirror(sym Symmetry) mirror {
	var m mirror
	w := p.goal.Size().W
	for c := 0; c < p.goal.Size().Cells(); c++ {
		m.cell[c] = uint8(sym.Apply(w, c))
	}
	goal := p.goal.Tiles()
	for j, t := range p.tiles {
		image := int(goal[sym.Apply(w, p.goal.Home(t))])
		for k, u := range p.tiles {
			if u == image {
				m.perm[j] = uint8(k)
			}
		}
	}
	return m
}

// MirrorMap returns, for a table stored through a mirror, the symmetry on cells and, for
// each index position j of the pattern, the position of its image tile.
func (t *Packed) MirrorMap() (cell, perm [board.MaxCells]uint8) { return t.mirror.cell, t.mirror.perm }

// stored returns the index at which the entry of placement i (on cells) is stored: i, or
// the index of its mirror image when that is smaller.
func (t *Packed) stored(i uint32, cells []uint8) uint32 {
	if t.Mirror == Identity {
		return i
	}
	var image [board.MaxCells]uint8
	for j := 0; j < t.m; j++ {
		image[t.mirror.perm[j]] = t.mirror.cell[cells[j]]
	}
	return min(i, t.Rank(image[:]))
}

// An Escape is an entry whose excess does not fit in a nibble.
type Escape = tablefile.Escape

// EscapeNibble marks an entry held in the escape list.
const EscapeNibble = tablefile.EscapeNibble

// NewPacked makes a packed table from its parts, checking that the nibbles and the escape
// list agree (nibble 15 exactly at the escaped indices, which ascend) and that the pattern
// is its own image under mirror (Identity: every entry stored).
func NewPacked(p *Pattern, nibbles []byte, escapes []Escape, mirror Symmetry) (*Packed, error) {
	if err := tablefile.CheckHalfExcess(int64(p.Len()), nibbles, escapes); err != nil {
		return nil, fmt.Errorf("pdb: %s: %w", p.Name(), err)
	}
	t := &Packed{Pattern: p, Nibbles: nibbles, Escapes: escapes, Mirror: mirror}
	if mirror != Identity {
		if sym, ok := p.Mirror(); !ok || sym != mirror {
			return nil, fmt.Errorf("pdb: pattern %s is not its own image under %v", p.Name(), mirror)
		}
		t.mirror = p.newMirror(mirror)
	}
	t.initMD()
	return t, nil
}

func (t *Packed) initMD() {
	size := t.goal.Size()
	for i, tile := range t.tiles {
		h := t.goal.Home(tile)
		for c := 0; c < size.Cells(); c++ {
			t.md[i][c] = uint8(abs(size.Row(c)-size.Row(h)) + abs(size.Col(c)-size.Col(h)))
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Pack packs a table of full entries, storing only one entry of each mirror pair when the
// pattern is its own mirror image.
func Pack(ctx context.Context, t *Table) (*Packed, error) {
	p := t.Pattern
	out := &Packed{Pattern: p}
	if sym, ok := p.Mirror(); ok {
		out.Mirror, out.mirror = sym, p.newMirror(sym)
	}
	return out, out.fill(ctx, p.Len(), func(i uint32, cells []uint8) (int, bool) {
		// A placement whose mirror image has the smaller index is not stored.
		return int(t.Entries[i]), out.stored(i, cells) == i
	})
}

// fill packs n entries into the table's nibbles and escapes: value gives entry i's value,
// cells holding its placement, and whether it is stored at all (its nibble stays 0 if not).
func (out *Packed) fill(ctx context.Context, n int, value func(i uint32, cells []uint8) (int, bool)) error {
	out.Nibbles = make([]byte, (n+1)/2)
	out.initMD()
	var mu sync.Mutex
	var escapes []Escape
	parallelRanges(0, len(out.Nibbles), func(lo, hi int) {
		var cells [board.MaxCells]uint8
		var local []Escape
		for i := 2 * lo; i < min(2*hi, n); i++ {
			if i&0xFFFF == 0 && ctx.Err() != nil {
				break
			}
			out.unrankEntry(uint32(i), cells[:])
			v, stored := value(uint32(i), cells[:])
			if !stored {
				continue
			}
			md := out.MD(cells[:])
			e := (v - md) / 2
			if v == Unreachable || v < md || (v-md)%2 != 0 || e >= EscapeNibble {
				e = EscapeNibble
				local = append(local, Escape{Index: uint32(i), Value: uint8(v)})
			}
			out.Nibbles[i/2] |= byte(e) << (4 * (i & 1))
		}
		mu.Lock()
		escapes = append(escapes, local...)
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	sort.Slice(escapes, func(a, b int) bool { return escapes[a].Index < escapes[b].Index })
	out.Escapes = escapes
	return nil
}

// parallelRanges calls fn on disjoint ranges covering [0, n), on workers goroutines (0:
// all cores), each taking the next range of a million entries as it finishes one.
func parallelRanges(workers, n int, fn func(lo, hi int)) { par.Ranges(workers, n, 1<<20, fn) }

// nibble returns the nibble of entry i.
func (t *Packed) nibble(i uint32) uint8 { return t.Nibbles[i/2] >> (4 * (i & 1)) & 0xF }

// MD returns the Manhattan distance of the pattern tiles on the given cells.
func (t *Packed) MD(cells []uint8) int {
	md := 0
	for j := 0; j < t.m; j++ {
		md += int(t.md[j][cells[j]])
	}
	return md
}

// Value returns entry i; cells must be the placement of index i (Unrank gives it).
func (t *Packed) Value(i uint32, cells []uint8) int {
	if t.Bitmap != nil {
		if v, ok := t.Descend(i); ok {
			return v
		}
		return int(Unreachable) // a damaged table, which verify and the digests refuse
	}
	i = t.stored(i, cells)
	if e := t.nibble(i); e != EscapeNibble {
		return t.MD(cells) + 2*int(e)
	}
	return int(t.escape(i))
}

// Excess returns half the excess of entry i over the Manhattan distance md of its
// placement: (value - md) / 2. i must be where the entry is stored (see Mirror).
func (t *Packed) Excess(i uint32, md int) int {
	if e := t.nibble(i); e != EscapeNibble {
		return int(e)
	}
	return (int(t.escape(i)) - md) / 2
}

func (t *Packed) escape(i uint32) uint8 {
	k, _ := slices.BinarySearchFunc(t.Escapes, i, func(e Escape, i uint32) int { return int(e.Index) - int(i) })
	return t.Escapes[k].Value
}

// Lookup returns the entry for the board state s.
func (t *Packed) Lookup(s board.State) int {
	var cells [board.MaxCells]uint8
	t.Cells(s, cells[:])
	if t.Zero != nil {
		return t.Value(t.Zero.IndexBlank(cells[:], s.Blank()), cells[:])
	}
	return t.Value(t.Rank(cells[:]), cells[:])
}

// Unpack returns the table with one byte per entry (not for a zero-aware table, whose
// entries are not a Table's: use Values).
func (t *Packed) Unpack(ctx context.Context) (*Table, error) {
	if t.Zero != nil {
		return nil, fmt.Errorf("pdb: %s is zero-aware: its entries are by region, not by placement", t.Name())
	}
	p := t.Pattern
	entries := make([]uint8, p.Len())
	parallelRanges(0, p.Len(), func(lo, hi int) {
		var cells [board.MaxCells]uint8
		for i := lo; i < hi; i++ {
			if i&0xFFFF == 0 && ctx.Err() != nil {
				return
			}
			p.Unrank(uint32(i), cells[:])
			entries[i] = uint8(t.Value(uint32(i), cells[:]))
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Table{Pattern: p, Entries: entries}, nil
}

// File returns the table as a table file in the half-excess encoding, or the bit encoding
// for a bit table.
func (t *Packed) File() (*tablefile.Table, error) {
	if t.Bitmap != nil {
		return t.bitFile()
	}
	mirror := "none"
	if t.Mirror != Identity {
		mirror = t.Mirror.String()
	}
	if t.Zero != nil {
		return tablefile.NewHalfExcessIndex(t.goal, t.tiles, tablefile.IndexZero, t.Nibbles, t.Escapes, mirror)
	}
	return tablefile.NewHalfExcess(t.goal, t.tiles, t.Nibbles, t.Escapes, mirror)
}

// LoadPacked turns a half-excess table file into a packed table. The file's reader has
// checked the nibbles against the escape list; package verify proves the values.
func LoadPacked(f *tablefile.Table) (*Packed, error) {
	bit := f.Encoding == tablefile.EncodingBit && f.Index == tablefile.IndexZero
	if f.Kind != tablefile.KindPDB || f.Encoding != tablefile.EncodingHalfExcess && !bit {
		return nil, fmt.Errorf("pdb: the file holds a %s table in the %s encoding, not a half-excess or zero-aware bit pdb", f.Kind, f.Encoding)
	}
	goal, err := f.GoalOf()
	if err != nil {
		return nil, err
	}
	p, err := NewPattern(goal, f.Tiles, false)
	if err != nil {
		return nil, err
	}
	var t *Packed
	if bit {
		t, err = NewBitTable(p, f.Bitmap)
		if err == nil {
			t.Digest = f.DecodedSHA
		}
		return t, err
	}
	if f.Index == tablefile.IndexZero {
		t, err = NewZeroAware(p, f.Nibbles, f.Escapes)
		if err == nil {
			t.Digest = f.DecodedSHA
		}
		return t, err
	}
	mirror := Identity
	if f.Mirror != "none" {
		if mirror, err = ParseSymmetry(f.Mirror); err != nil {
			return nil, err
		}
	}
	t, err = NewPacked(p, f.Nibbles, f.Escapes, mirror)
	if err == nil {
		t.Digest = f.DecodedSHA
	}
	return t, err
}

// Values returns every entry's value, decoded through the mirror, one byte each in index
// order, on workers goroutines (0: all cores).
func (t *Packed) Values(ctx context.Context, workers int) ([]uint8, error) {
	out := make([]uint8, t.Entries())
	err := t.decode(ctx, workers, func(_ int, i uint32, v int) { out[i] = uint8(v) })
	return out, err
}

// Distances returns the histogram of the table's values, decoded through its mirror:
// element d is the number of entries whose value is d. It decodes every entry, on workers
// goroutines (0: all cores); about a second per 100 million entries and core.
func (t *Packed) Distances(ctx context.Context, workers int) ([]int64, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	hists := make([][256]int64, workers)
	if err := t.decode(ctx, workers, func(w int, _ uint32, v int) { hists[w][v]++ }); err != nil {
		return nil, err
	}
	var total [256]int64
	top := 0
	for _, h := range hists {
		for d, c := range h {
			total[d] += c
			if c > 0 {
				top = max(top, d)
			}
		}
	}
	return append([]int64(nil), total[:top+1]...), nil
}

// decode calls visit(w, i, value) for every entry i, w being the calling goroutine's
// number (0 to workers-1), in chunks of consecutive entries.
func (t *Packed) decode(ctx context.Context, workers int, visit func(w int, i uint32, v int)) error {
	const chunk = 1 << 16
	n := t.Entries()
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	cells := make([][]uint8, workers)
	for w := range cells {
		cells[w] = make([]uint8, t.Elems())
	}
	par.For(ctx, workers, (n+chunk-1)/chunk, func(w, c int) {
		cs := cells[w]
		for i := c * chunk; i < min((c+1)*chunk, n); i++ {
			t.unrankEntry(uint32(i), cs)
			visit(w, uint32(i), t.Value(uint32(i), cs))
		}
	})
	return ctx.Err()
}

// Describe describes the table file t, read from path, as tablefile.Describe does, with
// the histogram of its values: for a half-excess table the entries are decoded through
// the mirror (Distances), and the stored nibbles' histogram is kept beside it.
func Describe(ctx context.Context, path string, t *tablefile.Table, workers int) (tablefile.Info, error) {
	info := tablefile.Describe(path, t)
	if t.Encoding != tablefile.EncodingHalfExcess {
		return info, nil
	}
	packed, err := LoadPacked(t)
	if err != nil {
		return info, err
	}
	hist, err := packed.Distances(ctx, workers)
	if err != nil {
		return info, err
	}
	info.SetDistances(hist)
	return info, nil
}
