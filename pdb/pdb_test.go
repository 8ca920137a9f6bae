package pdb

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/tablefile"
)

func pattern(t testing.TB, goal board.Goal, tiles []int, blank bool) *Pattern {
	t.Helper()
	p, err := NewPattern(goal, tiles, blank)
	require.NoError(t, err)
	return p
}

func build(t testing.TB, p *Pattern, workers int) *Table {
	t.Helper()
	tab, err := Build(context.Background(), p, Options{Workers: workers})
	require.NoError(t, err)
	return tab
}

var last4 = board.BlankLast(board.Size4x4)

func TestEntryCounts(t *testing.T) {
	assert.Equal(t, 43680, pattern(t, last4, IDA15Small, true).Len())
	assert.Equal(t, 524160, pattern(t, last4, IDA15Large, true).Len())
	assert.Equal(t, 57657600, pattern(t, last4, []int{1, 2, 3, 4, 5, 6}, true).Len())
	assert.Equal(t, 3360, pattern(t, last4, []int{1, 2, 3}, false).Len())
	for _, bad := range [][]int{{0, 1}, {16}, {3, 3}, {}} {
		_, err := NewPattern(last4, bad, true)
		assert.Error(t, err, "%v", bad)
	}
}

// The worked example of docs/FORMAT.md.
func TestRankExample(t *testing.T) {
	p := pattern(t, last4, IDA15Large, true)
	assert.Equal(t, uint32(347), p.Rank([]uint8{0, 1, 4, 5, 15}))
	assert.Equal(t, uint32(347), p.goalIndex())
}

func TestRankRoundTrip(t *testing.T) {
	for _, p := range []*Pattern{
		pattern(t, board.BlankFirst(board.Size{W: 3, H: 3}), []int{1, 5, 7}, true),
		pattern(t, last4, IDA15Small, true),
		pattern(t, board.BlankLast(board.Size5x5), []int{1, 2, 3, 4}, true),
		pattern(t, board.BlankLast(board.Size{W: 2, H: 2}), []int{3, 1, 2}, true),
		pattern(t, last4, []int{1, 2, 3, 4, 5, 6}, true),
	} {
		cells := make([]uint8, p.Elems())
		for i := 0; i < p.Len(); i += 1 + i%97 {
			p.Unrank(uint32(i), cells)
			used := 0
			for _, c := range cells {
				if int(c) >= p.goal.Size().Cells() || used&(1<<c) != 0 {
					t.Fatalf("%s index %d unranks to %v", p.Name(), i, cells)
				}
				used |= 1 << c
			}
			if got := p.Rank(cells); got != uint32(i) {
				t.Fatalf("%s: Rank(Unrank(%d)) = %d", p.Name(), i, got)
			}
		}
	}
}

