// Package cmdline holds what the toolkit's commands share: exit statuses, the rule that
// flags come before arguments, help and version words, signal handling, and progress
// reports on standard error.
package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/internal/version"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailure     = 1   // the work failed
	ExitUsage       = 2   // the command line was wrong
	ExitInterrupted = 130 // stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it)
)

// Grace is how long a command may take to wind up after SIGINT or SIGTERM (to print what
// it has) before Main ends the process anyway; a second signal ends it at once.
var Grace = 2 * time.Second

// UsageError marks a mistake on the command line; Main exits with ExitUsage for it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// ExitError carries an exit status chosen by a command (for example "some files failed").
// Its message, if any, is printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// NewApp returns an app with the toolkit's conventions: -V for the version, usage errors
// marked, and errors left to Main to print.
func NewApp(name, usage string) *cli.App {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Aliases: []string{"V"}, Usage: "print the version"}
	return &cli.App{
		Name:                   name,
		Usage:                  usage,
		Version:                version.Build(),
		EnableBashCompletion:   false, // Main answers --generate-bash-completion itself (complete.go)
		HideHelpCommand:        true,
		UseShortOptionHandling: true, // -qv is -q -v
		Reader:                 os.Stdin,
		Writer:                 os.Stdout,
		ErrWriter:              os.Stderr,
		ExitErrHandler:         func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return &UsageError{flagError(c, err)}
		},
	}
}

// badValue is how the flag package reports a value it cannot parse.
var badValue = regexp.MustCompile(`^invalid value "(.*)" for flag -+([\w-]+): (.*)$`)

// unknownFlag is how the flag package reports a flag it does not know.
var unknownFlag = regexp.MustCompile(`^flag provided but not defined: -+([\w-]+)$`)

// flagError rewrites the flag package's message for a value it cannot parse so that it
// names the flag as it is written and shows the form expected, and for an unknown flag
// names the nearest one, as a mistyped command is answered.
func flagError(c *cli.Context, err error) error {
	var flags []cli.Flag
	if c != nil && c.Command != nil && c.Command.Name != "" {
		flags = c.Command.Flags
	} else if c != nil {
		flags = c.App.Flags
	}
	if m := unknownFlag.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
		if near := format.Closest(m[1], names); near != "" {
			return fmt.Errorf("unknown flag --%s: did you mean --%s?", m[1], near)
		}
		return fmt.Errorf("unknown flag --%s", m[1])
	}
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	value, name := m[1], m[2]
	form := "a value of another form"
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		switch f.(type) {
		case *cli.DurationFlag:
			form = "a duration such as 90s, 5m or 1h30m"
		case *cli.IntFlag, *cli.Int64Flag:
			form = "a whole number"
		case *cli.UintFlag, *cli.Uint64Flag:
			form = "a whole number, 0 or more"
		case *cli.Float64Flag:
			form = "a number"
		case *cli.BoolFlag:
			form = "true or false"
		}
	}
	flag := "--" + name
	if len(name) == 1 {
		flag = "-" + name
	}
	return fmt.Errorf("%s %q: expected %s", flag, value, form)
}

