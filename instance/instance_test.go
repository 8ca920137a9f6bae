package instance

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instances"
)

func TestReadKorfFile(t *testing.T) {
	r := NewReader(strings.NewReader(instances.Text(instances.Korf100)), board.Size4x4)
	n, sum := 0, 0
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		n++
		sum += in.Optimal
		assert.Equal(t, "", in.ID)
	}
	assert.Equal(t, 100, n)
	assert.Equal(t, 5305, sum)
}

func TestParseLine(t *testing.T) {
	goal := "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"
	for _, tc := range []struct {
		text    string
		id      string
		optimal int
	}{
		{goal, "", -1},
		{"a1: " + goal, "a1", -1},
		{"a1 " + goal + " 0", "a1", 0},
		{goal + " 0", "", 0},
		{"7 " + goal, "7", -1},         // a numeric id: only that reading is valid
		{"7 " + goal + " 12", "7", 12}, // id and length
		{"1,2,3,4 - 5,6,7,8 - 9,10,11,12 - 13,14,15,0", "", -1},
		{"k24-01 " + goal + " 0", "k24-01", 0},
	} {
		in, err := ParseLine(board.Size4x4, tc.text)
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.id, in.ID, tc.text)
		assert.Equal(t, tc.optimal, in.Optimal, tc.text)
		assert.Equal(t, board.BlankLast(board.Size4x4).Tiles(), in.State, tc.text)
	}
}

func TestLineErrors(t *testing.T) {
	text := "1 2 3\n# comment\n\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15\n" +
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 # fine\n" + "x y 1 2\n"
	r := NewReader(strings.NewReader(text), board.Size4x4)
	var lines []int
	var errs []error
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			lines = append(lines, le.Line)
			errs = append(errs, err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, 5, in.Line)
	}
	assert.Equal(t, []int{1, 4, 6}, lines)
	assert.ErrorIs(t, errs[0], board.ErrCount)
	assert.ErrorIs(t, errs[1], board.ErrDuplicate)
	assert.Contains(t, errs[0].Error(), "line 1: ")
}

// A long line is one bad line, and the lines after it are still read (issue 10: the reader
// used to return the same error forever, and its caller kept appending it).
func TestLongLine(t *testing.T) {
	good := "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n"
	for _, long := range []string{
		strings.Repeat("7", 5000),
		strings.Repeat("1 ", 5000),
		strings.Repeat("x", MaxLine+1),
		strings.Repeat("\x00\xff", 100000),
	} {
		text := good + long + "\n" + good + long // the last line has no newline
		ins, errs := readAll(t, NewReader(strings.NewReader(text), board.Size4x4))
		assert.Len(t, ins, 2)
		require.Len(t, errs, 2)
		for i, err := range errs {
			var le *LineError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, 2+2*i, le.Line)
			assert.Contains(t, err.Error(), "longer than 4096 bytes")
		}
	}
	// A line of exactly MaxLine bytes is still a line.
	line := "a1 " + good[:len(good)-1]
	line = line + strings.Repeat(" ", MaxLine-len(line))
	ins, errs := readAll(t, NewReader(strings.NewReader(line+"\n"+line), board.Size4x4))
	assert.Len(t, ins, 2)
	assert.Empty(t, errs)
}

// A reader of endless garbage uses a bounded amount of memory and ends: MaxRun bytes
// without a newline (a device of zeros), or MaxBadRun bad lines in a row (of random bytes,
// with newlines), end the list with ErrNoList, after reading about that much; a long line
// below MaxRun followed by a state is one bad line, and the state is read.
func TestEndlessInputIsBounded(t *testing.T) {
	counted := &countingReader{r: zeros{}}
	r := NewReader(counted, board.Size4x4)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := r.Next()
	require.ErrorIs(t, err, ErrNoList)
	_, err = r.Next()
	require.ErrorIs(t, err, ErrNoList, "and stays ended")
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated to skip the line")
	assert.Less(t, counted.n, int64(2*MaxRun), "bytes read before it ends")

	rng := rand.New(rand.NewPCG(1, 1))
	garbage := &countingReader{r: readerFunc(func(p []byte) (int, error) {
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		return len(p), nil
	})}
	r = NewReader(garbage, board.Size4x4)
	bad := 0
	for {
		_, err := r.Next()
		var le *LineError
		if errors.As(err, &le) {
			bad++
			continue
		}
		require.ErrorIs(t, err, ErrNoList)
		break
	}
	assert.Equal(t, MaxBadRun, bad)
	assert.Less(t, garbage.n, int64(20<<20), "bytes read before it ends")

	long := strings.Repeat("1 ", MaxRun/4) + "\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n"
	ins, errs := readAll(t, NewReader(strings.NewReader(long), board.Size4x4))
	assert.Len(t, ins, 1)
	assert.Len(t, errs, 1)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type failing struct{ n int }

func (f *failing) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk on fire")
	}
	f.n = 0
	return copy(p, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n1 2"), nil
}

