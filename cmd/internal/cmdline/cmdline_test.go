package cmdline

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/report"
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
	p.Update("build", 2, 4, "depth 1") // within a minute: not printed
	p.Update("build", 4, 4, "depth 2") // done: always printed
	p.Update("check", 1, 4, "depth 0") // a new task: printed at once
	p.Update("check", 2, 4, "depth 1")
	p.last = time.Now().Add(-time.Minute) // a minute on
	p.Update("check", 3, 4, "depth 2")
	p.Done()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	assert.Equal(t, []string{"build: 25.0% depth 0", "build: 100.0% depth 2", "check: 25.0% depth 0", "check: 75.0% depth 2"}, lines)

	b.Reset()
	q := NewProgress(&b, true)
	q.Update("build", 1, 2, "")
	assert.Empty(t, b.String(), "quiet")
}

// Off a terminal a status shows nothing, unless asked for plain lines: the first at once,
// then at most one every so often; quiet wins.
func TestStatusPlainLines(t *testing.T) {
	var b bytes.Buffer
	s := NewStatus(&b, false)
	assert.False(t, s.Shows())
	s.Set("unseen")
	s.PlainEvery(time.Hour, "tool: ")
	assert.True(t, s.Shows())
	s.Set("units: 1 done")
	s.Set("units: 2 done") // within the hour
	assert.Equal(t, "tool: 0s: units: 1 done\n", b.String())

	b.Reset()
	q := NewStatus(&b, true)
	q.PlainEvery(time.Nanosecond, "tool: ")
	assert.False(t, q.Shows())
	q.Set("units: 1 done")
	assert.Empty(t, b.String(), "quiet")
}

// Help and version words, unknown commands and combined short flags (issue 10, defect 11).
func TestCommandWords(t *testing.T) {
	sub := func() (*cli.App, *bytes.Buffer, *bytes.Buffer) {
		a := NewApp("tool", "test")
		var out, errOut bytes.Buffer
		a.Writer, a.ErrWriter = &out, &errOut
		a.Commands = []*cli.Command{{Name: "build", Usage: "build things", Action: func(*cli.Context) error { return nil },
			Flags: []cli.Flag{&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}}, &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}}}}}
		Prepare(a)
		return a, &out, &errOut
	}
	for _, tc := range []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"tool", "help"}, ExitOK, "build things", ""},
		{[]string{"tool", "help", "build"}, ExitOK, "tool build", ""},
		{[]string{"tool", "version"}, ExitOK, "tool version", ""},
		{[]string{"tool"}, ExitUsage, "", "no command given"},
		{[]string{"tool", "frobnicate"}, ExitUsage, "", `unknown command "frobnicate" (commands: build)`},
		{[]string{"tool", "build", "-qv"}, ExitOK, "", ""},
		{[]string{"tool", "build", "-qx"}, ExitUsage, "", "Run 'tool build --help'"},
	} {
		a, out, errOut := sub()
		assert.Equal(t, tc.code, Main(a, tc.args), "%v", tc.args)
		assert.Contains(t, out.String(), tc.out, "%v", tc.args)
		assert.Contains(t, errOut.String(), tc.errs, "%v", tc.args)
	}
	// An app with its own action reads "help" and "version" as words too, and its hint
	// names the program, not an argument.
	a, errOut := app(func(*cli.Context) error { return nil })
	var out bytes.Buffer
	a.Writer = &out
	assert.Equal(t, ExitOK, Main(a, []string{"tool", "help"}))
	assert.Contains(t, out.String(), "USAGE")
	assert.Empty(t, errOut.String())
	a, errOut = app(func(*cli.Context) error { return nil })
	assert.Equal(t, ExitUsage, Main(a, []string{"tool", "1", "4", "2", "--json"}))
	assert.Contains(t, errOut.String(), "Run 'tool --help'")
}

