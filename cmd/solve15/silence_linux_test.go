package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/internal/hermetic"
)

// maxSilentCPU is the most CPU time a command of the README may spend before its first
// output on a terminal. CPU time, not wall time: the same on a loaded machine, and above a
// silent wall time of the same length whenever the command keeps a core busy.
const maxSilentCPU = 2 * time.Second

// Every solve15 and pdbgen command of the README says something on a terminal before it
// has spent 2 seconds of CPU: a result, a progress line, a status line, or that it builds
// a table first. Each runs with nothing installed, under a pseudo-terminal, and is
// stopped at its first output.
func TestNoSilentStretch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds solve15 and pdbgen")
	}
	hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/pdbgen")
	bin := filepath.Dir(hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/solve15")) // both there
	commands := readmeCommands(t)
	require.GreaterOrEqual(t, len(commands), 10, "the README's commands")
	for _, line := range commands {
		args := cmdline.ShellWords(line)
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "/tmp/site", t.TempDir())
		}
		home := t.TempDir()
		cmd := exec.Command(filepath.Join(bin, args[0]), args[1:]...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "TILEKIT_TABLES=", "TERM=xterm")
		cpu, first := firstOutput(t, cmd)
		assert.LessOrEqual(t, cpu, maxSilentCPU, "%s: %v of CPU before its first output %q", line, cpu, first)
		t.Logf("%s: first output after %v of CPU: %q", line, cpu, first)
	}
}

// readmeCommands returns the solve15 and pdbgen commands of the README's sh blocks, each
// up to a pipe, redirection or comment.
func readmeCommands(t *testing.T) []string {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var out []string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "```") {
			in = strings.HasPrefix(line, "```sh")
			continue
		}
		if !in || !(strings.HasPrefix(line, "solve15 ") || strings.HasPrefix(line, "pdbgen ")) {
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if i := strings.IndexAny(line, "|>&"); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// firstOutput starts cmd on a new pseudo-terminal, waits for its first output (or its
// end), and returns the CPU time it had spent by then and what it said; then it stops it.
func firstOutput(t *testing.T, cmd *exec.Cmd) (time.Duration, string) {
	t.Helper()
	ptm, pts := openPTY(t)
	defer ptm.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	require.NoError(t, cmd.Start())
	pts.Close()
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	buf := make([]byte, 256)
	n, _ := ptm.Read(buf) // the first output, or an error at the child's end
	cpu := cpuTime(t, cmd.Process.Pid)
	return cpu, strings.TrimSpace(string(bytes.ToValidUTF8(buf[:n], nil)))
}

// cpuTime is the user and system time the process has used (/proc/PID/stat).
func cpuTime(t *testing.T, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// The fields after the command's name, which is in parentheses.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, err := strconv.ParseUint(fields[11], 10, 64)
	require.NoError(t, err)
	stime, err := strconv.ParseUint(fields[12], 10, 64)
	require.NoError(t, err)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}

// openPTY opens a new pseudo-terminal: its master and its slave.
func openPTY(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		ptm.Close()
		t.Fatalf("unlocking the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		ptm.Close()
		t.Fatalf("naming the pseudo-terminal: %v", e)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	return ptm, pts
}
