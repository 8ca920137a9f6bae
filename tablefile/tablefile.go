// Package tablefile reads and writes the toolkit's table files: walking-distance tables and
// pattern databases, one format for both, specified in docs/FORMAT.md.
//
// A file is a short text header that people can read, then the entries compressed with
// zstd:
//
//	tilekit-table 2
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
//	frame-bytes: 16777216
//	payload-bytes: 35128
//	generator: tilekit 0.2.0
//	decoded-sha256: 5d1c...
//	payload-sha256: 77e0...
//	header-sha256: 9a7e...
//	(an empty line, then payload-bytes bytes of zstd frames, then the end of the file)
//
// The fields come in exactly this order; tiles and blank-in-index appear only in PDB files.
// The payload is a sequence of zstd frames, each decoding to frame-bytes bytes (the last
// to the rest). decoded-sha256 is the SHA-256 of the decoded bytes, payload-sha256 of the
// payload as stored, and header-sha256 of every header byte before its own line: any change
// to any byte of a file is detected. All three can be recomputed with any language's
// standard library. Version 1 files (one frame, entries-sha256 and no payload checksum) are
// still read.
//
// Reading checks the magic and version first, then every field against the others (the
// entry count must be exactly what the kind, board and pattern imply, every number must be
// written in plain decimal), and allocates only for bytes actually read or for what the
// header may legitimately claim: a short or hostile file cannot make the reader allocate
// more than it holds. Writing compresses first and then renames a complete temporary file
// into place (package internal/atomicfile), so a reader never sees half a table.
package tablefile

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unsafe"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/version"
	"github.com/tilekit/tilekit/zindex"
)

// Magic is the first word of every table file; Version the format version this package
// writes. Readers reject other magics and versions they do not know before reading
// anything else; MinVersion is the oldest version still read.
const (
	Magic      = "tilekit-table"
	Version    = 2
	MinVersion = 1
)

// The kinds of table.
const (
	KindWD  = "wd"
	KindPDB = "pdb"
	// KindPrune is an automaton that prunes duplicate paths (package prune): entry 4s+d is
	// the state after blank move d (U, D, L, R) from state s, or NoTransition.
	KindPrune = "prune"
)

// NoTransition is the entry of a prune table for a move the automaton prunes, or one off
// the board.
const NoTransition = ^uint32(0)

// MaxStates bounds the states of a prune table: 2^24 states are 256 MiB of transitions.
const MaxStates = 1 << 24

// Index schemes (see docs/FORMAT.md).
const (
	IndexWD  = "wd-lex-v1" // WD patterns in lexicographic order of (blank row, matrix)
	IndexPDB = "kperm-v1"  // lexicographic rank of the pattern cells as a k-permutation
	// IndexFSM numbers a prune table's entries 4*state + direction; states 0 to cells-1
	// are the start states of the blank's cells.
	IndexFSM = "fsm-v1"
	// IndexZero ranks a zero-aware table's (placement, blank region) states (package
	// zindex); such a table has no blank in the index and keeps every region's value.
	IndexZero = zindex.Name
)

// FrameBytes is how many decoded bytes each zstd frame of the payload holds (the last
// frame holds the rest). Frames are compressed and decompressed independently, in
// parallel.
const FrameBytes = 16 << 20

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
	Kind         string // KindWD, KindPDB or KindPrune
	Size         board.Size
	Goal         board.State
	Tiles        []int // PDB only: the pattern tiles, in index order
	BlankInIndex bool  // PDB only: whether the blank's cell is part of the index
	Depth        int   // prune only: the longest duplicate string the automaton was built from
	Index        string
	Entries      int64
	Bits         int    // bits per entry: 8 (raw), 4 (half-excess), 1 (bit) or 32 (u32le)
	Encoding     string // EncodingRaw, EncodingHalfExcess or EncodingBit
	Escapes      int64  // half-excess: entries kept in the escape list
	Mirror       string // half-excess: "none", or the symmetry under which only one entry of each mirror pair is stored
	Compression  string // "zstd"
	FrameBytes   int64  // decoded bytes per zstd frame (version 2; version 1 has one frame)
	PayloadBytes int64
	Generator    string
	DecodedSHA   [32]byte // SHA-256 of the decoded payload (version 1: entries-sha256)
	PayloadSHA   [32]byte // SHA-256 of the payload as stored (version 2)
	HeaderSHA    [32]byte
}

