package instance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/format"
)

// An Entry is one line of a stream that holds something: an instance, or why it is not
// one.
type Entry struct {
	In   *Instance // nil for a bad line
	Line int
	ID   string // a bad line's id, when it gave one that could be read
	Err  error  // the bad line's problem, naming the input and line
	// Other is the named goal the bad line's state is solvable for, when it is only
	// unsolvable for the goal asked ("blank-first" for Korf's file read as blank-last).
	Other string
}

// A Stream reads instances of one goal in a goroutine as they are needed, so that an
// endless or huge input takes bounded memory and a cancelled context stops the reading.
type Stream struct {
	entries <-chan Entry
	err     error  // a read error, valid once entries is closed
	name    string // how messages name the input ("" for arguments)
	single  bool
	none    bool // the input ended within the lookahead with no valid instance
	buffer  []Entry
	skip    func(*Instance) bool // instances All passes over (Skip)
	skipped atomic.Int64
	// unread counts the instances left in the input when its reading was cancelled: a
	// file's, or the arguments' (a pipe's are not waited for). Valid once entries is
	// closed.
	unread int
}

// maxUnread bounds how long the count of a cancelled input's unread instances may take.
const maxUnread = 500 * time.Millisecond

// Unread returns how many valid instances the input still held when its reading was
// cancelled, and never became entries; read once All's channel is closed.
func (s *Stream) Unread() int { return s.unread }

// ErrNoInput reports a call of Open with both a file and arguments, or neither.
var ErrNoInput = errors.New("instance: give states as arguments or a file, one or the other")

// Open starts a stream of the states of a command line: the arguments (see Args), or the
// file (read from stdin when it is "-"); exactly one of them must be given (ErrNoInput).
func Open(ctx context.Context, file string, args []string, stdin io.Reader, goal board.Goal) (*Stream, error) {
	var r io.Reader
	switch {
	case (file != "") == (len(args) > 0):
		return nil, ErrNoInput
	case file == "-":
		r, file = stdin, "stdin"
	case file != "":
		f, err := OpenFile(file)
		if err != nil {
			return nil, err
		}
		r = f // closed by the stream at its end
	default:
		r = Args(args, goal.Size())
	}
	return NewStream(ctx, r, file, goal), nil
}

// lookahead is how many entries NewStream reads before deciding whether the input is a
// single instance.
const lookahead = 1000

// NewStream starts reading r, named name in messages ("" for command-line arguments, see
// Args), as instances that must be valid states of goal; r is closed at the end when it is
// an io.Closer. It reads ahead until it knows
// whether there is more than one instance (or has read a thousand entries).
func NewStream(ctx context.Context, r io.Reader, name string, goal board.Goal) *Stream {
	ch := make(chan Entry, 16)
	s := &Stream{entries: ch, name: name}
	go func() {
		defer close(ch)
		if cl, ok := r.(io.Closer); ok {
			defer cl.Close()
		}
		s.err = s.read(ctx, r, goal, ch)
	}()
	good := 0
	for good < 2 && len(s.buffer) < lookahead {
		e, ok := Receive(ctx, s.entries)
		if !ok {
			s.none = good == 0 && ctx.Err() == nil
			break
		}
		s.buffer = append(s.buffer, e)
		if e.In != nil {
			good++
		}
	}
	s.single = good == 1 && len(s.buffer) < lookahead
	return s
}

// NoInstances reports whether the input holds no valid instance, only bad lines or none:
// known before anything is solved, so that no tables are prepared for it.
func (s *Stream) NoInstances() bool { return s.none }

// Single reports whether the input holds exactly one instance (not passed over).
func (s *Stream) Single() bool { return s.single && (s.skip == nil || !s.skip(s.first())) }

// first is the one instance of a single input.
func (s *Stream) first() *Instance {
	for _, e := range s.buffer {
		if e.In != nil {
			return e.In
		}
	}
	return nil
}

// Skip makes All pass over the instances for which done is true (an earlier run's), and
// count them (Skipped). Call it before All.
func (s *Stream) Skip(done func(*Instance) bool) { s.skip = done }

