package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/internal/sysmem"
	"github.com/tilekit/tilekit/verify"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "prove table files right, or say exactly what is wrong",
		UsageText: "pdbgen verify [--json] [--deep] [--instances FILE] FILE...\n   pdbgen verify [--json] [--deep] --embedded",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON report per file and line"},
			&cli.BoolFlag{Name: "deep", Usage: "also compare mirrors fully, check admissibility and rebuild"},
			&cli.BoolFlag{Name: "rebuild", Usage: "also rebuild tables with the blank in the index and compare"},
			&cli.BoolFlag{Name: "embedded", Usage: "verify the tables built into this binary (with Korf's 100 for the set)"},
			&cli.StringFlag{Name: "instances", Usage: "instances with known optimal lengths, for the admissibility check (`FILE`)"},
			&cli.StringFlag{Name: "instances-goal", Value: "blank-first", Usage: "goal of the --instances file"},
			&cli.StringFlag{Name: "max-memory", Usage: "the most memory a rebuild may take, such as 12G (default: the memory available now)"},
			workersFlag, quietFlag,
		},
		Action: func(c *cli.Context) error {
			if c.Bool("embedded") == (c.NArg() > 0) {
				return cmdline.Usagef("give table FILEs or --embedded (one or the other)")
			}
			opt := verify.Options{Deep: c.Bool("deep"), Rebuild: c.Bool("rebuild"), Workers: c.Int("workers")}
			if text := c.String("max-memory"); text != "" {
				var err error
				if opt.MaxMemory, err = sysmem.ParseSize(text); err != nil {
					return cmdline.Usagef("--max-memory: %v", err)
				} else if opt.MaxMemory == 0 {
					return cmdline.Usagef("--max-memory: give a size above 0")
				}
			}
			if path := c.String("instances"); path != "" {
				goal, err := board.ParseGoal(board.Size4x4, c.String("instances-goal"))
				if err != nil {
					return cmdline.Usagef("--instances-goal: %v", err)
				}
				if opt.Instances, err = verify.ReadInstances(path, goal); err != nil {
					return err
				}
			}
			// A rebuild takes minutes: its progress shows, and each file's report as soon as
			// it is done.
			progress := cmdline.NewProgress(c.App.ErrWriter, c.Bool("quiet"))
			defer progress.Done()
			start := time.Now()
			file := ""
			opt.Progress = func(check string, done, total int64, note string) {
				progress.Update(file+" "+check, done, total, fmt.Sprintf("%s, %.0fs", note, time.Since(start).Seconds()))
			}
			failed, total := 0, 0
			show := func(r *verify.Report) error {
				progress.Done()
				total++
				if !r.OK {
					failed++
				}
				return cmdline.Print(c, r, r.WriteText)
			}
			if c.Bool("embedded") {
				file = "embedded"
				for _, r := range verify.Embedded(c.Context, opt) {
					if err := show(r); err != nil {
						return err
					}
				}
			} else {
				opt.Record = true
				for _, path := range c.Args().Slice() {
					file = filepath.Base(path)
					if err := show(verify.File(c.Context, path, opt)); err != nil {
						return err
					}
				}
			}
			if failed > 0 {
				return &cmdline.ExitError{Code: cmdline.ExitFailure, Err: fmt.Errorf("%d of %s failed verification", failed, format.Count(total, "table"))}
			}
			return c.Context.Err()
		},
	}
}
