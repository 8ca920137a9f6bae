package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cluster"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

var (
	natsFlag  = &cli.StringFlag{Name: "nats", Usage: "use the NATS server (or cluster) at `URL`, such as nats://TOKEN@host:4222"}
	tokenFlag = &cli.StringFlag{Name: "token", EnvVars: []string{"TILEKIT_NATS_TOKEN"}, Usage: "the cluster's secret: the embedded server admits workers with it, or with their keys made from it"}
)

// maxLocalWorkers bounds --local-workers: each local worker waits on the queue's consumer
// with a pull of its own, and the consumer takes 512 at once (JetStream's default), all
// workers of every machine together.
const maxLocalWorkers = 256

// maxQuorum is the most distinct workers --quorum may ask for each unit.
const maxQuorum = 16

func clusterCommand() *cli.Command {
	return &cli.Command{
		Name:      "cluster",
		Usage:     "solve over many machines: hand the work out through NATS JetStream",
		UsageText: "solve15 cluster [flags] STATE... | -f FILE",
		Flags: append(append(searchFlags(), cmdline.DeviceFlags()...),
			&cli.StringFlag{Name: "store", Usage: "the embedded server's JetStream `DIR` (default: tilekit/cluster in the user's cache directory)"},
			&cli.StringFlag{Name: "listen", Usage: "the embedded server's address, `HOST:PORT` (default: 127.0.0.1 on a free port)"},
			natsFlag, tokenFlag,
			&cli.IntFlag{Name: "local-workers", Value: runtime.GOMAXPROCS(0), DefaultText: "the cores this process may use", Usage: "units searched at once by workers in this process (0: none)"},
			&cli.BoolFlag{Name: "split", DefaultText: "only a single instance's", Usage: "split every instance's large passes into subtrees"},
			&cli.IntFlag{Name: "subtrees", Value: 16384, Usage: "the most subtrees of a split pass"},
			&cli.Uint64Flag{Name: "unit-nodes", Value: 1_000_000, Usage: "the size a subtree should have, in nodes (250000 for dozens of workers)"},
			&cli.DurationFlag{Name: "ack-wait", Value: cluster.DefaultQueue.AckWait, Usage: "hand a unit to another worker after this long without a word"},
			&cli.IntFlag{Name: "max-deliver", Value: cluster.DefaultQueue.MaxDeliver, Usage: "report a unit failed once this many distinct workers could not do it (or every worker present could not)"},
			&cli.DurationFlag{Name: "max-hold", Value: cluster.DefaultQueue.MaxHold, Usage: "the longest a worker may hold a unit by saying it is in progress, where --timeout sets none (with --timeout: that and twice --ack-wait)"},
			&cli.BoolFlag{Name: "keep-failed", Usage: "on a store with an earlier run's results, report its failed units as failed rather than hand them out again"},
			&cli.Float64Flag{Name: "audit", Value: cluster.DefaultAudit, Usage: "the fraction of results (subtrees, whole instances), chosen at random, that the coordinator searches again to check its workers (0: none, 1: all)", Action: func(_ *cli.Context, f float64) error {
				if !(f >= 0 && f <= 1) {
					return cmdline.Usagef("--audit must be from 0 to 1")
				}
				return nil
			}},
			&cli.IntFlag{Name: "quorum", Value: 1, Usage: "hand each unit to `N` distinct workers and take its result only when they agree; where they do not, search it here and name the wrong worker (exit 1). Costs N times the work", Action: func(_ *cli.Context, n int) error {
				if n < 1 || n > maxQuorum {
					return cmdline.Usagef("--quorum must be from 1 to %d", maxQuorum)
				}
				return nil
			}},
			&cli.BoolFlag{Name: "trust-proof", Usage: "leave the pass that proves a split instance's solution optimal to --audit's sample, rather than search it all again here"},
		),
		Action:      clusterAction,
		Subcommands: []*cli.Command{keyCommand()},
	}
}

