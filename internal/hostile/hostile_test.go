// Package hostile runs the toolkit's commands, built as real binaries, on careless and
// hostile input: random bytes, very long lines, binary files, endless streams, signals and
// kill -9 in the middle of a write. Every run must end within a few seconds, within a
// memory bound, with a clear message and the documented exit status, and never leave a
// damaged or half-written file behind.
package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/internal/hermetic"
)

var bin string // the directory holding solve15 and pdbgen

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hostile")
	if err != nil {
		panic(err)
	}
	build := exec.Command("go", "build", "-o", dir, "github.com/tilekit/tilekit/cmd/solve15", "github.com/tilekit/tilekit/cmd/pdbgen")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic(err)
	}
	bin = dir
	// The commands must not see tables installed on this machine: their choices would
	// differ from one machine to the next.
	hermetic.HideTables(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one finished run.
type result struct {
	code           int
	stdout, stderr string
	maxRSS         int64 // kilobytes
	elapsed        time.Duration
	cpu            time.Duration // user and system: what the input cost, whatever the machine's load
}

// run runs a command with the given standard input (nil: none) and a deadline that only a
// hang reaches.
func run(t *testing.T, stdin io.Reader, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &limited{&out}, &limited{&errOut}
	begin := time.Now()
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errOut.String(), elapsed: time.Since(begin)}
	require.NoError(t, ctx.Err(), "%s %v did not end", name, short(args))
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	res.maxRSS = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return res
}

// limited keeps the first megabyte written to it: a flood of output is itself a failure,
// checked by the callers, but must not exhaust the test.
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := 1<<20 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func short(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 40 {
			a = a[:40] + "..."
		}
		out[i] = a
	}
	return out
}

// garbage is the hostile input: each a file's contents.
func garbage(t *testing.T) map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// A binary of the system (ours embed the benchmark positions, which are valid input).
	binary, err := os.ReadFile("/bin/ls")
	require.NoError(t, err)
	return map[string][]byte{
		"random bytes":       random,
		"one long line":      bytes.Repeat([]byte("7"), 5000),
		"long line then one": append(bytes.Repeat([]byte("1 "), 100000), "\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15\n"...),
		"binary file":        binary,
		"many short lines":   bytes.Repeat([]byte("0\n"), 200000),
		"signs and zeros":    []byte("1 2 3 4 5 6 7 8 9 10 11 12 13 -14 15 0\n+1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 00\n"),
		"empty":              nil,
		"only comments":      []byte("# nothing\n\n   \n"),
		"NUL bytes":          make([]byte, 100000),
		"a table as states":  []byte("tilekit-table 2\nkind: pdb\n"),
	}
}

const memoryBound = 200 << 10 // kilobytes of peak RSS allowed for any bad input

// Every input path of solve15 and pdbgen, on every kind of garbage.
func TestGarbageInput(t *testing.T) {
	dir := t.TempDir()
	runs, peak, slowest := 0, int64(0), time.Duration(0)
	defer func() {
		t.Logf("%d runs on %d inputs, each ended with its documented status and a message; peak RSS %d KB, slowest %.2fs", runs, len(garbage(t)), peak, slowest.Seconds())
	}()
	for what, data := range garbage(t) {
		file := filepath.Join(dir, strings.ReplaceAll(what, " ", "-"))
		require.NoError(t, os.WriteFile(file, data, 0o644))
		for _, tc := range []struct {
			name  string
			stdin []byte
			args  []string
			codes []int // acceptable exit statuses
		}{
			{"solve15 -f FILE", nil, []string{"solve15", "-f", file}, []int{3}},
			{"solve15 -f -", data, []string{"solve15", "-f", "-"}, []int{3}},
			{"solve15 --json -f FILE", nil, []string{"solve15", "--json", "-f", file}, []int{3}},
			{"solve15 eval -f FILE", nil, []string{"solve15", "eval", "-f", file}, []int{3}},
			{"solve15 bench -f FILE", nil, []string{"solve15", "bench", "--quiet", "-f", file}, []int{3}},
			{"pdbgen info FILE", nil, []string{"pdbgen", "info", file}, []int{1}},
			{"pdbgen verify FILE", nil, []string{"pdbgen", "verify", file}, []int{1}},
		} {
			var stdin io.Reader
			if tc.stdin != nil {
				stdin = bytes.NewReader(tc.stdin)
			}
			res := run(t, stdin, tc.args[0], tc.args[1:]...)
			runs++
			peak, slowest = max(peak, res.maxRSS), max(slowest, res.elapsed)
			label := fmt.Sprintf("%s on %s", tc.name, what)
			assert.Contains(t, tc.codes, res.code, "%s: exit status\n%s", label, res.stderr)
			assert.Less(t, res.cpu, 10*time.Second, "%s: CPU time", label)
			assert.Less(t, res.maxRSS, int64(memoryBound), "%s: peak RSS %d KB", label, res.maxRSS)
			assert.NotEmpty(t, res.stderr, "%s: a message is due", label)
			assert.NotContains(t, res.stderr, "panic", label)
			assert.Less(t, strings.Count(res.stderr, "\n"), 30, "%s: messages are capped", label)
		}
	}
}