// reference computes a pattern database by a plain 0-1 breadth-first search over abstract
// states kept in a map, sharing nothing with Rank, Unrank, graph or bfs.
func reference(goal board.Goal, tiles []int, blank bool) map[string]int {
	size := goal.Size()
	start := make([]byte, 0, len(tiles)+1)
	for _, t := range tiles {
		start = append(start, byte(goal.Home(t)))
	}
	if blank {
		start = append(start, byte(goal.Home(0)))
	}
	dist := map[string]int{string(start): 0}
	// Two lists: states at the current distance (zero-cost moves extend it) and the next.
	current, next := []string{string(start)}, []string(nil)
	level := 0
	for len(current) > 0 || len(next) > 0 {
		if len(current) == 0 {
			// A state queued for the next distance may since have been reached more
			// cheaply; its entry then no longer matches and it is skipped.
			level++
			for _, k := range next {
				if dist[k] == level {
					current = append(current, k)
				}
			}
			next = nil
			continue
		}
		s := []byte(current[len(current)-1])
		current = current[:len(current)-1]
		d := dist[string(s)]
		occupied := func(c int) int {
			for i := 0; i < len(tiles); i++ {
				if int(s[i]) == c {
					return i
				}
			}
			return -1
		}
		visit := func(n []byte, cost int) {
			if old, ok := dist[string(n)]; !ok || d+cost < old {
				dist[string(n)] = d + cost
				if cost == 0 {
					current = append(current, string(n))
				} else {
					next = append(next, string(n))
				}
			}
		}
		if blank {
			b := int(s[len(tiles)])
			for _, dir := range board.Dirs {
				q := size.Step(b, dir)
				if q < 0 {
					continue
				}
				n := append([]byte(nil), s...)
				n[len(tiles)] = byte(q)
				if i := occupied(q); i >= 0 {
					n[i] = byte(b)
					visit(n, 1)
				} else {
					visit(n, 0)
				}
			}
			continue
		}
		for i := range tiles {
			for _, dir := range board.Dirs {
				q := size.Step(int(s[i]), dir)
				if q >= 0 && occupied(q) < 0 {
					n := append([]byte(nil), s...)
					n[i] = byte(q)
					visit(n, 1)
				}
			}
		}
	}
	return dist
}

// referenceAdditive is the Korf-Felner definition spelt out: the distances of the search
// over the tiles and the blank, least over the blank's cells.
func referenceAdditive(goal board.Goal, tiles []int) map[string]int {
	withBlank := reference(goal, tiles, true)
	out := map[string]int{}
	for key, d := range withBlank {
		placement := key[:len(tiles)]
		if old, ok := out[placement]; !ok || d < old {
			out[placement] = d
		}
	}
	return out
}

func TestAgainstReference(t *testing.T) {
	for _, tc := range []struct {
		goal  board.Goal
		tiles []int
		blank bool
	}{
		{last4, IDA15Small, true},
		{last4, IDA15Large, true},
		{last4, []int{1, 2, 3}, false},
		{board.BlankFirst(board.Size{W: 3, H: 3}), []int{1, 5, 7}, true},
		{board.BlankLast(board.Size{W: 3, H: 2}), []int{5, 1}, false},
		{board.BlankFirst(board.Size4x4), []int{15, 14, 11}, true},
		{board.BlankLast(board.Size{W: 2, H: 2}), []int{3, 1, 2}, true},
		{board.BlankLast(board.Size{W: 5, H: 2}), []int{1, 2, 6}, true},
		// Korf-Felner tables without the blank, where free regions matter.
		{board.BlankLast(board.Size{W: 3, H: 3}), []int{1, 2, 3, 4}, false},
		{board.BlankFirst(board.Size{W: 3, H: 3}), []int{8, 5, 7, 2, 1}, false},
		{board.BlankLast(board.Size{W: 4, H: 2}), []int{5, 2, 3, 4}, false},
		{board.BlankLast(board.Size{W: 2, H: 4}), []int{1, 3, 5, 7}, false},
		{board.BlankLast(board.Size{W: 4, H: 3}), []int{1, 2, 5, 6, 9}, false},
		{board.BlankFirst(board.Size{W: 3, H: 4}), []int{1, 4, 7, 10, 11}, false},
		{board.BlankLast(board.Size{W: 5, H: 2}), []int{1, 2, 6, 9}, false},
		{board.BlankLast(board.Size{W: 5, H: 3}), []int{2, 7, 12, 11}, false},
		{board.BlankFirst(board.Size{W: 4, H: 5}), []int{1, 5, 6}, false}, // flood fill, not tables
	} {
		p := pattern(t, tc.goal, tc.tiles, tc.blank)
		tab := build(t, p, 2)
		ref := reference(tc.goal, tc.tiles, tc.blank)
		if !tc.blank {
			ref = referenceAdditive(tc.goal, tc.tiles)
		}
		reachable := 0
		for _, v := range tab.Entries {
			if v != Unreachable {
				reachable++
			}
		}
		require.Equal(t, reachable, len(ref), "%s: the same abstract states reachable", p.Name())
		if p.goal.Size().Cells()-p.Elems() >= 2 {
			require.Equal(t, p.Len(), reachable, "%s: with two tiles left out, every state is reachable", p.Name())
		}
		cells := make([]uint8, p.Elems())
		for key, want := range ref {
			copy(cells, key)
			require.Equal(t, want, int(tab.Entries[p.Rank(cells)]), "%s at %v", p.Name(), []byte(key))
		}
	}
}

