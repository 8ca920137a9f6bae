// Command pdbgen builds, describes and verifies the toolkit's heuristic tables:
// walking-distance tables and pattern databases, written as compressed, self-describing
// table files (docs/FORMAT.md).
//
//	pdbgen wd --goal blank-last --out wd-blank-last.tbl
//	pdbgen info --json wd-blank-last.tbl
package main

import (
	"embed"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
)

func main() { os.Exit(cmdline.Main(newApp(), os.Args)) }

// help holds the commands' long help (cmdline.Describe).
//
//go:embed help/*.txt
var help embed.FS

func newApp() *cli.App {
	app := cmdline.NewApp("pdbgen", "build, describe and verify sliding-tile heuristic tables")
	app.Commands = append([]*cli.Command{buildCommand(), wdCommand(), pdbCommand(), infoCommand(), verifyCommand(), auditCommand(), exportCommand()}, cmdline.ShellCommands("pdbgen")...)
	cmdline.Describe(app, help, map[string]string{"sets": pdb.SetList(), "depth5x5": fmt.Sprint(prune.DefaultDepth(board.Size5x5)),
		"automata": data.AutomataSummary(), "general": strings.Join(heuristic.Names(heuristic.General), ", ")})
	cmdline.Prepare(app)
	return app
}

var workersFlag = cmdline.WorkersFlag(0, 0, "goroutines for the build (0: all cores)")
