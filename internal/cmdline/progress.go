package cmdline

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress reports long work on standard error: a bar redrawn in place on a terminal,
// plain lines (at most one every second) otherwise, nothing when quiet.
type Progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	last  time.Time
	shown bool
}

// NewProgress reports to w; quiet silences it.
func NewProgress(w io.Writer, quiet bool) *Progress {
	return &Progress{w: w, tty: IsTerminal(w), quiet: quiet}
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
	if time.Since(p.last) < time.Second && done < total {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "%s: %.1f%% %s\n", task, 100*frac, note)
}

// Done ends the current bar.
func (p *Progress) Done() {
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}
