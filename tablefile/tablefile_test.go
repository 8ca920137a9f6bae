package tablefile

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/golden"
)

// sample returns a small, valid PDB table: tiles 1 and 3 and the blank on a 3x3 board.
func sample(t testing.TB) *Table {
	t.Helper()
	n := PDBEntries(9, 2, true)
	entries := make([]uint8, n)
	for i := range entries {
		entries[i] = uint8(i % 23)
	}
	tab, err := New(KindPDB, board.BlankLast(board.Size{W: 3, H: 3}), []int{1, 3}, true, entries)
	require.NoError(t, err)
	return tab
}

func encode(t testing.TB, tab *Table) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tab.Encode(&buf))
	return buf.Bytes()
}

func TestCounts(t *testing.T) {
	assert.Equal(t, int64(43680), PDBEntries(16, 3, true))
	assert.Equal(t, int64(524160), PDBEntries(16, 4, true))
	assert.Equal(t, int64(57657600), PDBEntries(16, 6, true))
	assert.Equal(t, int64(57657600), PDBEntries(16, 7, false))
	assert.Equal(t, int64(518918400), PDBEntries(16, 8, false))
	assert.Equal(t, int64(-1), PDBEntries(25, 9, true))
	assert.Equal(t, int64(24964), WDEntries(board.Size4x4, 3))
	assert.Equal(t, int64(24964), WDEntries(board.Size4x4, 0))
}

