package gpu

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The embedded kernel was made from the sources as they are: a change to them without
// go generate fails here, where no nvcc is needed.
func TestKernelIsCurrent(t *testing.T) {
	hash, err := kernelSourceHash()
	require.NoError(t, err)
	if *update {
		makePTX(t, hash)
		t.Skip("made kernel/ida.ptx and kernel_hash.go: run the tests again to check them")
	}
	assert.Equal(t, kernelHash, hash, "kernel/ida.ptx is stale: run go generate ./gpu (nvcc: Debian's nvidia-cuda-toolkit)")
	// PTX for compute_75 from nvcc 11.8 (ISA 7.8: drivers R520 and later), with both kernels.
	assert.True(t, bytes.Contains(kernelPTX, []byte(".target sm_75")), "the PTX's target")
	assert.True(t, bytes.Contains(kernelPTX, []byte(".version 7.8")), "the PTX's ISA version")
	for _, k := range []string{".entry ida_pass", ".entry ida_grow_order", ".entry trap"} {
		assert.True(t, bytes.Contains(kernelPTX, []byte(k)), "the PTX holds %s", k)
	}
}

// The Go rows of the kernel's kinds (kinds.go) are its entries, in order: those of the
// committed PTX, and the lines of kernel/kinds.h, with the kernels of the growth of the
// kinds that grow their frontier on the card. A row without its entry, or an entry without
// its row, fails here.
func TestKindsAreTheKernels(t *testing.T) {
	var rows, lines, grows []string
	for _, k := range kinds {
		rows = append(rows, k.entry)
		if k.grows {
			grows = append(grows, k.growCount(), k.growWrite())
		}
	}
	var entries []string
	for _, m := range regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(`).FindAllSubmatch(kernelPTX, -1) {
		if name := string(m[1]); name != "trap" && name != "ida_grow_order" {
			entries = append(entries, name)
		}
	}
	assert.Equal(t, append(rows, grows...), entries, "the PTX's entries, but trap and ida_grow_order")
	header, err := os.ReadFile("kernel/kinds.h")
	require.NoError(t, err)
	var grown []string
	for _, m := range regexp.MustCompile(`(?m)^\s+X\((\w+), \w+, \w+, ([01])\)`).FindAllSubmatch(header, -1) {
		lines = append(lines, string(m[1]))
		if string(m[2]) == "1" {
			grown = append(grown, string(m[1])+"_grow_count", string(m[1])+"_grow_write")
		}
	}
	assert.Equal(t, rows, lines, "kernel/kinds.h's TK_KINDS")
	assert.Equal(t, grows, grown, "the kinds that grow, in kernel/kinds.h's fourth column")
}

// Every search's stack, its path below any root (kMaxDepth frames: no pass is too deep
// for it), is at most 24 KB a thread in the committed PTX: the catalogue's lean frames
// (kernel/cat.h) hold what a move changes, not every child's lookups (94,496 bytes
// before). A PTX entry's local depot is the bytes of local memory a thread reserves
// before ptxas.
func TestKernelStacksAreLean(t *testing.T) {
	entry := regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(|^\s*\.local \.align \d+ \.b8\s+__local_depot\d+\[(\d+)\];`)
	depots := map[string]int{}
	var name string
	for _, m := range entry.FindAllSubmatch(kernelPTX, -1) {
		if len(m[1]) > 0 {
			name = string(m[1])
		} else {
			n, err := strconv.Atoi(string(m[2]))
			require.NoError(t, err)
			depots[name] = n
		}
	}
	for _, n := range []string{"ida_pass", "ida_pass_set", "ida_pass_cat"} {
		assert.Positive(t, depots[n], n)
		assert.LessOrEqual(t, depots[n], 24<<10, "%s's local depot", n)
	}
	assert.Zero(t, depots["trap"])
}
