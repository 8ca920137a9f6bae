// Package instance reads lists of puzzle instances, one a line, as solve15 accepts them:
//
//	# comments and blank lines are skipped
//	14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 57          16 numbers, then the known optimum
//	korf2: 13 5 4 10 9 12 8 14 2 3 7 1 0 15 11 6      an id first (a word starting with a letter)
//	3, 1, 2, 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 0    commas, and '/' (or a lone '-') between rows
//
// A line holds W*H numbers for the state, optionally preceded by an id and followed by the
// known optimal length. Numbers are plain non-negative decimals (board.ScanNumbers). An id
// that is a number is told apart from a trailing length by which reading leaves a valid
// arrangement; when both do, the trailing length wins (the layout of Korf's file).
//
// Reading is bounded whatever the input: a line longer than MaxLine bytes is reported as
// one bad line and skipped without being held in memory, and reading goes on after it;
// but MaxRun bytes without a newline, or MaxBadRun bad lines in a row, are no list of
// states (a device of zeros or of random bytes, a binary file): the list ends there with
// ErrNoList.
package instance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tilekit/tilekit/board"
)

// Instance is one line of a list.
type Instance struct {
	Line    int    // 1-based line number
	ID      string // the id given on the line, or "" for none
	State   board.State
	Optimal int // the known optimal length given on the line, or -1
}

// Name returns the id, or "line N" without one.
func (in *Instance) Name() string {
	if in.ID != "" {
		return in.ID
	}
	return fmt.Sprintf("line %d", in.Line)
}

// LineError is a line that could not be read. Reading goes on after it.
type LineError struct {
	Line int
	ID   string // the id the line gave, when it could be read
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// MaxLine bounds a line: a 5x5 state with an id and a length fits in far less.
const MaxLine = 4096

// The bounds past which an input is no list of states (ErrNoList): MaxRun bytes read
// without a newline, or MaxBadRun bad lines in a row.
const (
	MaxRun    = 1 << 20
	MaxBadRun = 10_000
)

// ErrNoList is matched by the error that ends a list which is none (MaxRun, MaxBadRun).
var ErrNoList = errors.New("not a list of states")

// Reader reads instances of one board size.
type Reader struct {
	br     *bufio.Reader
	size   board.Size
	line   int
	badRun int   // bad lines in a row
	err    error // a read error, returned once the lines before it are done
}

// NewReader reads instances of the given board size from r.
func NewReader(r io.Reader, size board.Size) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, MaxLine+1), size: size}
}

// Next returns the next instance, io.EOF at the end, or a *LineError for a bad line (call
// Next again to go on). Any other error (a failed read) ends the list.
func (r *Reader) Next() (*Instance, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		text, long, err := r.readLine()
		if err != nil {
			r.err = err
			if text == "" && !long {
				return nil, err
			}
		}
		r.line++
		if long {
			return nil, r.bad(&LineError{Line: r.line, Err: fmt.Errorf("%w: longer than %d bytes", board.ErrSyntax, MaxLine)})
		}
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		in, id, err := parseLine(r.size, text)
		if err != nil {
			return nil, r.bad(&LineError{Line: r.line, ID: id, Err: err})
		}
		in.Line = r.line
		r.badRun = 0
		return in, nil
	}
}

// bad counts a bad line, and ends the list after MaxBadRun of them in a row (the line's
// error is returned, then ErrNoList).
func (r *Reader) bad(e *LineError) error {
	if r.badRun++; r.badRun >= MaxBadRun {
		r.err = fmt.Errorf("%w: %d bad lines in a row, the last line %d", ErrNoList, r.badRun, r.line)
	}
	return e
}

// readLine returns the next line without its end. A line longer than MaxLine is read to its
// end and dropped: long reports it, and text is empty. At the end of the input the error is
// io.EOF, with the last line if it had no newline. MaxRun bytes without a newline end the
// input with ErrNoList.
func (r *Reader) readLine() (text string, long bool, err error) {
	run := 0
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			long = true
			if run += len(chunk); run >= MaxRun {
				return "", false, fmt.Errorf("%w: %d bytes without a newline after line %d", ErrNoList, run, r.line)
			}
			continue
		case long:
			return "", true, err
		case len(chunk) > MaxLine+1 || (len(chunk) == MaxLine+1 && chunk[MaxLine] != '\n'):
			return "", true, err
		}
		return strings.TrimSuffix(string(chunk), "\n"), false, err
	}
}