// Skipped returns how many instances All has passed over.
func (s *Stream) Skipped() int { return int(s.skipped.Load()) }

// Name names the input for people: the file, or "the arguments".
func (s *Stream) Name() string {
	if s.name == "" {
		return "the arguments"
	}
	return s.name
}

// Err returns the error that ended the reading early, once All's channel is closed.
func (s *Stream) Err() error { return s.err }

// All returns the entries in order: those read ahead, then the rest as they come.
func (s *Stream) All() <-chan Entry {
	out := make(chan Entry)
	send := func(e Entry) {
		if e.In != nil && s.skip != nil && s.skip(e.In) {
			s.skipped.Add(1)
			return
		}
		out <- e
	}
	go func() {
		defer close(out)
		for _, e := range s.buffer {
			send(e)
		}
		for e := range s.entries {
			send(e)
		}
	}()
	return out
}

// Receive takes the next entry from ch; false at its end or once ctx is done.
func Receive(ctx context.Context, ch <-chan Entry) (Entry, bool) {
	select {
	case e, ok := <-ch:
		return e, ok
	case <-ctx.Done():
		return Entry{}, false
	}
}

// read sends the entries of r to ch until the end, a read error, or ctx is done.
func (s *Stream) read(ctx context.Context, r io.Reader, goal board.Goal, ch chan<- Entry) error {
	cr := &ctxReader{ctx, r}
	rd := NewReader(cr, goal.Size())
	defer func() {
		// Cancelled: the instances a file or the arguments still hold are counted, not
		// read into entries (a summary counts them as never started). A pipe is left.
		if ctx.Err() == nil || !countable(r) {
			return
		}
		cr.ctx = context.Background()
		deadline := time.Now().Add(maxUnread)
		for time.Now().Before(deadline) {
			in, err := rd.Next()
			if err == io.EOF || err != nil && !errors.As(err, new(*LineError)) {
				return
			}
			if err == nil && goal.Check(in.State) == nil {
				s.unread++
			}
		}
	}()
	for ctx.Err() == nil {
		in, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		var le *LineError
		var e Entry
		switch {
		case errors.As(err, &le):
			e = Entry{Line: le.Line, ID: le.ID, Err: s.describe(le)}
		case err != nil:
			return fmt.Errorf("reading %s: %w", s.name, err)
		default:
			e = Entry{In: in, Line: in.Line}
			if err := goal.Check(in.State); err != nil {
				e = Entry{Line: in.Line, ID: in.ID, Err: s.describe(&LineError{Line: in.Line, ID: in.ID, Err: err}), Other: otherGoal(goal, in.State)}
			}
		}
		select {
		case ch <- e:
		case <-ctx.Done():
			if e.In != nil {
				s.unread++ // read, and never an entry
			}
		}
	}
	return nil
}

func (s *Stream) describe(le *LineError) error {
	if s.name == "" {
		return fmt.Errorf("state %d: %w", le.Line, le.Err)
	}
	return fmt.Errorf("%s:%d: %w", s.name, le.Line, le.Err)
}

// ctxReader stops reading when its context is done, so that a reader skipping an endless
// line notices a signal.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// countable reports whether what is left of r may be read at once: not a pipe, a
// terminal or a device.
func countable(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return true
	}
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// otherGoal returns the named goal a state unsolvable for goal is solvable for, or "".
func otherGoal(goal board.Goal, s board.State) string {
	for _, g := range []board.Goal{board.BlankLast(goal.Size()), board.BlankFirst(goal.Size())} {
		if !g.Equal(goal) && g.Check(s) == nil {
			return g.Name()
		}
	}
	return ""
}

