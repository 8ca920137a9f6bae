package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/cmdline"
	"github.com/tilekit/tilekit/tablefile"
)

// tableInfo is what info prints, and what build and wd print about the files they write.
type tableInfo struct {
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
	Histogram    []int64 `json:"histogram"`
	Escapes      *int64  `json:"escapes,omitempty"` // half-excess: entries in the escape list
}

func describe(path string, t *tablefile.Table) tableInfo {
	info := tableInfo{
		File: path, Kind: t.Kind, Width: t.Size.W, Height: t.Size.H,
		Version: t.Version, Index: t.Index, Entries: t.Header.Entries, Bits: t.Bits, Encoding: t.Encoding,
		Compression: t.Compression, FrameBytes: t.FrameBytes, PayloadBytes: t.PayloadBytes, Generator: t.Generator,
		DecodedSHA: fmt.Sprintf("%x", t.DecodedSHA), Histogram: t.Histogram(),
	}
	if t.Version >= 2 {
		info.PayloadSHA = fmt.Sprintf("%x", t.PayloadSHA)
	}
	for _, v := range t.Goal {
		info.Goal = append(info.Goal, int(v))
	}
	if g, err := t.GoalOf(); err == nil {
		info.GoalName = g.Name()
	}
	if t.Encoding == tablefile.EncodingHalfExcess {
		e := t.Header.Escapes
		info.Escapes = &e
	}
	if t.Kind == tablefile.KindPDB {
		info.Tiles = t.Tiles
		b := t.BlankInIndex
		info.BlankInIndex = &b
	}
	if st, err := os.Stat(path); err == nil {
		info.FileBytes = st.Size()
	}
	var sum float64
	for d, c := range info.Histogram {
		sum += float64(d) * float64(c)
		if c > 0 {
			info.Max = d
		}
	}
	if info.Entries > 0 {
		info.Mean = sum / float64(info.Entries)
	}
	return info
}

func (i tableInfo) print(w io.Writer) {
	fmt.Fprintf(w, "%s: %s table, %dx%d board, goal %s\n", i.File, i.Kind, i.Width, i.Height, i.GoalName)
	if i.Kind == tablefile.KindPDB {
		blank := " (blank not in index)"
		if *i.BlankInIndex {
			blank = " + blank"
		}
		fmt.Fprintf(w, "  pattern:   tiles %s%s\n", joinInts(i.Tiles), blank)
	}
	fmt.Fprintf(w, "  entries:   %d (%d bits, %s encoding, index %s)\n", i.Entries, i.Bits, i.Encoding, i.Index)
	fmt.Fprintf(w, "  size:      %d bytes (format version %d, %s payload %d bytes)\n", i.FileBytes, i.Version, i.Compression, i.PayloadBytes)
	fmt.Fprintf(w, "  generator: %s\n", i.Generator)
	fmt.Fprintf(w, "  sha256:    %s (decoded payload)\n", i.DecodedSHA)
	if i.Encoding == tablefile.EncodingHalfExcess {
		fmt.Fprintf(w, "  stored:    half the excess over the Manhattan distance; %d escapes\n", *i.Escapes)
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

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func printInfo(c *cli.Context, info tableInfo) error {
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(info)
	}
	info.print(c.App.Writer)
	return nil
}

// checkOut verifies an --out path before a long build: "-" (standard output) must not be
// a terminal, and an existing file must be a regular file (or a link to one).
func checkOut(c *cli.Context, path string) error {
	if path == "-" {
		if cmdline.IsTerminal(c.App.Writer) {
			return cmdline.Usagef("--out -: standard output is a terminal; redirect it to a file")
		}
		return nil
	}
	if _, err := atomicfile.Target(path); err != nil {
		return cmdline.Usagef("--out: %v", err)
	}
	return nil
}

// writeTable writes f to path atomically (or to standard output for "-") and reports it:
// on standard output, or on standard error when the table went there.
func writeTable(c *cli.Context, path string, f *tablefile.Table) error {
	report := c.App.Writer
	if path == "-" {
		b, err := f.Marshal(c.Context)
		if err != nil {
			return err
		}
		if _, err := c.App.Writer.Write(b); err != nil {
			return fmt.Errorf("writing to standard output: %w", err)
		}
		report = c.App.ErrWriter
	} else if err := tablefile.Write(c.Context, path, f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	info := describe(path, f)
	if path == "-" {
		info.FileBytes = 0
	}
	if c.Bool("json") {
		return json.NewEncoder(report).Encode(info)
	}
	fmt.Fprintf(report, "wrote %s: %s %dx%d %s, %d entries, max %d, %d bytes\n",
		path, describeKind(info), info.Width, info.Height, info.GoalName, info.Entries, info.Max, info.FileBytes)
	return nil
}

func describeKind(i tableInfo) string {
	if i.Kind != tablefile.KindPDB {
		return i.Kind
	}
	s := "pdb " + joinInts(i.Tiles)
	if *i.BlankInIndex {
		s += "+blank"
	}
	return s
}

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe table files",
		UsageText: "pdbgen info [--json] FILE...",
		Description: `Reads each table file, checks its integrity (header and checksums), and prints
its header and the histogram of its values. With --json, one JSON object per
file and line, with the keys kind, width, height, goal, entries, histogram
(element d = number of entries whose value is d), max, mean, and for pattern
databases tiles and blank_in_index.

Examples:
  pdbgen info data/pdb-1-2-5-6+blank.tbl
  pdbgen info --json data/*.tbl`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON, one object per line"}},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cmdline.Usagef("info needs at least one FILE")
			}
			failed := 0
			for _, path := range c.Args().Slice() {
				t, err := tablefile.Read(path)
				if err != nil {
					fmt.Fprintf(c.App.ErrWriter, "pdbgen: %v\n", err)
					failed++
					continue
				}
				if err := printInfo(c, describe(path, t)); err != nil {
					return err
				}
			}
			if failed > 0 {
				return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%d of %d files could not be read", failed, c.NArg())}
			}
			return nil
		},
	}
}
