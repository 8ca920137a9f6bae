package gpu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// A Diagnosis is what solve15 device says of a GPU: the card, how long the driver took to
// open it and compile the kernel, the self-test, and the fault check's outcome.
type Diagnosis struct {
	Info        Info        `json:"info"`
	OpenSeconds float64     `json:"open_seconds"`
	Kernels     []KernelUse `json:"kernels"`
	Checks      []Check     `json:"self_test"`
	Fault       string      `json:"fault,omitempty"`
	Error       string      `json:"error,omitempty"`
}

// DiagnoseOptions say what Diagnose does beside opening the device and its self-test.
type DiagnoseOptions struct {
	Limit time.Duration // the self-test's limit (0: none)
	// Trap, if set, is the arguments of this program that run RunTrap on the device in a
	// process of its own and print its error (the driver keeps a failed kernel's error for
	// the rest of a process): the fault check runs it, expects it to succeed, closes the
	// device, opens it again here and runs the self-test again.
	Trap []string
	// Opened, if set, hears of the card once it is open, before the self-test.
	Opened func(d *Diagnosis)
}

// Diagnose opens the GPU of opt, runs the self-test and, when asked, the fault check. The
// Diagnosis holds what was found, and its Error the error returned.
func Diagnose(ctx context.Context, opt Options, do DiagnoseOptions) (*Diagnosis, error) {
	begin := time.Now()
	dv, err := Open(opt)
	if err != nil {
		return nil, err
	}
	d := &Diagnosis{Info: dv.Info(), OpenSeconds: time.Since(begin).Seconds(), Kernels: dv.kernels()}
	if do.Opened != nil {
		do.Opened(d)
	}
	d.Checks, err = selfTest(ctx, dv, do.Limit)
	if err == nil && do.Trap != nil {
		d.Fault, err = fault(ctx, dv, opt, do)
		dv = nil
	}
	if dv != nil {
		dv.Close()
	}
	if err != nil {
		d.Error = err.Error()
	}
	return d, err
}

// fault runs do.Trap's process, expects the faulting kernel reported there, then closes
// dv, opens the device again here (a new context) and runs the self-test on it; it says
// what happened.
func fault(ctx context.Context, dv *Device, opt Options, do DiagnoseOptions) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("the fault check runs this program again, and could not find it: %w", err)
	}
	out, err := exec.CommandContext(ctx, exe, do.Trap...).CombinedOutput()
	got := strings.TrimSpace(string(out))
	if err != nil {
		return "", fmt.Errorf("a faulting kernel was not reported as one (%v): %s", err, got)
	}
	dv.Close()
	again, err := Open(opt)
	if err != nil {
		return "", fmt.Errorf("after a fault in another process (%s), the GPU did not open again: %w", got, err)
	}
	defer again.Close()
	if _, err := selfTest(ctx, again, do.Limit); err != nil {
		return "", fmt.Errorf("after a fault in another process, the self-test failed: %w", err)
	}
	return fmt.Sprintf("a faulting kernel, run in a process of its own, was reported (%s); opened again here, the GPU agrees with the CPU", got), nil
}

// RunTrap opens the GPU of opt and runs a faulting kernel (Trap), for the fault check's
// process of its own: it returns the kernel's error as reported, or an error when the
// fault was not reported as a failed kernel.
func RunTrap(opt Options) (string, error) {
	dv, err := Open(opt)
	if err != nil {
		return "", err
	}
	defer dv.Close()
	err = dv.Trap()
	if !errors.Is(err, ErrLaunch) {
		return "", fmt.Errorf("a faulting kernel was not reported as one: %v", err)
	}
	return err.Error(), nil
}

// KernelUse is what the driver compiled a search's kernel to for the card: its registers
// and local memory a thread (its stack frame, spills included).
type KernelUse struct {
	Name       string `json:"name"`
	Registers  int    `json:"registers"`
	LocalBytes int    `json:"local_bytes"`
}

// WriteOpened writes the card, the time to open it and the kernels, as solve15 device
// prints them first.
func (d *Diagnosis) WriteOpened(w io.Writer) {
	fmt.Fprintf(w, "%s\nopened and compiled the kernel in %.2fs\n", d.Info, d.OpenSeconds)
	for _, k := range d.Kernels {
		fmt.Fprintf(w, "%s: %d registers, %d bytes of local memory a thread\n", k.Name, k.Registers, k.LocalBytes)
	}
}

// WriteText writes the self-test's checks and the fault check's outcome, a line each, and
// a last line when the GPU agrees with the CPU.
func (d *Diagnosis) WriteText(w io.Writer) {
	for _, k := range d.Checks {
		fmt.Fprintf(w, "%s %s, %s: %d moves, %d serial nodes, GPU %.3fs (%d passes, %d device nodes), CPU %.3fs, agree: %v\n",
			k.Board, k.Heuristic, k.Start, k.Length, k.Serial, k.Seconds, k.Passes, k.Device, k.CPU, k.Agree)
	}
	if d.Fault != "" {
		fmt.Fprintln(w, d.Fault)
	}
	if d.Error == "" {
		fmt.Fprintln(w, "the GPU agrees with the CPU")
	}
}
