package cmdline

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/solve"
)

// completeFlag ends the words of a command line that the completion scripts ask about.
// urfave/cli's own handling of it panics on a partial flag, so Main answers it here.
const completeFlag = "--generate-bash-completion"

// flagValues are the values of the flags that take one of a few: completed after the flag.
var flagValues = map[string]func() []string{
	"goal":           func() []string { return []string{"blank-last", "blank-first"} },
	"instances-goal": func() []string { return []string{"blank-last", "blank-first"} },
	"board":          func() []string { return []string{"3x3", "4x4", "5x5", "2x2", "2x3", "3x4", "4x5"} },
	"heuristic": func() []string {
		return append([]string{heuristic.Auto}, heuristic.Names(heuristic.General|heuristic.Fast)...)
	},
	"set":     setNames,
	"sets":    setNames,
	"algo":    solve.Algorithms,
	"pruning": func() []string { return []string{solve.PruneAutomaton, solve.PruneParent} },
	"lookups": func() []string { return []string{"regular", "reflected", "dual", "all"} },
	"device":  solve.Device{}.Kinds,
	"format":  func() []string { return []string{"raw"} }, // pdbgen export's
}

// filesMarker is complete's answer where a file or a directory is wanted (after --file,
// --tables, --out): the scripts then offer the shell's file names.
const filesMarker = "::files"

// complete prints, one a line, the words that may take the place of the last of words (the
// word being completed, perhaps ""): after a flag that takes one of a few values, those
// (--goal: blank-last, blank-first); after a flag that takes a file or a directory,
// filesMarker; after another flag that takes a value, nothing; the flags of the command
// the words name when the word starts with "-"; else its subcommands, where no argument
// came before (after a state, none).
func complete(app *cli.App, words []string) {
	cur := ""
	if n := len(words); n > 0 {
		cur, words = words[n-1], words[:n-1]
	}
	flags, cmds := app.Flags, app.Commands
	argument := false // an argument came: no subcommand follows
	for i, w := range words {
		switch {
		case strings.HasPrefix(w, "-"):
		case i > 0 && takesValue(flagNamed(flags, strings.TrimLeft(words[i-1], "-"))) && !strings.Contains(words[i-1], "="):
		default:
			if c := commandNamed(cmds, w); c != nil && !argument {
				flags, cmds = c.Flags, c.Subcommands
			} else {
				argument = true
			}
		}
	}
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "-") && !strings.Contains(words[n-1], "=") {
		if f := flagNamed(flags, strings.TrimLeft(words[n-1], "-")); takesValue(f) {
			if values, known := flagValues[f.Names()[0]]; known {
				for _, v := range values() {
					fmt.Fprintln(app.Writer, v)
				}
			} else if takesFile(f) {
				fmt.Fprintln(app.Writer, filesMarker)
			}
			return
		}
	}
	if strings.HasPrefix(cur, "-") {
		for _, f := range append(flags, cli.HelpFlag) {
			for _, name := range f.Names() {
				dash := "--"
				if len(name) == 1 {
					dash = "-"
				}
				if strings.HasPrefix(dash+name, cur) {
					fmt.Fprintln(app.Writer, dash+name)
				}
			}
		}
		return
	}
	if argument {
		return
	}
	for _, c := range cmds {
		if !c.Hidden {
			fmt.Fprintln(app.Writer, c.Name)
		}
	}
}

// commandNamed returns the command of cmds with that name or alias, or nil.
func commandNamed(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// takesValue reports whether f is a flag followed by a value (not a switch).
func takesValue(f cli.Flag) bool {
	v, ok := f.(cli.DocGenerationFlag)
	return ok && v.TakesValue()
}

// takesFile reports whether f's value is a file or a directory: its usage's placeholder
// says FILE, DIR or BIN.
func takesFile(f cli.Flag) bool {
	v, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return false
	}
	// The placeholder is the usage's first `quoted` word (as urfave/cli reads it).
	_, rest, ok := strings.Cut(v.GetUsage(), "`")
	name, _, closed := strings.Cut(rest, "`")
	if !ok || !closed {
		return false
	}
	return strings.Contains(name, "FILE") || strings.Contains(name, "DIR") || strings.Contains(name, "BIN")
}

// flagNamed returns the flag of flags with that name or alias (-H is --heuristic), or nil.
func flagNamed(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// setNames are the names of the sets pdbgen builds.
func setNames() []string {
	var out []string
	for _, s := range pdb.Sets {
		out = append(out, s.Name)
	}
	return out
}
