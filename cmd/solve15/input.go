package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/cmdline"
)

// readInstances gathers the instances of the command line: the arguments or --file.
// Lines that cannot be read come back as errors, in order, beside the good instances.
func readInstances(c *cli.Context, goal board.Goal) ([]*instance.Instance, []error, error) {
	file := c.String("file")
	args := c.Args().Slice()
	if file != "" && len(args) > 0 {
		return nil, nil, cmdline.Usagef("give states as arguments or with --file, not both")
	}
	var r io.Reader
	switch {
	case file == "-":
		r = c.App.Reader
		if r == nil {
			r = os.Stdin
		}
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		r = f
	case len(args) == 0:
		return nil, nil, cmdline.Usagef("no states: give STATE arguments or --file FILE")
	default:
		r = strings.NewReader(argumentLines(args, goal.Size().Cells()))
	}
	var good []*instance.Instance
	var bad []error
	rd := instance.NewReader(r, goal.Size())
	for {
		in, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *instance.LineError
		if errors.As(err, &le) {
			bad = append(bad, describeLine(file, le))
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if err := goal.Check(in.State); err != nil {
			bad = append(bad, describeLine(file, &instance.LineError{Line: in.Line, Err: err}))
			continue
		}
		good = append(good, in)
	}
	return good, bad, nil
}

// argumentLines turns arguments into instance lines: an argument with spaces or commas is
// one state; single words (numbers, row separators, or mistakes such as "-14", which the
// line's parser then quotes) are grouped into states of n numbers.
func argumentLines(args []string, n int) string {
	var lines []string
	var group []string
	count := 0
	flush := func() {
		if len(group) > 0 {
			lines = append(lines, strings.Join(group, " "))
			group, count = nil, 0
		}
	}
	for _, a := range args {
		if strings.ContainsAny(a, " \t,;\r\n") || a == "" {
			flush()
			lines = append(lines, a)
			continue
		}
		group = append(group, a)
		if sc, err := board.ScanNumbers(a); err != nil {
			count++
		} else {
			count += len(sc.Nums)
		}
		if count == n {
			flush()
		}
	}
	flush()
	return strings.Join(lines, "\n")
}

func describeLine(file string, le *instance.LineError) error {
	if file == "" {
		return fmt.Errorf("state %d: %w", le.Line, le.Err)
	}
	name := file
	if file == "-" {
		name = "stdin"
	}
	return fmt.Errorf("%s:%d: %w", name, le.Line, le.Err)
}

// goalFlag reads --board and --goal.
func goalFlag(c *cli.Context) (board.Goal, error) {
	size := board.Size4x4
	if c.IsSet("board") || c.String("board") != "" {
		var err error
		if size, err = board.ParseSize(c.String("board")); err != nil {
			return board.Goal{}, cmdline.Usagef("--board: %v", err)
		}
	}
	g, err := board.ParseGoal(size, c.String("goal"))
	if err != nil {
		return board.Goal{}, cmdline.Usagef("--goal: %v", err)
	}
	return g, nil
}

// tablesFlag returns the tables of --tables, or nil for the embedded ones.
func tablesFlag(c *cli.Context) (*data.Tables, error) {
	dir := c.String("tables")
	if dir == "" {
		return nil, nil
	}
	t, err := data.LoadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--tables: %w", err)
	}
	return t, nil
}
