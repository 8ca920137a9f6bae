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
}

// complete prints, one a line, the words that may follow words: a flag's values when the
// last word is a flag that takes one of a few (--goal: blank-last, blank-first), the flags
// of the command they name when the last word starts with "-", else its subcommands.
func complete(app *cli.App, words []string) {
	flags, cmds := app.Flags, app.Commands
	for _, w := range words {
		for _, c := range cmds {
			if c.HasName(w) {
				flags, cmds = c.Flags, c.Subcommands
				break
			}
		}
	}
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "-") {
		if f := flagNamed(flags, strings.TrimLeft(words[n-1], "-")); f != nil {
			if values, known := flagValues[f.Names()[0]]; known {
				for _, v := range values() {
					fmt.Fprintln(app.Writer, v)
				}
				return
			}
		}
	}
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "-") {
		for _, f := range append(flags, cli.HelpFlag) {
			for _, name := range f.Names() {
				dash := "--"
				if len(name) == 1 {
					dash = "-"
				}
				if strings.HasPrefix(dash+name, words[n-1]) {
					fmt.Fprintln(app.Writer, dash+name)
				}
			}
		}
		return
	}
	for _, c := range cmds {
		if !c.Hidden {
			fmt.Fprintln(app.Writer, c.Name)
		}
	}
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
