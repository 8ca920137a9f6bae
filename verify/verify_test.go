package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/wd"
)

var ctx = context.Background()

func encode(t testing.TB, f *tablefile.Table) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, f.Encode(&buf))
	return buf.Bytes()
}

// reseal returns the file of tab with its entries changed by mutate and every checksum
// made consistent again: only the exactness and later checks can catch it.
func reseal(t testing.TB, tab *tablefile.Table, mutate func([]uint8)) []byte {
	t.Helper()
	entries := append([]uint8(nil), tab.Entries...)
	mutate(entries)
	goal, err := tab.GoalOf()
	require.NoError(t, err)
	f, err := tablefile.New(tab.Kind, goal, tab.Tiles, tab.BlankInIndex, entries)
	require.NoError(t, err)
	return encode(t, f)
}

func embedded(t testing.TB, name string) *tablefile.Table {
	t.Helper()
	raw, err := data.Embedded(name)
	require.NoError(t, err)
	tab, err := tablefile.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	return tab
}

func status(r *Report, name string) string {
	for _, c := range r.Checks {
		if c.Name == name {
			return c.Status
		}
	}
	return "missing"
}

func check(r *Report, name string) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

func TestGoodTablesPass(t *testing.T) {
	deep := Options{Deep: true, Instances: Korf100()}
	for _, name := range []string{data.WDBlankLast, data.WDBlankFirst, data.PDBSmall, data.PDBLarge} {
		tab := embedded(t, name)
		r := Table(ctx, name, tab, deep)
		assert.True(t, r.OK, "%s: %+v", name, r.Failed())
		for _, c := range []string{Integrity, Exactness, Published, Symmetry, Rebuild} {
			want := Pass
			if name == data.PDBSmall && c == Symmetry {
				want = Skip // {11, 12, 15} is not used through a mirror
			}
			assert.Equal(t, want, status(r, c), "%s %s: %s", name, c, check(r, c).Detail)
		}
	}
	// Admissibility against Korf's 100 (blank-first, turned onto the blank-last tables).
	r := Table(ctx, "large", embedded(t, data.PDBLarge), deep)
	assert.Equal(t, Pass, status(r, Admissibility))
	assert.Contains(t, check(r, Admissibility).Detail, "100 instances")
}

func TestOtherPatternsPass(t *testing.T) {
	for _, tc := range []struct {
		size  board.Size
		tiles []int
		blank bool
	}{
		{board.Size{W: 3, H: 3}, []int{1, 2, 3, 4}, false},
		{board.Size{W: 3, H: 3}, []int{8, 5}, true},
		{board.Size{W: 2, H: 2}, []int{1, 2, 3}, true}, // half the entries unreachable
		{board.Size{W: 4, H: 3}, []int{1, 5}, true},
	} {
		p, err := pdb.NewPattern(board.BlankFirst(tc.size), tc.tiles, tc.blank)
		require.NoError(t, err)
		tab, err := pdb.Build(ctx, p, pdb.Options{})
		require.NoError(t, err)
		f, err := tab.File()
		require.NoError(t, err)
		r := Table(ctx, p.Name(), f, Options{Deep: true})
		assert.True(t, r.OK, "%s %v: %+v", p.Name(), tc.size, r.Failed())
		assert.Equal(t, Pass, status(r, Exactness))
	}
	w, err := wd.BuildRows(ctx, board.BlankLast(board.Size{W: 3, H: 4}), 0)
	require.NoError(t, err)
	f, err := w.File(board.BlankLast(board.Size{W: 3, H: 4}))
	require.NoError(t, err)
	r := Table(ctx, "wd 3x4", f, Options{Deep: true})
	assert.True(t, r.OK, "%+v", r.Failed())
}