// Args turns command-line arguments into instance lines for NewStream: an argument with
// spaces or commas is one state; single words (numbers, row separators, or mistakes such
// as "-14", which the line's parser then quotes) are grouped into states of the board's
// cells.
func Args(args []string, size board.Size) io.Reader {
	n := size.Cells()
	var lines, group []string
	count := 0
	flush := func() {
		if len(group) > 0 {
			lines = append(lines, strings.Join(group, " "))
			group, count = nil, 0
		}
	}
	for _, a := range args {
		if strings.ContainsAny(a, " \t,;\r\n") || strings.TrimSpace(a) == "" {
			flush()
			if strings.TrimSpace(a) == "" {
				a = "(empty)" // an empty argument is a mistake, not a blank line to skip
			}
			lines = append(lines, a)
			continue
		}
		group = append(group, a)
		if sc, err := board.ScanNumbers(a); err != nil {
			count++
		} else {
			count += len(sc.Nums)
		}
		if count == n {
			flush()
		}
	}
	flush()
	return strings.NewReader(strings.Join(lines, "\n"))
}

// OpenFile opens a file of instances, refusing a directory with a clear message.
func OpenFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a file of states", path)
	}
	return f, nil
}

// Problems reports the bad lines of a stream on w, each line prefixed: at most
// MaxProblems of them, then how many more there were and, when every unsolvable state fits
// another named goal, a hint to use it.
type Problems struct {
	w         io.Writer
	prefix    string
	goal      board.Goal
	shown     int
	Bad       int            // bad lines so far
	unsolv    int            // bad lines unsolvable for the goal
	otherGoal map[string]int // how many of those are solvable for another named goal
}

// MaxProblems is how many bad lines Problems describes one by one.
const MaxProblems = 20

// NewProblems reports on w, each message after prefix (such as "solve15: ").
func NewProblems(w io.Writer, prefix string, goal board.Goal) *Problems {
	return &Problems{w: w, prefix: prefix, goal: goal, otherGoal: map[string]int{}}
}

// Add reports a bad entry.
func (p *Problems) Add(e Entry) {
	p.Bad++
	if errors.Is(e.Err, board.ErrUnsolvable) {
		p.unsolv++
		if e.Other != "" {
			p.otherGoal[e.Other]++
		}
	}
	if p.shown < MaxProblems {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, format.Message(e.Err))
		p.shown++
	}
}

// Finish says what Add left out, and gives the hint when it applies.
func (p *Problems) Finish() {
	if p.Bad > p.shown {
		fmt.Fprintf(p.w, "%s... and %s (%d in all)\n", p.prefix, format.Count(p.Bad-p.shown, "more invalid line"), p.Bad)
	}
	for name, n := range p.otherGoal {
		if n == p.unsolv && n > 0 {
			what := fmt.Sprintf("all %d of those states are", n)
			if n == 1 {
				what = "that state is"
			}
			fmt.Fprintf(p.w, "%shint: %s solvable for %s, not %s: try --goal %s\n", p.prefix, what, name, p.goal.Name(), name)
		}
	}
}

// ReadAll reads a whole list of instances of goal from r, named name in errors, with
// bounded memory: at most limit of them (0: all), and an error past max. Every line must
// be a valid state for goal; with known, every instance must carry its known optimal
// length too.
func ReadAll(ctx context.Context, r io.Reader, name string, goal board.Goal, limit, max int, known bool) ([]*Instance, error) {
	var out []*Instance
	rd := NewReader(&ctxReader{ctx, r}, goal.Size())
	for limit == 0 || len(out) < limit {
		in, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *LineError
		switch {
		case errors.As(err, &le):
			return nil, fmt.Errorf("%s:%d: %w", name, le.Line, le.Err)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", name, err)
		case known && in.Optimal < 0:
			return nil, fmt.Errorf("%s:%d: no known optimal length", name, in.Line)
		}
		if err := goal.Check(in.State); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, in.Line, err)
		}
		if len(out) == max {
			return nil, fmt.Errorf("%s holds more than %d instances", name, max)
		}
		out = append(out, in)
	}
	return out, ctx.Err()
}

// ReadKnown reads a whole file of instances that all carry their known optimal length and
// are valid for goal, at most max of them.
func ReadKnown(path string, goal board.Goal, max int) ([]*Instance, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(context.Background(), f, path, goal, 0, max, true)
}
