package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

func solveAction(c *cli.Context) error {
	begin := time.Now()
	goal, tables, in, err := cmdline.Instances(c)
	if err != nil {
		return err
	}
	device, err := cmdline.Device(c)
	if err != nil {
		return err
	}
	threads, parallel := device.Share(c.Int("workers"), in.Single(), c.IsSet("workers"))
	ctx, timeout := c.Context, c.Duration("timeout")
	if in.Single() {
		// One instance's --timeout counts everything it waits for: the tables' loading
		// and the automaton's building too.
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
	}
	out := cmdline.NewResults(c, "solve15: ", goal)
	opts := cmdline.SolveOptions(c, tables, threads, device)
	if err := opts.Check(goal); errors.Is(err, solve.ErrOptions) {
		return cmdline.Usagef("%v", err)
	}
	if in.NoInstances() {
		// Only bad lines: said at once, with no tables prepared for them.
		return out.Finish(out.BadLines(in), in)
	}
	var prepared func()
	opts.Preparing, prepared = cmdline.Preparing(c.App.ErrWriter, c.Bool("quiet"), "solve15: ")
	s, err := solve.New(ctx, goal, opts)
	prepared()
	out.Began(begin, time.Since(begin))
	if ctx.Err() != nil && c.Context.Err() == nil {
		return &cmdline.ExitError{Code: cmdline.ExitUnsolved, Err: fmt.Errorf("not solved within --timeout %v: the tables were still being prepared", timeout)}
	}
	if in.Single() && timeout > 0 {
		timeout = max(timeout-time.Since(begin), time.Nanosecond) // what is left for the search
	}
	if errors.Is(err, solve.ErrOptions) {
		return cmdline.Usagef("%v", err)
	} else if err != nil {
		return err
	}
	if c.Bool("verbose") {
		fmt.Fprintf(c.App.ErrWriter, "solve15: %s\n", s.About())
	}
	if hint := s.Hint(); hint != "" && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "solve15: %s\n", hint)
	}
	if w := s.Warning(); w != "" { // even with -q: a damaged file
		fmt.Fprintf(c.App.ErrWriter, "solve15: %s\n", w)
	}
	sum := report.Batch(c.Context, s, in.All(), report.BatchOptions{Workers: parallel, Timeout: timeout, Progress: out.Progress, Unread: in.Unread}, out.Add)
	return out.Finish(sum, in)
}