// Zero exactly where the pattern is home and the blank can reach its home for free.
func TestZeros(t *testing.T) {
	small := build(t, pattern(t, last4, IDA15Small, true), 0)
	large := build(t, pattern(t, last4, IDA15Large, true), 0)
	count := func(tab *Table) (zeros int) {
		for _, v := range tab.Entries {
			if v == 0 {
				zeros++
			}
		}
		return zeros
	}
	assert.Equal(t, 1, count(small), "11, 12 and 15 home wall the blank's home in")
	assert.Equal(t, 12, count(large), "with 1, 2, 5, 6 home the blank may be on any of 12 cells")
	assert.Equal(t, 0, small.Lookup(last4.Tiles()))
	assert.Equal(t, 0, large.Lookup(last4.Tiles()))
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	p := pattern(t, last4, IDA15Large, true)
	one := build(t, p, 1)
	two := build(t, p, 2)
	four := build(t, p, 4)
	assert.True(t, bytes.Equal(one.Entries, two.Entries))
	assert.True(t, bytes.Equal(one.Entries, four.Entries))
}

func buildIDA15(t testing.TB) *IDA15 {
	t.Helper()
	h, err := BuildIDA15(context.Background(), Options{})
	require.NoError(t, err)
	return h
}

func TestIDA15OnKorf100(t *testing.T) {
	h := buildIDA15(t)
	for _, in := range corpus.Korf100() {
		s := board.Rotate180(in.Start) // blank-first to blank-last
		v := h.Eval(s)
		assert.LessOrEqual(t, v, in.Optimal, in.Name)
		assert.Equal(t, in.Optimal%2, v%2, "%s: same parity as the optimum", in.Name)
		assert.GreaterOrEqual(t, v, last4.Manhattan(s), in.Name)
	}
}

func TestIDA15Properties(t *testing.T) {
	h := buildIDA15(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2000; i++ {
		s := last4.Random(rng)
		v := h.Eval(s)
		require.GreaterOrEqual(t, v, last4.Manhattan(s))
		require.Equal(t, last4.Manhattan(s)%2, v%2)
		// Consistent: a move changes h by exactly one (parity flips, and by at most one).
		for _, d := range board.Dirs {
			n := s.Clone()
			if board.Size4x4.Move(n, d) {
				diff := h.Eval(n) - v
				require.True(t, diff == 1 || diff == -1, "move %v changes h by %d", d, diff)
			}
		}
	}
	// A mirrored lookup equals a direct build for the mirrored pattern.
	direct := build(t, pattern(t, last4, IDA15MirrorCols, true), 0)
	for i := 0; i < 2000; i++ {
		s := last4.Random(rng)
		assert.Equal(t, direct.Lookup(s), h.Parts(s)[2])
	}
	_, err := NewIDA15(h.Large, h.Small)
	assert.Error(t, err)
}

func TestFileRoundTrip(t *testing.T) {
	tab := build(t, pattern(t, last4, IDA15Small, true), 0)
	f, err := tab.File()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, f.Encode(&buf))
	back, err := tablefile.Decode(&buf)
	require.NoError(t, err)
	loaded, err := Load(back)
	require.NoError(t, err)
	assert.Equal(t, tab.Entries, loaded.Entries)
	assert.Equal(t, tab.Tiles(), loaded.Tiles())
	assert.Equal(t, "11-12-15+blank", loaded.Name())
}

