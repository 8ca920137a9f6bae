package cmdline

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// The commands' long help is prose kept apart from their wiring, a text file each in the
// binary's help directory (embedded, help/ in the FS): APP.txt for the app, and for a command its names
// below the app joined by "-" (cluster.txt, cluster-key.txt). A {{name}} in a text is
// replaced by what the binary computes for it (the sets known, the automata's sizes).
// HelpProblems checks the files against the commands, and runs every example.

// Describe sets the description of app and of each of its commands from the texts of help,
// each {{name}} replaced by values[name]. A command without a text keeps its own.
func Describe(app *cli.App, help fs.FS, values map[string]string) {
	var pairs []string
	for name, v := range values {
		pairs = append(pairs, "{{"+name+"}}", v)
	}
	r := strings.NewReplacer(pairs...)
	describe := func(name string, desc *string) {
		if b, err := fs.ReadFile(help, "help/"+name+".txt"); err == nil {
			*desc = r.Replace(strings.TrimRight(string(b), "\n"))
		}
	}
	describe(app.Name, &app.Description)
	eachCommand(app, func(name string, c *cli.Command) { describe(name, &c.Description) })
}

// eachCommand calls f for every command of app, with its help file's name.
func eachCommand(app *cli.App, f func(name string, c *cli.Command)) {
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			f(prefix+c.Name, c)
			walk(prefix+c.Name+"-", c.Subcommands)
		}
	}
	walk("", app.Commands)
}

// HelpProblems says what is wrong with the help texts of the app that newApp makes
// (described from help): a text no command has, one left with a {{name}} not replaced, a
// command of the binary's own with no text, and an example that the app refuses as bad
// usage (an unknown flag, a flag after an argument, a value a flag refuses). Each example
// (a line of a text's "Examples:" that runs the app, its comment, environment and the
// commands piped to it aside) runs with every command's action replaced by nothing.
func HelpProblems(newApp func() *cli.App, help fs.FS) []string {
	var problems []string
	root := repoRoot()
	app := newApp()
	texts, _ := fs.Glob(help, "help/*.txt")
	for i := range texts {
		texts[i] = strings.TrimPrefix(texts[i], "help/")
	}
	named := map[string]bool{app.Name + ".txt": true}
	shell := map[string]bool{}
	for _, c := range ShellCommands(app.Name) {
		shell[c.Name] = true
	}
	descs := []string{app.Description}
	eachCommand(app, func(name string, c *cli.Command) {
		named[name+".txt"] = true
		if !shell[strings.SplitN(name, "-", 2)[0]] && !slices.Contains(texts, name+".txt") {
			problems = append(problems, fmt.Sprintf("command %q has no help text (%s.txt)", name, name))
		}
		descs = append(descs, c.Description)
	})
	for _, t := range texts {
		if !named[t] {
			problems = append(problems, fmt.Sprintf("%s is no command's help", t))
		}
	}
	for _, d := range descs {
		if strings.Contains(d, "{{") {
			problems = append(problems, fmt.Sprintf("a {{name}} left in %q", firstLine(d)))
		}
		list, bad := examples(d, app.Name, root)
		problems = append(problems, bad...)
		for _, args := range list {
			dry := newApp()
			dry.Writer, dry.ErrWriter = io.Discard, io.Discard
			example := strings.Join(args, " ")
			nothing := func(ctx *cli.Context) error {
				if err := NoLateFlags(ctx); err != nil {
					return err
				}
				// A command that reads states from --file takes those of its arguments:
				// they must be states.
				flags := ctx.Command.Flags
				if ctx.Command.Name == "" { // the program's own action
					flags = ctx.App.Flags
				}
				if ctx.NArg() > 0 && flagNamed(flags, "file") != nil {
					if _, _, in, err := Instances(ctx); err != nil || in.NoInstances() {
						problems = append(problems, fmt.Sprintf("example %q: its arguments are no states (%v)", example, err))
					}
				}
				return nil
			}
			dry.Action = nothing
			eachCommand(dry, func(_ string, c *cli.Command) {
				if c.Action != nil {
					c.Action = nothing
				}
			})
			if code := Main(dry, append([]string{app.Name}, args...)); code == ExitUsage {
				problems = append(problems, fmt.Sprintf("example %q is bad usage", strings.Join(args, " ")))
			}
		}
	}
	return problems
}

// examples returns the arguments of each example of desc that runs app, each $(...) in
// them expanded by bash in root (the repository, whose files the examples name), and the
// problems of those the shell could not expand.
func examples(desc, app, root string) (out [][]string, problems []string) {
	_, list, ok := strings.Cut(desc, "\nExamples:\n")
	if !ok {
		return nil, nil
	}
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		line, _, _ = strings.Cut(line, " # ")
		if strings.Contains(line, "$(") {
			expanded, err := expand(line, root)
			if err != nil {
				problems = append(problems, fmt.Sprintf("example %q: %v", strings.TrimSpace(line), err))
				continue
			}
			line = expanded
		}
		for _, cmd := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == '&' || r == ';' }) {
			words := ShellWords(cmd)
			for len(words) > 0 && strings.Contains(words[0], "=") { // the environment
				words = words[1:]
			}
			if len(words) > 0 && words[0] == app {
				out = append(out, words[1:])
			}
		}
	}
	return out, problems
}

// expand replaces each $(...) of line with what bash prints for it in dir, its last
// newlines cut, as a shell would (the quotes around it stay: ShellWords takes them).
func expand(line, dir string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(line, "$(")
		if i < 0 {
			b.WriteString(line)
			return b.String(), nil
		}
		depth, j := 0, i+1
		for ; j < len(line); j++ {
			if line[j] == '(' {
				depth++
			} else if line[j] == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if j == len(line) {
			return "", fmt.Errorf("no ) closes its $(")
		}
		cmd := exec.Command("bash", "-c", line[i+2:j])
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("bash -c %q in %s: %v", line[i+2:j], dir, err)
		}
		b.WriteString(line[:i])
		b.WriteString(strings.TrimRight(string(out), "\n"))
		line = line[j+1:]
	}
}

// repoRoot is the nearest directory at or above the working directory that holds go.mod
// (the working directory where none does).
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// ShellWords splits a command line into words as a shell does without expansions: quotes
// group, and are removed.
func ShellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
			}
			in = false
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