// Completion: commands after the program, a command's flags after a dash; the scripts
// name the program; a bad shell is bad usage.
func TestCompletion(t *testing.T) {
	app := NewApp("prog", "test")
	app.Flags = []cli.Flag{&cli.BoolFlag{Name: "json"}}
	app.Action = func(*cli.Context) error { return nil }
	app.Commands = append([]*cli.Command{{Name: "eval", Flags: []cli.Flag{&cli.IntFlag{Name: "workers", Aliases: []string{"j"}}},
		Action: func(*cli.Context) error { return nil }}}, ShellCommands("prog")...)
	Prepare(app)
	runApp := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		app.Writer, app.ErrWriter = &out, &errOut
		code := Main(app, append([]string{"prog"}, args...))
		return out.String(), errOut.String(), code
	}
	out, _, code := runApp("--generate-bash-completion")
	assert.Equal(t, 0, code)
	assert.Equal(t, "eval\ncompletion\nman\n", out)
	out, _, _ = runApp("eval", "--w", "--generate-bash-completion")
	assert.Equal(t, "--workers\n", out)
	out, _, _ = runApp("eval", "-", "--generate-bash-completion")
	assert.Equal(t, "--workers\n-j\n--help\n-h\n", out)
	// A flag's values, after the flag, where it takes one of a few; after a flag of a
	// file, the scripts' sign for the shell's files; after another value, nothing, and
	// no subcommand after an argument.
	app.Flags = append(app.Flags, &cli.StringFlag{Name: "goal"}, &cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read `FILE`"})
	out, _, _ = runApp("--goal", "", "--generate-bash-completion")
	assert.Equal(t, "blank-last\nblank-first\n", out)
	out, _, _ = runApp("-f", "", "--generate-bash-completion")
	assert.Equal(t, filesMarker+"\n", out)
	out, _, _ = runApp("-f", "x.txt", "", "--generate-bash-completion")
	assert.Equal(t, "eval\ncompletion\nman\n", out, "a flag's value is no argument")
	out, _, _ = runApp("eval", "--workers", "", "--generate-bash-completion")
	assert.Empty(t, out)
	out, _, _ = runApp("1 2 3", "", "--generate-bash-completion")
	assert.Empty(t, out, "after a state, no subcommand")
	out, _, code = runApp("completion", "bash")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "complete -o bashdefault -o default -F _prog_complete prog")
	out, _, _ = runApp("completion", "zsh")
	assert.True(t, strings.HasPrefix(out, "#compdef prog\n"))
	out, _, _ = runApp("completion", "fish")
	assert.Contains(t, out, "complete -c prog -f -a '(__prog_complete)'")
	assert.Contains(t, out, "--generate-bash-completion")
	_, errOut, code := runApp("completion", "tcsh")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `unknown shell "tcsh"`)
	out, _, code = runApp("man")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, ".TH prog 1")
	assert.NotContains(t, out, `=""`, "a flag's value is named, not shown as an empty string")
	assert.Contains(t, out, `\fB--goal\fP \fIvalue\fR:`)
	// The SYNOPSIS says how the program is called, not every flag.
	app.UsageText = "prog [flags] STATE...\n   prog eval [flags] STATE..."
	out, _, _ = runApp("man")
	assert.Contains(t, out, ".SH SYNOPSIS\n.nf\nprog [flags] STATE...\nprog eval [flags] STATE...\n.fi\n")
	// Set names, and values after a flag's short name.
	app.Flags = append(app.Flags, &cli.StringFlag{Name: "set"}, &cli.StringFlag{Name: "heuristic", Aliases: []string{"H"}})
	out, _, _ = runApp("--set", "", "--generate-bash-completion")
	assert.Contains(t, out, "small-t\n")
	assert.Contains(t, out, "7-8\n")
	out, _, _ = runApp("-H", "", "--generate-bash-completion")
	assert.Contains(t, out, "md\n")
	_, errOut, code = runApp("evl")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "did you mean eval?")
}