// Encodings of the entries (docs/FORMAT.md).
const (
	// EncodingRaw stores entry i as byte i.
	EncodingRaw = "raw"
	// EncodingHalfExcess stores e = (value - md) / 2 in 4 bits, where md is the Manhattan
	// distance of the pattern tiles of the entry's placement, and lists the entries whose
	// e does not fit (nibble 15) in an escape list. PDB tables without the blank only.
	EncodingHalfExcess = "half-excess"
	// EncodingBit stores one bit per entry, bit i%8 of byte i/8: (value / 2) mod 2. It is for
	// zero-aware pattern databases (index zperm-v1), whose neighbouring entries differ by
	// exactly one: knowing a neighbour's value and the bit, a search knows the value
	// (docs/FORMAT.md, "The bit encoding").
	EncodingBit = "bit"
	// EncodingU32 stores entry i as the four bytes 4i to 4i+3, little-endian: the
	// transitions of a prune table.
	EncodingU32 = "u32le"
)

// EscapeNibble marks an entry of a half-excess table held in the escape list.
const EscapeNibble = 15

// An Escape is an entry of a half-excess table stored whole: by index, with its value.
type Escape struct {
	Index uint32
	Value uint8
}

// escapeBytes is the size of an escape record: the index (4 bytes, little-endian) and the
// value.
const escapeBytes = 5

// A Table is a header and its decoded payload: the entries (raw), or their nibbles and
// escape list (half-excess).
type Table struct {
	Header
	Entries []uint8  // raw: entry i is Entries[i]
	Nibbles []byte   // half-excess: entry i in the low (i even) or high (i odd) nibble of byte i/2
	Escapes []Escape // half-excess: the entries whose nibble is EscapeNibble, ascending
	Bitmap  []byte   // bit: entry i's bit is bit i%8 of byte i/8
	Words   []uint32 // u32le: entry i is Words[i]
}