func BenchmarkBuild(b *testing.B) {
	for _, tc := range []struct {
		name    string
		tiles   []int
		workers int
	}{
		{"ida15-large/workers=1", IDA15Large, 1},
		{"ida15-large/workers=2", IDA15Large, 2},
	} {
		p := pattern(b, last4, tc.tiles, true)
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				build(b, p, tc.workers)
			}
			b.ReportMetric(float64(p.Len())*float64(b.N)/b.Elapsed().Seconds()/float64(tc.workers), "states/s/core")
		})
	}
}

// BenchmarkBuild6 is the scaling benchmark of issue 3: the 6-tile + blank pattern
// {1,2,3,4,5,6} on the 4x4 board, 57,657,600 entries.
func BenchmarkBuild6(b *testing.B) {
	p := pattern(b, last4, []int{1, 2, 3, 4, 5, 6}, true)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				build(b, p, workers)
			}
			b.ReportMetric(float64(p.Len())*float64(b.N)/b.Elapsed().Seconds()/float64(workers), "states/s/core")
		})
	}
}

// BenchmarkRankUnrank measures one unrank and one rank of a 6-tile + blank state: no
// allocation (about 60 ns on the development machine, docs/RESULTS.md).
func BenchmarkRankUnrank(b *testing.B) {
	p := pattern(b, last4, []int{1, 2, 3, 4, 5, 6}, true)
	cells := make([]uint8, p.Elems())
	b.ReportAllocs()
	var sum uint32
	for i := 0; i < b.N; i++ {
		p.Unrank(uint32(i*7919)%uint32(p.Len()), cells)
		sum += p.Rank(cells)
	}
	if sum == 1 {
		b.Log(sum)
	}
}

// The Korf-Felner search on tables of the 7-8 and 6-6-3 sets (go test -bench Additive).
func BenchmarkAdditive(b *testing.B) {
	for _, tc := range []struct {
		name  string
		tiles []int
	}{{"6-tiles", []int{1, 5, 6, 9, 10, 13}}, {"7-tiles", []int{9, 10, 11, 12, 13, 14, 15}}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(b *testing.B) {
				p := pattern(b, last4, tc.tiles, false)
				for i := 0; i < b.N; i++ {
					build(b, p, workers)
				}
			})
		}
	}
}

// Packing keeps every value: through nibbles and escapes, and through a file.
func TestPackedRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		goal  board.Goal
		tiles []int
	}{
		{last4, []int{2, 3, 4}},
		{board.BlankLast(board.Size{W: 3, H: 3}), []int{1, 2, 3, 4, 5}},
		{board.BlankLast(board.Size{W: 2, H: 2}), []int{1, 2}}, // unreachable entries: escapes
	} {
		tab := build(t, pattern(t, tc.goal, tc.tiles, false), 2)
		packed, err := Pack(context.Background(), tab)
		require.NoError(t, err)
		escapes := 0
		var cells [board.MaxCells]uint8
		for i, v := range tab.Entries {
			tab.Unrank(uint32(i), cells[:])
			require.Equal(t, int(v), packed.Value(uint32(i), cells[:]), "%s entry %d", tab.Name(), i)
			if v == Unreachable {
				escapes++
			} else {
				require.Equal(t, (int(v)-packed.MD(cells[:]))/2, packed.Excess(uint32(i), packed.MD(cells[:])))
			}
		}
		if escapes > 0 {
			assert.NotEmpty(t, packed.Escapes, "unreachable entries are escapes (one of each mirror pair)")
		}
		f, err := packed.File()
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, f.Encode(&buf))
		back, err := tablefile.Decode(&buf)
		require.NoError(t, err)
		assert.Equal(t, tablefile.EncodingHalfExcess, back.Encoding)
		loaded, err := LoadPacked(back)
		require.NoError(t, err)
		unpacked, err := loaded.Unpack(context.Background())
		require.NoError(t, err)
		assert.Equal(t, tab.Entries, unpacked.Entries, tab.Name())
	}
}

