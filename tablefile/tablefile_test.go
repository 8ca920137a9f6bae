package tablefile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	assert.Equal(t, tab.EntriesSHA, back.EntriesSHA)
	assert.Equal(t, []int{1, 3}, back.Tiles)
	assert.True(t, back.BlankInIndex)
	assert.Equal(t, board.Size{W: 3, H: 3}, back.Size)
	assert.Equal(t, "blank-last", must(back.GoalOf()).Name())
	assert.Equal(t, int64(len(data)), int64(strings.Index(string(data), "\n\n")+2)+back.PayloadBytes)

	path := filepath.Join(t.TempDir(), "t.tbl")
	require.NoError(t, Write(path, tab))
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
	golden.Check(t, "sample-v1.tbl", string(encode(t, sample(t))))
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
	shaAt := bytes.Index(good, []byte("entries-sha256: ")) + len("entries-sha256: ")
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"not a table", []byte("PK\x03\x04 zip file"), ErrMagic},
		{"future version", replace("tilekit-table 1", "tilekit-table 2"), ErrVersion},
		{"truncated header", good[:40], ErrTruncated},
		{"truncated payload", good[:len(good)-5], ErrTruncated},
		{"missing payload", good[:headerEnd], ErrTruncated},
		{"extra data", append(append([]byte(nil), good...), 0), ErrPayload},
		{"bit flip in header goal", flip(bytes.Index(good, []byte("goal: ")) + 6), ErrChecksum},
		{"bit flip in header tiles", flip(bytes.Index(good, []byte("tiles: ")) + 7), ErrChecksum},
		{"bit flip in entries checksum", flip(shaAt), ErrChecksum},
		{"bit flip in payload", flip(len(good) - 8), ErrPayload},
		{"bit flip early in payload", flip(headerEnd + 20), ErrPayload},
		{"fields out of order", replace("kind: pdb\nboard: 3x3", "board: 3x3\nkind: pdb"), ErrChecksum},
		{"resealed: fields out of order", reseal(t, good, "kind: pdb\nboard: 3x3", "board: 3x3\nkind: pdb"), ErrHeader},
		{"resealed: unknown encoding", reseal(t, good, "encoding: raw", "encoding: md2"), ErrHeader},
		{"resealed: extra field", reseal(t, good, "bits: 8\n", "bits: 8\ncolour: blue\n"), ErrHeader},
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

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.tbl")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	err := WriteAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half a tab"))
		return errors.New("interrupted")
	})
	require.Error(t, err)
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