func TestRoundTrip(t *testing.T) {
	tab := sample(t)
	data := encode(t, tab)
	assert.Equal(t, data, encode(t, tab), "deterministic")
	back, err := Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, tab.Entries, back.Entries)
	assert.Equal(t, tab.DecodedSHA, back.DecodedSHA)
	assert.Equal(t, sha256.Sum256(data[len(data)-int(back.PayloadBytes):]), back.PayloadSHA)
	assert.Equal(t, []int{1, 3}, back.Tiles)
	assert.True(t, back.BlankInIndex)
	assert.Equal(t, board.Size{W: 3, H: 3}, back.Size)
	assert.Equal(t, "blank-last", must(back.GoalOf()).Name())
	assert.Equal(t, int64(len(data)), int64(strings.Index(string(data), "\n\n")+2)+back.PayloadBytes)

	path := filepath.Join(t.TempDir(), "t.tbl")
	require.NoError(t, Write(context.Background(), path, tab))
	fromFile, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, tab.Entries, fromFile.Entries)
	h, err := ReadHeader(path)
	require.NoError(t, err)
	assert.Equal(t, back.Header, *h)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	assert.Empty(t, left, "no temporary file left")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The golden file pins the format: a change to the bytes is a format change (rerun with
// -update only for an intended one).
func TestGolden(t *testing.T) {
	golden.Check(t, "sample-v2.tbl", string(encode(t, sample(t))))
}

// Version 1 files, written before the payload checksum and frames, are still read.
func TestReadsVersion1(t *testing.T) {
	v1, err := Read(filepath.Join("testdata", "sample-v1.tbl"))
	require.NoError(t, err)
	assert.Equal(t, 1, v1.Version)
	assert.Equal(t, sample(t).Entries, v1.Entries)
	assert.Equal(t, sample(t).DecodedSHA, v1.DecodedSHA)
	// Writing it again gives the current version.
	v1.Header.Version = Version
	v1.FrameBytes = FrameBytes
	v1.Generator = sample(t).Generator
	assert.Equal(t, encode(t, sample(t)), encode(t, v1))
}

func TestHistogram(t *testing.T) {
	tab := &Table{Entries: []uint8{0, 2, 2, 5}}
	assert.Equal(t, []int64{1, 0, 2, 0, 0, 1}, tab.Histogram())
}

func TestCorruptionRejected(t *testing.T) {
	good := encode(t, sample(t))
	headerEnd := bytes.Index(good, []byte("\n\n")) + 2
	replace := func(old, new string) []byte {
		require.Contains(t, string(good), old)
		return []byte(strings.Replace(string(good), old, new, 1))
	}
	flip := func(offset int) []byte {
		b := append([]byte(nil), good...)
		b[offset] ^= 0x10
		return b
	}
	shaAt := bytes.Index(good, []byte("decoded-sha256: ")) + len("decoded-sha256: ")
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"not a table", []byte("PK\x03\x04 zip file"), ErrMagic},
		{"future version", replace("tilekit-table 2", "tilekit-table 3"), ErrVersion},
		{"truncated header", good[:40], ErrTruncated},
		{"truncated payload", good[:len(good)-5], ErrTruncated},
		{"missing payload", good[:headerEnd], ErrTruncated},
		{"extra data", append(append([]byte(nil), good...), 0), ErrPayload},
		{"bit flip in header goal", flip(bytes.Index(good, []byte("goal: ")) + 6), ErrChecksum},
		{"bit flip in header tiles", flip(bytes.Index(good, []byte("tiles: ")) + 7), ErrChecksum},
		{"bit flip in decoded checksum", flip(shaAt), ErrChecksum},
		{"bit flip in payload", flip(len(good) - 8), ErrChecksum},
		{"bit flip early in payload", flip(headerEnd + 20), ErrChecksum},
		{"fields out of order", replace("kind: pdb\nboard: 3x3", "board: 3x3\nkind: pdb"), ErrChecksum},
		{"resealed: fields out of order", reseal(t, good, "kind: pdb\nboard: 3x3", "board: 3x3\nkind: pdb"), ErrHeader},
		{"resealed: unknown encoding", reseal(t, good, "encoding: raw", "encoding: md2"), ErrHeader},
		{"resealed: extra field", reseal(t, good, "bits: 8\n", "bits: 8\ncolour: blue\n"), ErrHeader},
		{"resealed: version 02", reseal(t, good, "tilekit-table 2", "tilekit-table 02"), ErrVersion},
		{"resealed: version +2", reseal(t, good, "tilekit-table 2", "tilekit-table +2"), ErrVersion},
		{"resealed: entries +504", reseal(t, good, "entries: 504", "entries: +504"), ErrHeader},
		{"resealed: entries 0504", reseal(t, good, "entries: 504", "entries: 0504"), ErrHeader},
		{"resealed: board 3X3", reseal(t, good, "board: 3x3", "board: 3X3"), ErrHeader},
		{"resealed: board  3x3", reseal(t, good, "board: 3x3", "board:  3x3"), ErrHeader},
		{"resealed: tiles 1,3", reseal(t, good, "tiles: 1 3", "tiles: 1,3"), ErrHeader},
		{"resealed: double space in goal", reseal(t, good, "goal: 1 2 3", "goal: 1  2 3"), ErrHeader},
		{"resealed: trailing space in goal", reseal(t, good, " 8 0\n", " 8 0 \n"), ErrHeader},
		{"resealed: uppercase hex", reseal(t, good, "payload-sha256: ", "payload-sha256: "+upperSum(good)), ErrHeader},
		{"resealed: wd without tiles", reseal(t, good, "kind: pdb", "kind: wd"), ErrHeader},
		{"resealed: bad goal", reseal(t, good, "goal: 1 2 3", "goal: 1 2 2"), ErrHeader},
		{"huge entry count", replace("entries: 504", "entries: 1099511627776"), ErrChecksum},
		{"unknown encoding", replace("encoding: raw", "encoding: md2"), ErrChecksum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(tc.data))
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "got %v, want %v", err, tc.want)
		})
	}
}

// Headers that are self-consistent in their checksum but wrong in content are rejected by
// the field checks: rebuild the header checksum after the edit.
func TestInconsistentHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(h *Header)
		msg  string
	}{
		{"2^40 entries", func(h *Header) { h.Entries = 1 << 40 }, "entries 1099511627776"},
		{"wrong entry count", func(h *Header) { h.Entries = 503 }, "entries 503"},
		{"blank tile", func(h *Header) { h.Tiles = []int{0, 3} }, "tile 0 out of range"},
		{"repeated tile", func(h *Header) { h.Tiles = []int{3, 3} }, "tile 3 listed twice"},
		{"wrong index", func(h *Header) { h.Index = "other" }, "index"},
		{"payload too large", func(h *Header) { h.PayloadBytes = 1 << 30 }, "payload-bytes"},
		{"bits", func(h *Header) { h.Bits = 4 }, "bits 4"},
		{"tiny frames", func(h *Header) { h.FrameBytes = 1 }, "frame-bytes 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := sample(t)
			data := encode(t, tab)
			h, err := DecodeHeader(bufioReader(data))
			require.NoError(t, err)
			tc.edit(h)
			head := h.encodeHeader()
			var b bytes.Buffer
			b.Write(head)
			b.WriteString("header-sha256: " + hexSum(head) + "\n\n")
			_, err = Decode(&b)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrHeader)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// A failed or cancelled write leaves the old file and nothing else.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.tbl")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, Write(ctx, path, sample(t)), context.Canceled)
	bad := sample(t)
	bad.Entries[0]++ // no longer matches its checksum
	require.Error(t, Write(context.Background(), path, bad))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data), "the old file is untouched")
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, names, 1, "no temporary file left")
}

