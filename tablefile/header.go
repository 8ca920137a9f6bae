package tablefile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/tilekit/tilekit/board"
)

// maxHeader bounds the header; a real one is under 700 bytes.
const maxHeader = 4096

// MaxRatio bounds how many decoded bytes one payload byte may stand for. zstd can reach
// about 30,000:1 on constant data, so a tiny payload could claim gigabytes; the tables of
// the toolkit compress 4:1 to 40:1. A header whose claim exceeds the bound is refused
// before anything is decoded or allocated.
const MaxRatio = 1024

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
	if h.Kind == KindPrune {
		fmt.Fprintf(&b, "depth: %d\n", h.Depth)
	}
	fmt.Fprintf(&b, "index: %s\n", h.Index)
	fmt.Fprintf(&b, "entries: %d\n", h.Entries)
	fmt.Fprintf(&b, "bits: %d\n", h.Bits)
	fmt.Fprintf(&b, "encoding: %s\n", h.Encoding)
	if h.Encoding == EncodingHalfExcess {
		fmt.Fprintf(&b, "escapes: %d\n", h.Escapes)
		fmt.Fprintf(&b, "mirror: %s\n", h.Mirror)
	}
	fmt.Fprintf(&b, "compression: %s\n", h.Compression)
	if h.Version >= 2 {
		fmt.Fprintf(&b, "frame-bytes: %d\n", h.FrameBytes)
	}
	fmt.Fprintf(&b, "payload-bytes: %d\n", h.PayloadBytes)
	fmt.Fprintf(&b, "generator: %s\n", h.Generator)
	if h.Version >= 2 {
		fmt.Fprintf(&b, "decoded-sha256: %x\n", h.DecodedSHA)
		fmt.Fprintf(&b, "payload-sha256: %x\n", h.PayloadSHA)
	} else {
		fmt.Fprintf(&b, "entries-sha256: %x\n", h.DecodedSHA)
	}
	return b.Bytes()
}

// readLine reads one line of at most budget bytes, ending in '\n'. It reads byte by byte
// from the buffer, so a file without newlines costs no more than budget bytes.
func readLine(r *bufio.Reader, budget int) (string, error) {
	var b []byte
	for len(b) < budget {
		c, err := r.ReadByte()
		if err != nil {
			return string(b), err
		}
		b = append(b, c)
		if c == '\n' {
			return string(b), nil
		}
	}
	return string(b), errLong
}

var errLong = fmt.Errorf("%w: longer than %d bytes", ErrHeader, maxHeader)

