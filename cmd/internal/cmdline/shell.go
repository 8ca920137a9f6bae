package cmdline

import (
	"cmp"
	"fmt"
	"regexp"
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
					_, err := fmt.Fprint(c.App.Writer, fishScript(name))
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
  PROG man > "$(go env GOPATH)/share/man/man1/PROG.1" && man PROG   # found beside $(go env GOPATH)/bin on PATH`,
			Action: func(c *cli.Context) error {
				if err := NoArgs(c); err != nil {
					return err
				}
				page, err := c.App.ToManWithSection(1)
				if err != nil {
					return err
				}
				page = synopsisRE.ReplaceAllLiteralString(page, synopsis(c.App)+".SH ")
				// A flag that takes a value: "--board, -b value: ...", not urfave/cli's
				// --board, -b="": (an empty string that reads as the flag's value).
				page = strings.ReplaceAll(page, `\fP="":`, `\fP \fIvalue\fR:`)
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
  opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  if [[ "$opts" == "%[3]s" ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
    compopt -o filenames 2>/dev/null
    return
  fi
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
}
complete -o bashdefault -o default -F %[1]s %[2]s
`, fn, name, filesMarker)
}

// fishScript completes name's commands, flags and the values of flags that take one of a
// few by asking the program itself, as bashScript does; files only where it says a file
// is wanted.
func fishScript(name string) string {
	fn := "__" + strings.ReplaceAll(name, "-", "_") + "_complete"
	return fmt.Sprintf(`function %[1]s
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l opts ($words "$cur" --generate-bash-completion 2>/dev/null)
    if test "$opts" = "%[3]s"
        __fish_complete_path "$cur"
    else
        printf '%%s\n' $opts
    end
end
complete -c %[2]s -f -a '(%[1]s)'
`, fn, name, filesMarker)
}

// synopsisRE is the SYNOPSIS section of urfave/cli's manual page (a list of the flags),
// up to the next section.
var synopsisRE = regexp.MustCompile(`(?s)\.SH SYNOPSIS\n.*?\n\.SH `)

// synopsis is the manual's SYNOPSIS: how the program is called, its STATE arguments and
// its commands, as its usage says them (GLOBAL OPTIONS lists the flags).
func synopsis(app *cli.App) string {
	var lines []string
	add := func(text string) {
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, strings.ReplaceAll(strings.ReplaceAll(l, `\`, `\\`), "-", `\-`))
			}
		}
	}
	if app.UsageText != "" {
		add(app.UsageText)
	} else {
		for _, c := range app.Commands {
			if c.Hidden || c.Name == "help" {
				continue
			}
			add(cmp.Or(c.UsageText, app.Name+" "+c.Name+" [flags]"))
		}
	}
	return ".SH SYNOPSIS\n.nf\n" + strings.Join(lines, "\n") + "\n.fi\n\n"
}