// Broken entries with consistent checksums: exactness names them, and none passes.
func TestBrokenEntriesRejected(t *testing.T) {
	for _, name := range []string{data.WDBlankLast, data.PDBSmall, data.PDBLarge} {
		tab := embedded(t, name)
		// A state in the middle of the table, and one next to the goal.
		mid := len(tab.Entries) / 3
		for _, tc := range []struct {
			what   string
			mutate func([]uint8)
		}{
			{"+1", func(e []uint8) { e[mid]++ }},
			{"-1", func(e []uint8) { e[mid]-- }},
			{"swap", func(e []uint8) {
				j := mid + 1
				for e[j] == e[mid] {
					j++
				}
				e[mid], e[j] = e[j], e[mid]
			}},
			{"zero", func(e []uint8) { e[mid] = 0 }},
			{"all +2", func(e []uint8) {
				for i := range e {
					e[i] += 2
				}
			}},
		} {
			raw := reseal(t, tab, tc.mutate)
			r := Bytes(ctx, name, raw, Options{})
			assert.False(t, r.OK, "%s %s accepted", name, tc.what)
			assert.Equal(t, Pass, status(r, Integrity), "%s %s", name, tc.what)
			c := check(r, Exactness)
			assert.Equal(t, Fail, c.Status, "%s %s", name, tc.what)
			assert.Greater(t, c.Bad, int64(0))
			assert.NotEmpty(t, c.Examples)
			assert.LessOrEqual(t, len(c.Examples), 5)
		}
	}
}

func TestExamplesAreReadable(t *testing.T) {
	tab := embedded(t, data.PDBSmall)
	p, err := pdb.NewPattern(board.BlankLast(board.Size4x4), pdb.IDA15Small, true)
	require.NoError(t, err)
	idx := p.Rank([]uint8{10, 11, 14, 3})
	raw := reseal(t, tab, func(e []uint8) { e[idx] += 2 })
	r := Bytes(ctx, "small", raw, Options{})
	c := check(r, Exactness)
	require.Equal(t, Fail, c.Status)
	joined := strings.Join(c.Examples, "\n")
	assert.Contains(t, joined, ". . . 0 / . . . . / . . 11 12 / . . 15 .", "the changed state, drawn")
}

func TestDeepChecksCatchWhatTheyShould(t *testing.T) {
	tab := embedded(t, data.PDBLarge)
	raw := reseal(t, tab, func(e []uint8) { e[1000]++ })
	r := Bytes(ctx, "large", raw, Options{Deep: true, Instances: Korf100()})
	assert.Equal(t, Fail, status(r, Exactness))
	assert.Equal(t, Fail, status(r, Rebuild))
	assert.Equal(t, int64(1), check(r, Rebuild).Bad)
	assert.Equal(t, Fail, status(r, Symmetry), "a full mirror comparison sees the changed entry")

	// An entry raised far above the optimum of a Korf instance.
	korf := Korf100()[0]
	s := board.Rotate180(korf.Start)
	p, err := pdb.NewPattern(board.BlankLast(board.Size4x4), pdb.IDA15Large, true)
	require.NoError(t, err)
	raw = reseal(t, tab, func(e []uint8) { e[p.Index(s)] = 200 })
	r = Bytes(ctx, "large", raw, Options{Deep: true, Instances: Korf100()})
	assert.Equal(t, Fail, status(r, Admissibility))
}

func TestDamagedFilesRejected(t *testing.T) {
	good := encode(t, embedded(t, data.PDBSmall))
	headerEnd := bytes.Index(good, []byte("\n\n")) + 2
	flip := func(offset int) []byte {
		b := append([]byte(nil), good...)
		b[offset] ^= 0x04
		return b
	}
	shaAt := bytes.Index(good, []byte("decoded-sha256: ")) + 20
	cases := map[string][]byte{
		"truncated":                good[:len(good)/2],
		"empty":                    nil,
		"header bit flip":          flip(bytes.Index(good, []byte("tiles: ")) + 8),
		"payload bit flip":         flip(headerEnd + 100),
		"checksum bit flip":        flip(shaAt),
		"future version":           bytes.Replace(good, []byte("tilekit-table 2"), []byte("tilekit-table 7"), 1),
		"claims 2^40 entries":      bytes.Replace(good, []byte("entries: 43680"), []byte("entries: 1099511627776"), 1),
		"not a table":              []byte("hello\n"),
		"garbage after the header": append(append([]byte(nil), good[:headerEnd]...), bytes.Repeat([]byte{0xff}, 100)...),
	}
	for what, raw := range cases {
		r := Bytes(ctx, what, raw, Options{})
		assert.False(t, r.OK, what)
		c := check(r, Integrity)
		assert.Equal(t, Fail, c.Status, what)
		assert.NotEmpty(t, c.Detail, what)
	}
}

