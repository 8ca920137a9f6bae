package export

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// states are three positions whose values the readers print.
var states = []string{
	"1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12",
	"15 14 8 12 10 11 9 13 2 6 5 1 3 7 4 0",
	"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0",
}

// The exported values are the table's, decoded through its mirror; the C and the Python
// reference readers, each given the export alone, print the same values for three states
// as the toolkit's own lookup, and the histogram pdbgen info reports.
func TestReadersAgree(t *testing.T) {
	dir := t.TempDir()
	// The 6-tile table of 6-6-3, stored through the rows mirror; and IDA15's table with the
	// blank in its index.
	for _, name := range []string{"pdb-4x4-1-5-6-9-10-13.tbl", data.PDBSmall} {
		raw, err := data.Embedded(name)
		require.NoError(t, err)
		f, err := tablefile.Decode(bytes.NewReader(raw))
		require.NoError(t, err)
		out := filepath.Join(dir, name+".raw")
		side, err := Raw(context.Background(), f, out, 2)
		require.NoError(t, err)
		assert.Equal(t, f.Header.Entries, side.Entries)

		// What the readers must print: the toolkit's lookups and info's histogram.
		var want strings.Builder
		lookup := tableLookup(t, f)
		for _, s := range states {
			st, err := board.Parse(board.Size4x4, s)
			require.NoError(t, err)
			fmt.Fprintf(&want, "value %s: %d\n", s, lookup(st))
		}
		info, err := pdb.Describe(context.Background(), name, f, 0)
		require.NoError(t, err)
		for d, c := range info.Histogram {
			if c > 0 {
				fmt.Fprintf(&want, "histogram %d %d\n", d, c)
			}
		}
		for _, reader := range readers(t, dir) {
			got, err := exec.Command(reader[0], append(reader[1:], append([]string{out}, states...)...)...).CombinedOutput()
			require.NoError(t, err, "%v: %s", reader, got)
			assert.Equal(t, want.String(), string(got), "%v on %s", reader, name)
		}
	}
}

// tableLookup returns the value of a state in the table file f, as the toolkit reads it.
func tableLookup(t *testing.T, f *tablefile.Table) func(board.State) int {
	if f.Encoding == tablefile.EncodingHalfExcess {
		p, err := pdb.LoadPacked(f)
		require.NoError(t, err)
		return p.Lookup
	}
	p, err := pdb.Load(f)
	require.NoError(t, err)
	return p.Lookup
}

// readers returns the command lines of the reference readers: the C one compiled with cc,
// and the Python one. A missing compiler or interpreter skips the test, unless CI asks
// for every test (TILEKIT_E2E=require).
func readers(t *testing.T, dir string) [][]string {
	var out [][]string
	bin := filepath.Join(dir, "pdbread")
	if cc, err := exec.LookPath("cc"); err == nil {
		msg, err := exec.Command(cc, "-O2", "-Wall", "-Werror", "-o", bin, filepath.Join("..", "examples", "c", "pdbread.c")).CombinedOutput()
		require.NoError(t, err, "compiling the C reader: %s", msg)
		out = append(out, []string{bin})
	} else if os.Getenv("TILEKIT_E2E") == "require" {
		t.Fatal("no C compiler (cc) for the reference reader")
	}
	if py, err := exec.LookPath("python3"); err == nil {
		out = append(out, []string{py, filepath.Join("..", "examples", "python", "pdbread.py")})
	} else if os.Getenv("TILEKIT_E2E") == "require" {
		t.Fatal("no python3 for the reference reader")
	}
	if len(out) == 0 {
		t.Skip("neither cc nor python3 here")
	}
	return out
}

// A packed table's values are those of the raw table it was packed from.
func TestValuesOfPacked(t *testing.T) {
	p, err := pdb.Set555.Pattern(2)
	require.NoError(t, err)
	raw, err := pdb.Build(context.Background(), p, pdb.Options{})
	require.NoError(t, err)
	packed, err := pdb.Pack(context.Background(), raw)
	require.NoError(t, err)
	f, err := packed.File()
	require.NoError(t, err)
	got, err := Values(context.Background(), f, 2)
	require.NoError(t, err)
	assert.Equal(t, raw.Entries, got)
}

// A table in the bit encoding holds no values to export: refused, not written empty.
func TestBitTableRefused(t *testing.T) {
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	p, err := pdb.NewPattern(goal, []int{1, 2, 3}, false)
	require.NoError(t, err)
	z, err := pdb.ZeroAware(context.Background(), p, pdb.Options{})
	require.NoError(t, err)
	b, err := z.ToBits(context.Background(), 0)
	require.NoError(t, err)
	f, err := b.File()
	require.NoError(t, err)
	_, err = Values(context.Background(), f, 0)
	assert.ErrorContains(t, err, "bit encoding")
}
