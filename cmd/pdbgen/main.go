// Command pdbgen builds, describes and verifies the toolkit's heuristic tables:
// walking-distance tables and pattern databases, written as compressed, self-describing
// table files (docs/FORMAT.md).
//
//	pdbgen wd --goal blank-last --out wd-blank-last.tbl
//	pdbgen info --json wd-blank-last.tbl
package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
)

func main() { os.Exit(cmdline.Main(newApp(), os.Args)) }

func newApp() *cli.App {
	app := cmdline.NewApp("pdbgen", "build, describe and verify sliding-tile heuristic tables")
	app.Description = `Tables are written as table files: a short text header (see it with sed '/^$/q' FILE)
followed by zstd-compressed entries. The format is specified in docs/FORMAT.md.

Examples:
  pdbgen wd --goal blank-last --out wd-blank-last.tbl
  pdbgen info wd-blank-last.tbl
  pdbgen info --json wd-blank-last.tbl | jq .histogram`
	app.Commands = append([]*cli.Command{buildCommand(), wdCommand(), pdbCommand(), infoCommand(), verifyCommand(), auditCommand(), exportCommand()}, cmdline.ShellCommands("pdbgen")...)
	cmdline.Prepare(app)
	return app
}

var workersFlag = cmdline.WorkersFlag(0, 0, "goroutines for the build (0: all cores)")
