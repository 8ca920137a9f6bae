package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/gpu"
)

func deviceCommand() *cli.Command {
	return &cli.Command{
		Name:      "device",
		Usage:     "show the GPU, check its driver and kernel, and test it against the CPU",
		UsageText: "solve15 device [--gpu N] [--json] [--seconds S] [--fault]\n   solve15 device check | prepare [flags]",
		Description: `Opens the GPU that --device gpu would use: loads the NVIDIA driver (libcuda.so.1;
no CUDA toolkit is needed), shows the card, its compute capability, memory and the
driver's CUDA version, and has the driver compile the kernel (its PTX needs driver R520
or later, and compute capability 7.5 or later). Then a self-test solves a fixed list of
positions of the 4x4 and 5x5 boards with the Manhattan distance, and of 4x4 with a small
catalogue of zero-aware tables in the bit encoding (small-t's kind of search), on the GPU
and on one CPU goroutine, and compares the solutions and the serial node counts: they
must be equal, and every position must have passes searched on the GPU. It takes a few
seconds; --seconds is the most it may take (it then fails, saying how far it got).
--fault also runs a kernel that faults, in a process of its own (the driver keeps a
failed kernel's error for the rest of a process), checks that it is reported, and that
the device opened again here searches right.

Exit status: 0 the GPU works and agrees with the CPU; 1 no usable GPU, or a
disagreement (said on standard error).

The device check (solve15 device check, see its help) measures every headline figure of
the GPU in one run; solve15 device prepare builds the tables it takes along.

Examples:
  solve15 device
  solve15 device --gpu 1 --json`,
		Subcommands: []*cli.Command{deviceCheckCommand(), devicePrepareCommand()},
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
			if c.Bool("trap") {
				return trap(c, opt)
			}
			begin := time.Now()
			dv, err := gpu.Open(opt)
			if err != nil {
				return err
			}
			opened := time.Since(begin)
			info := dv.Info()
			w := c.App.Writer
			if !c.Bool("json") {
				fmt.Fprintf(w, "%s\nopened and compiled the kernel in %.2fs\n", info, opened.Seconds())
			}
			checks, err := gpu.SelfTest(c.Context, dv, c.Duration("seconds"))
			report := struct {
				Info        gpu.Info    `json:"info"`
				OpenSeconds float64     `json:"open_seconds"`
				Checks      []gpu.Check `json:"self_test"`
				Fault       string      `json:"fault,omitempty"`
				Error       string      `json:"error,omitempty"`
			}{Info: info, OpenSeconds: opened.Seconds(), Checks: checks}
			if !c.Bool("json") {
				for _, k := range checks {
					fmt.Fprintf(w, "%s %s, %s: %d moves, %d serial nodes, GPU %.3fs (%d passes, %d device nodes), CPU %.3fs, agree: %v\n",
						k.Board, k.Heuristic, k.Start, k.Length, k.Serial, k.Seconds, k.Passes, k.Device, k.CPU, k.Agree)
				}
			}
			if err == nil && c.Bool("fault") {
				report.Fault, err = fault(c, dv, opt)
				dv = nil
				if err == nil && !c.Bool("json") {
					fmt.Fprintln(w, report.Fault)
				}
			}
			if dv != nil {
				dv.Close()
			}
			if err != nil {
				report.Error = err.Error()
			}
			if c.Bool("json") {
				if jerr := cmdline.JSON(c, report); jerr != nil {
					return jerr
				}
			}
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				fmt.Fprintln(w, "the GPU agrees with the CPU")
			}
			return nil
		},
	}
}

// fault runs the trap kernel in a process of its own (solve15 device --trap: the driver
// keeps a failed kernel's error for the whole process), expects it reported there, then
// closes dv, opens the device again here (a new context) and runs the self-test on it; it
// says what happened.
func fault(c *cli.Context, dv *gpu.Device, opt gpu.Options) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("the fault check runs solve15 again, and could not find it: %w", err)
	}
	out, err := exec.CommandContext(c.Context, exe, "device", "--gpu", strconv.Itoa(opt.Ordinal), "--trap").CombinedOutput()
	got := strings.TrimSpace(string(out))
	if err != nil {
		return "", fmt.Errorf("a faulting kernel was not reported as one (%v): %s", err, got)
	}
	dv.Close()
	again, err := gpu.Open(opt)
	if err != nil {
		return "", fmt.Errorf("after a fault in another process (%s), the GPU did not open again: %w", got, err)
	}
	defer again.Close()
	if _, err := gpu.SelfTest(c.Context, again, c.Duration("seconds")); err != nil {
		return "", fmt.Errorf("after a fault in another process, the self-test failed: %w", err)
	}
	return fmt.Sprintf("a faulting kernel, run in a process of its own, was reported (%s); opened again here, the GPU agrees with the CPU", got), nil
}

// trap runs the trap kernel (solve15 device --trap, for --fault's process of its own) and
// says how it was reported: an error unless as a failed kernel.
func trap(c *cli.Context, opt gpu.Options) error {
	dv, err := gpu.Open(opt)
	if err != nil {
		return err
	}
	defer dv.Close()
	err = dv.Trap()
	if !errors.Is(err, gpu.ErrLaunch) {
		return fmt.Errorf("a faulting kernel was not reported as one: %v", err)
	}
	fmt.Fprintln(c.App.Writer, err)
	return nil
}
