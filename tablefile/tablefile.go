// Package tablefile reads and writes the toolkit's table files: walking-distance tables and
// pattern databases, one format for both, specified in docs/FORMAT.md.
//
// A file is a short text header that people can read with head(1), then the entries
// compressed with zstd:
//
//	tilekit-table 1
//	kind: pdb
//	board: 4x4
//	goal: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0
//	tiles: 1 2 5 6
//	blank-in-index: yes
//	index: kperm-v1
//	entries: 524160
//	bits: 8
//	encoding: raw
//	compression: zstd
//	payload-bytes: 101235
//	generator: tilekit 0.1.0
//	entries-sha256: 5d1c...
//	header-sha256: 9a7e...
//	(an empty line, then payload-bytes bytes of zstd, then the end of the file)
//
// The fields come in exactly this order; tiles and blank-in-index appear only in PDB files.
// entries-sha256 is the SHA-256 of the decoded entries (one byte each, in index order);
// header-sha256 is the SHA-256 of every header byte before its own line. Both can be
// recomputed with any language's standard library.
//
// Reading checks the magic and version first, then every field against the others (the
// entry count must be exactly what the kind, board and pattern imply), and only then
// allocates: memory is bounded by what the header may legitimately claim. Writing goes to a
// temporary file that is renamed into place, so a reader never sees half a table.
package tablefile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/version"
)

// Magic is the first word of every table file; Version the format version this package
// writes. Readers reject other magics and newer versions before reading anything else.
const (
	Magic   = "tilekit-table"
	Version = 1
)

// The kinds of table.
const (
	KindWD  = "wd"
	KindPDB = "pdb"
)

// Index schemes (see docs/FORMAT.md).
const (
	IndexWD  = "wd-lex-v1" // WD patterns in lexicographic order of (blank row, matrix)
	IndexPDB = "kperm-v1"  // lexicographic rank of the pattern cells as a k-permutation
)

// maxHeader bounds the header; a real one is under 600 bytes.
const maxHeader = 4096

// Errors returned by the reader. They are wrapped with details; compare with errors.Is.
var (
	ErrMagic     = errors.New("tablefile: not a table file (bad magic)")
	ErrVersion   = errors.New("tablefile: unsupported format version")
	ErrHeader    = errors.New("tablefile: bad header")
	ErrTruncated = errors.New("tablefile: truncated")
	ErrPayload   = errors.New("tablefile: bad payload")
	ErrChecksum  = errors.New("tablefile: checksum mismatch")
)

// Header describes a table. Readers fill every field; New fills them for writers.
type Header struct {
	Version      int
	Kind         string // KindWD or KindPDB
	Size         board.Size
	Goal         board.State
	Tiles        []int // PDB only: the pattern tiles, in index order
	BlankInIndex bool  // PDB only: whether the blank's cell is part of the index
	Index        string
	Entries      int64
	Bits         int    // bits per entry: 8
	Encoding     string // "raw": one byte per entry, the value itself
	Compression  string // "zstd"
	PayloadBytes int64
	Generator    string
	EntriesSHA   [32]byte
	HeaderSHA    [32]byte
}

// A Table is a header and its decoded entries.
type Table struct {
	Header
	Entries []uint8
}

