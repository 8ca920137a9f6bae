package cmdline

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tilekit/tilekit/internal/format"
)

// Progress reports long work on standard error: a bar redrawn in place on a terminal;
// otherwise plain lines for a log, one when a task starts, when it ends, and at most one a
// minute between; nothing when quiet.
type Progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	every time.Duration // between plain lines of one task
	task  string        // the task of the last plain line
	last  time.Time
	shown bool
}

// NewProgress reports to w; quiet silences it.
func NewProgress(w io.Writer, quiet bool) *Progress {
	return &Progress{w: w, tty: IsTerminal(w), quiet: quiet, every: time.Minute}
}

// Update shows that done of total units of the named task are finished, with a note.
func (p *Progress) Update(task string, done, total int64, note string) {
	if p.quiet {
		return
	}
	frac := 0.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	if p.tty {
		const width = 30
		n := int(frac * width)
		fmt.Fprintf(p.w, "\r%-22s [%s%s] %5.1f%% %s\x1b[K", task, strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac, note)
		p.shown = true
		return
	}
	if task == p.task && time.Since(p.last) < p.every && done < total {
		return
	}
	p.task, p.last = task, time.Now()
	fmt.Fprintf(p.w, "%s: %.1f%% %s\n", task, 100*frac, note)
}

// Done ends the current bar.
func (p *Progress) Done() {
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// Status is a one-line status redrawn in place on a terminal, for long work whose progress
// has no known end (a search). It shows nothing when the writer is not a terminal or when
// quiet, unless PlainEvery asks for plain lines. It is safe for concurrent use.
type Status struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool
	shown bool
	quiet bool
	last  time.Time
	// plain lines, when the writer is not a terminal: at most one every every, after
	// prefix and the time since begin
	every  time.Duration
	prefix string
	begin  time.Time
}

// PlainEvery has a status whose writer is not a terminal print its text as a line of its
// own, after prefix and the time since this call, at most once every every (the first at
// once), so that a log shows long work going on. A status on a terminal, or quiet, is
// unchanged.
func (s *Status) PlainEvery(every time.Duration, prefix string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.every, s.prefix, s.begin = every, prefix, time.Now()
}

// Shows reports whether Set shows anything: on a terminal, or in plain lines.
func (s *Status) Shows() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live || s.every > 0 && !s.quiet
}

// NewStatus shows a status on w if w is a terminal and not quiet.
func NewStatus(w io.Writer, quiet bool) *Status {
	return &Status{w: w, live: IsTerminal(w) && !quiet, quiet: quiet}
}

// Live reports whether the status is shown at all.
func (s *Status) Live() bool { return s.live }

// Set redraws the status line, at most a few times a second (or prints a plain line:
// PlainEvery).
func (s *Status) Set(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.live {
		if s.every > 0 && !s.quiet && (s.last.IsZero() || time.Since(s.last) >= s.every) {
			s.last = time.Now()
			fmt.Fprintf(s.w, "%s%s: %s\n", s.prefix, time.Since(s.begin).Round(time.Second), text)
		}
		return
	}
	if time.Since(s.last) < 200*time.Millisecond {
		return
	}
	s.last = time.Now()
	fmt.Fprintf(s.w, "\r%s\x1b[K", text)
	s.shown = true
}

// Println prints a line of its own on the status's writer, above the status line.
func (s *Status) Println(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
	fmt.Fprintln(s.w, text)
}

// Clear removes the status line, so that other output starts on a clean line.
func (s *Status) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
}

func (s *Status) clear() {
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
		s.last = time.Time{}
	}
}

// Search returns the progress report of one search named name, or nil when nothing would
// be shown: with verbose, each new IDA* bound as a line of its own after prefix; on a
// terminal, the bound, nodes and rate on the status line.
func (s *Status) Search(prefix, name string, verbose bool) func(bound int, nodes uint64) {
	if !verbose && !s.Live() {
		return nil
	}
	begin := time.Now()
	last := -1
	return func(bound int, nodes uint64) {
		elapsed := time.Since(begin).Seconds()
		if verbose && bound != last {
			s.Println(fmt.Sprintf("%s%s: pass with bound %d, %s nodes so far, %.1fs", prefix, name, bound, format.Thousands(nodes), elapsed))
		}
		last = bound
		rate := 0.0
		if elapsed > 0 {
			rate = float64(nodes) / elapsed
		}
		s.Set(fmt.Sprintf("%s: bound %d, %s nodes, %.1f M nodes/s, %.1fs", name, bound, format.Thousands(nodes), rate/1e6, elapsed))
	}
}