// Arguments: signs, separators, empty arguments, flags in the wrong place, unknown words.
func TestBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"solve15", "1 2 3 4 5 6 7 8 9 10 11 12 13 -14 15 0"}, 3, `"-14"`},
		{[]string{"solve15", ""}, 3, "state 1"},
		{[]string{"solve15", strings.Repeat("7", 5000)}, 3, "longer than 4096 bytes"},
		{[]string{"solve15", "1 2 3 / 4 5 6 7 8 / 9 10 11 12 / 13 14 15 0"}, 3, "row 1 has 3 numbers"},
		{[]string{"solve15", "--timeout", "-1s", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"}, 2, "--timeout must not be negative"},
		{[]string{"solve15", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "--json"}, 2, "Run 'solve15 --help'"},
		{[]string{"solve15", "--board", "x", "1 2 3 0"}, 2, "not of the form WxH"},
		{[]string{"pdbgen", "pdb", "--board", "4x", "--tiles", "1"}, 2, "not of the form WxH"},
		{[]string{"pdbgen", "build", "--set", "7-8", "--workers", "-1", "--out", "/nonexistent"}, 2, "--workers must be from 0 to 1024"},
		{[]string{"pdbgen", "build", "--set", "7-8", "--board", "5x5", "--out", "/nonexistent"}, 2, "the 7-8 set is for 4x4"},
		{[]string{"pdbgen", "build", "--board", "3x3", "--out", "/nonexistent"}, 2, "no set for the 3x3 board"},
		{[]string{"pdbgen", "build", "--catalogue", "/nonexistent/x.cat", "--out", "/nonexistent"}, 2, "catalogue"},
		{[]string{"solve15", "--workers", "1000000", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"}, 2, "--workers must be from 1 to 1024"},
		{[]string{"solve15", "bench", "--random", "-5"}, 2, "at least 1 instance"},
		{[]string{"solve15", "--board", "5x5", "--heuristic", "6-6-3", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 0 24"}, 2, "is for the 4x4 board"},
		{[]string{"pdbgen"}, 2, "no command given"},
		{[]string{"pdbgen", "frobnicate"}, 2, "unknown command"},
		{[]string{"pdbgen", "wd", "--out", "/dev/null"}, 2, "not a regular file"},
		{[]string{"pdbgen", "info", "/tmp"}, 1, "is a directory"},
	} {
		res := run(t, nil, tc.args[0], tc.args[1:]...)
		assert.Equal(t, tc.code, res.code, "%v\n%s", short(tc.args), res.stderr)
		assert.Contains(t, res.stderr, tc.msg, "%v", short(tc.args))
	}
	for _, args := range [][]string{{"pdbgen", "help"}, {"solve15", "help"}, {"solve15", "version"}, {"pdbgen", "help", "pdb"}} {
		res := run(t, nil, args[0], args[1:]...)
		assert.Equal(t, 0, res.code, "%v", args)
		assert.NotEmpty(t, res.stdout, "%v", args)
	}
}

// An endless stream on standard input is read with bounded memory, and a signal ends it;
// an endless line ends by itself, as no list of states (exit 3).
func TestEndlessStdin(t *testing.T) {
	line := exec.Command(filepath.Join(bin, "solve15"), "-f", "-")
	line.Stdin = endless("9 ")
	var lineErr bytes.Buffer
	line.Stderr = &limited{&lineErr}
	_ = line.Run() // exit 3: an error
	assert.Equal(t, 3, line.ProcessState.ExitCode(), lineErr.String())
	assert.Contains(t, lineErr.String(), "not a list of states")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(filepath.Join(bin, "solve15"), "-f", "-")
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		var errOut bytes.Buffer
		cmd.Stderr = &limited{&errOut}
		require.NoError(t, cmd.Start())
		go func() { // comments, forever: no states, and no bad line
			chunk := bytes.Repeat([]byte("# 9\n"), 1<<14)
			for {
				if _, err := stdin.Write(chunk); err != nil {
					return
				}
			}
		}()
		time.Sleep(1500 * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(sig))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v did not end solve15 reading an endless stream", sig)
		}
		assert.Equal(t, 130, cmd.ProcessState.ExitCode(), "%v\n%s", sig, errOut.String())
		assert.Contains(t, errOut.String(), "interrupted")
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
		assert.Less(t, rss, int64(memoryBound), "peak RSS %d KB", rss)
	}
	// Standard input that never sends anything: a signal still ends the wait.
	cmd := exec.Command(filepath.Join(bin, "solve15"), "-f", "-")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close()
	require.NoError(t, cmd.Start())
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	cmd.Wait()
	assert.Equal(t, 130, cmd.ProcessState.ExitCode())
}

// A long search stops promptly on a signal, with the documented status.
func TestSignalDuringSearch(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(filepath.Join(bin, "solve15"), "--heuristic", "md", "--goal", "blank-first", "15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4")
		var out bytes.Buffer
		cmd.Stdout = &out
		require.NoError(t, cmd.Start())
		time.Sleep(500 * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(sig))
		cmd.Wait()
		assert.Equal(t, 130, cmd.ProcessState.ExitCode(), "%v", sig)
		assert.Contains(t, out.String(), "not solved", "%v: what was found is still reported", sig)
	}
}

// A build killed at any moment leaves the old file whole, and at most a temporary file
// that the next write removes; a signal cancels the build and writes nothing.
func TestInterruptedWrites(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.tbl")
	args := []string{"pdb", "--tiles", "1,2,3,4,5", "--blank", "--quiet", "--out", out}
	res := run(t, nil, "pdbgen", args...)
	require.Equal(t, 0, res.code, res.stderr)
	whole, err := os.ReadFile(out)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 6; i++ {
		cmd := exec.Command(filepath.Join(bin, "pdbgen"), args...)
		require.NoError(t, cmd.Start())
		time.Sleep(time.Duration(rng.IntN(int(res.elapsed))))
		cmd.Process.Kill()
		cmd.Wait()
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, whole, got, "kill -9 %d left the old table whole", i)
	}
	res = run(t, nil, "pdbgen", args...)
	require.Equal(t, 0, res.code)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the next write removed any temporary file")

	// SIGINT during the build: no new file, exit 130.
	fresh := filepath.Join(dir, "q.tbl")
	cmd := exec.Command(filepath.Join(bin, "pdbgen"), "pdb", "--tiles", "1,2,3,4,5", "--blank", "--quiet", "--out", fresh)
	require.NoError(t, cmd.Start())
	time.Sleep(res.elapsed / 3)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	cmd.Wait()
	assert.Equal(t, 130, cmd.ProcessState.ExitCode())
	_, err = os.Stat(fresh)
	assert.True(t, os.IsNotExist(err), "nothing written")
	entries, _ = os.ReadDir(dir)
	assert.Len(t, entries, 1)
}