// A read error ends the list after the lines before it, and is not repeated as a line error.
func TestReadError(t *testing.T) {
	r := NewReader(&failing{1}, board.Size4x4)
	in, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, 1, in.Line)
	_, err = r.Next()
	var le *LineError
	require.ErrorAs(t, err, &le, "the partial line before the error")
	_, err = r.Next()
	assert.EqualError(t, err, "disk on fire")
	_, err = r.Next()
	assert.EqualError(t, err, "disk on fire")
}

func TestStrictLines(t *testing.T) {
	goal := "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"
	for _, tc := range []struct{ text, msg string }{
		{"-7 " + goal, `"-7"`},
		{goal + " -3", `"-3"`},
		{goal + " 1001", "out of range"},
		{"1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 0 / 29", "4 row separators"},
		{"1 2 3 / 4 5 6 7 8 / 9 10 11 12 / 13 14 15 0 29", "row 1 has 3 numbers"},
		{"7 1 2 3 4 / 5 6 7 8 / 9 10 11 12 13 / 14 15 0", "has 5 numbers"},
	} {
		_, err := ParseLine(board.Size4x4, tc.text)
		require.Error(t, err, tc.text)
		assert.Contains(t, err.Error(), tc.msg, tc.text)
	}
	// Separators are counted from where the state starts, after a numeric id.
	in, err := ParseLine(board.Size4x4, "7 1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 0 29")
	require.NoError(t, err)
	assert.Equal(t, "7", in.ID)
	assert.Equal(t, 29, in.Optimal)
}

func readAll(t *testing.T, r *Reader) ([]*Instance, []error) {
	t.Helper()
	var ins []*Instance
	var errs []error
	for {
		in, err := r.Next()
		if err == io.EOF {
			return ins, errs
		}
		var le *LineError
		if errors.As(err, &le) {
			errs = append(errs, err)
			continue
		}
		require.NoError(t, err)
		ins = append(ins, in)
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add("korf1: 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 57")
	f.Add("1 2 3 4 - 5 6 7 8 - 9 10 11 12 - 13 14 15 0")
	f.Add("0 0 0")
	f.Fuzz(func(t *testing.T, text string) {
		in, err := ParseLine(board.Size4x4, text)
		if err != nil {
			return
		}
		require.Len(t, in.State, 16)
		again, err := board.FromInts(board.Size4x4, toInts(in.State))
		require.NoError(t, err)
		require.Equal(t, in.State, again)
	})
}

func toInts(s board.State) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// A file's header names its goal as the files of instances/ do; a goal named after the
// first instance, a header that names none, and what is not a regular file give "".
func TestHeaderGoal(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"# Goal: blank first, 0 1 2 3 4 / ...\n1 2 3\n", "blank-first"},
		{"# Korf's 100\n\n# Goal for these: blank first, 0 1 2 3 / 4 5 6 7.\n", "blank-first"},
		{"# goal: Blank-Last (solve15 --goal blank-last).\n", "blank-last"},
		{"# Instances 1-11 use the blank-first goal; 12-28 the blank-last goal.\n", ""},
		{"1 2 3 4 5 6 7 8 0\n# Goal: blank first\n", ""},
		{"", ""},
	} {
		path := filepath.Join(dir, "f.txt")
		require.NoError(t, os.WriteFile(path, []byte(c.text), 0o644))
		assert.Equal(t, c.want, HeaderGoal(path), "%q", c.text)
	}
	assert.Equal(t, "", HeaderGoal(filepath.Join(dir, "none.txt")))
	assert.Equal(t, "", HeaderGoal(dir))
	assert.Equal(t, "blank-first", HeaderGoal("../instances/korf24.txt"))
}
