package cmdline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/search"
	"github.com/tilekit/tilekit/solve"
)

// Exit statuses of commands that solve batches.
const (
	ExitBadInput = 3 // some input lines were invalid, or there were none
	ExitUnsolved = 4 // some instances were not solved within the limits
)

// Results prints the results of a batch of instances as they come, in the form the
// --json, --quiet and --verbose flags ask for, reports bad input lines on standard error,
// and turns the batch's outcome into an exit status. Every command that solves a stream
// of instances (solve15, solve15 cluster) prints through it, so their output is the same.
type Results struct {
	c        *cli.Context
	prefix   string
	goal     board.Goal
	problems *instance.Problems
	status   *Status
	begin    time.Time
	prepared time.Duration // preparing the tables, within the run's wall
	fatal    error
	failed   int // searches that ended in an error, not in their limits
	written  int // results written whole to standard output
}

// NewResults prints for the command of c, whose messages start with prefix ("solve15: ").
func NewResults(c *cli.Context, prefix string, goal board.Goal) *Results {
	return &Results{c: c, prefix: prefix, goal: goal, begin: time.Now(),
		problems: instance.NewProblems(c.App.ErrWriter, prefix, goal),
		status:   NewStatus(c.App.ErrWriter, c.Bool("quiet"))}
}

// Began says when the run began, and how long of it went into preparing the tables
// (loading, building): the summary's wall time counts from then.
func (r *Results) Began(begin time.Time, prepared time.Duration) {
	r.begin, r.prepared = begin, prepared
}

// BadLines reports every entry of a stream that holds no valid instance (NoInstances),
// with no solver, and returns their summary.
func (r *Results) BadLines(in *instance.Stream) *report.Summary {
	sum := &report.Summary{}
	for e := range in.All() {
		r.Add(e, sum.Entry(r.goal, e, report.Record{}), e.Err)
	}
	return sum
}

// Progress is the progress report of the search of the instance labelled label, for
// report.BatchOptions.Progress: nil unless there is a terminal to show it or --verbose.
func (r *Results) Progress(label string) func(bound int, nodes uint64) {
	return r.status.Search(r.prefix, label, r.c.Bool("verbose"))
}

// Status is the status line, for commands with more to show than one search.
func (r *Results) Status() *Status { return r.status }

// Add prints one entry's result: a record, or a bad line. A solved record with an error
// is a replay that did not reach the goal, a bug, which fails the run.
func (r *Results) Add(e instance.Entry, rec report.Record, err error) {
	r.status.Clear()
	switch {
	case e.In == nil:
		r.problems.Add(e)
	case rec.Solved && err != nil:
		r.fatal = err
	case !rec.Solved && err != nil && !limited(err):
		r.failed++ // a GPU kernel's fault, a runner's error: not the limits
	}
	wrote := true
	switch json := r.c.Bool("json"); {
	case json && e.In == nil:
		JSON(r.c, report.NewBadLine(r.goal, e))
	case json:
		JSON(r.c, rec)
	case !r.c.Bool("quiet") && e.In != nil:
		rec.WriteText(r.c.App.Writer)
	default:
		wrote = false
	}
	if wrote && WriteError(r.c) == nil {
		r.written++
	}
}

// Finish ends the batch read from in: it prints the summary line (not with --json, nor
// for a single instance) and returns the error whose exit status says how the batch went.
func (r *Results) Finish(sum *report.Summary, in *instance.Stream) error {
	r.status.Clear()
	r.problems.Finish()
	ctxErr := r.c.Context.Err()
	if err := WriteError(r.c); err != nil {
		// Nothing more is written: the summary would be lost too.
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("writing the results: %w (%s written whole, of %d)", err, format.Count(r.written, "result"), sum.Total()+sum.Invalid)}
	}
	switch {
	case r.fatal != nil:
		return r.fatal
	case ctxErr == nil && in.Err() != nil:
		return InputError(in)
	case sum.Total()+sum.Invalid == 0 && ctxErr == nil && in.Skipped() == 0:
		return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("no states in %s", in.Name())}
	}
	if n := in.Skipped(); n > 0 {
		fmt.Fprintf(r.c.App.ErrWriter, "%s%s already done in %s, passed over\n", r.prefix, format.Count(n, "instance"), r.c.String("done"))
	}
	if !r.c.Bool("json") && (sum.Total()+sum.Invalid > 1 || r.c.Bool("quiet")) {
		fmt.Fprintln(r.c.App.Writer, sum.Text(time.Since(r.begin), r.prepared))
	}
	if sum.Reported > 0 && !r.c.Bool("json") && !r.c.Bool("quiet") {
		// The summary's "solved optimally" rests, for these, on a worker's word.
		fmt.Fprintf(r.c.App.ErrWriter, "%s%s optimal on workers' word, not checked here (--audit solves a share again; --quorum hands each unit to several workers)\n",
			r.prefix, format.Count(sum.Reported, "answer is", "answers are"))
	}
	switch {
	case sum.Mismatched > 0:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s the known optimal length", format.Count(sum.Mismatched, "answer contradicts", "answers contradict"))}
	case sum.Disputed > 0:
		// Each answer is the search here; but a worker sent a wrong result.
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("the workers disagreed on %s, settled by the search here; wrong results came from %s (see DISPUTED above)",
			format.Count(sum.Disputed, "answer"), quotedList(sum.Wrong))}
	case r.failed > 0 && ctxErr == nil:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s failed (see the errors above)", format.Count(r.failed, "instance"))}
	case ctxErr != nil:
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
	case sum.Invalid > 0:
		return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("%s invalid (see above)", format.Count(sum.Invalid, "input was", "inputs were"))}
	case sum.Unsolved > 0:
		return &ExitError{Code: ExitUnsolved, Err: fmt.Errorf("%s not solved within the limits", format.Count(sum.Unsolved, "instance"))}
	}
	return nil
}

