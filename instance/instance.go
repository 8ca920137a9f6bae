// Package instance reads lists of puzzle instances, one a line, as solve15 accepts them:
//
//	# comments and blank lines are skipped
//	14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 57          16 numbers, then the known optimum
//	korf2: 13 5 4 10 9 12 8 14 2 3 7 1 0 15 11 6      an id first (any word)
//	3, 1, 2, 4 - 5 6 7 8 - 9 10 11 12 - 13 14 15 0    commas, and '-' between rows
//
// A line holds W*H numbers for the state, optionally preceded by an id and followed by the
// known optimal length. An id that is a number is told apart from a trailing length by
// which reading leaves a valid arrangement; when both do, the trailing length wins (the
// layout of Korf's file).
package instance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// maxLine bounds a line: a 5x5 state with an id and a length fits in far less.
const maxLine = 4096

// Reader reads instances of one board size.
type Reader struct {
	sc   *bufio.Scanner
	size board.Size
	line int
}

// NewReader reads instances of the given board size from r.
func NewReader(r io.Reader, size board.Size) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), maxLine)
	return &Reader{sc: sc, size: size}
}

// Next returns the next instance, io.EOF at the end, or a *LineError for a bad line (call
// Next again to go on).
func (r *Reader) Next() (*Instance, error) {
	for r.sc.Scan() {
		r.line++
		text := r.sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		in, err := ParseLine(r.size, text)
		if err != nil {
			return nil, &LineError{r.line, err}
		}
		in.Line = r.line
		return in, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{r.line + 1, fmt.Errorf("longer than %d bytes", maxLine)}
		}
		return nil, err
	}
	return nil, io.EOF
}

// ParseLine reads one instance line (without comments).
func ParseLine(size board.Size, text string) (*Instance, error) {
	in := &Instance{Optimal: -1}
	text = strings.TrimSpace(text)
	// A first word that is not made of numbers is an id; a trailing ':' is dropped.
	if word, rest, _ := strings.Cut(text, " "); word != "" {
		if _, err := board.Fields(word); err != nil {
			in.ID = strings.TrimSuffix(strings.Trim(word, ","), ":")
			text = rest
		}
	}
	nums, err := board.Fields(text)
	if err != nil {
		return nil, err
	}
	n := size.Cells()
	try := func(lead, trail bool) error {
		k := 0
		if lead {
			k = 1
		}
		if len(nums) != n+k+map[bool]int{true: 1}[trail] {
			return errWrongCount
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
			if in.Optimal < 0 || in.Optimal > 1000 {
				return fmt.Errorf("known optimal length %d out of range", in.Optimal)
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

var errWrongCount = errors.New("wrong count")