func TestEmbedded(t *testing.T) {
	reports := Embedded(ctx, Options{})
	require.Len(t, reports, len(data.Specs)+2, "the default tables, the 4x4 automaton, the set")
	for _, r := range reports {
		assert.True(t, r.OK, "%s: %+v", r.File, r.Failed())
	}
	fsm := reports[len(reports)-2]
	assert.Equal(t, "embedded:prune-4x4-d12.tbl", fsm.File)
	assert.Equal(t, Pass, status(fsm, Rebuild))
	set := reports[len(reports)-1]
	assert.Equal(t, Pass, status(set, Admissibility))
}

func TestDeterministicReports(t *testing.T) {
	tab := embedded(t, data.PDBLarge)
	raw := reseal(t, tab, func(e []uint8) {
		for i := 0; i < len(e); i += 997 {
			e[i]++
		}
	})
	one := Bytes(ctx, "x", raw, Options{Workers: 1})
	two := Bytes(ctx, "x", raw, Options{Workers: 2})
	assert.Equal(t, check(one, Exactness), check(two, Exactness))
}

func FuzzVerify(f *testing.F) {
	p, _ := pdb.NewPattern(board.BlankLast(board.Size{W: 3, H: 2}), []int{1, 5}, true)
	tab, _ := pdb.Build(ctx, p, pdb.Options{})
	file, _ := tab.File()
	var buf bytes.Buffer
	file.Encode(&buf)
	f.Add(buf.Bytes())
	w, _ := wd.BuildRows(ctx, board.BlankLast(board.Size{W: 2, H: 3}), 1)
	wf, _ := w.File(board.BlankLast(board.Size{W: 2, H: 3}))
	buf.Reset()
	wf.Encode(&buf)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, raw []byte) {
		// Never a panic; a file that passes integrity gets every check reported.
		r := Bytes(ctx, "fuzz", raw, Options{Workers: 1, Samples: 10})
		if status(r, Integrity) == Pass {
			require.NotEqual(t, "missing", status(r, Exactness))
		}
	})
}

// BenchmarkExactness times the certificate beside a build of the same table (issue 4: at
// most about twice the build time). The 6-tile table takes about 10 s to build: run it
// with -bench 'Exactness/6' explicitly.
func BenchmarkExactness(b *testing.B) {
	for _, tc := range []struct {
		name  string
		tiles []int
	}{
		{"1-2-5-6+blank", pdb.IDA15Large},
		{"6-tiles+blank", []int{1, 2, 3, 4, 5, 6}},
	} {
		p, err := pdb.NewPattern(board.BlankLast(board.Size4x4), tc.tiles, true)
		require.NoError(b, err)
		var file *tablefile.Table
		prepare := func(b *testing.B) {
			if file == nil {
				tab, err := pdb.Build(ctx, p, pdb.Options{})
				require.NoError(b, err)
				file, err = tab.File()
				require.NoError(b, err)
			}
		}
		b.Run(tc.name+"/build", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := pdb.Build(ctx, p, pdb.Options{Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/exactness", func(b *testing.B) {
			prepare(b)
			v, err := newPDBTable(file)
			require.NoError(b, err)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if c := v.exactness(ctx, Options{Workers: 2}); c.Status != Pass {
					b.Fatal(c.Detail)
				}
			}
		})
	}
}

