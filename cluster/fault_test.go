package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// record is the part of solve15's JSON that must not depend on how the work was shared.
type record struct {
	Line   int    `json:"line"`
	Length int    `json:"length"`
	Moves  string `json:"moves"`
	Nodes  uint64 `json:"nodes"`
	Worker string `json:"worker"`
}

// faultInstances (seven of Korf's 100, with their optimal lengths) take 0.3 to 1.4 s each
// with walking distance: long enough to kill a worker in the middle of one.
const faultInstances = `14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 57
14 7 8 2 13 11 10 4 9 12 5 0 3 6 1 15 59
2 11 15 5 13 4 6 7 12 8 10 1 9 3 14 0 52
13 11 8 9 0 15 7 10 4 3 6 14 5 12 2 1 59
5 9 13 14 6 3 7 12 10 8 4 0 15 2 11 1 57
13 11 4 12 1 8 9 15 6 5 14 2 7 3 10 0 62
15 14 0 4 11 1 6 13 7 5 8 9 3 2 10 12 66
`

// Three worker processes of the real binary on loopback; one is killed with SIGKILL in
// the middle of a unit, and the coordinator is killed and restarted once on its store.
// The results are solve15's, line for line, with its node counts: no unit lost, none
// counted twice.
func TestWorkerAndCoordinatorKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "solve15")
	build := exec.Command("go", "build", "-o", bin, "github.com/tilekit/tilekit/cmd/solve15")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	input := filepath.Join(dir, "in.txt")
	require.NoError(t, os.WriteFile(input, []byte(faultInstances), 0o644))
	common := []string{"--json", "--goal", "blank-first", "--heuristic", "wd", "-f", input}

	// What one process says.
	want := map[int]record{}
	out, err = exec.Command(bin, append([]string{"--workers", "2"}, common...)...).Output()
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r record
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		want[r.Line] = r
	}
	require.Len(t, want, 7)

	port := freePort(t)
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	store := filepath.Join(dir, "store")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	coordinator := func() (*exec.Cmd, *bufio.Scanner) {
		cmd := exec.CommandContext(ctx, bin, append([]string{"cluster", "--local-workers", "0", "--listen", fmt.Sprintf("127.0.0.1:%d", port),
			"--store", store, "--ack-wait", "1s"}, common...)...)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		return cmd, bufio.NewScanner(stdout)
	}
	first, lines := coordinator()
	var workers []*exec.Cmd
	for i := range 3 {
		w := exec.CommandContext(ctx, bin, "worker", "--nats", url, "--workers", "1", "--name", fmt.Sprintf("w%d", i), "-q")
		w.Stderr = io.Discard
		require.NoError(t, w.Start())
		workers = append(workers, w)
	}
	defer func() {
		for _, w := range workers {
			w.Process.Kill()
			w.Wait()
		}
	}()

	// After the first result every worker is busy with a unit: kill one.
	got := map[int]record{}
	read := func(sc *bufio.Scanner, n int) {
		for len(got) < n && sc.Scan() {
			var r record
			require.NoError(t, json.Unmarshal(sc.Bytes(), &r), sc.Text())
			got[r.Line] = r
		}
	}
	read(lines, 1)
	require.NoError(t, workers[0].Process.Signal(syscall.SIGKILL))
	workers[0].Wait()
	// After a few more, kill the coordinator (and its embedded server) too.
	read(lines, 4)
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	first.Wait()

	// Restarted on the same store, it prints every result again, in order.
	second, lines := coordinator()
	got = map[int]record{}
	read(lines, 7)
	require.NoError(t, second.Wait())
	require.Len(t, got, 7)
	for line, w := range want {
		g := got[line]
		assert.Equal(t, w.Length, g.Length, "line %d", line)
		assert.Equal(t, w.Moves, g.Moves, "line %d", line)
		assert.Equal(t, w.Nodes, g.Nodes, "line %d: nodes", line)
		assert.NotEmpty(t, g.Worker, "line %d", line)
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