// A mistyped flag is answered with the nearest flag, as a mistyped command is.
func TestMistypedFlag(t *testing.T) {
	app := NewApp("tool", "a test")
	app.Flags = []cli.Flag{&cli.StringFlag{Name: "heuristic"}, &cli.IntFlag{Name: "workers", Aliases: []string{"j"}}}
	app.Action = func(*cli.Context) error { return nil }
	Prepare(app)
	var errOut bytes.Buffer
	app.ErrWriter = &errOut
	assert.Equal(t, ExitUsage, Main(app, []string{"tool", "--heurstic", "md"}))
	assert.Contains(t, errOut.String(), "unknown flag --heurstic: did you mean --heuristic?")
	errOut.Reset()
	assert.Equal(t, ExitUsage, Main(app, []string{"tool", "--zzzz"}))
	assert.Contains(t, errOut.String(), "unknown flag --zzzz")
	assert.NotContains(t, errOut.String(), "did you mean")
}

// A usage error's hint names the command and subcommand it came from, so that the help it
// points to is theirs.
func TestUsageHintNamesTheSubcommand(t *testing.T) {
	app := NewApp("tool", "a test")
	noArgs := func(c *cli.Context) error { return NoArgs(c) }
	app.Commands = []*cli.Command{{Name: "device", Action: noArgs, Flags: []cli.Flag{&cli.IntFlag{Name: "gpu"}},
		Subcommands: []*cli.Command{{Name: "check", Action: noArgs}}}}
	Prepare(app)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tool", "device", "check", "extra"}, "Run 'tool device check --help' for usage."},
		{[]string{"tool", "device", "--gpu", "1", "extra"}, "Run 'tool device --help' for usage."},
		{[]string{"tool", "--bogus"}, "Run 'tool --help' for usage."},
	} {
		var errOut bytes.Buffer
		app.ErrWriter = &errOut
		assert.Equal(t, ExitUsage, Main(app, c.args), "%v", c.args)
		assert.Contains(t, errOut.String(), c.want, "%v", c.args)
	}
}

// A run whose answers the coordinator settled after its workers disagreed (solve15 cluster
// --quorum) prints them, and fails, naming the workers found wrong.
func TestDisputesFailTheRun(t *testing.T) {
	goal := board.BlankFirst(board.Size4x4)
	a, errOut := app(func(c *cli.Context) error {
		in := instance.NewStream(c.Context, strings.NewReader("1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"), "input", goal)
		r := NewResults(c, "tool: ", goal)
		sum := &report.Summary{}
		for e := range in.All() {
			rec := report.Record{Solved: true, Optimal: true, Length: 1, Moves: "L", Trust: report.TrustProven,
				Dispute: `worker "mallory" said 3 moves`, WrongWorkers: []string{"mallory"}}
			r.Add(e, sum.Entry(goal, e, rec), nil)
		}
		return r.Finish(sum, in)
	})
	var out bytes.Buffer
	a.Writer = &out
	assert.Equal(t, ExitFailure, Main(a, []string{"tool"}))
	assert.Contains(t, out.String(), `DISPUTED: worker "mallory" said 3 moves`)
	assert.Contains(t, errOut.String(), `tool: the workers disagreed on 1 answer, settled by the search here; wrong results came from "mallory"`)
}

// An example's $(...) is what bash prints for it, its last newline cut; one bash cannot
// run, or left open, is an error.
func TestExpandExample(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("# a comment\nk1 1 2 3\n"), 0o644))
	got, err := expand(`tool x "$(grep ^k1 f.txt | cut -d' ' -f2-)" y`, dir)
	require.NoError(t, err)
	assert.Equal(t, `tool x "1 2 3" y`, got)
	assert.Equal(t, []string{"tool", "x", "1 2 3", "y"}, ShellWords(got))
	got, err = expand(`a $(echo $(echo b))`, dir)
	require.NoError(t, err)
	assert.Equal(t, "a b", got)
	_, err = expand(`a $(echo b`, dir)
	assert.ErrorContains(t, err, "no ) closes")
	_, err = expand(`a $(exit 3)`, dir)
	assert.Error(t, err)
}