func TestSetsAreSound(t *testing.T) {
	for _, s := range Sets {
		require.NoError(t, s.Check(), s.Name)
	}
	// A lookup that moves the blank's home out of its region is refused: the irregular
	// group of the 24-puzzle walls the blank's home in.
	bad := Set6666
	bad.Lookups = []Lookup{{Table: 0, Tiles: []int{23, 22, 19, 18, 17, 12}, Map: Rot180}}
	assert.ErrorContains(t, bad.Check(), "moves the blank's home out of its region")
	for _, sym := range []Symmetry{Identity, Rot90, Rot180, Rot270, Transpose} {
		seen := map[int]bool{}
		for c := 0; c < 25; c++ {
			seen[sym.Apply(5, c)] = true
		}
		assert.Len(t, seen, 25, "%v is a bijection", sym)
	}
	assert.Equal(t, 4, Rot90.Apply(5, 0), "a quarter turn clockwise takes the top left to the top right")
}

// The Korf-Felner tables of the 5-5-5 set equal the least over the blank's cells of a
// build over the tiles and the blank by the other engine (package bfs, with the blank in
// the index): the definition, computed independently, on the 4x4 board.
func TestSet555AgainstBlankSearch(t *testing.T) {
	for i, tiles := range Set555.Tables {
		p := pattern(t, last4, tiles, false)
		got := build(t, p, 2)
		withBlank := build(t, pattern(t, last4, tiles, true), 2)
		want := make([]uint8, p.Len())
		for j := range want {
			want[j] = Unreachable
		}
		cells := make([]uint8, len(tiles)+1)
		for j, v := range withBlank.Entries {
			withBlank.Unrank(uint32(j), cells)
			k := p.Rank(cells[:len(tiles)])
			want[k] = min(want[k], v)
		}
		require.True(t, bytes.Equal(want, got.Entries), "table %d of 5-5-5", i+1)
	}
}

// A pattern that is its own mirror image is packed with one entry of each pair, and every
// value survives: through Value, Unpack and a file.
func TestPackedMirror(t *testing.T) {
	top := pattern(t, last4, []int{1, 2, 3, 4}, false)
	sym, ok := top.Mirror()
	require.True(t, ok, "the top row flips onto itself")
	assert.Equal(t, FlipColumns, sym)
	_, ok = pattern(t, last4, []int{9, 10, 11, 12, 13, 14, 15}, false).Mirror()
	assert.False(t, ok, "flipping the bottom rows takes 13's home to the blank's")
	_, ok = pattern(t, last4, []int{1, 2, 3, 4, 5, 6, 7, 8}, false).Mirror()
	assert.True(t, ok)

	full := build(t, top, 2)
	packed, err := Pack(context.Background(), full)
	require.NoError(t, err)
	assert.Equal(t, FlipColumns, packed.Mirror)
	zeros := countNibble(packed.Nibbles, 0)
	assert.Greater(t, zeros, top.Len()*45/100, "about half the nibbles are the mirror's zeros")
	f, err := packed.File()
	require.NoError(t, err)
	assert.Equal(t, "columns", f.Mirror)
	var buf bytes.Buffer
	require.NoError(t, f.Encode(&buf))
	back, err := tablefile.Decode(&buf)
	require.NoError(t, err)
	loaded, err := LoadPacked(back)
	require.NoError(t, err)
	unpacked, err := loaded.Unpack(context.Background())
	require.NoError(t, err)
	assert.Equal(t, full.Entries, unpacked.Entries)
	// A file that claims a mirror its pattern does not have is refused.
	_, err = NewPacked(pattern(t, last4, []int{2, 3, 4}, false), make([]byte, 1680), nil, FlipColumns)
	assert.ErrorContains(t, err, "not its own image")
}

