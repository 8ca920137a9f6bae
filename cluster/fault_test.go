package cluster_test

import (
	"bufio"
	"bytes"
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

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tilekit/tilekit/internal/hermetic"
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
	bin := hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/solve15")
	input := filepath.Join(dir, "in.txt")
	require.NoError(t, os.WriteFile(input, []byte(faultInstances), 0o644))
	common := []string{"--json", "--goal", "blank-first", "--heuristic", "wd", "-f", input}

	// What one process says.
	want := map[int]record{}
	out, err := exec.Command(bin, append([]string{"--workers", "2"}, common...)...).Output()
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

// The real binary as coordinator, on loopback with a token, and a forger holding the
// token in the workers' place: its publishes to advisories and units are refused by the
// server, and the forged records it answers units with are not printed as answers: each
// instance fails, naming it, and solve15 exits 1.
func TestForgerAgainstTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, nc, stdout, stderr := tokenCluster(t, ctx, "--local-workers", "0", "--max-deliver", "2", "--ack-wait", "2s",
		"14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "14 7 8 2 13 11 10 4 9 12 5 0 3 6 1 15")
	for _, subject := range []string{"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.TILEKIT_UNITS.workers", "tilekit.units.x"} {
		require.NoError(t, nc.Publish(subject, []byte(`{"stream_seq":1,"deliveries":9}`)))
		require.Eventually(t, func() bool {
			e := nc.LastError()
			return e != nil && strings.Contains(e.Error(), "Permissions Violation") && strings.Contains(e.Error(), subject)
		}, 5*time.Second, 10*time.Millisecond, subject)
	}
	js, cons := workersQueue(t, ctx, nc)
	forged := 0
	for forged < 2 {
		msg, err := cons.Next(jetstream.FetchMaxWait(time.Second))
		if err != nil {
			continue
		}
		var u struct {
			Job   struct{ ID string } `json:"job"`
			ID    string              `json:"id"`
			Index int                 `json:"index"`
			Start []int               `json:"start"`
			Key   string              `json:"key"`
		}
		require.NoError(t, json.Unmarshal(msg.Data(), &u))
		rec := map[string]any{"start": u.Start, "board": "4x4", "goal": "blank-first", "algorithm": "idastar", "heuristic": "6-6-3",
			"solved": true, "optimal": true, "length": 8, "moves": "UUURRRDD", "tiles": []int{1, 2, 3, 4, 5, 6, 7, 8}, "h0": 8, "lower_bound": 8}
		data, err := json.Marshal(map[string]any{"job": u.Job.ID, "unit": u.ID, "index": u.Index, "worker": "mallory", "record": rec,
			"key": u.Key, "ack": msg.Reply()})
		require.NoError(t, err)
		_, err = js.Publish(ctx, "tilekit.results."+u.Job.ID+".mallory", data)
		require.NoError(t, err)
		forged++
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
	assert.Equal(t, 1, exit.ExitCode(), "stderr: %s", stderr.String())
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 2)
	for _, line := range lines {
		var r struct {
			Solved bool   `json:"solved"`
			Error  string `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		assert.False(t, r.Solved, "a forged record printed as an answer: %s", line)
		assert.Contains(t, r.Error, `worker "mallory" sent a result that fails its check`)
	}
}

// The real binary splitting one instance, with a worker of its own and a forger that
// answers every subtree it takes with "no solution" without searching: at --audit 1 the
// lie is caught and the instance fails, naming the forger; solve15 exits 1.
func TestLiarAgainstTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, nc, stdout, stderr := tokenCluster(t, ctx, "--local-workers", "1", "--audit", "1", "--heuristic", "wd",
		"14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3")
	js, cons := workersQueue(t, ctx, nc)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	lies := 0
	for {
		select {
		case err := <-done:
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
			assert.Equal(t, 1, exit.ExitCode(), "stderr: %s", stderr.String())
			assert.Positive(t, lies)
			var r struct {
				Solved bool   `json:"solved"`
				Error  string `json:"error"`
			}
			require.NoError(t, json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r), stdout.String())
			assert.False(t, r.Solved)
			assert.Contains(t, r.Error, `worker "mallory" says of unit`)
			return
		default:
		}
		msg, err := cons.Next(jetstream.FetchMaxWait(200 * time.Millisecond))
		if err != nil {
			continue
		}
		var u struct {
			Job   struct{ ID string } `json:"job"`
			ID    string              `json:"id"`
			Index int                 `json:"index"`
			Seq   int                 `json:"seq"`
			Key   string              `json:"key"`
		}
		require.NoError(t, json.Unmarshal(msg.Data(), &u))
		data, err := json.Marshal(map[string]any{"job": u.Job.ID, "unit": u.ID, "index": u.Index, "seq": u.Seq, "worker": "mallory",
			"work": map[string]any{"nodes": 1000, "expanded": 500}, "key": u.Key, "ack": msg.Reply()})
		require.NoError(t, err)
		if _, err := js.Publish(ctx, "tilekit.results."+u.Job.ID+".mallory", data); err == nil {
			lies++
		}
	}
}

// tokenCluster builds solve15 and starts "solve15 cluster --json --goal blank-first" with
// args, its embedded server on loopback with the token s3cret, and connects to it as the
// worker mallory with its key (made by 'solve15 cluster key'), as a worker would.
func tokenCluster(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, *nats.Conn, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	bin := hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/solve15")
	port := freePort(t)
	cmd := exec.CommandContext(ctx, bin, append([]string{"cluster", "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--store", filepath.Join(dir, "store"), "--token", "s3cret", "--json", "--goal", "blank-first"}, args...)...)
	stdout, stderr := &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	key, err := exec.Command(bin, "cluster", "key", "--token", "s3cret", "mallory").Output()
	require.NoError(t, err)
	name, k, ok := strings.Cut(strings.TrimSpace(string(key)), " ")
	require.True(t, ok && name == "mallory", "%s", key)
	var nc *nats.Conn
	require.Eventually(t, func() bool {
		nc, err = nats.Connect(fmt.Sprintf("nats://127.0.0.1:%d", port), nats.UserInfo("mallory", k), nats.CustomInboxPrefix("_INBOX_mallory"),
			nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
		return err == nil
	}, 20*time.Second, 100*time.Millisecond)
	t.Cleanup(nc.Close)
	return cmd, nc, stdout, stderr
}

// workersQueue waits for the coordinator's queue and returns the workers' consumer.
func workersQueue(t *testing.T, ctx context.Context, nc *nats.Conn) (jetstream.JetStream, jetstream.Consumer) {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	var cons jetstream.Consumer
	require.Eventually(t, func() bool {
		cons, err = js.Consumer(ctx, "TILEKIT_UNITS", "workers")
		return err == nil
	}, 20*time.Second, 100*time.Millisecond)
	return js, cons
}