// NewPrune makes a prune table: an automaton of the given depth for the board, its
// transitions words (4 per state, the start states of the cells first).
func NewPrune(size board.Size, depth int, words []uint32) (*Table, error) {
	goal := board.BlankFirst(size)
	raw := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(raw[4*i:], w)
	}
	h := Header{
		Version: Version, Kind: KindPrune, Size: size, Goal: goal.Tiles(), Depth: depth,
		Index: IndexFSM, Entries: int64(len(words)), Bits: 32, Encoding: EncodingU32,
		Compression: "zstd", FrameBytes: FrameBytes, Generator: version.Generator,
		DecodedSHA: sha256.Sum256(raw),
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	return &Table{Header: h, Words: words}, nil
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
		FrameBytes:  FrameBytes,
		Generator:   version.Generator,
		DecodedSHA:  sha256.Sum256(entries),
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

// NewHalfExcess makes a PDB table without the blank in the half-excess encoding from its
// nibbles and escapes (see package pdb, type Packed).
//
// mirror is "none", or the symmetry ("columns", "rows", "transpose") under which the
// pattern is its own image and only the smaller index of each pair of images holds its
// entry (the other's nibble is 0): docs/FORMAT.md.
func NewHalfExcess(goal board.Goal, tiles []int, nibbles []byte, escapes []Escape, mirror string) (*Table, error) {
	return NewHalfExcessIndex(goal, tiles, IndexPDB, nibbles, escapes, mirror)
}

// NewHalfExcessIndex is NewHalfExcess for a table of the given index scheme (IndexPDB or
// IndexZero).
func NewHalfExcessIndex(goal board.Goal, tiles []int, index string, nibbles []byte, escapes []Escape, mirror string) (*Table, error) {
	h, err := packedHeader(goal, tiles, index, EncodingHalfExcess, 4)
	if err != nil {
		return nil, err
	}
	h.Escapes, h.Mirror = int64(len(escapes)), mirror
	if err := h.Check(); err != nil {
		return nil, err
	}
	t := &Table{Header: h, Nibbles: nibbles, Escapes: escapes}
	if err := t.checkPacked(); err != nil {
		return nil, err
	}
	t.DecodedSHA = t.decodedSHA()
	return t, nil
}

// packedHeader is the header of a PDB table without the blank in an encoding below a byte
// an entry, its entry count filled in (the caller checks it).
func packedHeader(goal board.Goal, tiles []int, index, encoding string, bits int) (Header, error) {
	h := Header{
		Version:     Version,
		Kind:        KindPDB,
		Size:        goal.Size(),
		Goal:        goal.Tiles(),
		Tiles:       append([]int(nil), tiles...),
		Index:       index,
		Bits:        bits,
		Encoding:    encoding,
		Compression: "zstd",
		FrameBytes:  FrameBytes,
		Generator:   version.Generator,
	}
	var err error
	h.Entries, err = h.ExpectedEntries()
	return h, err
}

// NewBitmap makes a zero-aware PDB table in the bit encoding from its bitmap.
func NewBitmap(goal board.Goal, tiles []int, bitmap []byte) (*Table, error) {
	h, err := packedHeader(goal, tiles, IndexZero, EncodingBit, 1)
	if err != nil {
		return nil, err
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	t := &Table{Header: h}
	if err := t.split(bitmap); err != nil {
		return nil, err
	}
	t.DecodedSHA = sha256.Sum256(bitmap)
	return t, nil
}

// parts returns the decoded payload in pieces: the entries as they are held, and for a
// half-excess table with escapes, the escape list's bytes after the nibbles (so that
// writing a table never copies its nibbles).
func (t *Table) parts() [][]byte {
	switch t.Encoding {
	case EncodingBit:
		return [][]byte{t.Bitmap}
	case EncodingU32:
		raw := make([]byte, 4*len(t.Words))
		for i, w := range t.Words {
			binary.LittleEndian.PutUint32(raw[4*i:], w)
		}
		return [][]byte{raw}
	case EncodingHalfExcess:
		if len(t.Escapes) == 0 {
			return [][]byte{t.Nibbles}
		}
		tail := make([]byte, 0, escapeBytes*len(t.Escapes))
		for _, e := range t.Escapes {
			tail = binary.LittleEndian.AppendUint32(tail, e.Index)
			tail = append(tail, e.Value)
		}
		return [][]byte{t.Nibbles, tail}
	}
	return [][]byte{t.Entries}
}

// decodedSHA is the SHA-256 of the decoded payload.
func (t *Table) decodedSHA() [32]byte {
	h := sha256.New()
	for _, p := range t.parts() {
		h.Write(p)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// span returns bytes [lo, hi) of the concatenated parts: a slice of one part where it
// lies in one, else a copy.
func span(parts [][]byte, lo, hi int) []byte {
	off := 0
	for _, p := range parts {
		if lo >= off && hi <= off+len(p) {
			return p[lo-off : hi-off]
		}
		off += len(p)
	}
	out := make([]byte, 0, hi-lo)
	off = 0
	for _, p := range parts {
		if a, b := max(lo-off, 0), min(hi-off, len(p)); a < b {
			out = append(out, p[a:b]...)
		}
		off += len(p)
	}
	return out
}

// split fills the table's entries, or nibbles and escapes, from a decoded payload of the
// right length.
func (t *Table) split(decoded []byte) error {
	if t.Encoding == EncodingBit {
		if int64(len(decoded)) != t.DecodedBytes() {
			return fmt.Errorf("%w: a bitmap of %d bytes, want %d", ErrPayload, len(decoded), t.DecodedBytes())
		}
		if r := t.Header.Entries % 8; r != 0 && decoded[len(decoded)-1]>>r != 0 {
			return fmt.Errorf("%w: the bitmap's unused last bits are not zero", ErrPayload)
		}
		t.Bitmap = decoded
		return nil
	}
	if t.Encoding == EncodingU32 {
		if int64(len(decoded)) != t.DecodedBytes() {
			return fmt.Errorf("%w: %d bytes of transitions, want %d", ErrPayload, len(decoded), t.DecodedBytes())
		}
		t.Words = wordsOf(decoded)
		return nil
	}
	if t.Encoding != EncodingHalfExcess {
		t.Entries = decoded
		return nil
	}
	n := (t.Header.Entries + 1) / 2
	t.Nibbles = decoded[:n:n]
	t.Escapes = make([]Escape, t.Header.Escapes)
	for i := range t.Escapes {
		rec := decoded[n+int64(i)*escapeBytes:]
		t.Escapes[i] = Escape{Index: binary.LittleEndian.Uint32(rec), Value: rec[4]}
	}
	return t.checkPacked()
}

// checkPacked verifies that the nibbles and the escape list of a half-excess table agree:
// the nibble 15 exactly at the listed indices, which ascend, and a zero unused nibble.
func (t *Table) checkPacked() error {
	return CheckHalfExcess(t.Header.Entries, t.Nibbles, t.Escapes)
}

// CheckHalfExcess checks that half-excess nibbles and their escape list agree: the nibbles
// of entries entries (the unused last one 0), and exactly one escape, in ascending order,
// for each nibble EscapeNibble. Readers of the encoding share it (package pdb too).
func CheckHalfExcess(entries int64, nibbles []byte, escapes []Escape) error {
	if int64(len(nibbles)) != (entries+1)/2 {
		return fmt.Errorf("%w: %d bytes of nibbles for %d entries", ErrPayload, len(nibbles), entries)
	}
	if entries%2 == 1 && nibbles[len(nibbles)-1]>>4 != 0 {
		return fmt.Errorf("%w: the unused last nibble is not 0", ErrPayload)
	}
	count := countNibbles(nibbles, EscapeNibble)
	if count != int64(len(escapes)) {
		return fmt.Errorf("%w: %d escape nibbles, but %d escapes listed", ErrPayload, count, len(escapes))
	}
	for i, e := range escapes {
		if i > 0 && e.Index <= escapes[i-1].Index {
			return fmt.Errorf("%w: escape %d is out of order", ErrPayload, i+1)
		}
		if int64(e.Index) >= entries || nibbles[e.Index/2]>>(4*(e.Index&1))&0xF != EscapeNibble {
			return fmt.Errorf("%w: escape %d (entry %d) has no escape nibble", ErrPayload, i+1, e.Index)
		}
	}
	return nil
}

// countNibbles counts the nibbles equal to v, eight bytes at a time.
func countNibbles(b []byte, v byte) int64 {
	var n int64
	pattern := uint64(v) * 0x1111111111111111
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) ^ pattern // a matching nibble becomes 0
		// Mark the nibbles that are zero: fold each nibble's bits into its low bit.
		x |= x >> 2
		x |= x >> 1
		n += int64(bits.OnesCount64(^x & 0x1111111111111111))
	}
	for ; i < len(b); i++ {
		if b[i]&0xF == v {
			n++
		}
		if b[i]>>4 == v {
			n++
		}
	}
	return n
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
	case KindPrune:
		// The entries are the automaton's: four a state, from a start state per cell to
		// MaxStates.
		n := int64(4 * h.Size.Cells())
		if h.Entries%4 != 0 || h.Entries < n || h.Entries > 4*MaxStates {
			return 0, fmt.Errorf("a prune table has four entries a state, from %d to %d states", h.Size.Cells(), MaxStates)
		}
		return h.Entries, nil
	case KindPDB:
		if h.Index == IndexZero {
			z, err := zindex.For(h.Size, len(h.Tiles))
			if err != nil {
				return 0, err
			}
			return z.Entries(), nil
		}
		n := PDBEntries(h.Size.Cells(), len(h.Tiles), h.BlankInIndex)
		if n < 0 {
			return 0, fmt.Errorf("%d tiles%s on a %s board make more than %d entries", len(h.Tiles), map[bool]string{true: " and the blank"}[h.BlankInIndex], h.Size, int64(MaxEntries))
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown kind %q", h.Kind)
}

// DecodedBytes is the length of the decoded payload: one byte per entry (raw), or half a
// byte per entry and five per escape (half-excess).
func (h *Header) DecodedBytes() int64 {
	if h.Encoding == EncodingU32 {
		return 4 * h.Entries
	}
	if h.Encoding == EncodingBit {
		return (h.Entries + 7) / 8
	}
	if h.Encoding == EncodingHalfExcess {
		return (h.Entries+1)/2 + escapeBytes*h.Escapes
	}
	return h.Entries
}

// frames returns how many zstd frames the payload holds.
func (h *Header) frames() int64 {
	if h.Version < 2 || h.DecodedBytes() == 0 {
		return 1
	}
	return (h.DecodedBytes() + h.FrameBytes - 1) / h.FrameBytes
}

// maxPayload bounds the compressed size a header may claim: zstd never expands data by
// more than a small fraction, plus each frame's overhead.
func (h *Header) maxPayload() int64 {
	n := h.DecodedBytes()
	return n + n/64 + 1024*h.frames()
}

// Check verifies that the header's fields agree with each other.
func (h *Header) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrHeader, fmt.Sprintf(format, args...))
	}
	if h.Version < MinVersion || h.Version > Version {
		return fmt.Errorf("%w: %d (this reader knows versions %d to %d)", ErrVersion, h.Version, MinVersion, Version)
	}
	if h.Kind != KindWD && h.Kind != KindPDB && h.Kind != KindPrune {
		return bad("kind %q is not %q, %q or %q", h.Kind, KindWD, KindPDB, KindPrune)
	}
	if err := h.Size.Check(); err != nil {
		return bad("board: %v", err)
	}
	if _, err := board.NewGoal(h.Size, h.Goal); err != nil {
		return bad("goal is not an arrangement of the %s board: %v", h.Size, err)
	}
	scheme, ok := SchemeOf(h.Index)
	if !ok || scheme.Kind != h.Kind {
		return bad("index %q for a %s table, want one of %q", h.Index, h.Kind, schemesOf(h.Kind))
	}
	if users := schemesWith(h.Encoding); !slices.Contains(scheme.Encodings, h.Encoding) && len(users) > 0 {
		return bad("the %s encoding is for tables of index %s, not %s", h.Encoding, strings.Join(users, " or "), h.Index)
	}
	switch h.Kind {
	case KindPrune:
		if len(h.Tiles) != 0 || h.BlankInIndex {
			return bad("a prune table has no tiles or blank-in-index")
		}
		if h.Depth < 0 || h.Depth > MaxPruneDepth {
			return bad("depth %d is not from 0 to %d", h.Depth, MaxPruneDepth)
		}
		if h.Encoding != EncodingU32 || h.Version < 2 {
			return bad("a %s table is in the %q encoding of version 2 files", h.Kind, EncodingU32)
		}
	case KindWD:
		if len(h.Tiles) != 0 || h.BlankInIndex {
			return bad("a wd table has no tiles or blank-in-index")
		}
	case KindPDB:
		if scheme.ZeroAware && (h.BlankInIndex || h.Mirror != "" && h.Mirror != "none") {
			return bad("a zero-aware table (index %s) has no blank in the index and no mirror", IndexZero)
		}
		if len(h.Tiles) == 0 {
			return bad("a pdb table needs at least one tile")
		}
		var seen [board.MaxCells]bool
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
	switch h.Encoding {
	case EncodingRaw:
		if h.Bits != 8 {
			return bad("bits %d for the raw encoding (it has 8)", h.Bits)
		}
	case EncodingHalfExcess:
		if h.Version < 2 {
			return bad("encoding %q in a version %d file", h.Encoding, h.Version)
		}
		if h.Kind != KindPDB || h.BlankInIndex {
			return bad("the %s encoding is for pattern databases without the blank", h.Encoding)
		}
		if h.Bits != 4 {
			return bad("bits %d for the %s encoding (it has 4)", h.Bits, h.Encoding)
		}
		if h.Escapes > h.Entries {
			return bad("escapes %d, more than the %d entries", h.Escapes, h.Entries)
		}
		switch h.Mirror {
		case "none", "columns", "rows", "transpose":
		default:
			return bad("mirror %q (known: none, columns, rows, transpose)", h.Mirror)
		}
	case EncodingU32:
		if h.Kind != KindPrune {
			return bad("the %s encoding is for prune tables", h.Encoding)
		}
		if h.Bits != 32 {
			return bad("bits %d for the %s encoding (it has 32)", h.Bits, h.Encoding)
		}
	case EncodingBit:
		if h.Version < 2 {
			return bad("encoding %q in a version %d file", h.Encoding, h.Version)
		}
		if h.Kind != KindPDB || h.Index != IndexZero {
			return bad("the %s encoding is for zero-aware pattern databases (index %s)", h.Encoding, IndexZero)
		}
		if h.Bits != 1 {
			return bad("bits %d for the %s encoding (it has 1)", h.Bits, h.Encoding)
		}
	default:
		return bad("encoding %q (known: %q, %q, %q, %q)", h.Encoding, EncodingRaw, EncodingHalfExcess, EncodingBit, EncodingU32)
	}
	if h.Compression != "zstd" {
		return bad("compression %q (only \"zstd\" is defined)", h.Compression)
	}
	if h.Version >= 2 && (h.FrameBytes < minFrameBytes || h.FrameBytes > maxFrameBytes) {
		return bad("frame-bytes %d is not from %d to %d", h.FrameBytes, minFrameBytes, maxFrameBytes)
	}
	return nil
}

// MaxPruneDepth is the deepest search for duplicates a prune table may claim.
const MaxPruneDepth = 64

// Limits of frame-bytes: small frames would only waste space, large ones memory.
const (
	minFrameBytes = 1 << 16
	maxFrameBytes = 1 << 30
)

// Histogram returns, for each value d, the number of entries stored as d: the entries of a
// raw table, the half-excess nibbles of a half-excess one (escapes counted as 15).
func (t *Table) Histogram() []int64 {
	var counts [256]int64
	for _, v := range t.Entries {
		counts[v]++
	}
	for _, b := range t.Nibbles {
		counts[b&0xF]++
		counts[b>>4]++
	}
	if t.Encoding == EncodingBit {
		ones := int64(0)
		for _, b := range t.Bitmap {
			ones += int64(bits.OnesCount8(b))
		}
		counts[0], counts[1] = t.Header.Entries-ones, ones
	}
	if t.Header.Entries%2 == 1 && len(t.Nibbles) > 0 {
		counts[0]-- // the unused last nibble
	}
	n := 0
	for d, c := range counts {
		if c > 0 {
			n = d + 1
		}
	}
	return append([]int64(nil), counts[:n]...)
}

// littleEndian reports whether the machine stores words least significant byte first,
// as the files do.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// wordsOf returns the little-endian words of b. On a little-endian machine they are b's
// own bytes when b is aligned for them, which keeps the memory decompress allocated (in
// huge pages: a search reads a large automaton's rows at random, and with 4 kB pages
// nearly every read missed the TLB); elsewhere they are a copy.
func wordsOf(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return []uint32{}
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if littleEndian && uintptr(p)%unsafe.Alignof(uint32(0)) == 0 {
		return unsafe.Slice((*uint32)(p), n)
	}
	words := make([]uint32, n)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return words
}
