//go:build !(linux && (amd64 || arm64))

package gpu

import (
	"context"
	"errors"

	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
)

// errUnsupported reports a system where the package cannot reach a GPU (not Linux on
// amd64 or arm64).
var errUnsupported = errors.New("gpu: GPUs are supported on Linux (amd64, arm64) only")

// A Device is one GPU; on this system there are none (errUnsupported).
type Device struct{}

// Open returns errUnsupported: the package reaches GPUs on Linux (amd64, arm64) only.
func Open(Options) (*Device, error) { return nil, errUnsupported }

// Probe returns errUnsupported, as Open does.
func Probe(Options) (Info, error) { return Info{}, errUnsupported }

// Info describes the device.
func (*Device) Info() Info { return Info{} }

// Close releases the device.
func (*Device) Close() error { return nil }

// Trap runs a kernel that faults, for the tests.
func (*Device) Trap() error { return errUnsupported }

func (*Device) kernels() []KernelUse { return nil }

// Engine prepares a solver's tables on the device.
func (*Device) Engine(*ida.Solver) (*Engine, error) { return nil, errUnsupported }

// An Engine searches one solver's split passes on a device: an passes.Runner.
type Engine struct{}

// SearchSubtrees searches the batch's subtrees on the device (passes.Runner).
func (*Engine) SearchSubtrees(context.Context, *passes.Batch) ([]passes.SubtreeResult, error) {
	return nil, errUnsupported
}

// Search searches the batch's subtrees on the device as sch says.
func (*Engine) Search(context.Context, *passes.Batch, Hints) ([]passes.SubtreeResult, error) {
	return nil, errUnsupported
}

// Stats returns what the engine's launches have done so far.
func (*Engine) Stats() Stats { return Stats{} }

// Donates says whether the engine's threads give work to idle ones.
func (*Engine) Donates() bool { return false }

// Close releases the engine's device memory.
func (*Engine) Close() error { return nil }