// A packed Korf-Felner table passes when it is exact and fails, naming the entry, when one
// entry is raised by 2 (still even, still a plausible value): the proof recomputes it.
func TestPackedTableRaisedByTwo(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	p, err := pdb.NewPattern(goal, pdb.Set555.Tables[0], false)
	require.NoError(t, err)
	full, err := pdb.Build(ctx, p, pdb.Options{})
	require.NoError(t, err)
	packed, err := pdb.Pack(ctx, full)
	require.NoError(t, err)
	f, err := packed.File()
	require.NoError(t, err)
	r := Table(ctx, "5-5-5 table 1", f, Options{Deep: true, Instances: Korf100()})
	require.True(t, r.OK, "%+v", r.Failed())
	assert.Equal(t, Pass, status(r, Admissibility))
	assert.Contains(t, check(r, Published).Detail, "5-5-5")

	const victim = 123457
	raised, err := pdb.NewPacked(p, raiseByTwo(t, packed.Nibbles, victim), nil, pdb.Identity)
	require.NoError(t, err)
	f, err = raised.File()
	require.NoError(t, err)
	r = Table(ctx, "raised", f, Options{})
	assert.False(t, r.OK)
	c := check(r, Exactness)
	assert.Equal(t, Fail, c.Status)
	assert.Equal(t, int64(1), c.Bad)
	require.Len(t, c.Examples, 1)
	assert.Contains(t, c.Examples[0], "index 123457")
}

// A packed table whose header names another mirror, its checksums made right again,
// decodes to other values: exactness fails and names them (issue 17: it passed).
func TestMirrorChangedInHeader(t *testing.T) {
	raw, err := data.Embedded("pdb-4x4-1-5-6-9-10-13.tbl")
	require.NoError(t, err)
	text := string(raw)
	cut := strings.Index(text, "header-sha256: ")
	head := strings.Replace(text[:cut], "mirror: rows\n", "mirror: none\n", 1)
	require.NotEqual(t, text[:cut], head)
	sum := sha256.Sum256([]byte(head))
	file := []byte(head + "header-sha256: " + hex.EncodeToString(sum[:]) + text[strings.Index(text, "\n\n"):])
	r := Bytes(ctx, "edited", file, Options{})
	assert.False(t, r.OK)
	assert.Equal(t, Pass, status(r, Integrity), "the checksums are right")
	c := check(r, Exactness)
	assert.Equal(t, Fail, c.Status)
	assert.Positive(t, c.Bad)
	assert.NotEmpty(t, c.Examples)
}

// A rebuild that needs more memory than allowed fails its check, says what it needs, and
// starts nothing.
func TestRebuildNeedsMemory(t *testing.T) {
	raw, err := data.Embedded("pdb-4x4-1-5-6-9-10-13.tbl")
	require.NoError(t, err)
	r := Bytes(ctx, "663", raw, Options{MaxMemory: 1 << 20})
	c := check(r, Exactness)
	assert.Equal(t, Fail, c.Status)
	assert.Contains(t, c.Detail, "needs about")
	assert.Contains(t, c.Detail, "--max-memory")
	r = Bytes(ctx, "663", raw, Options{MaxMemory: -1})
	assert.Equal(t, Pass, status(r, Exactness))
}

// With Record, a file that passes and is not a table pdbgen builds gets its record, which
// loaders accept it by; a standard table gets none.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	p, err := pdb.NewPattern(board.BlankLast(board.Size{W: 3, H: 3}), []int{1, 2, 3}, true)
	require.NoError(t, err)
	tab, err := pdb.Build(ctx, p, pdb.Options{})
	require.NoError(t, err)
	f, err := tab.File()
	require.NoError(t, err)
	own := filepath.Join(dir, "own.tbl")
	require.NoError(t, tablefile.Write(ctx, own, f))
	r := File(ctx, own, Options{Record: true})
	require.True(t, r.OK)
	assert.Equal(t, own+data.VerifiedSuffix, r.Recorded)
	b, err := os.ReadFile(own + data.VerifiedSuffix)
	require.NoError(t, err)
	assert.Equal(t, "decoded-sha256: "+r.DecodedSHA+"\n", string(b))

	raw, err := data.Embedded(data.PDBSmall)
	require.NoError(t, err)
	std := filepath.Join(dir, data.PDBSmall)
	require.NoError(t, os.WriteFile(std, raw, 0o644))
	r = File(ctx, std, Options{Record: true})
	assert.Empty(t, r.Recorded, "a standard table needs no record")
	_, err = os.Stat(std + data.VerifiedSuffix)
	assert.True(t, os.IsNotExist(err))

	// The table changed under its record (an entry raised), and a record written by hand
	// for it: verify fails the table and removes the record, which no loader must trust.
	bad := filepath.Join(dir, "bad.tbl")
	require.NoError(t, os.WriteFile(bad, reseal(t, embedded(t, data.PDBSmall), func(e []uint8) { e[len(e)/3]++ }), 0o644))
	require.NoError(t, os.WriteFile(bad+data.VerifiedSuffix, []byte("decoded-sha256: "+strings.Repeat("0", 64)+"\n"), 0o644))
	r = File(ctx, bad, Options{Record: true})
	require.False(t, r.OK)
	assert.Contains(t, check(r, Record).Detail, "removed "+bad+data.VerifiedSuffix)
	_, err = os.Stat(bad + data.VerifiedSuffix)
	assert.True(t, os.IsNotExist(err), "the record is gone")
}