func keyCommand() *cli.Command {
	return &cli.Command{
		Name:      "key",
		Usage:     "print each worker's key, made from the cluster's token",
		UsageText: "solve15 cluster key --token TOKEN NAME...",
		Flags:     []cli.Flag{tokenFlag, &cli.BoolFlag{Name: "json", Usage: "a JSON object a name: {\"name\": ..., \"key\": ...}"}},
		Action: func(c *cli.Context) error {
			token := c.String("token")
			if token == "" {
				return cmdline.Usagef("key needs the cluster's token: --token, or TILEKIT_NATS_TOKEN")
			}
			if c.NArg() == 0 {
				return cmdline.Usagef("key needs the name of at least one worker")
			}
			for _, name := range c.Args().Slice() {
				if err := cluster.ValidName(name); err != nil {
					return cmdline.Usagef("%v", err)
				}
			}
			for _, name := range c.Args().Slice() {
				key := cluster.WorkerKey(token, name)
				if c.Bool("json") {
					data, _ := json.Marshal(map[string]string{"name": name, "key": key})
					fmt.Fprintf(c.App.Writer, "%s\n", data)
				} else {
					fmt.Fprintf(c.App.Writer, "%s %s\n", name, key)
				}
			}
			return nil
		},
	}
}

func clusterAction(c *cli.Context) error {
	goal, tables, in, err := cmdline.Instances(c)
	if err != nil {
		return err
	}
	// The device is the local workers'; the coordinator plans and audits on the CPU.
	device, err := cmdline.Device(c)
	if err != nil {
		return err
	}
	if err := device.Usable(); err != nil {
		return err
	}
	opts := cmdline.SolveOptions(c, tables, 1, solve.Device{})
	var prepared func()
	opts.Preparing, prepared = cmdline.Preparing(c.App.ErrWriter, c.Bool("quiet"), "solve15 cluster: ")
	s, err := solve.New(c.Context, goal, opts)
	prepared()
	if errors.Is(err, solve.ErrOptions) {
		return cmdline.Usagef("%v", err)
	} else if err != nil {
		return err
	}
	if n := c.Int("local-workers"); n > maxLocalWorkers {
		return cmdline.Usagef("--local-workers %d: at most %d (each waits on the queue, which takes %d waiting workers in all, with room left for other machines' workers)", n, maxLocalWorkers, 2*maxLocalWorkers)
	}
	if c.Int("local-workers") < 0 || c.Int("subtrees") < 1 || c.Int("max-deliver") < 1 || c.Duration("ack-wait") <= 0 || c.Duration("max-hold") <= 0 {
		return cmdline.Usagef("--local-workers must not be negative; --subtrees, --max-deliver, --ack-wait and --max-hold must be above 0")
	}
	var entries []instance.Entry
	for e := range in.All() {
		entries = append(entries, e)
	}
	conn, err := connect(c, "solve15 cluster", false)
	if err != nil {
		return err
	}
	defer conn.Close()
	if c.Bool("verbose") {
		fmt.Fprintf(c.App.ErrWriter, "solve15 cluster: %s; NATS at %s\n", s.About(), conn.ConnectedUrlRedacted())
	}
	if hint := s.Hint(); hint != "" && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "solve15 cluster: %s\n", hint) // as solve15 warns
	}
	if w := s.Warning(); w != "" {
		fmt.Fprintf(c.App.ErrWriter, "solve15 cluster: %s\n", w)
	}
	out := cmdline.NewResults(c, "solve15 cluster: ", goal)
	stop := func() error { return nil }
	if n := c.Int("local-workers"); n > 0 {
		w := &cluster.Worker{Tables: tables, Threads: n, Local: true, Device: device,
			Log: func(msg string) { fmt.Fprintf(c.App.ErrWriter, "solve15 cluster: worker: %s\n", msg) }}
		if stop, err = conn.StartWorker(c.Context, w); err != nil {
			return err
		}
	}
	coord := &cluster.Coordinator{Solver: s, Timeout: c.Duration("timeout"),
		Split: c.Bool("split") || in.Single(), Rule: solve.SplitOptions{Subtrees: c.Int("subtrees"), UnitNodes: c.Uint64("unit-nodes")},
		Queue: cluster.Queue{AckWait: c.Duration("ack-wait"), MaxDeliver: c.Int("max-deliver"), MaxHold: c.Duration("max-hold")}, Audit: c.Float64("audit"), Quorum: c.Int("quorum"), TrustProof: c.Bool("trust-proof"), KeepFailed: c.Bool("keep-failed")}
	// Off a terminal, a line at once and a minute apart shows the run going on, as a
	// build's progress does (none with -q).
	out.Status().PlainEvery(time.Minute, "solve15 cluster: ")
	if out.Status().Shows() {
		coord.Status = func(st cluster.Status) { out.Status().Set(st.String()) }
	}
	if !c.Bool("quiet") {
		coord.Resumed = func(units int) {
			fmt.Fprintf(c.App.ErrWriter, "solve15 cluster: resumed: %s of an earlier run read from the store %s; the rest is searched now\n",
				format.Count(units, "unit's result", "units' results"), c.String("store"))
		}
	}
	sum, err := coord.Run(c.Context, conn.Conn, entries, out.Add)
	if err := stop(); err != nil {
		// The local workers stopped early (a GPU's fault): said, and the run's records
		// still printed (the units they left went to others, or failed).
		fmt.Fprintf(c.App.ErrWriter, "solve15 cluster: %v\n", err)
	}
	if err != nil && c.Context.Err() == nil {
		return err
	}
	if sum == nil {
		sum = &report.Summary{}
	}
	// A failed unit is a failure (exit 1), not an instance out of its limits (exit 4):
	// Finish tells them apart.
	return out.Finish(sum, in)
}

