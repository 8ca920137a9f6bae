package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/zindex"
)

// states are three positions whose values the readers print.
var states = []string{
	"1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12",
	"15 14 8 12 10 11 9 13 2 6 5 1 3 7 4 0",
	"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0",
	// Tiles 5 and 6 wall off the corner where the blank is: its region is not the first.
	"1 2 3 4 15 7 8 9 10 11 12 5 13 14 6 0",
}

// The exported values are the table's, decoded through its mirror; the C and the Python
// reference readers, each given the export alone, print the same values for three states
// as the toolkit's own lookup, and the histogram pdbgen info reports.
func TestReadersAgree(t *testing.T) {
	dir := t.TempDir()
	// The 6-tile table of 6-6-3, stored through the rows mirror; IDA15's table with the
	// blank in its index; and a zero-aware table.
	tables := map[string]*tablefile.Table{}
	for _, name := range []string{"pdb-4x4-1-5-6-9-10-13.tbl", data.PDBSmall} {
		raw, err := data.Embedded(name)
		require.NoError(t, err)
		tables[name], err = tablefile.Decode(bytes.NewReader(raw))
		require.NoError(t, err)
	}
	p, err := pdb.NewPattern(board.BlankLast(board.Size4x4), []int{1, 2, 5, 6}, false)
	require.NoError(t, err)
	z, err := pdb.ZeroAware(context.Background(), p, pdb.Options{})
	require.NoError(t, err)
	tables["zpdb-4x4-1-2-5-6.tbl"], err = z.File()
	require.NoError(t, err)
	for name, f := range tables {
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

// The readers answer bad input with one line and exit status 1: states that are not
// states (out of range, repeated, too few or too many numbers), a table cut short, a
// sidecar that does not match its table. The C reader is built with the address sanitizer
// where the compiler has it, so that a write out of bounds fails the test too.
func TestReadersRefuseBadInput(t *testing.T) {
	dir := t.TempDir()
	good, values := exportSmall(t, dir)
	short := filepath.Join(dir, "short.raw")
	require.NoError(t, os.WriteFile(short, values[:1000], 0o644))
	side, err := os.ReadFile(good + ".json")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(short+".json", side, 0o644))
	huge := filepath.Join(dir, "huge.raw")
	require.NoError(t, os.WriteFile(huge, values, 0o644))
	require.NoError(t, os.WriteFile(huge+".json", bytes.Replace(side, []byte(`"entries":`), []byte(`"entries":4000000000000000000,"x":`), 1), 0o644))
	badTiles := filepath.Join(dir, "tiles.raw")
	require.NoError(t, os.WriteFile(badTiles, values, 0o644))
	require.NoError(t, os.WriteFile(badTiles+".json", bytes.Replace(side, []byte(`"tiles":[`), []byte(`"tiles":[100000000,`), 1), 0o644))
	cases := [][]string{
		{good, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 100000000"},
		{good, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 99"},
		{good, "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"},
		{good, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"},
		{good, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 16"},
		{good, "1 2 3 x"},
		{short},
		{huge},
		{badTiles},
		{filepath.Join(dir, "missing.raw")},
	}
	rs := readers(t, dir)
	if asan := sanitizedReader(t, dir); asan != nil {
		rs = append(rs, asan)
	}
	for _, reader := range rs {
		for _, args := range cases {
			cmd := exec.Command(reader[0], append(reader[1:], args...)...)
			cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0") // leaks at exit are harmless
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%v %q", reader, args)
			assert.Equal(t, 1, exit.ExitCode(), "%v %q: %s", reader, args, stderr.String())
			msg := strings.TrimSpace(stderr.String())
			assert.True(t, strings.HasPrefix(msg, "pdbread: ") && !strings.Contains(msg, "\n"), "%v %q: %s", reader, args, msg)
		}
	}
}

// A table that holds no values (a pruning automaton) has no raw form: refused, with
// nothing written.
func TestAutomatonRefused(t *testing.T) {
	a, err := prune.Build(context.Background(), board.Size{W: 3, H: 3}, 6)
	require.NoError(t, err)
	f, err := a.File()
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "fsm.raw")
	_, err = Raw(context.Background(), f, out, 1)
	assert.ErrorContains(t, err, "no raw form")
	assert.NoFileExists(t, out)
}

// hostile makes n inputs that no reader should crash on: states of random tokens, and
// sidecars mutated at random (fields dropped, numbers wild, lists broken, text cut).
func hostile(n int, side []byte) (states []string, sides [][]byte) {
	rng := rand.New(rand.NewPCG(32, 32))
	tokens := []string{"0", "1", "15", "16", "-1", "-0", "99", "100000000", "99999999999999999999", "x", "1e3", "0x10", "/", ",", " ", "٣", "\t", "7"}
	for range n * 6 / 10 {
		var b strings.Builder
		for range rng.IntN(24) {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&b, "%d ", rng.IntN(20))
			} else {
				b.WriteString(tokens[rng.IntN(len(tokens))] + " ")
			}
		}
		states = append(states, b.String())
	}
	wild := []string{"-1", "0", "1", "25", "26", "4294967296", "9223372036854775807", "1e9", `"x"`, "null", "[]", "{}", "true"}
	fields := []string{"width", "height", "entries", "tiles", "blank_in_index", "zero_aware", "index", "kind", "sha256"}
	for len(sides) < n-len(states) {
		s := string(side)
		switch rng.IntN(4) {
		case 0: // a field's value replaced
			f := fields[rng.IntN(len(fields))]
			if i := strings.Index(s, `"`+f+`":`); i >= 0 {
				j := i + len(f) + 3
				end := strings.IndexAny(s[j:], ",}")
				if f == "tiles" {
					end = strings.Index(s[j:], "]") + 1
				}
				s = s[:j] + wild[rng.IntN(len(wild))] + s[j+end:]
			}
		case 1: // a field dropped
			f := fields[rng.IntN(len(fields))]
			s = strings.Replace(s, `"`+f+`":`, `"dropped`+f+`":`, 1)
		case 2: // the tiles broken
			s = strings.Replace(s, `"tiles":[`, `"tiles":[`+[]string{"1,1,", "0,", "16,", "-3,", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1,2,3,4,5,6,7,8,9,10,11,"}[rng.IntN(5)], 1)
		default: // the text cut short
			s = s[:rng.IntN(len(s))]
		}
		sides = append(sides, []byte(s))
	}
	return states, sides
}

// On 100 hostile inputs the readers print values or refuse with one line and exit 1:
// never a crash, a traceback, or (in the C reader built with the sanitizers) undefined
// behaviour, an access out of bounds or a leak; and the two readers agree on each: the
// same exit status and the same values printed.
func TestReadersOnHostileInput(t *testing.T) {
	dir := t.TempDir()
	good, values := exportSmall(t, dir)
	side, err := os.ReadFile(good + ".json")
	require.NoError(t, err)
	states, sides := hostile(40, side)
	var runs [][]string
	for _, s := range states {
		runs = append(runs, []string{good, s})
	}
	// And the sidecars a probe found the readers took wrong: 17 to 24 tiles on 5x5 (an
	// entry count past a long long), a negative width and height whose product is 16, a
	// sidecar nested too deep for a recursive parser.
	var sum struct {
		SHA256 string `json:"sha256"`
	}
	require.NoError(t, json.Unmarshal(side, &sum))
	for k := 17; k <= 24; k++ {
		tiles := make([]string, k)
		for i := range tiles {
			tiles[i] = strconv.Itoa(i + 1)
		}
		for _, index := range []string{`"kperm-v1","zero_aware":false`, `"zperm-v1","zero_aware":true`} {
			sides = append(sides, fmt.Appendf(nil, `{"kind":"pdb","width":5,"height":5,"tiles":[%s],"blank_in_index":false,"index":%s,"entries":%d,"sha256":"%s"}`,
				strings.Join(tiles, ","), index, len(values), sum.SHA256))
		}
	}
	sides = append(sides, []byte(strings.Replace(strings.Replace(string(side), `"width":4`, `"width":-4`, 1), `"height":4`, `"height":-4`, 1)))
	sides = append(sides, []byte(`{"kind":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`))
	// And the sidecars of issue 60: the tiles given twice (the C reader took the first, the
	// Python one the last), the fields nested in another object (the C reader found them
	// there), 12 tiles of a zero-aware index on 5x5 (the Python reader counted its regions
	// for a minute before it refused), what JSON does not allow (NaN, a leading zero, text
	// after the object, an unknown escape) or this reader does not (beyond ASCII), and
	// escapes that are JSON, in values and keys (both take them, and see a key given twice).
	text := string(side)
	twelve := `{"kind":"pdb","width":5,"height":5,"tiles":[1,2,3,4,5,6,7,8,9,10,11,12],"blank_in_index":false,"index":"zperm-v1","zero_aware":true,"entries":%d,"sha256":"%s"}`
	sides = append(sides,
		[]byte(strings.Replace(text, `"tiles":[`, `"tiles":[4,5,6],"tiles":[`, 1)),
		[]byte(strings.Replace(strings.Replace(text, `"tiles":[`, `"nested":{"tiles":[`, 1), `],"blank_in_index"`, `]},"blank_in_index"`, 1)),
		fmt.Appendf(nil, twelve, len(values), sum.SHA256),
		fmt.Appendf(nil, twelve, int64(1)<<52, sum.SHA256),
		[]byte(strings.Replace(text, `"width":4`, `"width":NaN`, 1)),
		[]byte(strings.Replace(text, `"width":4`, `"width":04`, 1)),
		[]byte(strings.Replace(text, `"width":4`, `"width":4.0`, 1)),
		[]byte(text+` {}`),
		[]byte(strings.Replace(text, `"kind":"pdb"`, `"kind":"p\q"`, 1)),
		[]byte(strings.Replace(text, `"kind":"pdb"`, `"kind":"pdb","note":"é"`, 1)),
		[]byte(strings.Replace(text, `"kind":"pdb"`, `"kind":"p\u0064b","note":"\"\\\/\b\f\n\r\t\u00e9"`, 1)),
		[]byte(strings.Replace(text, `"kind":"pdb"`, `"\u006bind":"pdb"`, 1)),
		[]byte(strings.Replace(text, `"tiles":[`, `"\u0074iles":[4,5,6],"tiles":[`, 1)),
		[]byte(strings.Replace(text, `"zero_aware":false`, `"zero_aware":0`, 1)),
		[]byte(strings.Replace(text, `"blank_in_index":false,`, ``, 1)),
		[]byte(strings.Replace(text, `"tiles":[1,2,3]`, `"tiles":[]`, 1)),
	)
	for i, s := range sides {
		path := filepath.Join(dir, fmt.Sprintf("side%d.raw", i))
		require.NoError(t, os.WriteFile(path, values, 0o644))
		require.NoError(t, os.WriteFile(path+".json", s, 0o644))
		runs = append(runs, []string{path, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"})
	}
	// And values damaged under a good sidecar: one byte flipped.
	flipped := filepath.Join(dir, "flipped.raw")
	damaged := slices.Clone(values)
	damaged[len(damaged)/2] ^= 0x10
	require.NoError(t, os.WriteFile(flipped, damaged, 0o644))
	require.NoError(t, os.WriteFile(flipped+".json", side, 0o644))
	runs = append(runs, []string{flipped, states[0]})
	var rs [][]string
	for _, r := range readers(t, dir) {
		if !strings.HasSuffix(r[0], "pdbread") { // the C reader is taken with the sanitizers
			rs = append(rs, r)
		}
	}
	if asan := sanitizedReader(t, dir); asan != nil {
		rs = append(rs, asan)
	}
	// The runs are independent: a few at a time (most of a run is the interpreter's start).
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	type outcome struct {
		code   int
		stdout string
	}
	got := make([][]outcome, len(rs))
	for ri, reader := range rs {
		got[ri] = make([]outcome, len(runs))
		for ai, args := range runs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				cmd := exec.Command(reader[0], append(reader[1:], args...)...)
				// Sanitizer findings exit 86, not 1, so that they cannot pass for a refusal.
				cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:exitcode=86", "UBSAN_OPTIONS=halt_on_error=1:exitcode=86")
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					code = exit.ExitCode()
				} else if !assert.NoError(t, err) {
					return
				}
				msg := strings.TrimSpace(stderr.String())
				got[ri][ai] = outcome{code, stdout.String()}
				if args[0] == flipped {
					assert.Equal(t, 1, code, "%v: damaged values refused: %s", reader, msg)
				}
				switch code {
				case 0:
					assert.Empty(t, msg, "%v %q", reader, args)
				case 1:
					assert.True(t, strings.HasPrefix(msg, "pdbread: ") && !strings.Contains(msg, "\n"), "%v %q: %s", reader, args, msg)
				default:
					t.Errorf("%v %q: exit %d: %s", reader, args, code, msg)
				}
			}()
		}
	}
	wg.Wait()
	for ri := 1; ri < len(rs); ri++ {
		for ai, args := range runs {
			side, _ := os.ReadFile(args[0] + ".json")
			assert.Equal(t, got[0][ai], got[ri][ai], "%v and %v on %q, sidecar %.200s", rs[0], rs[ri], args, side)
		}
	}
	agreed := 0
	for ai := range runs {
		if got[0][ai].code == 0 {
			agreed++
		}
	}
	assert.Positive(t, agreed, "some inputs read")
}

// A sidecar or a table that is a FIFO (or another file that is not a regular one, whose
// read could block) is refused at once by both readers, not waited on.
func TestReadersRefuseFIFOs(t *testing.T) {
	dir := t.TempDir()
	good, values := exportSmall(t, dir)
	side, err := os.ReadFile(good + ".json")
	require.NoError(t, err)
	fifoSide := filepath.Join(dir, "fifoside.raw")
	require.NoError(t, os.WriteFile(fifoSide, values, 0o644))
	require.NoError(t, syscall.Mkfifo(fifoSide+".json", 0o644))
	fifoRaw := filepath.Join(dir, "fiforaw.raw")
	require.NoError(t, syscall.Mkfifo(fifoRaw, 0o644))
	require.NoError(t, os.WriteFile(fifoRaw+".json", side, 0o644))
	for _, reader := range readers(t, dir) {
		for _, path := range []string{fifoSide, fifoRaw, dir} {
			// A reader that waits on the FIFO is killed well after a refusal's time.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, reader[0], append(reader[1:], path)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			cancel()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%v %s", reader, path)
			assert.Equal(t, 1, exit.ExitCode(), "%v %s: %s", reader, path, stderr.String())
			assert.True(t, strings.HasPrefix(stderr.String(), "pdbread: "), "%v %s: %s", reader, path, stderr.String())
		}
	}
}

// sanitizedReader builds the C reader with the address and undefined-behaviour sanitizers,
// where the compiler has them, and returns its command line (nil otherwise).
func sanitizedReader(t *testing.T, dir string) []string {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return nil
	}
	asan := filepath.Join(dir, "pdbread-asan")
	if exec.Command(cc, "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", asan, filepath.Join("..", "examples", "c", "pdbread.c")).Run() != nil {
		return nil
	}
	return []string{asan}
}

// On every entry of a small zero-aware table (3x3, tiles 1, 2 and 3: 744 entries), both
// readers compute the zperm-v1 index of a state of that entry and print the exported
// value there.
func TestReadersIndexEveryZeroAwareEntry(t *testing.T) {
	dir := t.TempDir()
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	p, err := pdb.NewPattern(goal, []int{1, 2, 3}, false)
	require.NoError(t, err)
	z, err := pdb.ZeroAware(context.Background(), p, pdb.Options{})
	require.NoError(t, err)
	f, err := z.File()
	require.NoError(t, err)
	out := filepath.Join(dir, "z.raw")
	side, err := Raw(context.Background(), f, out, 1)
	require.NoError(t, err)
	require.True(t, side.ZeroAware)
	values, err := os.ReadFile(out)
	require.NoError(t, err)
	scheme, err := zindex.For(goal.Size(), 3)
	require.NoError(t, err)
	require.EqualValues(t, scheme.Entries(), len(values))
	// A state of each entry: the tiles on its cells, the blank in its region, the others
	// anywhere.
	var states []string
	cells := make([]uint8, 3)
	for i := range len(values) {
		m, region := scheme.Unrank(uint32(i), cells)
		state := make([]int, 9)
		for c := range state {
			state[c] = -1
		}
		for k, c := range cells {
			state[c] = k + 1
		}
		for c := range state {
			if state[c] < 0 && int(scheme.Region(m, c)) == region {
				state[c] = 0
				break
			}
		}
		next := 4
		for c := range state {
			if state[c] < 0 {
				state[c], next = next, next+1
			}
		}
		states = append(states, strings.Trim(fmt.Sprint(state), "[]"))
	}
	for _, reader := range readers(t, dir) {
		got, err := exec.Command(reader[0], append(reader[1:], append([]string{out}, states...)...)...).Output()
		require.NoError(t, err, "%v", reader)
		lines := strings.Split(strings.TrimSpace(string(got)), "\n")
		require.GreaterOrEqual(t, len(lines), len(states), "%v", reader)
		for i, s := range states {
			assert.Equal(t, fmt.Sprintf("value %s: %d", s, values[i]), lines[i], "%v, entry %d", reader, i)
		}
	}
}

// exportSmall exports a table of tiles 1, 2 and 3 of the 4x4 board (3,360 entries) to
// dir/good.raw and returns its path and values: the readers' tests run them hundreds of
// times, and a reader reads and hashes the whole table before it looks at a state.
func exportSmall(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	p, err := pdb.NewPattern(board.BlankLast(board.Size4x4), []int{1, 2, 3}, false)
	require.NoError(t, err)
	tab, err := pdb.Build(context.Background(), p, pdb.Options{})
	require.NoError(t, err)
	f, err := tab.File()
	require.NoError(t, err)
	good := filepath.Join(dir, "good.raw")
	_, err = Raw(context.Background(), f, good, 2)
	require.NoError(t, err)
	values, err := os.ReadFile(good)
	require.NoError(t, err)
	require.Len(t, values, 16*15*14)
	return good, values
}

// TestEveryKind exports one table of each kind pdbgen builds: the sidecar of each table
// of values says its kind, index scheme (tablefile's declaration: zero-aware or not, the
// formula), goal and entries, and the raw bytes are its exact values; the kinds with no
// values (an automaton, the bit encoding) are refused and nothing is written.
func TestEveryKind(t *testing.T) {
	ctx := context.Background()
	embedded := func(name string) *tablefile.Table {
		raw, err := data.Embedded(name)
		require.NoError(t, err)
		f, err := tablefile.Decode(bytes.NewReader(raw))
		require.NoError(t, err)
		return f
	}
	three := board.BlankLast(board.Size{W: 3, H: 3})
	p, err := pdb.NewPattern(three, []int{1, 2, 3, 4}, false)
	require.NoError(t, err)
	plain, err := pdb.Build(ctx, p, pdb.Options{})
	require.NoError(t, err)
	packed, err := pdb.Pack(ctx, plain)
	require.NoError(t, err)
	zero, err := pdb.ZeroAware(ctx, p, pdb.Options{})
	require.NoError(t, err)
	bits, err := zero.ToBits(ctx, 0)
	require.NoError(t, err)
	fsm, err := prune.Build(ctx, three.Size(), 6)
	require.NoError(t, err)
	file := func(f interface {
		File() (*tablefile.Table, error)
	}) *tablefile.Table {
		tab, err := f.File()
		require.NoError(t, err)
		return tab
	}
	for _, tc := range []struct {
		name    string
		table   *tablefile.Table
		refused string // what the refusal says; "" for a table exported
	}{
		{"walking distance", embedded(data.WDBlankLast), ""},
		{"IDA15, the blank in the index", embedded(data.PDBSmall), ""},
		{"a pattern database", file(plain), ""},
		{"packed (half the excess)", file(packed), ""},
		{"zero-aware", file(zero), ""},
		{"zero-aware in bits", file(bits), "bit encoding"},
		{"an automaton", file(fsm), "no raw form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "table.raw")
			side, err := Raw(ctx, tc.table, out, 1)
			if tc.refused != "" {
				assert.ErrorContains(t, err, tc.refused)
				assert.NoFileExists(t, out)
				assert.NoFileExists(t, out+".json")
				return
			}
			require.NoError(t, err)
			scheme, ok := tablefile.SchemeOf(tc.table.Index)
			require.True(t, ok)
			assert.Equal(t, tc.table.Kind, side.Kind)
			assert.Equal(t, tc.table.Index, side.Index)
			assert.Equal(t, scheme.ZeroAware, side.ZeroAware)
			assert.Equal(t, scheme.Formula, side.IndexFormula)
			assert.NotEmpty(t, side.IndexFormula)
			assert.Equal(t, tc.table.Header.Entries, side.Entries)
			assert.Len(t, side.Goal, tc.table.Size.Cells())
			raw, err := os.ReadFile(out)
			require.NoError(t, err)
			want, err := Values(ctx, tc.table, 1)
			require.NoError(t, err)
			assert.Equal(t, want, raw)
			var back Sidecar
			b, err := os.ReadFile(out + ".json")
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, *side, back)
		})
	}
}
