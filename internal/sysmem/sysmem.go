// Package sysmem says how much memory the machine can give a process now, so that work
// that needs a known amount can refuse to start instead of dying half-way.
package sysmem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Available returns the memory available for new allocations in bytes, or 0 when it
// cannot tell: the least of what Linux reports the machine has (MemAvailable in
// /proc/meminfo), what the process's cgroup leaves it (memory.max less memory.current;
// cgroup v1: memory.limit_in_bytes less memory.usage_in_bytes), and what its address-space
// limit leaves it (ulimit -v: RLIMIT_AS less the address space it holds).
func Available() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	avail := field(bufio.NewScanner(f), "MemAvailable:")
	if avail <= 0 {
		return 0
	}
	for _, left := range []int64{cgroupLeft(), addressLeft()} {
		if left >= 0 && left < avail {
			avail = left
		}
	}
	return avail
}

// field reads a /proc file's line "NAME: N kB" as bytes (0 when absent or not a size).
func field(sc *bufio.Scanner, name string) int64 {
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == name {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb < 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// ParseSize reads a size in bytes: a number with an optional suffix K, M, G or T (powers
// of 1024), such as "512M" or "12G".
func ParseSize(text string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(text))
	t = strings.TrimSuffix(t, "B")
	shift := 0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			shift, t = 10*(i+1), t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*float64(int64(1)<<shift) > 1<<62 {
		return 0, &sizeError{text}
	}
	return int64(v * float64(int64(1)<<shift)), nil
}

type sizeError struct{ text string }

func (e *sizeError) Error() string {
	return "size " + strconv.Quote(e.text) + " is not a number of bytes with an optional K, M, G or T (such as 512M or 12G)"
}

// Format writes a size for people: "1.5 GB", "300 MB".
func Format(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(n>>10, 10) + " KB"
}