// connect reaches the NATS server of --nats, or starts the embedded one of --store and
// --listen; wait keeps trying a server that is not up yet (a worker's).
func connect(c *cli.Context, name string, wait bool) (*cluster.Conn, error) {
	return connectAs(c, name, "", "", wait)
}

// connectAs is connect for the worker user, with its key.
func connectAs(c *cli.Context, name, user, key string, wait bool) (*cluster.Conn, error) {
	e := cluster.Endpoint{URL: c.String("nats"), Name: name, User: user, Key: key, Wait: wait,
		Server: cluster.ServerOptions{Store: c.String("store"), Listen: c.String("listen"), Token: c.String("token")}}
	if e.URL != "" && (c.IsSet("listen") || c.IsSet("store")) {
		return nil, cmdline.Usagef("--nats uses an existing server: --listen and --store are for the embedded one")
	}
	conn, err := cluster.Connect(e)
	if errors.Is(err, cluster.ErrNeedsToken) {
		return nil, cmdline.Usagef("--listen %s reaches beyond this machine: give --token (or TILEKIT_NATS_TOKEN) too", e.Server.Listen)
	}
	return conn, err
}

func workerCommand() *cli.Command {
	return &cli.Command{
		Name:      "worker",
		Usage:     "search units handed out by 'solve15 cluster'",
		UsageText: "solve15 worker --nats URL [--tables DIR] [--workers N]",
		Flags: append([]cli.Flag{natsFlag, tokenFlag,
			&cli.StringFlag{Name: "tables", Usage: "read the tables from `DIR` instead of the usual places"},
			cmdline.WorkersFlag(cmdline.AllCores, 1, "units searched at once"),
			&cli.StringFlag{Name: "name", Usage: "this worker's name: its user on the server, and how results name it (default: the URL's user, else host-pid)"},
			&cli.StringFlag{Name: "key", EnvVars: []string{"TILEKIT_NATS_KEY"}, Usage: "this worker's key, which 'solve15 cluster key NAME' prints where the token is (instead of the token)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no status line"},
		}, cmdline.DeviceFlags()...),
		Action: func(c *cli.Context) error {
			if err := cmdline.NoArgs(c); err != nil {
				return err
			}
			if c.String("nats") == "" {
				return cmdline.Usagef("worker needs --nats URL: the server of the 'solve15 cluster' run")
			}
			tables, err := cmdline.Dir(c, "tables")
			if err != nil {
				return err
			}
			device, err := cmdline.Device(c)
			if err != nil {
				return err
			}
			if err := device.Usable(); err != nil {
				return err
			}
			name, err := cluster.WorkerName(c.String("nats"), c.String("name"))
			if err != nil {
				return cmdline.Usagef("%v", err)
			}
			conn, err := connectAs(c, "solve15 worker "+name, name, c.String("key"), true)
			if err != nil {
				return err
			}
			defer conn.Close()
			status := cmdline.NewStatus(c.App.ErrWriter, c.Bool("quiet"))
			threads := c.Int("workers")
			if !c.IsSet("workers") {
				threads = device.AtOnce(threads) // as a batch on the GPU: one unit's CPU work beside the other's launch
			}
			w := &cluster.Worker{Name: name, Tables: tables, Threads: threads, Device: device,
				Log: func(msg string) { status.Println("solve15 worker: " + msg) }}
			w.Units = func(u *cluster.Unit, o *cluster.Outcome) {
				if status.Live() {
					status.Set(w.Progress())
				} else if !c.Bool("quiet") { // a log, not a terminal: a line a unit
					status.Println("solve15 worker: " + o.Text(u))
				}
			}
			err = w.Run(c.Context, conn.Conn)
			status.Clear()
			if err != nil {
				return err
			}
			if c.Context.Err() != nil {
				return &cmdline.ExitError{Code: cmdline.ExitInterrupted, Err: errors.New("interrupted")}
			}
			return nil
		},
	}
}