// quotedList is names quoted, separated by commas, or "no worker named".
func quotedList(names []string) string {
	if len(names) == 0 {
		return "no worker named"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// InputError is the error of a stream of instances that could not be read to its end: bad
// input (exit 3) for one that is no list of states (instance.ErrNoList), else the read's.
func InputError(in *instance.Stream) error {
	if errors.Is(in.Err(), instance.ErrNoList) {
		return &ExitError{Code: ExitBadInput, Err: in.Err()}
	}
	return in.Err()
}

// limited says whether err ended a search in its limits (--timeout, --max-nodes,
// --max-states, an interruption) or with no solution to find: exit 4 or 130, not a
// failure (exit 1).
func limited(err error) bool {
	for _, e := range []error{context.DeadlineExceeded, context.Canceled, passes.ErrNodeLimit,
		search.ErrMemory, search.ErrExpansions, search.ErrNodes, search.ErrNoSolution} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Instances reads --board, --goal and --tables, and starts reading the arguments or
// --file as a stream of instances.
func Instances(c *cli.Context) (board.Goal, string, *instance.Stream, error) {
	goal, err := Goal(c)
	if err != nil {
		return goal, "", nil, err
	}
	tables, err := Dir(c, "tables")
	if err != nil {
		return goal, "", nil, err
	}
	var done func(*instance.Instance) bool
	if path := c.String("done"); path != "" {
		if done, err = Done(path, goal); err != nil {
			return goal, "", nil, err
		}
	}
	in, err := instance.Open(c.Context, c.String("file"), c.Args().Slice(), c.App.Reader, goal)
	if errors.Is(err, instance.ErrNoInput) && c.String("file") == "" {
		err = Usagef("no states: give STATE arguments or --file FILE")
	} else if errors.Is(err, instance.ErrNoInput) {
		err = Usagef("give states as arguments or with --file, not both")
	}
	if err == nil && done != nil {
		in.Skip(done)
	}
	if file := c.String("file"); err == nil && file != "" && file != "-" {
		// A forgotten --goal: on 3x3 and 5x5 both goals are solvable, and nothing else
		// says so before the search passes the optimum (which, with only the Manhattan
		// distance, may be far too late).
		if named := instance.HeaderGoal(file); named != "" && named != goal.Name() {
			fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s's header gives the goal %s, and this search's is %s: give --goal %s if the file is right\n",
				c.App.Name, file, named, goal.Name(), named)
		}
	}
	return goal, tables, in, err
}

// maxDone bounds the records --done reads.
const maxDone = 1 << 30

// Preparing returns what shows on w (unless quiet) the preparation of a solver's tables
// (solve.Options.Preparing): a line at once, then a progress bar on a terminal; and the
// function that ends the bar.
func Preparing(w io.Writer, quiet bool, prefix string) (func(what string, done, total int), func()) {
	progress := NewProgress(w, quiet)
	return func(what string, done, total int) {
		switch {
		case quiet:
		case total == 0:
			fmt.Fprintf(w, "%s%s\n", prefix, what)
		case progress.tty:
			progress.Update("automaton", int64(done), int64(total), prune.StepNote(done, total))
		}
	}, progress.Done
}

// Done reads the records of an earlier run (--json output, a record a line) from path and
// returns whether an instance is done there: solved, optimal, for goal. Other lines (a
// bench's totals, another goal's records, unsolved ones) count for nothing; a line that is
// not JSON is an error that names it.
func Done(path string, goal board.Goal) (func(*instance.Instance) bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--done: %w", err)
	}
	defer f.Close()
	recs, err := report.ReadRecords(bufio.NewReader(f), "--done "+path, maxDone)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for _, r := range recs {
		if r.Solved && r.Optimal && r.Board == goal.Size().String() && r.Goal == goal.Name() {
			done[fmt.Sprint(r.Start)] = true
		}
	}
	return func(in *instance.Instance) bool { return done[fmt.Sprint(in.State.Ints())] }, nil
}

// SolveOptions are the solver's options from the flags of solve15, with the tables'
// directory, the goroutines one search may use and the device (Device).
func SolveOptions(c *cli.Context, tables string, threads int, dev solve.Device) solve.Options {
	return solve.Options{
		Algorithm: c.String("algo"), Heuristic: c.String("heuristic"), Lookups: c.String("lookups"),
		WithWD: c.Bool("with-wd"), Tables: tables, Workers: threads, Catalogue: c.String("catalogue"),
		MaxNodes: c.Uint64("max-nodes"), MaxExpansions: c.Uint64("max-expansions"), MaxStates: c.Int("max-states"),
		Pruning: c.String("pruning"), PruningDepth: c.Int("pruning-depth"),
		Device: dev,
	}
}