// Prepare applies the toolkit's conventions to every command of the app, recursively:
// usage errors are marked and flags written after an argument are rejected (urfave/cli
// would silently take them as arguments).
func Prepare(app *cli.App) {
	var walk func(cmds []*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = app.OnUsageError
			if action := c.Action; action != nil {
				c.Action = func(ctx *cli.Context) error {
					if err := NoLateFlags(ctx); err != nil {
						return err
					}
					return action(ctx)
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	for _, c := range app.Commands {
		c.UseShortOptionHandling = true
	}
	if app.Action == nil {
		// An app of subcommands: a missing or unknown command is bad usage.
		app.Action = func(ctx *cli.Context) error {
			if ctx.NArg() == 0 {
				cli.HelpPrinter(ctx.App.ErrWriter, cli.AppHelpTemplate, ctx.App)
				return Usagef("no command given")
			}
			return unknownCommand(ctx)
		}
		return
	}
	if action := app.Action; action != nil {
		app.Action = func(ctx *cli.Context) error {
			if err := NoLateFlags(ctx); err != nil {
				return err
			}
			if first := ctx.Args().First(); len(app.Commands) > 0 && isWord(first) {
				return unknownCommand(ctx)
			}
			return action(ctx)
		}
	}
}

// isWord reports whether a first argument is a word, such as a mistyped command, and not
// data: a letter, then letters, digits and dashes.
func isWord(a string) bool {
	if a == "" || !unicode.IsLetter(rune(a[0])) {
		return false
	}
	for _, r := range a {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

// unknownCommand is the usage error for a first argument that names no command, with the
// nearest command's name when one is near.
func unknownCommand(ctx *cli.Context) error {
	var names []string
	for _, c := range ctx.App.VisibleCommands() {
		names = append(names, c.Name)
	}
	word := ctx.Args().First()
	if near := format.Closest(word, names); near != "" {
		return Usagef("unknown command %q: did you mean %s? (commands: %s)", word, near, strings.Join(names, ", "))
	}
	return Usagef("unknown command %q (commands: %s)", word, strings.Join(names, ", "))
}

// NoLateFlags rejects arguments that look like flags: urfave/cli stops reading flags at
// the first argument. A lone "-" (standard input, or a row separator) is allowed.
func NoLateFlags(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if len(a) > 1 && a[0] == '-' && (a[1] < '0' || a[1] > '9') {
			return Usagef("flag %s comes after an argument: put flags before arguments", a)
		}
	}
	return nil
}

// Main runs the app and returns the exit status, printing any error on standard error.
//
// "help [COMMAND]" and "version" work as words as well as flags. SIGINT and SIGTERM cancel
// the app's context; an app that has not returned Grace later, or a second signal, ends
// the process with ExitInterrupted.
func Main(app *cli.App, args []string) int {
	if n := len(args); n > 1 && args[n-1] == completeFlag {
		complete(app, args[1:n-1])
		return ExitOK
	}
	args = helpWords(app, args)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-signals:
		case <-finished:
			return
		}
		cancel()
		select {
		case <-signals:
		case <-time.After(Grace):
		case <-finished:
			return
		}
		fmt.Fprintf(app.ErrWriter, "%s: interrupted\n", app.Name)
		os.Exit(ExitInterrupted)
	}()

	// The output: a write that fails stops the command (as an interrupt does) and fails
	// the run, whatever the command said.
	out := &output{w: app.Writer, onFail: cancel}
	app.Writer = out
	err := app.RunContext(ctx, args)
	if werr := out.failed(); werr != nil {
		var exit *ExitError
		if errors.As(err, &exit) && errors.Is(exit.Err, werr) {
			fmt.Fprintf(app.ErrWriter, "%s: %s\n", app.Name, format.Message(exit.Err)) // it says what it wrote
		} else {
			fmt.Fprintf(app.ErrWriter, "%s: writing the output: %s\n", app.Name, format.Message(werr))
		}
		return ExitFailure
	}
	return exitCode(app, args, ctx, err)
}

// exitCode says err on app's standard error as the commands' conventions want, and
// returns the exit status.
func exitCode(app *cli.App, args []string, ctx context.Context, err error) int {
	if err == nil {
		if ctx.Err() != nil {
			fmt.Fprintf(app.ErrWriter, "%s: interrupted\n", app.Name)
			return ExitInterrupted
		}
		return ExitOK
	}
	var usage *UsageError
	var exit *ExitError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(app.ErrWriter, "%s: %s\nRun '%s --help' for usage.\n", app.Name, format.Message(err), strings.Join(commandPath(app, args), " "))
		return ExitUsage
	case errors.As(err, &exit):
		if exit.Err != nil {
			fmt.Fprintf(app.ErrWriter, "%s: %s\n", app.Name, format.Message(exit.Err))
		}
		return exit.Code
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		fmt.Fprintf(app.ErrWriter, "%s: interrupted\n", app.Name)
		return ExitInterrupted
	}
	fmt.Fprintf(app.ErrWriter, "%s: %s\n", app.Name, format.Message(err))
	return ExitFailure
}

// helpWords rewrites "help", "help COMMAND" and "version" as the flags urfave/cli knows.
func helpWords(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	switch {
	case args[1] == "help" && len(args) == 2:
		return []string{args[0], "--help"}
	case args[1] == "help" && len(args) == 3 && app.Command(args[2]) != nil:
		return []string{args[0], args[2], "--help"}
	case args[1] == "version" && len(args) == 2 && app.Command("version") == nil:
		return []string{args[0], "--version"}
	}
	return args
}

// commandPath returns the program and subcommand words of args, for the help hint.
func commandPath(app *cli.App, args []string) []string {
	out := []string{app.Name}
	commands := app.Commands
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		for _, c := range commands {
			if c.HasName(a) {
				out, commands = append(out, a), c.Subcommands
				break
			}
		}
	}
	return out
}

// IsTerminal reports whether w is a terminal (not merely a character device such as
// /dev/null).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
