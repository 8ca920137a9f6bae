// Command solve15 solves 15-puzzles optimally with IDA* on the toolkit's tables, which
// are built into the binary.
//
//	solve15 "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3" --goal blank-first
//	solve15 -f instances/korf100.txt --goal blank-first --workers 2
//	solve15 eval "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12"
package main

import (
	"embed"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/search"
)

func main() { os.Exit(cmdline.Main(newApp(), os.Args)) }

// help holds the commands' long help (cmdline.Describe).
//
//go:embed help/*.txt
var help embed.FS

func newApp() *cli.App {
	app := cmdline.NewApp("solve15", "solve sliding-tile puzzles (8, 15, 24) optimally")
	app.UsageText = `solve15 [flags] STATE...
   solve15 [flags] -f FILE          (FILE may be - for standard input)
   solve15 eval [flags] STATE... | -f FILE
   solve15 bench [flags]
   solve15 cluster [flags] STATE... | -f FILE
   solve15 worker --nats URL [flags]
   solve15 device [flags]
   solve15 repro | serve | site [flags]`
	app.Flags = append(append(searchFlags(), cmdline.DeviceFlags()...),
		cmdline.WorkersFlag(cmdline.AllCores, 1, "instances solved in parallel; a single instance is searched by this many goroutines, and so is each of a batch on --device gpu (two at a time) unless --workers is given"))
	app.Action = solveAction
	app.Commands = append([]*cli.Command{evalCommand(), benchCommand(), clusterCommand(), workerCommand(), deviceCommand(), reproCommand(), serveCommand(), siteCommand()}, cmdline.ShellCommands("solve15")...)
	cmdline.Describe(app, help, map[string]string{"fast": heuristic.FastSummary(), "inadmissible": heuristic.Inadmissible(),
		"installed": data.InstalledSummary(), "heuristics": heuristic.Table()})
	cmdline.Prepare(app)
	return app
}

// solveFlags are the flags shared by solving and evaluating.
func solveFlags() []cli.Flag {
	return []cli.Flag{cmdline.BoardFlag("4x4"), cmdline.GoalFlag("blank-last"),
		&cli.StringFlag{Name: "tables", Usage: "read the tables from `DIR` (files of 'pdbgen build') instead of the embedded ones"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object per instance and line"},
	}
}

// searchFlags are the flags of solving, shared by solve15 and solve15 cluster.
func searchFlags() []cli.Flag {
	return append(solveFlags(),
		&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read states from `FILE` (- for standard input)"},
		&cli.StringFlag{Name: "done", Usage: "pass over the states that the records in `FILE` (an earlier --json run's) solved optimally, for a campaign in many sittings"},
		&cli.StringFlag{Name: "algo", Aliases: []string{"a"}, Value: "idastar", Usage: "idastar, astar, rbfs or bastar"},
		&cli.StringFlag{Name: "heuristic", Aliases: []string{"H"}, Usage: heuristic.Usage() + " (default: auto, the strongest available)"},
		&cli.IntFlag{Name: "max-states", Value: search.DefaultMaxStates, Usage: "astar, bastar: most states stored at once (about 150 bytes each)", Action: func(_ *cli.Context, n int) error {
			if n < 1 {
				return cmdline.Usagef("--max-states must be at least 1")
			}
			return nil
		}},
		&cli.Uint64Flag{Name: "max-expansions", Usage: "give up on an instance after expanding this many nodes (0: no limit)"},
		&cli.DurationFlag{Name: "timeout", Usage: "give up on an instance after this long (e.g. 30s; 0: never)", Action: func(_ *cli.Context, d time.Duration) error {
			if d < 0 {
				return cmdline.Usagef("--timeout must not be negative (0 means no limit)")
			}
			return nil
		}},
		&cli.Uint64Flag{Name: "max-nodes", Usage: "give up on an instance after generating this many nodes (0: no limit)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the summary line (human output)"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "say which heuristic and tables are used, and report every IDA* pass, on standard error"},
		&cli.StringFlag{Name: "lookups", Usage: "for a set: regular, reflected, dual or all (default: reflected, the fastest measured)"},
		&cli.BoolFlag{Name: "with-wd", Usage: "for a set on 4x4: also take the maximum with walking distance"},
		&cli.StringFlag{Name: "catalogue", Usage: "the heuristic is the catalogue of partitions in `FILE` (pdbgen build --catalogue FILE builds its tables)"},
		cmdline.PruningFlag(), cmdline.PruningDepthFlag(false),
	)
}