// reseal edits the header text and recomputes its checksum, as a careless tool might.
func reseal(t *testing.T, data []byte, old, new string) []byte {
	text := string(data)
	cut := strings.Index(text, "header-sha256: ")
	head := text[:cut]
	require.Contains(t, head, old)
	head = strings.Replace(head, old, new, 1)
	rest := text[strings.Index(text, "\n\n")+2:]
	return []byte(head + "header-sha256: " + hexSum([]byte(head)) + "\n\n" + rest)
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }

func hexSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func FuzzDecode(f *testing.F) {
	good := encode(f, sample(f))
	f.Add(good)
	f.Add(good[:100])
	f.Add([]byte("tilekit-table 1\nkind: wd\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Anything accepted is a consistent table that survives a round trip.
		require.Equal(t, tab.Header.Entries, int64(len(tab.Entries)))
		back, err := Decode(bytes.NewReader(encode(t, tab)))
		require.NoError(t, err)
		require.Equal(t, tab.Entries, back.Entries)
	})
}

// upperSum returns the payload checksum of a file in uppercase, with the rest of the
// payload-sha256 line removed, for reseal to splice in.
func upperSum(file []byte) string {
	at := bytes.Index(file, []byte("payload-sha256: ")) + len("payload-sha256: ")
	return strings.ToUpper(string(file[at : at+64]))
}

// Every single-bit change anywhere in a file is rejected (issue 10, defect 6: version 1
// accepted some changes of the compressed bytes that decode to the same entries).
func TestEveryBitCovered(t *testing.T) {
	good := encode(t, sample(t))
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			b := append([]byte(nil), good...)
			b[i] ^= 1 << bit
			if _, err := Decode(bytes.NewReader(b)); err == nil {
				t.Fatalf("a flip of bit %d of byte %d (of %d) is accepted", bit, i, len(good))
			}
		}
	}
}

// The payload is exactly the frames the header implies: another frame, a skippable frame,
// or a frame of the wrong shape is rejected even with every checksum recomputed (defect 7).
func TestStrictFrames(t *testing.T) {
	tab := sample(t)
	good := encode(t, tab)
	headerEnd := bytes.Index(good, []byte("\n\n")) + 2
	payload := good[headerEnd:]
	half := len(tab.Entries) / 2
	enc, err := zstd.NewWriter(nil, zstd.WithSingleSegment(true), zstd.WithEncoderConcurrency(1))
	require.NoError(t, err)
	defer enc.Close()
	twoFrames := append(enc.EncodeAll(tab.Entries[:half], nil), enc.EncodeAll(tab.Entries[half:], nil)...)
	skippable := append([]byte{0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4}, payload...)
	plainEnc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(false), zstd.WithWindowSize(zstd.MinWindowSize))
	require.NoError(t, err)
	defer plainEnc.Close()
	windowed := plainEnc.EncodeAll(tab.Entries, nil)
	withChecksum := append(append([]byte(nil), payload...), 0, 0, 0, 0)
	for _, tc := range []struct {
		name    string
		payload []byte
		msg     string
	}{
		{"two frames", twoFrames, "content size 252, want 504"},
		{"skippable frame first", skippable, "skippable"},
		{"skippable frame after", append(append([]byte(nil), payload...), skippable[:12]...), "after the last zstd frame"},
		{"frame with a window", windowed, "single-segment"},
		{"trailing bytes", withChecksum, "after the last zstd frame"},
		{"not zstd", bytes.Repeat([]byte{7}, 40), "not a zstd frame"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(repack(t, good, tc.payload)))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrPayload)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	// The repacking itself is sound: the same payload repacked still reads.
	_, err = Decode(bytes.NewReader(repack(t, good, payload)))
	require.NoError(t, err)
}

// repack replaces a file's payload and recomputes payload-bytes and both header checksums.
func repack(t *testing.T, file, payload []byte) []byte {
	h, err := DecodeHeader(bufioReader(file))
	require.NoError(t, err)
	h.PayloadBytes = int64(len(payload))
	h.PayloadSHA = sha256.Sum256(payload)
	head := h.encodeHeader()
	return append([]byte(string(head)+"header-sha256: "+hexSum(head)+"\n\n"), payload...)
}