// DecodeHeader reads and checks a header, leaving r at the first payload byte. It checks,
// in order: magic and version, the header checksum, then each field (strictly as
// docs/FORMAT.md writes it) and their agreement. It reads at most 4096 bytes.
func DecodeHeader(r *bufio.Reader) (*Header, error) {
	// Magic and version first, before trusting anything else.
	first, err := readLine(r, len(Magic)+8)
	if err != nil {
		if first == "" {
			return nil, fmt.Errorf("%w: empty file", ErrTruncated)
		}
		return nil, fmt.Errorf("%w: file starts %q", ErrMagic, truncate(first, 24))
	}
	word, ver, _ := strings.Cut(strings.TrimSuffix(first, "\n"), " ")
	if word != Magic {
		return nil, fmt.Errorf("%w: file starts %q", ErrMagic, truncate(first, 24))
	}
	v, ok := decimal(ver)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a version number", ErrVersion, ver)
	}
	if v < MinVersion || v > Version {
		return nil, fmt.Errorf("%w: the file is version %d, this reader knows versions %d to %d", ErrVersion, v, MinVersion, Version)
	}

	// Then the lines up to the empty one, and the checksum over them.
	lines := []string{first}
	size := len(first)
	for {
		s, err := readLine(r, maxHeader-size)
		size += len(s)
		if err == errLong {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%w: header ends without an empty line, after line %d", ErrTruncated, len(lines))
		}
		if s == "\n" {
			break
		}
		for i := 0; i < len(s)-1; i++ { // the header is printable ASCII (docs/FORMAT.md)
			if s[i] < 0x20 || s[i] > 0x7e {
				return nil, fmt.Errorf("%w: line %d holds byte 0x%02x; a header is printable ASCII", ErrHeader, len(lines)+1, s[i])
			}
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
	h, err := parseFields(int(v), lines)
	if err != nil {
		return nil, err
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	if h.PayloadBytes > h.maxPayload() {
		return nil, fmt.Errorf("%w: payload-bytes %d is more than %d entries can compress to", ErrHeader, h.PayloadBytes, h.Entries)
	}
	if h.DecodedBytes() > MaxRatio*max(h.PayloadBytes, 1) {
		return nil, fmt.Errorf("%w: payload-bytes %d cannot hold the %d bytes of %d entries that the header claims (more than %d:1; tables compress at most about 40:1)",
			ErrHeader, h.PayloadBytes, h.DecodedBytes(), h.Entries, MaxRatio)
	}
	return h, nil
}

// parseFields reads the fields of a header whose checksum is right, in their fixed order.
func parseFields(v int, lines []string) (*Header, error) {
	h := &Header{Version: v}
	line := 1
	var err error
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
		n, ok := decimal(val)
		if !ok {
			return 0, fmt.Errorf("%w: line %d: %s %q is not a count in plain decimal", ErrHeader, line, key, truncate(val, 24))
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
		if err != nil || len(b) != 32 || val != strings.ToLower(val) {
			return out, fmt.Errorf("%w: line %d: %s is not 64 lowercase hex digits", ErrHeader, line, key)
		}
		copy(out[:], b)
		return out, nil
	}
	numbers := func(key, val string) ([]int, error) {
		var out []int
		for _, w := range strings.Split(val, " ") {
			n, ok := decimal(w)
			if !ok || n > board.MaxCells || len(out) == board.MaxCells {
				return nil, fmt.Errorf("%w: line %d: %s %q is not numbers in plain decimal separated by single spaces", ErrHeader, line, key, truncate(val, 40))
			}
			out = append(out, int(n))
		}
		return out, nil
	}
	if h.Kind, err = field("kind"); err != nil {
		return nil, err
	}
	sizeText, err := field("board")
	if err != nil {
		return nil, err
	}
	if h.Size, err = board.ParseSize(sizeText); err != nil || h.Size.String() != sizeText {
		return nil, fmt.Errorf("%w: line %d: board %q is not WxH with each side 2 to 5", ErrHeader, line, truncate(sizeText, 24))
	}
	goalText, err := field("goal")
	if err != nil {
		return nil, err
	}
	goal, err := numbers("goal", goalText)
	if err != nil {
		return nil, err
	}
	if h.Goal, err = board.FromInts(h.Size, goal); err != nil {
		return nil, fmt.Errorf("%w: line %d: goal: %v", ErrHeader, line, err)
	}
	if h.Kind == KindPDB {
		tilesText, err := field("tiles")
		if err != nil {
			return nil, err
		}
		if h.Tiles, err = numbers("tiles", tilesText); err != nil {
			return nil, err
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
			return nil, fmt.Errorf("%w: line %d: blank-in-index %q is neither yes nor no", ErrHeader, line, truncate(blank, 24))
		}
	}
	if h.Kind == KindPrune {
		depth, err := num("depth")
		if err != nil {
			return nil, err
		}
		h.Depth = int(min(depth, MaxPruneDepth+1))
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
	if h.Encoding == EncodingHalfExcess {
		if h.Escapes, err = num("escapes"); err != nil {
			return nil, err
		}
		if h.Mirror, err = field("mirror"); err != nil {
			return nil, err
		}
	}
	if h.Compression, err = field("compression"); err != nil {
		return nil, err
	}
	if v >= 2 {
		if h.FrameBytes, err = num("frame-bytes"); err != nil {
			return nil, err
		}
	}
	if h.PayloadBytes, err = num("payload-bytes"); err != nil {
		return nil, err
	}
	if h.Generator, err = field("generator"); err != nil {
		return nil, err
	}
	if v >= 2 {
		if h.DecodedSHA, err = sum("decoded-sha256"); err != nil {
			return nil, err
		}
		if h.PayloadSHA, err = sum("payload-sha256"); err != nil {
			return nil, err
		}
	} else if h.DecodedSHA, err = sum("entries-sha256"); err != nil {
		return nil, err
	}
	if h.HeaderSHA, err = sum("header-sha256"); err != nil {
		return nil, err
	}
	if line != len(lines) {
		return nil, fmt.Errorf("%w: unexpected line %d %q", ErrHeader, line, truncate(lines[line], 40))
	}
	return h, nil
}

// decimal reads a number written as docs/FORMAT.md requires: decimal digits, no sign, no
// leading zero, below 2^62.
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > 18 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
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
