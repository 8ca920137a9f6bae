package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/cmdline"
)

// entry is one input line that holds something: an instance, or why it is not one.
type entry struct {
	in   *instance.Instance // nil for a bad line
	line int
	err  error // the bad line's problem, naming the file and line
	// other is the named goal the bad line's state is solvable for, when it is only
	// unsolvable for the one asked ("blank-first" for Korf's file read as blank-last).
	other string
}

// input is the instances of the command line, read in a goroutine as they are needed, so
// that an endless or huge input takes bounded memory and a signal stops the reading.
type input struct {
	entries <-chan entry
	err     *error // a read error, valid once entries is closed
	name    string // how messages name the input
	single  bool   // the input holds exactly one instance (so it may have every worker)
	buffer  []entry
}

// lookahead is how many entries openInput reads before deciding whether the input is a
// single instance.
const lookahead = 1000

// openInput starts reading the arguments or --file. It reads ahead until it knows whether
// there is more than one instance (or has read lookahead entries).
func openInput(c *cli.Context, goal board.Goal) (*input, error) {
	file := c.String("file")
	args := c.Args().Slice()
	if file != "" && len(args) > 0 {
		return nil, cmdline.Usagef("give states as arguments or with --file, not both")
	}
	var r io.Reader
	var closer io.Closer
	name := file
	switch {
	case file == "-":
		r, name = c.App.Reader, "stdin"
		if r == nil {
			r = os.Stdin
		}
	case file != "":
		f, err := openFile(file)
		if err != nil {
			return nil, err
		}
		r, closer = f, f
	case len(args) == 0:
		return nil, cmdline.Usagef("no states: give STATE arguments or --file FILE")
	default:
		r = strings.NewReader(argumentLines(args, goal.Size().Cells()))
	}
	ch := make(chan entry, 16)
	in := &input{entries: ch, err: new(error), name: name}
	go func() {
		defer close(ch)
		if closer != nil {
			defer closer.Close()
		}
		*in.err = readEntries(c.Context, r, goal, name, ch)
	}()
	good := 0
	for good < 2 && len(in.buffer) < lookahead {
		e, ok := receive(c.Context, ch)
		if !ok {
			break
		}
		in.buffer = append(in.buffer, e)
		if e.in != nil {
			good++
		}
	}
	in.single = good == 1 && len(in.buffer) < lookahead
	return in, nil
}

// receive takes the next entry from ch; false at its end or once ctx is done.
func receive(ctx context.Context, ch <-chan entry) (entry, bool) {
	select {
	case e, ok := <-ch:
		return e, ok
	case <-ctx.Done():
		return entry{}, false
	}
}

// openFile opens an input file, refusing a directory with a clear message.
func openFile(path string) (*os.File, error) {
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

// readEntries sends the entries of r to ch until the end, a read error, or ctx is done.
func readEntries(ctx context.Context, r io.Reader, goal board.Goal, name string, ch chan<- entry) error {
	rd := instance.NewReader(ctxReader{ctx, r}, goal.Size())
	for ctx.Err() == nil {
		in, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		var le *instance.LineError
		var e entry
		switch {
		case errors.As(err, &le):
			e = entry{line: le.Line, err: describeLine(name, le)}
		case err != nil:
			return fmt.Errorf("reading %s: %w", name, err)
		default:
			e = entry{in: in, line: in.Line}
			if err := goal.Check(in.State); err != nil {
				e = entry{line: in.Line, err: describeLine(name, &instance.LineError{Line: in.Line, Err: err}), other: otherGoal(goal, in.State)}
			}
		}
		select {
		case ch <- e:
		case <-ctx.Done():
		}
	}
	return nil
}

// ctxReader stops reading when its context is done, so that a reader skipping an endless
// line notices a signal.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
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

// all returns the entries in order: those read ahead, then the rest as they come.
func (in *input) all() <-chan entry {
	out := make(chan entry)
	go func() {
		defer close(out)
		for _, e := range in.buffer {
			out <- e
		}
		for e := range in.entries {
			out <- e
		}
	}()
	return out
}

// argumentLines turns arguments into instance lines: an argument with spaces or commas is
// one state; single words (numbers, row separators, or mistakes such as "-14", which the
// line's parser then quotes) are grouped into states of n numbers.
func argumentLines(args []string, n int) string {
	var lines []string
	var group []string
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
	return strings.Join(lines, "\n")
}

func describeLine(name string, le *instance.LineError) error {
	if name == "" {
		return fmt.Errorf("state %d: %w", le.Line, le.Err)
	}
	return fmt.Errorf("%s:%d: %w", name, le.Line, le.Err)
}

// goalFlag reads --board and --goal.
func goalFlag(c *cli.Context) (board.Goal, error) {
	size := board.Size4x4
	if c.IsSet("board") || c.String("board") != "" {
		var err error
		if size, err = board.ParseSize(c.String("board")); err != nil {
			return board.Goal{}, cmdline.Usagef("--board: %v", err)
		}
	}
	g, err := board.ParseGoal(size, c.String("goal"))
	if err != nil {
		return board.Goal{}, cmdline.Usagef("--goal: %v", err)
	}
	return g, nil
}

// tablesFlag reads --tables DIR: the default tables from DIR when it holds them (else the
// embedded ones: nil), and DIR as the only place to look for sets (else nil: the search
// path of package data).
func tablesFlag(c *cli.Context) (*data.Tables, []string, error) {
	dir := c.String("tables")
	if dir == "" {
		return nil, nil, nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, nil, cmdline.Usagef("--tables: %v", err)
	}
	if !info.IsDir() {
		return nil, nil, cmdline.Usagef("--tables: %s is not a directory", dir)
	}
	if !data.HasDefaults(dir) {
		return nil, []string{dir}, nil
	}
	t, err := data.LoadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("--tables: %w", err)
	}
	return t, []string{dir}, nil
}

// messages prints the messages about bad lines on standard error, at most maxMessages of
// them, and at the end says how many more there were and what may be wrong.
type messages struct {
	w         io.Writer
	goal      board.Goal
	shown     int
	bad       int
	unsolv    int            // bad lines unsolvable for the goal
	otherGoal map[string]int // how many of those are solvable for another named goal
}

const maxMessages = 20

func newMessages(w io.Writer, goal board.Goal) *messages {
	return &messages{w: w, goal: goal, otherGoal: map[string]int{}}
}

func (m *messages) add(e entry) {
	m.bad++
	if errors.Is(e.err, board.ErrUnsolvable) {
		m.unsolv++
		if e.other != "" {
			m.otherGoal[e.other]++
		}
	}
	if m.shown < maxMessages {
		fmt.Fprintf(m.w, "solve15: %v\n", e.err)
		m.shown++
	}
}

// finish prints what add left out and a hint when every unsolvable line fits another goal.
func (m *messages) finish() {
	if m.bad > m.shown {
		fmt.Fprintf(m.w, "solve15: ... and %d more invalid lines (%d in all)\n", m.bad-m.shown, m.bad)
	}
	for name, n := range m.otherGoal {
		if n == m.unsolv && n > 0 {
			fmt.Fprintf(m.w, "solve15: hint: the %d states not solvable for %s are all solvable for %s: try --goal %s\n",
				n, m.goal.Name(), name, name)
		}
	}
}