func countNibble(b []byte, v byte) int {
	n := 0
	for _, x := range b {
		if x&15 == v {
			n++
		}
		if x>>4 == v {
			n++
		}
	}
	return n
}

// A lookup through a symmetry equals the direct table of the image pattern: one table of an
// L of three tiles serves its quarter turns on the 5x5 board, as the 2x3 block of 6-6-6-6
// serves its three images.
func TestSymmetricLookups(t *testing.T) {
	goal := board.BlankFirst(board.Size5x5)
	base := []int{7, 8, 13}
	tab := build(t, pattern(t, goal, base, false), 0)
	packed, err := Pack(context.Background(), tab)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, sym := range []Symmetry{Rot90, Rot180, Rot270} {
		// The tiles that play the base's tiles: those whose homes are the base homes'
		// images under sym^-1... found by mapping every tile's home and matching.
		var tiles []int
		for _, bt := range base {
			for tt := 1; tt < 25; tt++ {
				if sym.Apply(5, goal.Home(tt)) == goal.Home(bt) {
					tiles = append(tiles, tt)
				}
			}
		}
		require.Len(t, tiles, 3)
		direct := build(t, pattern(t, goal, tiles, false), 0)
		spec := SetSpec{Name: "l", Goal: goal, Tables: [][]int{base}, Lookups: []Lookup{{Table: 0, Tiles: tiles, Map: sym}}}
		set := &Set{SetSpec: spec, Tables: []*Packed{packed}}
		for i := 0; i < 2000; i++ {
			s := goal.Random(rng)
			require.Equal(t, direct.Lookup(s), set.Eval(s), "%v lookup of %v on %v", sym, tiles, s)
		}
	}
}

// The values' histogram of a packed table, decoded through its mirror, is that of the raw
// table it was packed from, for each table of 5-5-5 (one of them mirrored).
func TestPackedDistances(t *testing.T) {
	mirrored := 0
	for i := range Set555.Tables {
		p, err := Set555.Pattern(i)
		require.NoError(t, err)
		raw, err := Build(context.Background(), p, Options{})
		require.NoError(t, err)
		packed, err := Pack(context.Background(), raw)
		require.NoError(t, err)
		if packed.Mirror != Identity {
			mirrored++
		}
		want := make([]int64, 0)
		for _, e := range raw.Entries {
			for int(e) >= len(want) {
				want = append(want, 0)
			}
			want[e]++
		}
		got, err := packed.Distances(context.Background(), 2)
		require.NoError(t, err)
		assert.Equal(t, want, got, "table %d", i)
		f, err := packed.File()
		require.NoError(t, err)
		info, err := Describe(context.Background(), "x", f, 1)
		require.NoError(t, err)
		assert.Equal(t, want, info.Histogram)
		assert.Equal(t, f.Histogram(), info.StoredHistogram)
	}
	assert.Positive(t, mirrored, "a mirrored table is among them")
}

// LoadPacked checks the nibbles against the escapes (tablefile.CheckHalfExcess): a hand-made
// table whose nibbles and escapes disagree is refused, not trusted.
func TestLoadPackedChecksEscapes(t *testing.T) {
	p, err := Set555.Pattern(0)
	require.NoError(t, err)
	raw, err := Build(context.Background(), p, Options{})
	require.NoError(t, err)
	packed, err := Pack(context.Background(), raw)
	require.NoError(t, err)
	f, err := packed.File()
	require.NoError(t, err)
	_, err = LoadPacked(f)
	require.NoError(t, err)

	bad := *f // the same header, nibbles changed by hand: an escape nibble nobody listed
	bad.Nibbles = append([]byte(nil), f.Nibbles...)
	bad.Nibbles[0] |= 0x0F
	_, err = LoadPacked(&bad)
	assert.ErrorContains(t, err, "escape nibbles")
}