// New makes a table of the given kind for the goal; tiles and blank matter for PDBs only.
// It sets the checksum of the entries and checks the header is consistent.
func New(kind string, goal board.Goal, tiles []int, blank bool, entries []uint8) (*Table, error) {
	h := Header{
		Version:     Version,
		Kind:        kind,
		Size:        goal.Size(),
		Goal:        goal.Tiles(),
		Entries:     int64(len(entries)),
		Bits:        8,
		Encoding:    "raw",
		Compression: "zstd",
		Generator:   version.Generator,
		EntriesSHA:  sha256.Sum256(entries),
	}
	switch kind {
	case KindWD:
		h.Index = IndexWD
	case KindPDB:
		h.Index = IndexPDB
		h.Tiles = append([]int(nil), tiles...)
		h.BlankInIndex = blank
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	return &Table{Header: h, Entries: entries}, nil
}

// GoalOf returns the header's goal as a board.Goal.
func (h *Header) GoalOf() (board.Goal, error) { return board.NewGoal(h.Size, h.Goal) }

// ExpectedEntries returns the entry count that the kind, board, goal and pattern imply.
func (h *Header) ExpectedEntries() (int64, error) {
	if err := h.Size.Check(); err != nil {
		return 0, err
	}
	switch h.Kind {
	case KindWD:
		g, err := board.NewGoal(h.Size, h.Goal)
		if err != nil {
			return 0, err
		}
		return WDEntries(h.Size, h.Size.Row(g.Home(0))), nil
	case KindPDB:
		n := PDBEntries(h.Size.Cells(), len(h.Tiles), h.BlankInIndex)
		if n < 0 {
			return 0, fmt.Errorf("%d tiles%s on a %s board make more than %d entries", len(h.Tiles), map[bool]string{true: " and the blank"}[h.BlankInIndex], h.Size, int64(MaxEntries))
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown kind %q", h.Kind)
}

// Check verifies that the header's fields agree with each other.
func (h *Header) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrHeader, fmt.Sprintf(format, args...))
	}
	if h.Version != Version {
		return fmt.Errorf("%w: %d (this reader knows version %d)", ErrVersion, h.Version, Version)
	}
	if h.Kind != KindWD && h.Kind != KindPDB {
		return bad("kind %q is neither %q nor %q", h.Kind, KindWD, KindPDB)
	}
	if err := h.Size.Check(); err != nil {
		return bad("board: %v", err)
	}
	if _, err := board.NewGoal(h.Size, h.Goal); err != nil {
		return bad("goal is not an arrangement of the %s board: %v", h.Size, err)
	}
	switch h.Kind {
	case KindWD:
		if h.Index != IndexWD {
			return bad("index %q for a %s table, want %q", h.Index, h.Kind, IndexWD)
		}
		if len(h.Tiles) != 0 || h.BlankInIndex {
			return bad("a wd table has no tiles or blank-in-index")
		}
	case KindPDB:
		if h.Index != IndexPDB {
			return bad("index %q for a %s table, want %q", h.Index, h.Kind, IndexPDB)
		}
		if len(h.Tiles) == 0 {
			return bad("a pdb table needs at least one tile")
		}
		seen := map[int]bool{}
		for _, t := range h.Tiles {
			if t < 1 || t >= h.Size.Cells() {
				return bad("tile %d out of range 1..%d", t, h.Size.Cells()-1)
			}
			if seen[t] {
				return bad("tile %d listed twice", t)
			}
			seen[t] = true
		}
	}
	want, err := h.ExpectedEntries()
	if err != nil {
		return bad("%v", err)
	}
	if h.Entries != want {
		return bad("entries %d, but a %s table for this board and pattern has %d", h.Entries, h.Kind, want)
	}
	if h.Bits != 8 {
		return bad("bits %d (only 8 is defined)", h.Bits)
	}
	if h.Encoding != "raw" {
		return bad("encoding %q (only \"raw\" is defined)", h.Encoding)
	}
	if h.Compression != "zstd" {
		return bad("compression %q (only \"zstd\" is defined)", h.Compression)
	}
	return nil
}

// maxPayload bounds the compressed size a header may claim: zstd never expands data by
// more than a small fraction plus its frame overhead.
func maxPayload(entries int64) int64 { return entries + entries/64 + 1024 }

// Histogram returns, for each value d, the number of entries equal to d.
func (t *Table) Histogram() []int64 {
	var counts [256]int64
	for _, v := range t.Entries {
		counts[v]++
	}
	n := 0
	for d, c := range counts {
		if c > 0 {
			n = d + 1
		}
	}
	return append([]int64(nil), counts[:n]...)
}

// encodeHeader writes the header text, without the header-sha256 line.
func (h *Header) encodeHeader() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %d\n", Magic, h.Version)
	fmt.Fprintf(&b, "kind: %s\n", h.Kind)
	fmt.Fprintf(&b, "board: %s\n", h.Size)
	fmt.Fprintf(&b, "goal: %s\n", h.Goal)
	if h.Kind == KindPDB {
		fmt.Fprintf(&b, "tiles: %s\n", joinInts(h.Tiles))
		fmt.Fprintf(&b, "blank-in-index: %s\n", map[bool]string{true: "yes", false: "no"}[h.BlankInIndex])
	}
	fmt.Fprintf(&b, "index: %s\n", h.Index)
	fmt.Fprintf(&b, "entries: %d\n", h.Entries)
	fmt.Fprintf(&b, "bits: %d\n", h.Bits)
	fmt.Fprintf(&b, "encoding: %s\n", h.Encoding)
	fmt.Fprintf(&b, "compression: %s\n", h.Compression)
	fmt.Fprintf(&b, "payload-bytes: %d\n", h.PayloadBytes)
	fmt.Fprintf(&b, "generator: %s\n", h.Generator)
	fmt.Fprintf(&b, "entries-sha256: %x\n", h.EntriesSHA)
	return b.Bytes()
}