// What a file claims is not allocated before it is read (defect 5): a header with no end,
// and a short file that claims the largest legal table, cost little memory.
func TestBoundedMemory(t *testing.T) {
	allocated := func(data io.Reader) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Decode(data)
		require.Error(t, err)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	// 300 MB of header without a newline.
	noNewline := io.MultiReader(strings.NewReader("tilekit-table 2\nkind: pdb\nboard: "), io.LimitReader(zeros{}, 300<<20))
	assert.Less(t, allocated(noNewline), uint64(1<<20))

	// A short file claiming 4x4 with 7 tiles and the blank: 518,918,400 entries.
	entries := PDBEntries(16, 7, true)
	h := Header{Version: Version, Kind: KindPDB, Size: board.Size4x4, Goal: board.BlankLast(board.Size4x4).Tiles(),
		Tiles: []int{1, 2, 3, 4, 5, 6, 7}, BlankInIndex: true, Index: IndexPDB, Entries: entries, Bits: 8,
		Encoding: "raw", Compression: "zstd", FrameBytes: FrameBytes, PayloadBytes: entries, Generator: "x"}
	require.NoError(t, h.Check())
	head := h.encodeHeader()
	short := append([]byte(string(head)+"header-sha256: "+hexSum(head)+"\n\n"), make([]byte, 100)...)
	assert.Less(t, allocated(bytes.NewReader(short)), uint64(4<<20))
	_, err := Decode(bytes.NewReader(short))
	assert.ErrorIs(t, err, ErrTruncated)

	// A valid header and payload checksum, but a 38 KB payload that claims a 5x5 table of
	// 7 tiles (2,422,728,000 entries, 1.2 GB of nibbles): refused before decoding.
	big := Header{Version: Version, Kind: KindPDB, Size: board.Size5x5, Goal: board.BlankFirst(board.Size5x5).Tiles(),
		Tiles: []int{1, 2, 3, 4, 5, 6, 7}, Index: IndexPDB, Entries: PDBEntries(25, 7, false), Bits: 4,
		Encoding: EncodingHalfExcess, Mirror: "none", Compression: "zstd", FrameBytes: FrameBytes, Generator: "x"}
	payload := make([]byte, 38<<10)
	big.PayloadBytes, big.PayloadSHA = int64(len(payload)), sha256.Sum256(payload)
	head = big.encodeHeader()
	bomb := append([]byte(string(head)+"header-sha256: "+hexSum(head)+"\n\n"), payload...)
	assert.Less(t, allocated(bytes.NewReader(bomb)), uint64(4<<20))
	_, err = Decode(bytes.NewReader(bomb))
	assert.ErrorIs(t, err, ErrHeader)
	assert.ErrorContains(t, err, "cannot hold the")
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// The header is printable ASCII: a generator line in UTF-8, its checksum made right, is
// refused.
func TestHeaderIsASCII(t *testing.T) {
	data := encode(t, sample(t))
	h, err := DecodeHeader(bufioReader(data))
	require.NoError(t, err)
	edited := reseal(t, data, "generator: "+h.Generator, "generator: tilekit \u00e9t\u00e9")
	_, err = Decode(bytes.NewReader(edited))
	assert.ErrorIs(t, err, ErrHeader)
	assert.ErrorContains(t, err, "printable ASCII")
}

func TestReadDirectory(t *testing.T) {
	_, err := Read(t.TempDir())
	assert.ErrorContains(t, err, "is a directory")
}

// The half-excess sample of docs/FORMAT.md reads, and is what the writer writes.
func TestHalfExcessSample(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "sample-half-excess.tbl"))
	require.NoError(t, err)
	tab, err := Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	assert.Equal(t, EncodingHalfExcess, tab.Encoding)
	assert.Equal(t, 4, tab.Bits)
	assert.Equal(t, "columns", tab.Mirror)
	assert.Equal(t, int64(43680), tab.Header.Entries)
	assert.Len(t, tab.Nibbles, 21840)
	var out bytes.Buffer
	require.NoError(t, tab.Encode(&out))
	assert.Equal(t, raw, out.Bytes())
	// The fields of the encoding are checked like every other.
	for _, edit := range [][2]string{{"mirror: columns", "mirror: diagonal"}, {"bits: 4", "bits: 8"}, {"escapes: 0", "escapes: +0"}} {
		_, err := Decode(bytes.NewReader(reseal(t, raw, edit[0], edit[1])))
		assert.ErrorIs(t, err, ErrHeader, edit[1])
	}
}

