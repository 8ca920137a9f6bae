package cmdline

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/data"
)

// ShellCommands are the commands every tool offers for its shell, for the program name:
// completion scripts (bash, zsh, fish) and a man page, both made from the app's own
// definitions.
func ShellCommands(name string) []*cli.Command {
	cmds := []*cli.Command{
		{
			Name:      "completion",
			Usage:     "print a shell completion script: bash, zsh or fish",
			UsageText: "PROG completion bash|zsh|fish",
			Description: `Prints a script that completes the commands and flags of this program in the shell.

Examples:
  source <(PROG completion bash)                 # bash, this shell; put it in ~/.bashrc to keep it
  PROG completion zsh > "${fpath[1]}/_PROG"    # zsh
  PROG completion fish > ~/.config/fish/completions/PROG.fish`,
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return Usagef("completion takes one shell: bash, zsh or fish")
				}
				name := c.App.Name
				switch c.Args().First() {
				case "bash":
					_, err := fmt.Fprint(c.App.Writer, bashScript(name))
					return err
				case "zsh":
					_, err := fmt.Fprint(c.App.Writer, "#compdef "+name+"\nautoload -U +X bashcompinit && bashcompinit\n"+bashScript(name))
					return err
				case "fish":
					script, err := c.App.ToFishCompletion()
					if err != nil {
						return err
					}
					_, err = fmt.Fprint(c.App.Writer, script)
					return err
				}
				return Usagef("unknown shell %q: bash, zsh or fish", c.Args().First())
			},
		},
		{
			Name:      "man",
			Usage:     "print the manual page (roff)",
			UsageText: "PROG man > PROG.1",
			Description: `Prints the manual page of this program, made from the same text as --help.

Examples:
  PROG man > ~/.local/share/man/man1/PROG.1 && man PROG`,
			Action: func(c *cli.Context) error {
				if err := NoArgs(c); err != nil {
					return err
				}
				page, err := c.App.ToManWithSection(1)
				if err != nil {
					return err
				}
				// A page describes the program, not the machine that printed it.
				page = strings.ReplaceAll(page, data.InstalledSummary(), "--help says which sets are installed on the machine it runs on.")
				_, err = fmt.Fprint(c.App.Writer, page)
				return err
			},
		},
	}
	for _, c := range cmds {
		c.UsageText = strings.ReplaceAll(c.UsageText, "PROG", name)
		c.Description = strings.ReplaceAll(c.Description, "PROG", name)
	}
	return cmds
}

// bashScript completes name's commands and flags by asking the program itself (words,
// then --generate-bash-completion; see complete).
func bashScript(name string) string {
	fn := "_" + strings.ReplaceAll(name, "-", "_") + "_complete"
	return fmt.Sprintf(`%[1]s() {
  local cur="${COMP_WORDS[COMP_CWORD]}" opts
  if [[ "$cur" == -* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
}
complete -o bashdefault -o default -F %[1]s %[2]s
`, fn, name)
}
