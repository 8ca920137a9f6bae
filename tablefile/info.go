package tablefile

import (
	"fmt"
	"io"
	"os"

	"github.com/tilekit/tilekit/internal/format"
)

// Info describes a table file for people and scripts: what pdbgen info prints, and what
// the commands that write tables report.
type Info struct {
	File         string  `json:"file"`
	Kind         string  `json:"kind"`
	Width        int     `json:"width"`
	Height       int     `json:"height"`
	Goal         []int   `json:"goal"`
	GoalName     string  `json:"goal_name"`
	Tiles        []int   `json:"tiles,omitempty"`
	BlankInIndex *bool   `json:"blank_in_index,omitempty"`
	Version      int     `json:"version"`
	Index        string  `json:"index"`
	ZeroAware    bool    `json:"zero_aware"`    // the index's (Scheme)
	IndexFormula string  `json:"index_formula"` // the index in one line (Scheme)
	Entries      int64   `json:"entries"`
	Bits         int     `json:"bits"`
	Encoding     string  `json:"encoding"`
	Compression  string  `json:"compression"`
	FrameBytes   int64   `json:"frame_bytes,omitempty"`
	PayloadBytes int64   `json:"payload_bytes"`
	FileBytes    int64   `json:"file_bytes"`
	Generator    string  `json:"generator"`
	DecodedSHA   string  `json:"decoded_sha256"`
	PayloadSHA   string  `json:"payload_sha256,omitempty"`
	Max          int     `json:"max"`
	Mean         float64 `json:"mean"`
	Histogram    []int64 `json:"histogram"` // element d: the entries whose value is d
	// StoredHistogram counts the stored symbols when they are not the values: for the
	// half-excess encoding, the nibbles (half the excess over the Manhattan distance; 15
	// for an escape).
	StoredHistogram []int64 `json:"stored_histogram,omitempty"`
	Escapes         *int64  `json:"escapes,omitempty"` // half-excess: entries in the escape list
	// A prune table's automaton: its states (four entries each) and the depth of the
	// search for duplicates it was built from.
	States *int64 `json:"states,omitempty"`
	Depth  *int   `json:"depth,omitempty"`
}

// Describe describes t, read from (or written to) path; FileBytes is the size of the file
// at path, 0 when there is none.
func Describe(path string, t *Table) Info {
	info := Info{
		File: path, Kind: t.Kind, Width: t.Size.W, Height: t.Size.H,
		Version: t.Version, Index: t.Index, Entries: t.Header.Entries, Bits: t.Bits, Encoding: t.Encoding,
		Compression: t.Compression, FrameBytes: t.FrameBytes, PayloadBytes: t.PayloadBytes, Generator: t.Generator,
		DecodedSHA: fmt.Sprintf("%x", t.DecodedSHA), Histogram: t.Histogram(),
	}
	if t.Version >= 2 {
		info.PayloadSHA = fmt.Sprintf("%x", t.PayloadSHA)
	}
	if s, ok := SchemeOf(t.Index); ok {
		info.ZeroAware, info.IndexFormula = s.ZeroAware, s.Formula
	}
	for _, v := range t.Goal {
		info.Goal = append(info.Goal, int(v))
	}
	if g, err := t.GoalOf(); err == nil {
		info.GoalName = g.Name()
	}
	if t.Encoding == EncodingHalfExcess {
		e := t.Header.Escapes
		info.Escapes = &e
	}
	if t.Kind == KindPDB {
		info.Tiles = t.Tiles
		b := t.BlankInIndex
		info.BlankInIndex = &b
	}
	if st, err := os.Stat(path); err == nil {
		info.FileBytes = st.Size()
	}
	if t.Kind == KindPrune {
		states, depth := t.Header.Entries/4, t.Depth
		info.States, info.Depth, info.Histogram = &states, &depth, nil
		return info
	}
	info.Max, info.Mean = stats(info.Histogram, info.Entries)
	if t.Encoding == EncodingBit { // the bits are not values: a search recovers those
		info.StoredHistogram, info.Histogram, info.Max, info.Mean = info.Histogram, nil, 0, 0
	}
	return info
}

// SetDistances gives the description the histogram of the values, hist, when the stored
// symbols are not the values (the half-excess encoding): Histogram becomes the values',
// StoredHistogram the symbols', and Max and Mean follow the values.
func (i *Info) SetDistances(hist []int64) {
	i.StoredHistogram, i.Histogram = i.Histogram, hist
	i.Max, i.Mean = stats(hist, i.Entries)
}