// Encode writes the table in the file format. The output depends only on the table.
func (t *Table) Encode(w io.Writer) error {
	if int64(len(t.Entries)) != t.Header.Entries {
		return fmt.Errorf("tablefile: header says %d entries, table has %d", t.Header.Entries, len(t.Entries))
	}
	if sha256.Sum256(t.Entries) != t.EntriesSHA {
		return fmt.Errorf("tablefile: entries do not match the header's checksum")
	}
	if err := t.Header.Check(); err != nil {
		return err
	}
	// One goroutine and a fixed level make the compressed bytes a function of the entries.
	// A single segment makes the window the content size, which the reader can bound.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true))
	if err != nil {
		return err
	}
	payload := enc.EncodeAll(t.Entries, nil)
	if err := enc.Close(); err != nil {
		return err
	}
	h := t.Header
	h.PayloadBytes = int64(len(payload))
	head := h.encodeHeader()
	h.HeaderSHA = sha256.Sum256(head)
	var out bytes.Buffer
	out.Write(head)
	fmt.Fprintf(&out, "header-sha256: %x\n\n", h.HeaderSHA)
	if _, err := w.Write(out.Bytes()); err != nil {
		return err
	}
	_, err = w.Write(payload)
	return err
}

// Write writes the table to path atomically: to a temporary file in the same directory,
// synced, then renamed over path. On error nothing is left behind.
func Write(path string, t *Table) error {
	return WriteAtomic(path, t.Encode)
}

// WriteAtomic calls write with a temporary file beside path and renames it to path when
// write succeeds; on failure it removes the temporary file and path is untouched.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// Read reads and checks the table file at path.
func Read(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadHeader reads and checks only the header of the table file at path.
func ReadHeader(path string) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := DecodeHeader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// Decode reads a whole table from r and checks it: header, sizes and both checksums.
func Decode(r io.Reader) (*Table, error) {
	br := bufio.NewReader(r)
	h, err := DecodeHeader(br)
	if err != nil {
		return nil, err
	}
	// The header is consistent, so Entries and PayloadBytes are legitimate: allocate.
	payload := make([]byte, h.PayloadBytes)
	if n, err := io.ReadFull(br, payload); err != nil {
		return nil, fmt.Errorf("%w: payload has %d of %d bytes", ErrTruncated, n, h.PayloadBytes)
	}
	if n, _ := br.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("%w: data after the %d-byte payload", ErrPayload, h.PayloadBytes)
	}
	// Bound the decoder by the entry count (zstd's window is at least 1 KiB); its default
	// limit would let a crafted payload claim gigabytes.
	limit := max(uint64(h.Entries), zstd.MinWindowSize)
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(limit),
		zstd.WithDecoderMaxWindow(limit))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	entries, err := dec.DecodeAll(payload, make([]byte, 0, h.Entries))
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %v", ErrPayload, err)
	}
	if int64(len(entries)) != h.Entries {
		return nil, fmt.Errorf("%w: payload decodes to %d entries, header says %d", ErrPayload, len(entries), h.Entries)
	}
	if sum := sha256.Sum256(entries); sum != h.EntriesSHA {
		return nil, fmt.Errorf("%w: entries-sha256 is %x, entries hash to %x", ErrChecksum, h.EntriesSHA, sum)
	}
	return &Table{Header: *h, Entries: entries}, nil
}

