package sysmem

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCgroupFiles(t *testing.T) {
	v2, v1 := cgroupPaths("12:cpu,cpuacct:/a\n4:memory:/process_api/d43\n0::/user.slice/x.scope\n")
	assert.Equal(t, "/user.slice/x.scope", v2)
	assert.Equal(t, "/process_api/d43", v1)
	v2, v1 = cgroupPaths("0::/\n")
	assert.Equal(t, "/", v2)
	assert.Empty(t, v1)

	dir := t.TempDir()
	for text, want := range map[string]int64{"max\n": -1, "9223372036854771712\n": -1, "2147483648\n": 2 << 30, "oops": -1} {
		path := filepath.Join(dir, "memory.max")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		n, ok := readBytes(path)
		if want < 0 {
			assert.False(t, ok, text)
		} else {
			assert.True(t, ok, text)
			assert.Equal(t, want, n, text)
		}
	}
	_, ok := readBytes(filepath.Join(dir, "none"))
	assert.False(t, ok)
	assert.Equal(t, int64(100), left(300, 200))
	assert.Equal(t, int64(0), left(200, 300))
}

// envChild makes the test binary print Available and exit (TestAvailableUnderUlimit's child).
const envChild = "TILEKIT_SYSMEM_CHILD"

// Under ulimit -v, Available is at most the limit: a process may not map more, whatever
// the machine has free.
func TestAvailableUnderUlimit(t *testing.T) {
	if os.Getenv(envChild) == "1" {
		fmt.Println(Available())
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	const limitKB = 3_000_000
	bin, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command("sh", "-c", fmt.Sprintf(`ulimit -v %d && exec "$0" -test.run='^TestAvailableUnderUlimit$'`, limitKB), bin)
	cmd.Env = append(os.Environ(), envChild+"=1")
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	first := strings.Fields(string(out))
	require.NotEmpty(t, first, "%s", out)
	got, err := strconv.ParseInt(first[0], 10, 64)
	require.NoError(t, err, "%s", out)
	assert.Positive(t, got, "the machine's memory was read")
	assert.Less(t, got, int64(limitKB)<<10, "at most the address space the limit leaves")
	if free := Available(); free > int64(limitKB)<<10 {
		assert.Less(t, got, free, "less than without the limit")
	}
}