// stats returns the largest value of a histogram and its mean over entries.
func stats(hist []int64, entries int64) (int, float64) {
	top := 0
	var sum float64
	for d, c := range hist {
		sum += float64(d) * float64(c)
		if c > 0 {
			top = d
		}
	}
	if entries == 0 {
		return top, 0
	}
	return top, sum / float64(entries)
}

// WriteText writes the description for people: the header, then the histogram.
func (i Info) WriteText(w io.Writer) {
	if i.Kind == KindPrune {
		fmt.Fprintf(w, "%s: %s table, %dx%d board, any goal\n", i.File, i.Kind, i.Width, i.Height)
	} else {
		fmt.Fprintf(w, "%s: %s table, %dx%d board, goal %s\n", i.File, i.Kind, i.Width, i.Height, i.GoalName)
	}
	if i.Kind == KindPDB {
		blank := " (blank not in index)"
		if *i.BlankInIndex {
			blank = " + blank"
		}
		fmt.Fprintf(w, "  pattern:   tiles %s%s\n", format.Ints(i.Tiles, ","), blank)
	}
	bits := fmt.Sprintf("%d bits", i.Bits)
	if i.Bits == 1 {
		bits = "1 bit"
	}
	index := i.Index
	if i.ZeroAware {
		index += ", zero-aware"
	}
	fmt.Fprintf(w, "  entries:   %d (%s, %s encoding, index %s)\n", i.Entries, bits, i.Encoding, index)
	fmt.Fprintf(w, "  size:      %d bytes (format version %d, %s payload %d bytes)\n", i.FileBytes, i.Version, i.Compression, i.PayloadBytes)
	fmt.Fprintf(w, "  generator: %s\n", i.Generator)
	fmt.Fprintf(w, "  sha256:    %s (decoded payload)\n", i.DecodedSHA)
	if i.Kind == KindPrune && i.States != nil && i.Depth != nil {
		fmt.Fprintf(w, "  automaton: %d states, built from the duplicate strings of up to %d blank moves; entry 4s+d is the state after move d (U, D, L, R) from state s\n", *i.States, *i.Depth)
		return
	}
	if i.Encoding == EncodingHalfExcess {
		fmt.Fprintf(w, "  stored:    half the excess over the Manhattan distance; %d escapes\n", *i.Escapes)
	}
	if i.Encoding == EncodingBit {
		var zeros, ones int64
		if len(i.StoredHistogram) == 2 {
			zeros, ones = i.StoredHistogram[0], i.StoredHistogram[1]
		}
		fmt.Fprintf(w, "  stored:    one bit an entry, (value / 2) mod 2: %d zeros, %d ones; a search reads the values through their neighbours'\n", zeros, ones)
		return
	}
	if i.Encoding == EncodingHalfExcess && i.StoredHistogram == nil {
		fmt.Fprintf(w, "  excess/2:  max %d, mean %.3f\n", i.Max, i.Mean)
	} else {
		fmt.Fprintf(w, "  values:    max %d, mean %.3f\n", i.Max, i.Mean)
	}
	fmt.Fprintf(w, "  histogram:")
	for d, c := range i.Histogram {
		if d%6 == 0 {
			fmt.Fprintf(w, "\n   ")
		}
		fmt.Fprintf(w, " %2d:%-10d", d, c)
	}
	fmt.Fprintln(w)
}

// Summary describes the table in one line: "pdb 1,2,5,6+blank 4x4 blank-last, 524160
// entries, max 20, 12345 bytes".
func (i Info) Summary() string {
	kind := i.Kind
	if kind == KindPDB {
		kind = "pdb " + format.Ints(i.Tiles, ",")
		if *i.BlankInIndex {
			kind += "+blank"
		}
	}
	if i.Kind == KindPrune && i.States != nil && i.Depth != nil {
		return fmt.Sprintf("prune %dx%d depth %d, %d states, %d bytes", i.Width, i.Height, *i.Depth, *i.States, i.FileBytes)
	}
	if i.Encoding == EncodingBit {
		return fmt.Sprintf("%s %dx%d %s, %d entries in bits, %d bytes", kind, i.Width, i.Height, i.GoalName, i.Entries, i.FileBytes)
	}
	if i.Encoding == EncodingHalfExcess && i.StoredHistogram == nil { // Max is not a value
		return fmt.Sprintf("%s %dx%d %s, %d entries, %d escapes, %d bytes", kind, i.Width, i.Height, i.GoalName, i.Entries, *i.Escapes, i.FileBytes)
	}
	return fmt.Sprintf("%s %dx%d %s, %d entries, max %d, %d bytes", kind, i.Width, i.Height, i.GoalName, i.Entries, i.Max, i.FileBytes)
}