// DecodeHeader reads and checks a header, leaving r at the first payload byte. It checks,
// in order: magic and version, the header checksum, then each field and their agreement.
func DecodeHeader(r *bufio.Reader) (*Header, error) {
	// Magic and version first, before trusting anything else.
	first, err := readLimited(r, len(Magic)+24)
	if err != nil {
		return nil, err
	}
	word, ver, _ := strings.Cut(strings.TrimSuffix(first, "\n"), " ")
	if word != Magic {
		return nil, fmt.Errorf("%w: file starts %q", ErrMagic, truncate(first, 24))
	}
	v, err := strconv.Atoi(ver)
	if err != nil || v < 1 {
		return nil, fmt.Errorf("%w: %q is not a version number", ErrVersion, ver)
	}
	if v != Version {
		return nil, fmt.Errorf("%w: the file is version %d, this reader knows version %d", ErrVersion, v, Version)
	}

	// Then the lines up to the empty one, and the checksum over them.
	lines := []string{first}
	size := len(first)
	for {
		s, err := r.ReadString('\n')
		size += len(s)
		if size > maxHeader {
			return nil, fmt.Errorf("%w: longer than %d bytes", ErrHeader, maxHeader)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: header ends without an empty line, after line %d", ErrTruncated, len(lines))
		}
		if s == "\n" {
			break
		}
		lines = append(lines, s)
	}
	last := lines[len(lines)-1]
	covered := sha256.New()
	for _, s := range lines[:len(lines)-1] {
		covered.Write([]byte(s))
	}
	claimed, ok := strings.CutPrefix(strings.TrimSuffix(last, "\n"), "header-sha256: ")
	if !ok {
		return nil, fmt.Errorf("%w: the last header line is %q, want header-sha256", ErrHeader, truncate(last, 40))
	}
	if got := hex.EncodeToString(covered.Sum(nil)); claimed != got {
		return nil, fmt.Errorf("%w: header-sha256 is %s, the header hashes to %s", ErrChecksum, truncate(claimed, 64), got)
	}

	// The header is as written: read its fields in their fixed order.
	h := &Header{Version: v}
	line := 1
	field := func(key string) (string, error) {
		line++
		if line > len(lines) {
			return "", fmt.Errorf("%w: the header ends before the field %q", ErrHeader, key)
		}
		s := lines[line-1]
		k, val, ok := strings.Cut(strings.TrimSuffix(s, "\n"), ": ")
		if !ok || k != key {
			return "", fmt.Errorf("%w: line %d is %q, want the field %q", ErrHeader, line, truncate(s, 40), key)
		}
		return val, nil
	}
	num := func(key string) (int64, error) {
		val, err := field(key)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: line %d: %s %q is not a count", ErrHeader, line, key, val)
		}
		return n, nil
	}
	sum := func(key string) ([32]byte, error) {
		var out [32]byte
		val, err := field(key)
		if err != nil {
			return out, err
		}
		b, err := hex.DecodeString(val)
		if err != nil || len(b) != 32 {
			return out, fmt.Errorf("%w: line %d: %s is not 64 hex digits", ErrHeader, line, key)
		}
		copy(out[:], b)
		return out, nil
	}
	if h.Kind, err = field("kind"); err != nil {
		return nil, err
	}
	sizeText, err := field("board")
	if err != nil {
		return nil, err
	}
	if h.Size, err = board.ParseSize(sizeText); err != nil {
		return nil, fmt.Errorf("%w: line %d: %v", ErrHeader, line, err)
	}
	goalText, err := field("goal")
	if err != nil {
		return nil, err
	}
	if h.Goal, err = board.Parse(h.Size, goalText); err != nil {
		return nil, fmt.Errorf("%w: line %d: goal: %v", ErrHeader, line, err)
	}
	if h.Kind == KindPDB {
		tilesText, err := field("tiles")
		if err != nil {
			return nil, err
		}
		if h.Tiles, err = board.Fields(tilesText); err != nil || len(h.Tiles) > board.MaxCells {
			return nil, fmt.Errorf("%w: line %d: tiles %q", ErrHeader, line, truncate(tilesText, 40))
		}
		blank, err := field("blank-in-index")
		if err != nil {
			return nil, err
		}
		switch blank {
		case "yes":
			h.BlankInIndex = true
		case "no":
		default:
			return nil, fmt.Errorf("%w: line %d: blank-in-index %q is neither yes nor no", ErrHeader, line, blank)
		}
	}
	if h.Index, err = field("index"); err != nil {
		return nil, err
	}
	if h.Entries, err = num("entries"); err != nil {
		return nil, err
	}
	bits, err := num("bits")
	if err != nil {
		return nil, err
	}
	h.Bits = int(min(bits, 1<<20))
	if h.Encoding, err = field("encoding"); err != nil {
		return nil, err
	}
	if h.Compression, err = field("compression"); err != nil {
		return nil, err
	}
	if h.PayloadBytes, err = num("payload-bytes"); err != nil {
		return nil, err
	}
	if h.Generator, err = field("generator"); err != nil {
		return nil, err
	}
	if h.EntriesSHA, err = sum("entries-sha256"); err != nil {
		return nil, err
	}
	if h.HeaderSHA, err = sum("header-sha256"); err != nil {
		return nil, err
	}
	if line != len(lines) {
		return nil, fmt.Errorf("%w: unexpected line %d %q", ErrHeader, line, truncate(lines[line], 40))
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	if h.PayloadBytes > maxPayload(h.Entries) {
		return nil, fmt.Errorf("%w: payload-bytes %d is more than %d entries can compress to", ErrHeader, h.PayloadBytes, h.Entries)
	}
	return h, nil
}

// readLimited reads one line of at most n bytes.
func readLimited(r *bufio.Reader, n int) (string, error) {
	var b strings.Builder
	for b.Len() < n {
		c, err := r.ReadByte()
		if err != nil {
			if b.Len() == 0 {
				return "", fmt.Errorf("%w: empty file", ErrTruncated)
			}
			return "", fmt.Errorf("%w: file starts %q", ErrMagic, truncate(b.String(), 24))
		}
		b.WriteByte(c)
		if c == '\n' {
			return b.String(), nil
		}
	}
	return "", fmt.Errorf("%w: file starts %q", ErrMagic, truncate(b.String(), 24))
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, " ")
}