// A zero-aware table is proven by its distance equation; one entry raised by 2 fails it,
// named, and so do the neighbours whose equation it breaks.
func TestZeroAwareTable(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	p, err := pdb.NewPattern(goal, pdb.Set555.Tables[0], false)
	require.NoError(t, err)
	z, err := pdb.ZeroAware(ctx, p, pdb.Options{})
	require.NoError(t, err)
	f, err := z.File()
	require.NoError(t, err)
	r := Table(ctx, "5-5-5z table 1", f, Options{Deep: true, Instances: Korf100()})
	require.True(t, r.OK, "%+v", r.Failed())
	assert.Contains(t, check(r, Exactness).Detail, "distance equation")
	assert.Equal(t, Pass, status(r, Admissibility))
	assert.Equal(t, Pass, status(r, Rebuild))

	const victim = 234567
	raised, err := pdb.NewZeroAware(p, raiseByTwo(t, z.Nibbles, victim), z.Escapes)
	require.NoError(t, err)
	f, err = raised.File()
	require.NoError(t, err)
	r = Table(ctx, "raised", f, Options{})
	assert.False(t, r.OK)
	c := check(r, Exactness)
	assert.Equal(t, Fail, c.Status)
	assert.Contains(t, strings.Join(c.Examples, "\n"), "entry 234567 (tiles")
}

// raiseByTwo returns a copy of packed nibbles with entry victim's half excess raised by one:
// its value by two, still even above the Manhattan distance, still plausible.
func raiseByTwo(t *testing.T, nibbles []byte, victim int) []byte {
	out := append([]byte(nil), nibbles...)
	e := out[victim/2] >> (4 * (victim & 1)) & 0xF
	require.Less(t, e, uint8(14))
	out[victim/2] += 1 << (4 * (victim & 1))
	return out
}

// A zero-aware table in the bit encoding is proven by a rebuild, bit by bit; admissibility
// runs through its values by descent; one flipped bit is found and named.
func TestBitTable(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	p, err := pdb.NewPattern(goal, pdb.Set555.Tables[1], false)
	require.NoError(t, err)
	z, err := pdb.ZeroAware(ctx, p, pdb.Options{})
	require.NoError(t, err)
	b, err := z.ToBits(ctx, 0)
	require.NoError(t, err)
	f, err := b.File()
	require.NoError(t, err)
	r := Table(ctx, "5-5-5z table 2, bits", f, Options{Deep: true, Instances: Korf100()[:20]})
	require.True(t, r.OK, "%+v", r.Failed())
	assert.Contains(t, check(r, Exactness).Detail, "comparison with a rebuild")
	assert.Equal(t, Pass, status(r, Admissibility))

	const victim = 123457
	flipped := append([]byte(nil), b.Bitmap...)
	flipped[victim/8] ^= 1 << (victim % 8)
	bad, err := pdb.NewBitTable(p, flipped)
	require.NoError(t, err)
	f, err = bad.File()
	require.NoError(t, err)
	r = Table(ctx, "flipped", f, Options{})
	assert.False(t, r.OK)
	c := check(r, Exactness)
	assert.Equal(t, Fail, c.Status)
	assert.Equal(t, int64(1), c.Bad)
	assert.Contains(t, strings.Join(c.Examples, "\n"), "entry 123457: bit")
}
