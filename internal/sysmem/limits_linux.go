package sysmem

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// cgroupLeft is what the process's memory cgroup leaves it, in bytes, or -1 when it sets
// no limit (or none can be read).
func cgroupLeft() int64 {
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return -1
	}
	v2, v1 := cgroupPaths(string(raw))
	// Each where the cgroup's own directory is, then the mount's root (a container sees
	// its own cgroup there).
	for _, c := range []struct{ dir, limit, usage string }{
		{filepath.Join("/sys/fs/cgroup", v2), "memory.max", "memory.current"},
		{"/sys/fs/cgroup", "memory.max", "memory.current"},
		{filepath.Join("/sys/fs/cgroup/memory", v1), "memory.limit_in_bytes", "memory.usage_in_bytes"},
		{"/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"},
	} {
		limit, lok := readBytes(filepath.Join(c.dir, c.limit))
		if !lok {
			continue
		}
		usage, _ := readBytes(filepath.Join(c.dir, c.usage))
		return left(limit, usage)
	}
	return -1
}

// cgroupPaths reads /proc/self/cgroup: the path of the unified (v2) hierarchy's cgroup
// ("0::PATH") and of the memory controller's in v1 ("N:memory:PATH"), "" where absent.
func cgroupPaths(text string) (v2, v1 string) {
	for _, line := range strings.Split(text, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case strings.Contains(","+parts[1]+",", ",memory,"):
			v1 = parts[2]
		}
	}
	return v2, v1
}

// noLimit is what cgroup v1 writes for no limit, or more.
const noLimit = 1 << 62

// readBytes reads a cgroup file's number of bytes: false when the file is absent or says
// "max" or a number so large that it sets no limit.
func readBytes(path string) (int64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	t := strings.TrimSpace(string(raw))
	n, err := strconv.ParseInt(t, 10, 64)
	if t == "max" || err != nil || n >= noLimit {
		return 0, false
	}
	return n, true
}

// left is what a limit leaves beyond a usage, never below 0.
func left(limit, usage int64) int64 { return max(limit-usage, 0) }

// addressLeft is what the address-space limit (RLIMIT_AS) leaves the process beyond the
// address space it holds (VmSize), in bytes, or -1 without a limit (RLIM_INFINITY is all
// ones: above noLimit).
func addressLeft() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= noLimit {
		return -1
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	return left(int64(r.Cur), field(bufio.NewScanner(f), "VmSize:"))
}
