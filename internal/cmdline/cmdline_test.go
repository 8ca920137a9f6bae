package cmdline

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/urfave/cli/v2"
)

func app(action cli.ActionFunc) (*cli.App, *bytes.Buffer) {
	a := NewApp("tool", "test")
	var errOut bytes.Buffer
	a.Writer, a.ErrWriter = &bytes.Buffer{}, &errOut
	a.Flags = []cli.Flag{&cli.BoolFlag{Name: "json"}}
	a.Action = action
	Prepare(a)
	return a, &errOut
}

func TestExitStatuses(t *testing.T) {
	ok := func(*cli.Context) error { return nil }
	a, errOut := app(ok)
	assert.Equal(t, ExitOK, Main(a, []string{"tool", "--json", "x", "-"}))
	assert.Empty(t, errOut.String(), "success prints nothing on stderr")
	a, errOut = app(ok)
	assert.Equal(t, ExitUsage, Main(a, []string{"tool", "x", "--json"}), "a flag after an argument")
	assert.Contains(t, errOut.String(), "flag --json comes after an argument")
	a, _ = app(ok)
	assert.Equal(t, ExitUsage, Main(a, []string{"tool", "--nope"}))
	a, errOut = app(func(*cli.Context) error { return errors.New("disk full") })
	assert.Equal(t, ExitFailure, Main(a, []string{"tool"}))
	assert.Contains(t, errOut.String(), "tool: disk full")
	a, _ = app(func(*cli.Context) error { return &ExitError{Code: 4} })
	assert.Equal(t, 4, Main(a, []string{"tool"}))
	a, _ = app(ok)
	var out bytes.Buffer
	a.Writer = &out
	assert.Equal(t, ExitOK, Main(a, []string{"tool", "-V"}))
	assert.Contains(t, out.String(), "tool version ", "-V prints the version")
}

func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false)
	p.Update("build", 1, 4, "depth 0")
	p.Update("build", 2, 4, "depth 1") // within a second: not printed
	p.Update("build", 4, 4, "depth 2") // done: always printed
	p.Done()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	assert.Equal(t, []string{"build: 25.0% depth 0", "build: 100.0% depth 2"}, lines)

	b.Reset()
	q := NewProgress(&b, true)
	q.Update("build", 1, 2, "")
	assert.Empty(t, b.String(), "quiet")
}