// ParseLine reads one instance line (without comments).
func ParseLine(size board.Size, text string) (*Instance, error) {
	in, _, err := parseLine(size, text)
	return in, err
}

// parseLine is ParseLine, which also returns the line's id when it gave one, even where
// the rest is wrong.
func parseLine(size board.Size, text string) (_ *Instance, id string, err error) {
	in, err := parseInstance(size, text, &id)
	return in, id, err
}

// parseInstance reads one instance line, and the id it gives into id as soon as it is
// read.
func parseInstance(size board.Size, text string, id *string) (*Instance, error) {
	if err := size.Check(); err != nil {
		return nil, err
	}
	in := &Instance{Optimal: -1}
	text = strings.TrimSpace(text)
	// A first word that starts with a letter is an id; a trailing ':' is dropped.
	if word, rest, _ := strings.Cut(text, " "); word != "" && isLetter(word[0]) {
		in.ID = strings.TrimSuffix(strings.TrimSuffix(word, ","), ":")
		*id = in.ID
		text = rest
	}
	sc, err := board.ScanNumbers(text)
	if err != nil {
		return nil, err
	}
	nums := sc.Nums
	n := size.Cells()
	try := func(lead, trail bool) error {
		k := 0
		if lead {
			k = 1
		}
		if len(nums) != n+k+map[bool]int{true: 1}[trail] {
			return errWrongCount
		}
		if err := size.CheckRows(sc, k); err != nil {
			return err
		}
		s, err := board.FromInts(size, nums[k:k+n])
		if err != nil {
			return err
		}
		in.State = s
		if lead {
			in.ID = strconv.Itoa(nums[0])
		}
		if trail {
			in.Optimal = nums[n+k]
			if in.Optimal > MaxOptimal {
				return fmt.Errorf("known optimal length %d out of range (at most %d)", in.Optimal, MaxOptimal)
			}
		}
		return nil
	}
	switch {
	case len(nums) == n:
		err = try(false, false)
	case len(nums) == n+1 && in.ID != "":
		err = try(false, true)
	case len(nums) == n+1:
		if err = try(false, true); err != nil {
			if err2 := try(true, false); err2 == nil {
				err = nil
			}
		}
	case len(nums) == n+2 && in.ID == "":
		err = try(true, true)
	default:
		return nil, fmt.Errorf("%w: %d numbers; want %d (a %s state), optionally with an id before and the known optimal length after",
			board.ErrCount, len(nums), n, size)
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// MaxOptimal bounds a known optimal length: no board up to 5x5 needs more than a few
// hundred moves.
const MaxOptimal = 1000

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var errWrongCount = errors.New("wrong count")

// headerGoal returns the goal a header line names, as the files of instances/ do ("#
// Goal: blank first, 0 1 2 3 / ...", "# Goal for these: blank first"), or "".
func headerGoal(line string) string {
	line = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(line, "#")))
	head, rest, ok := strings.Cut(line, ":")
	if !ok || !strings.HasPrefix(head, "goal") || len(head) > 4 && isLetter(head[4]) {
		return ""
	}
	rest = strings.TrimSpace(rest)
	for _, g := range []string{"first", "last"} {
		for _, sep := range []string{" ", "-"} {
			if w := "blank" + sep + g; strings.HasPrefix(rest, w) && (len(rest) == len(w) || !isLetter(rest[len(w)])) {
				return "blank-" + g
			}
		}
	}
	return ""
}

// maxHeader bounds what HeaderGoal reads.
const maxHeader = 64 << 10

// HeaderGoal returns the goal ("blank-first" or "blank-last") that the comment lines at
// the top of the instance file at path name, or "" where they name none, or path is not a
// regular file (a pipe is not read ahead). It reads at most the first 64 KiB.
func HeaderGoal(path string) string {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxHeader))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			return "" // the header ends at the first instance
		}
		if g := headerGoal(line); g != "" {
			return g
		}
	}
	return ""
}
