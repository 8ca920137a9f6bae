package cmdline

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// completeFlag ends the words of a command line that the completion scripts ask about.
// urfave/cli's own handling of it panics on a partial flag, so Main answers it here.
const completeFlag = "--generate-bash-completion"

// complete prints, one a line, the words that may follow words: the flags of the command
// they name when the last word starts with "-", else its subcommands.
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
