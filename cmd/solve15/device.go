package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/gpu"
)

func deviceCommand() *cli.Command {
	return &cli.Command{
		Name:      "device",
		Usage:     "show the GPU, check its driver and kernel, and test it against the CPU",
		UsageText: "solve15 device [--gpu N] [--json] [--seconds S] [--fault]",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "gpu", Usage: "which GPU (`N`, from 0)"},
			&cli.BoolFlag{Name: "json", Usage: "print the card and the self-test as one JSON object"},
			&cli.DurationFlag{Name: "seconds", Value: time.Minute, Usage: "the most the self-test may take (0: no limit); it fails when it has not checked every position by then"},
			&cli.BoolFlag{Name: "fault", Usage: "also check that a faulting kernel (in a process of its own) is reported, and that the GPU works after it"},
			&cli.BoolFlag{Name: "trap", Hidden: true, Usage: "run only a faulting kernel, and report it (--fault's process of its own)"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdline.NoArgs(c); err != nil {
				return err
			}
			if c.Duration("seconds") < 0 {
				return cmdline.Usagef("--seconds: %v is not a duration of 0 (no limit) or more", c.Duration("seconds"))
			}
			if c.Int("gpu") < 0 {
				return cmdline.Usagef("--gpu: %d is not a GPU's number (0, 1, ...)", c.Int("gpu"))
			}
			opt := gpu.Options{Ordinal: c.Int("gpu")}
			if c.Bool("trap") { // --fault's process of its own
				got, err := gpu.RunTrap(opt)
				if err == nil {
					fmt.Fprintln(c.App.Writer, got)
				}
				return err
			}
			do := gpu.DiagnoseOptions{Limit: c.Duration("seconds")}
			if c.Bool("fault") {
				do.Trap = []string{"device", "--gpu", strconv.Itoa(opt.Ordinal), "--trap"}
			}
			if !c.Bool("json") {
				do.Opened = func(d *gpu.Diagnosis) { d.WriteOpened(c.App.Writer) }
			}
			d, err := gpu.Diagnose(c.Context, opt, do)
			if d == nil && c.Bool("json") && err != nil {
				// No card to describe: the object says why, for a script (exit 1 as well).
				d = &gpu.Diagnosis{Error: err.Error()}
			}
			if d == nil {
				return err
			}
			if !c.Bool("json") {
				d.WriteText(c.App.Writer)
			} else if jerr := cmdline.JSON(c, d); jerr != nil {
				return jerr
			}
			return err
		},
	}
}
