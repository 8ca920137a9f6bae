package gpu

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/gpu/internal/ptxsrc"
)

// The embedded kernel was made from the sources as they are: a change to them without
// go generate fails here, where no nvcc is needed.
func TestKernelIsCurrent(t *testing.T) {
	hash, err := ptxsrc.Hash(".")
	require.NoError(t, err)
	assert.Equal(t, kernelHash, hash, "kernel/ida.ptx is stale: run go generate ./gpu (nvcc: Debian's nvidia-cuda-toolkit)")
	// PTX for compute_75 from nvcc 11.8 (ISA 7.8: drivers R520 and later), with both kernels.
	assert.True(t, bytes.Contains(kernelPTX, []byte(".target sm_75")), "the PTX's target")
	assert.True(t, bytes.Contains(kernelPTX, []byte(".version 7.8")), "the PTX's ISA version")
	for _, k := range []string{".entry ida_pass", ".entry trap"} {
		assert.True(t, bytes.Contains(kernelPTX, []byte(k)), "the PTX holds %s", k)
	}
}
