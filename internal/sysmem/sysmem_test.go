package sysmem

import (
	"bufio"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	info := "MemTotal:       24576000 kB\nMemFree:         1000 kB\nMemAvailable:   20000000 kB\n"
	assert.Equal(t, int64(20000000)<<10, field(bufio.NewScanner(strings.NewReader(info)), "MemAvailable:"))
	assert.Equal(t, int64(0), field(bufio.NewScanner(strings.NewReader("MemTotal: 1 kB\n")), "MemAvailable:"))
	assert.GreaterOrEqual(t, Available(), int64(0))
}

func TestParseSize(t *testing.T) {
	for text, want := range map[string]int64{"512M": 512 << 20, "12G": 12 << 30, "1.5g": 3 << 29, "100": 100, "2TB": 2 << 40} {
		got, err := ParseSize(text)
		require.NoError(t, err, text)
		assert.Equal(t, want, got, text)
	}
	for _, text := range []string{"", "G", "-1G", "12X", "1e30T"} {
		_, err := ParseSize(text)
		assert.ErrorContains(t, err, "such as 512M", text)
	}
	assert.Equal(t, "1.5 GB", Format(3<<29))
	assert.Equal(t, "300 MB", Format(300<<20))
}

// Table gives zeroed buffers of the size asked, small and huge, that hold what is written;
// on Linux the huge ones start on a huge page.
func TestTable(t *testing.T) {
	for _, n := range []int{0, 1, HugeFrom - 1, HugeFrom, 3*HugeFrom + 12345} {
		b := Table(n)
		require.Len(t, b, n)
		require.Equal(t, n, cap(b))
		if n >= HugeFrom && adviseHugeWorks {
			require.Zero(t, uintptr(unsafe.Pointer(&b[0]))%hugePage)
		}
		for i := 0; i < n; i += 4096 {
			require.Zero(t, b[i])
			b[i] = byte(i >> 12)
		}
		for i := 0; i < n; i += 4096 {
			require.Equal(t, byte(i>>12), b[i])
		}
	}
}
