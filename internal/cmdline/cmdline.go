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
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

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
		Version:                version.Version,
		EnableBashCompletion:   false,
		HideHelpCommand:        true,
		UseShortOptionHandling: true, // -qv is -q -v
		Reader:                 os.Stdin,
		Writer:                 os.Stdout,
		ErrWriter:              os.Stderr,
		ExitErrHandler:         func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return &UsageError{err}
		},
	}
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
			var names []string
			for _, c := range ctx.App.VisibleCommands() {
				names = append(names, c.Name)
			}
			return Usagef("unknown command %q (commands: %s)", ctx.Args().First(), strings.Join(names, ", "))
		}
		return
	}
	if action := app.Action; action != nil {
		app.Action = func(ctx *cli.Context) error {
			if err := NoLateFlags(ctx); err != nil {
				return err
			}
			return action(ctx)
		}
	}
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

	err := app.RunContext(ctx, args)
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
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if app.Command(a) != nil {
			return append(out, a)
		}
	}
	return out
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