// The API of solve15 serve, on random bodies, huge bodies and a crowd of solve requests:
// every answer is JSON with a status below 500, and the server's memory stays bounded.
func TestAPI(t *testing.T) {
	cmd := exec.Command(filepath.Join(bin, "solve15"), "serve", "--addr", "127.0.0.1:0", "--max-jobs", "2")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	line := make([]byte, 200)
	n, err := stderr.Read(line)
	require.NoError(t, err)
	_, addr, ok := strings.Cut(strings.Fields(string(line[:n]))[3], "http://")
	require.True(t, ok, "%q", line[:n])
	base := "http://" + strings.TrimSuffix(addr, "/")

	rng := rand.New(rand.NewPCG(5, 6))
	post := func(path string, body []byte) (int, string) {
		res, err := http.Post(base+path, "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return res.StatusCode, string(b)
	}
	bodies := [][]byte{
		bytes.Repeat([]byte("["), 1<<20),
		[]byte(`{"state":[-1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0]}`),
		[]byte(`{"board":"5x5","state":"` + strings.Repeat("1 ", 25) + `"}`),
		[]byte(`{"board":"x","state":"1 2 3 0"}`),
		[]byte(`{"state":"1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15","timeout_seconds":1e308}`),
	}
	for i := 0; i < 200; i++ {
		b := make([]byte, rng.IntN(3000))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		bodies = append(bodies, b)
	}
	for _, path := range []string{"/api/solve", "/api/check", "/api/shuffle"} {
		for _, b := range bodies {
			code, out := post(path, b)
			assert.Less(t, code, 500, "%s %q", path, short([]string{string(b)}))
			assert.True(t, json.Valid([]byte(out)), "%s: not JSON: %q", path, short([]string{out}))
		}
	}
	// A crowd of heavy searches at once: two are admitted, the rest turned away.
	heavy := []byte(`{"goal":"blank-first","state":"15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4","algo":"astar","heuristic":"md"}`)
	codes := make(chan int, 100)
	for i := 0; i < 100; i++ {
		go func() {
			code, _ := post("/api/solve", heavy)
			codes <- code
		}()
	}
	admitted := 0
	for i := 0; i < 100; i++ {
		code := <-codes
		assert.Contains(t, []int{202, 429}, code)
		if code == 202 {
			admitted++
		}
	}
	assert.LessOrEqual(t, admitted, 2+1, "at most max-jobs admitted (one may have finished)")
	time.Sleep(time.Second) // let the admitted A* searches grow
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				var kb int64
				fmt.Sscan(strings.Fields(l)[1], &kb)
				t.Logf("server peak RSS %d KB", kb)
				assert.Less(t, kb, int64(2<<20), "server peak RSS")
			}
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	cmd.Wait()
	assert.Equal(t, 130, cmd.ProcessState.ExitCode())
}

// endless is a reader of text repeated forever.
type endless string

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e[i%len(e)]
	}
	return len(p) / len(e) * len(e), nil
}