// A bit-encoded table survives a round trip; its header is refused for other indexes, and
// a bitmap with stray bits past its last entry is refused.
func TestBitEncoding(t *testing.T) {
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	h := Header{Kind: KindPDB, Size: goal.Size(), Tiles: []int{1, 2}, Index: IndexZero, Encoding: EncodingBit}
	n, err := h.ExpectedEntries()
	require.NoError(t, err)
	bitmap := make([]byte, (n+7)/8)
	for i := range bitmap {
		bitmap[i] = byte(i * 37)
	}
	if n%8 != 0 {
		bitmap[len(bitmap)-1] &= 1<<(n%8) - 1
	}
	tab, err := NewBitmap(goal, []int{1, 2}, bitmap)
	require.NoError(t, err)
	back, err := Decode(bytes.NewReader(encode(t, tab)))
	require.NoError(t, err)
	assert.Equal(t, bitmap, back.Bitmap)
	assert.Equal(t, EncodingBit, back.Encoding)
	assert.Equal(t, 1, back.Header.Bits)
	hist := back.Histogram()
	require.Len(t, hist, 2)
	assert.Equal(t, n, hist[0]+hist[1])

	if n%8 != 0 {
		stray := append([]byte(nil), bitmap...)
		stray[len(stray)-1] |= 0x80
		_, err = NewBitmap(goal, []int{1, 2}, stray)
		assert.ErrorContains(t, err, "unused last bits")
	}
	_, err = NewBitmap(goal, []int{1, 2}, bitmap[1:])
	assert.ErrorIs(t, err, ErrPayload)
	kperm := back.Header
	kperm.Index = IndexPDB
	kperm.Entries, err = kperm.ExpectedEntries()
	require.NoError(t, err)
	assert.ErrorContains(t, kperm.Check(), "zero-aware")
}

// Words are read little-endian from aligned and unaligned bytes alike; aligned ones on a
// little-endian machine are the bytes' own memory.
func TestWordsOf(t *testing.T) {
	backing := make([]uint32, 3) // 4-byte aligned
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&backing[0])), 12)
	copy(raw, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 0xFF})
	aligned := wordsOf(raw[:8])
	assert.Equal(t, []uint32{0x03020100, 0x07060504}, aligned)
	assert.Equal(t, []uint32{0x04030201, 0x08070605}, wordsOf(raw[1:9]))
	assert.Equal(t, []uint32{}, wordsOf(nil))
	if littleEndian {
		raw[0] = 9
		assert.Equal(t, uint32(0x03020109), aligned[0], "shares the bytes")
	}
}

// Check accepts what Read accepts and refuses what it refuses, without the entries: a
// table with escapes, and the same file damaged in its payload.
func TestCheckLikeRead(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	nibbles := make([]byte, PDBEntries(16, 5, false)/2)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range nibbles {
		nibbles[i] = byte(rng.IntN(256)) & 0x77
	}
	nibbles[5] = 0xF0 | nibbles[5]&0x0F
	tab, err := NewHalfExcess(goal, []int{1, 2, 3, 4, 5}, nibbles, []Escape{{Index: 11, Value: 40}}, "none")
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "t.tbl")
	require.NoError(t, Write(context.Background(), path, tab))
	h, err := Check(path)
	require.NoError(t, err)
	assert.Equal(t, tab.DecodedSHA, h.DecodedSHA)
	back, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, tab.Nibbles, back.Nibbles)
	assert.Equal(t, tab.Escapes, back.Escapes)

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	raw[len(raw)-10] ^= 0xFF
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	_, errCheck := Check(path)
	_, errRead := Read(path)
	require.Error(t, errCheck)
	require.Error(t, errRead)
}

// span reads the concatenated parts: within a part without a copy, across parts by one.
func TestSpan(t *testing.T) {
	parts := [][]byte{[]byte("abcdef"), []byte("gh"), []byte("ijk")}
	all := []byte("abcdefghijk")
	for lo := 0; lo <= len(all); lo++ {
		for hi := lo; hi <= len(all); hi++ {
			require.Equal(t, string(all[lo:hi]), string(span(parts, lo, hi)), "%d:%d", lo, hi)
		}
	}
	got := span(parts, 1, 4)
	assert.Same(t, &parts[0][1], &got[0], "within one part: no copy")
}
