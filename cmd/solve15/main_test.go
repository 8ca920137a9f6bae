package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/cluster"
	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/hermetic"
	"github.com/tilekit/tilekit/solve"
)

// run runs solve15 in-process with the given standard input.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	app := newApp()
	var out, errOut bytes.Buffer
	app.Writer, app.ErrWriter, app.Reader = &out, &errOut, strings.NewReader(stdin)
	code := cmdline.Main(app, append([]string{"solve15"}, args...))
	return out.String(), errOut.String(), code
}

const worked = "1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12" // Takahashi's worked example: 29 moves

func TestSolveOne(t *testing.T) {
	out, _, code := run(t, "", worked)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "29 moves (optimal)")
	assert.Contains(t, out, "blank: ")
	assert.Contains(t, out, "tiles: ")
	assert.NotContains(t, out, "summary", "no summary for one instance")

	out, _, code = run(t, "", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "#1: 1 move (optimal)", "one move, not 1 moves")

	_, errOut, code := run(t, "", "-v", "--heuristic", "max", worked)
	require.Equal(t, 0, code)
	assert.Contains(t, errOut, "#1: pass with bound 23, 0 nodes so far", "h0 of the worked example is 23")
	assert.Contains(t, errOut, "pass with bound 29")
}

func TestSolveJSON(t *testing.T) {
	out, _, code := run(t, "", "--json", "--heuristic", "pdb", worked)
	require.Equal(t, 0, code)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	for _, key := range []string{"start", "length", "moves", "tiles", "nodes", "expanded", "seconds", "optimal"} {
		assert.Contains(t, rec, key)
	}
	assert.Equal(t, 29.0, rec["length"])
	assert.Equal(t, true, rec["optimal"])
	assert.Len(t, rec["moves"], 29)
	assert.Len(t, rec["tiles"], 29)
	assert.Equal(t, "pdb", rec["heuristic"])
}

func TestSixteenArguments(t *testing.T) {
	args := append([]string{"--goal", "blank-first", "--json"}, strings.Fields("14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15")...)
	out, _, code := run(t, "", args...)
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"length":45`)
}

func TestBatchFromStdin(t *testing.T) {
	input := `# three of Korf's instances, one with a wrong optimum, and bad lines
14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15 45
k16: 1 3 2 5 10 9 15 6 8 14 13 11 12 4 7 0 42
1 2 3
1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0
`
	out, errOut, code := run(t, input, "--goal", "blank-first", "--workers", "2", "-f", "-")
	assert.Equal(t, cmdline.ExitBadInput, code)
	assert.Contains(t, errOut, "stdin:4: ")
	assert.Contains(t, errOut, "wrong number of tiles")
	assert.Contains(t, errOut, "stdin:5: ")
	assert.Contains(t, errOut, "not solvable")
	assert.Contains(t, out, "#2: 45 moves (optimal)")
	assert.Contains(t, out, "k16: 42 moves (optimal)")
	assert.Contains(t, out, "summary: 2 solved optimally, 0 solved without proof of optimality, 0 not solved, 0 mismatched, 2 invalid")
	assert.Less(t, strings.Index(out, "#2:"), strings.Index(out, "k16:"), "input order")
}

func TestKnownOptimumContradicted(t *testing.T) {
	_, errOut, code := run(t, "14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15 47\n", "--goal", "blank-first", "-f", "-")
	assert.Equal(t, cmdline.ExitFailure, code)
	assert.Contains(t, errOut, "contradict")
}

// A forgotten --goal on a board where both goals are solvable (5x5, 3x3): the file's
// header names its goal, which is warned about before any search, and the stated optima
// end each search at the pass past them, as a MISMATCH naming the goal (exit 1), instead of
// a search of the wrong goal without end.
func TestForgottenGoalIsCaught(t *testing.T) {
	for _, size := range []board.Size{board.Size5x5, {W: 3, H: 3}} {
		t.Run(size.String(), func(t *testing.T) {
			first := board.BlankFirst(size)
			s, err := solve.New(context.Background(), first, solve.Options{Heuristic: "md", Pruning: "parent"})
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(70, uint64(size.Cells())))
			text := "# Goal: blank first (solve15 --goal blank-first).\n"
			for i := range 3 {
				start, _ := first.RandomWalk(20, rng)
				res, err := s.Solve(context.Background(), start)
				require.NoError(t, err)
				text += fmt.Sprintf("p%d %s %d\n", i, strings.Trim(fmt.Sprint(start.Ints()), "[]"), res.Length())
			}
			file := filepath.Join(t.TempDir(), "first.txt")
			require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
			out, errOut, code := run(t, "", "--board", size.String(), "--heuristic", "md", "--pruning", "parent", "-f", file)
			assert.Equal(t, cmdline.ExitFailure, code, "%s%s", out, errOut)
			assert.Contains(t, errOut, "header gives the goal blank-first, and this search's is blank-last: give --goal blank-first")
			assert.Contains(t, out, "MISMATCH")
			assert.Contains(t, out, "is the input for --goal blank-first?")
			assert.Contains(t, out, "0 solved optimally")
		})
	}
}

func TestLimits(t *testing.T) {
	hard := "korf88: 15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4 65" // needs far more than a thousand nodes
	out, _, code := run(t, hard, "--goal", "blank-first", "--max-nodes", "1000", "--json", "-f", "-")
	assert.Equal(t, cmdline.ExitUnsolved, code)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	assert.Equal(t, false, rec["solved"])
	assert.Equal(t, false, rec["optimal"])
	assert.GreaterOrEqual(t, rec["lower_bound"], rec["h0"])

	_, _, code = run(t, hard, "--goal", "blank-first", "--timeout", "1ms", "-f", "-")
	assert.Equal(t, cmdline.ExitUnsolved, code)
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--heuristic", "euclid", worked}, "unknown heuristic"},
		{[]string{"--goal", "1 2 3 4 / 5 0 6 7 / 8 9 10 11 / 12 13 14 15", "--heuristic", "pdb", worked}, "blank in a corner"},
		{[]string{worked, "--json"}, "comes after an argument"},
		{[]string{}, "no states"},
		{[]string{"--workers", "0", worked}, "--workers"},
		{[]string{"-f", "x", worked}, "not both"},
		{[]string{"--pruning", "siblings", worked}, "--pruning must be automaton or parent"},
		{[]string{"--pruning-depth", "99", worked}, "--pruning-depth must be from 0 to 24"},
	} {
		_, errOut, code := run(t, "", tc.args...)
		assert.Equal(t, cmdline.ExitUsage, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.msg, "%v", tc.args)
	}
}

func TestTablesDir(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range data.Specs {
		raw, err := data.Embedded(spec.File)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, spec.File), raw, 0o644))
	}
	out, _, code := run(t, "", "--tables", dir, worked)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "29 moves")

	path := filepath.Join(dir, data.PDBSmall)
	raw, _ := os.ReadFile(path)
	raw[len(raw)-10] ^= 4
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	_, errOut, code := run(t, "", "--tables", dir, worked)
	assert.Equal(t, cmdline.ExitFailure, code)
	assert.Contains(t, errOut, data.PDBSmall)
}

func TestEval(t *testing.T) {
	out, _, code := run(t, "", "eval", "--json", worked)
	require.Equal(t, 0, code)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, 9.0, v["md"])
	assert.Equal(t, 13.0, v["lc"])
	assert.Equal(t, 11.0, v["wd"])
	assert.Equal(t, 5.0, v["wd_rows"])
	assert.Equal(t, 6.0, v["wd_cols"])
	assert.Contains(t, v, "pdb")
	assert.Equal(t, v["max"], max(v["pdb"].(float64), v["wd"].(float64)))

	out, _, code = run(t, "", "eval", worked)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "md 9  lc 13  chebyshev2 18  wd 11 ")
	assert.Contains(t, out, "wd_rows 5  wd_cols 6")
}

func TestBenchSmall(t *testing.T) {
	out, _, code := run(t, "", "bench", "--heuristic", "max", "--limit", "3", "--quiet")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "total max: 3 instances, lengths sum 171, all optimal: true")
}

// TestPruning solves with both prunings: the same answer, fewer nodes with the automaton,
// and --json and -v say which ran; bench compares them in one run.
func TestPruning(t *testing.T) {
	nodes := map[string]float64{}
	for _, p := range []string{"automaton", "parent"} {
		out, errOut, code := run(t, "", "-v", "--json", "--pruning", p, worked)
		require.Equal(t, 0, code, errOut)
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &rec))
		assert.EqualValues(t, 29, rec["length"])
		nodes[p] = rec["nodes"].(float64)
		want := map[string]string{"automaton": "automaton depth 12, 11671 states", "parent": "move back"}[p]
		assert.Equal(t, want, rec["pruning"])
		assert.Contains(t, errOut, "pruning: "+want)
	}
	assert.Less(t, nodes["automaton"], nodes["parent"])
	out, _, code := run(t, "", "bench", "--heuristic", "max@parent,max@automaton", "--limit", "2", "--quiet")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "total max@parent: 2 instances")
	assert.Contains(t, out, "total max@automaton: 2 instances")
}

func TestOtherAlgorithmsAndBoards(t *testing.T) {
	out, _, code := run(t, "", "--board", "3x3", "--algo", "astar", "--heuristic", "md", "--json", "8 6 7 2 5 4 3 0 1")
	require.Equal(t, 0, code)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	assert.Equal(t, 31.0, rec["length"], "the hardest 8-puzzle")
	assert.Equal(t, true, rec["optimal"])
	assert.Equal(t, "astar", rec["algorithm"])
	assert.Equal(t, "3x3", rec["board"])
	assert.Greater(t, rec["peak_stored"], 0.0)

	out, _, code = run(t, "", "--board", "3x3", "--algo", "astar", "--heuristic", "chebyshev2", "8 6 7 2 5 4 3 0 1")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "not proven optimal: astar with chebyshev2")

	out, _, code = run(t, "", "--algo", "bastar", "--goal", "blank-first", "--json", "14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15 45")
	require.Equal(t, 0, code, "a longer BA* solution does not contradict the known optimum")
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	assert.Equal(t, false, rec["optimal"])
	assert.Equal(t, "hh", rec["heuristic"])
	assert.GreaterOrEqual(t, rec["length"], 45.0)

	for _, algo := range []string{"rbfs", "idastar"} {
		out, _, code = run(t, "", "--board", "2x3", "--algo", algo, "--heuristic", "lc", "--json", "0 5 4 3 2 1")
		require.Equal(t, 0, code, algo)
		require.NoError(t, json.Unmarshal([]byte(out), &rec))
		assert.Equal(t, true, rec["optimal"], algo)
	}

	_, errOut, code := run(t, "", "--algo", "dfs", worked)
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "unknown algorithm")
	_, errOut, code = run(t, "", "--board", "5x5", "--heuristic", "wd", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 0 24")
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "5x5")
	// A state that is not one is said at once, before any table is prepared.
	_, errOut, code = run(t, "", "--board", "5x5", "1 2 3")
	assert.Equal(t, cmdline.ExitBadInput, code)
	assert.Contains(t, errOut, "state 1: ")
	assert.NotContains(t, errOut, "automaton")

	out, _, code = run(t, "", "--algo", "astar", "--heuristic", "md", "--max-states", "1000", "--goal", "blank-first",
		"14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3")
	assert.Equal(t, cmdline.ExitUnsolved, code)
	assert.Contains(t, out, "memory budget")
}

// Issue 10, defect 12: no silence where a message is due.
func TestMessagesAreDue(t *testing.T) {
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		msg   string
	}{
		{"", []string{""}, cmdline.ExitBadInput, "state 1: "},
		{"", []string{"-f", "-"}, cmdline.ExitBadInput, "no states in stdin"},
		{"# only a comment\n", []string{"-f", "-"}, cmdline.ExitBadInput, "no states in stdin"},
		{corpus.KorfFile(), []string{"-f", "-"}, cmdline.ExitBadInput, "hint: all 100 of those states are solvable for blank-first, not blank-last: try --goal blank-first"},
		{strings.Repeat("0\n", 1000), []string{"-f", "-"}, cmdline.ExitBadInput, "... and 980 more invalid lines (1000 in all)"},
	} {
		_, errOut, code := run(t, tc.stdin, tc.args...)
		assert.Equal(t, tc.code, code, "%q %v", short(tc.stdin), tc.args)
		assert.Contains(t, errOut, tc.msg, "%q %v", short(tc.stdin), tc.args)
		assert.Less(t, strings.Count(errOut, "\n"), 25)
	}
	out, _, code := run(t, "", "-q", worked)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "summary: 1 solved optimally", "-q prints the summary, even of one")
}

// Invalid lines appear in --json output in their place, so a script can tell which inputs
// were skipped.
func TestJSONInvalidLines(t *testing.T) {
	input := "1 2 3\n" + worked + "\n1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0\n"
	out, _, code := run(t, input, "--json", "-f", "-")
	assert.Equal(t, cmdline.ExitBadInput, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	var recs [3]map[string]any
	for i, l := range lines {
		require.NoError(t, json.Unmarshal([]byte(l), &recs[i]))
		assert.Equal(t, float64(i+1), recs[i]["line"])
	}
	assert.Contains(t, recs[0]["error"], "wrong number of tiles")
	assert.Equal(t, 29.0, recs[1]["length"])
	assert.Contains(t, recs[2]["error"], "not solvable")
}

func short(s string) string {
	if len(s) > 30 {
		return s[:30] + "..."
	}
	return s
}

// The conventions of issue 17: a mistyped command gets a suggestion, a bad value names its
// flag and the form expected, messages carry no Go package names, plurals agree.
func TestConventions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"evl", worked}, 2, `unknown command "evl": did you mean eval?`},
		{[]string{"--timeout", "abc", worked}, 2, `--timeout "abc": expected a duration such as 90s, 5m or 1h30m`},
		{[]string{"--max-states", "-1", worked}, 2, "--max-states must be at least 1"},
		{[]string{"--workers", "100000", worked}, 2, "--workers must be from 1 to 1024"},
		{[]string{"1 2 3"}, 3, "solve15: state 1: wrong number of tiles"},
		{[]string{"1 2 3"}, 3, "solve15: 1 input was invalid"},
	} {
		_, errOut, code := run(t, "", tc.args...)
		assert.Equal(t, tc.code, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.msg, "%v", tc.args)
		assert.NotContains(t, errOut, "board:", "%v", tc.args)
	}
	out, _, code := run(t, "", "--json", "1 2 3", worked)
	assert.Equal(t, 3, code)
	first := strings.Split(out, "\n")[0]
	assert.Equal(t, `{"line":1,"board":"4x4","goal":"blank-last","error":"state 1: wrong number of tiles: 3 numbers; want 16 (a 4x4 state), optionally with an id before and the known optimal length after"}`, first)
}

// On 5x5 with no set installed, solve15 says, without -v, how to install one; not with
// --quiet.
func TestHintWithoutASet(t *testing.T) {
	easy := "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 0 24"
	_, errOut, code := run(t, "", "--board", "5x5", easy)
	require.Equal(t, 0, code)
	assert.Contains(t, errOut, "pdbgen build --set 6-6-6-6")
	_, errOut, code = run(t, "", "--board", "5x5", "-q", easy)
	require.Equal(t, 0, code)
	assert.NotContains(t, errOut, "pdbgen build")
}

// A 24-puzzle with nothing installed, in processes of their own (this one keeps the
// automata its other tests built): a state that is not one is said at once, before any
// table is prepared; a search says at once that it builds the depth-14 automaton first;
// and one instance's --timeout counts everything it waits for, the automaton's build
// included (seconds: not solved within 10 ms, still preparing its tables).
func TestFiveByFiveWithNothingInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds solve15")
	}
	exe := hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/solve15")
	solve := func(args ...string) (string, string, int) {
		cmd := exec.Command(exe, append([]string{"--board", "5x5", "--goal", "blank-first"}, args...)...)
		cmd.Env = append(os.Environ(), "TILEKIT_TABLES="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if err != nil {
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", stderr.String())
			code = exit.ExitCode()
		}
		return stdout.String(), stderr.String(), code
	}

	_, errOut, code := solve("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 24 23 0")
	assert.Equal(t, cmdline.ExitBadInput, code)
	assert.Contains(t, errOut, "state 1: not solvable")
	assert.NotContains(t, errOut, "automaton", "nothing built for a state that is not one")

	outText, errOut, code := solve("1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, outText, "1 move (optimal)")
	assert.True(t, strings.HasPrefix(errOut, "solve15: building the 5x5 automaton of depth 14 in memory, a few seconds: no automaton installed"), "said first: %s", errOut)

	_, errOut, code = solve("--timeout", "10ms", "14 5 9 2 18 8 23 19 12 17 15 0 10 20 4 6 11 21 1 7 24 3 16 22 13")
	assert.Equal(t, cmdline.ExitUnsolved, code, "%s", errOut)
	assert.Contains(t, errOut, "not solved within --timeout 10ms: the tables were still being prepared")
}

// solve15 cluster warns as solve15 does when its tables cannot finish hard positions.
func TestClusterWarnsAsSolve15(t *testing.T) {
	goal := "1 2 3 4 9 5 6 7 8 14 10 11 12 13 19 15 16 17 18 24 20 21 22 23 0"
	_, errOut, code := run(t, "", "cluster", "--board", "5x5", "--goal", "blank-first", "--tables", t.TempDir(), "--store", t.TempDir(), goal)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "finishes only easy positions")
	_, plain, _ := run(t, "", "--board", "5x5", "--goal", "blank-first", "--tables", t.TempDir(), goal)
	assert.Contains(t, plain, "finishes only easy positions")
}

// The summary of a cluster's run says which optimal answers rest on a worker's word
// alone (not audited here: --audit 0, where the default audits a random 5%).
func TestClusterSaysWhatRestsOnAWorker(t *testing.T) {
	_, errOut, code := run(t, "", "cluster", "--audit", "0", "--store", t.TempDir(),
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "1 2 3 4 5 6 7 8 9 10 11 12 13 0 14 15")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "2 answers are optimal on workers' word, not checked here")
	_, errOut, code = run(t, "", "cluster", "--audit", "1", "--store", t.TempDir(),
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, "as reported by its worker")
}

// The man page describes the program, not the machine that printed it: no table
// directory, no count of its cores.
func TestManPageHasNoMachineState(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TILEKIT_TABLES", dir)
	out, _, code := run(t, "", "man")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, dir)
	assert.NotContains(t, out, "no set is installed")
	assert.Contains(t, out, "--help says which sets are installed")
	assert.Contains(t, out, "(default: the cores this process may use)")
}

// solve15 cluster key prints each worker's key, the key the server takes for that name;
// it needs the token and names that are names.
func TestClusterKey(t *testing.T) {
	t.Setenv("TILEKIT_NATS_TOKEN", "")
	out, errOut, code := run(t, "", "cluster", "key", "--token", "s3cret", "alice", "bob")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "alice "+cluster.WorkerKey("s3cret", "alice")+"\nbob "+cluster.WorkerKey("s3cret", "bob")+"\n", out)
	out, _, code = run(t, "", "cluster", "key", "--token", "s3cret", "--json", "alice")
	require.Equal(t, 0, code)
	assert.JSONEq(t, `{"name":"alice","key":"`+cluster.WorkerKey("s3cret", "alice")+`"}`, out)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"alice"}, "needs the cluster's token"},
		{[]string{"--token", "s3cret"}, "at least one worker"},
		{[]string{"--token", "s3cret", "al.ice"}, "only letters, digits"},
	} {
		_, errOut, code := run(t, "", append([]string{"cluster", "key"}, tc.args...)...)
		assert.Equal(t, cmdline.ExitUsage, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	_, errOut, code = run(t, "", "worker", "--nats", "nats://alice:k@127.0.0.1:1", "--name", "bob")
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "the URL's user is alice")
}

// The GPU's knobs come from $TILEKIT_GPU_TUNE, read by the command alone: a knob it does
// not know is bad usage with --device gpu and auto alike, before any device is opened.
func TestGPUTuneFromTheEnvironment(t *testing.T) {
	t.Setenv("TILEKIT_GPU_TUNE", "speed=9")
	for _, device := range []string{"gpu", "auto"} {
		_, errOut, code := run(t, "", "--device", device, worked)
		assert.Equal(t, cmdline.ExitUsage, code, device)
		assert.Contains(t, errOut, `$TILEKIT_GPU_TUNE: gpu: no knob "speed"`, device)
	}
	_, _, code := run(t, "", "--device", "cpu", worked)
	assert.Equal(t, 0, code, "the CPU takes no knobs")
	_, errOut, code := run(t, "", "--device", "tpu", worked)
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, `unknown device "tpu"`)
	_, errOut, code = run(t, "", "--device", "gpu", "--gpu", "-1", worked)
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "a GPU's number is 0 or more")
}

// fullDisk takes room bytes, then fails every write as a full filesystem does, having
// written part of the write that did not fit.
type fullDisk struct {
	bytes.Buffer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if d.Len()+len(p) <= d.room {
		return d.Buffer.Write(p)
	}
	n := d.room - d.Len()
	d.Buffer.Write(p[:n])
	return n, syscall.ENOSPC
}

// A result that cannot be written fails the run: exit 1, the error named with how many
// results were written whole, and no more searched (a full disk after two records and part
// of a third; a full disk at once, as /dev/full is; the text form and the summary too).
func TestWriteErrorsFail(t *testing.T) {
	three := "0 1 2 3 4 5 6 7 8 9 10 11 12 13 15 14\n" + worked + "\n" + worked + "\n"
	for _, c := range []struct {
		name string
		room int
		args []string
		want string
	}{
		{"json, full after two records", -1, []string{"--json", "-f", "-"}, "2 results written whole"},
		{"json, full at once", 0, []string{"--json", "-f", "-"}, "0 results written whole"},
		{"text, full at once", 0, []string{"-f", "-"}, "0 results written whole"},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newApp()
			room := c.room
			if room < 0 {
				// Room for the first two records and part of the third.
				out, _, code := run(t, three, c.args...)
				require.Equal(t, 0, code)
				lines := strings.SplitAfter(out, "\n")
				room = len(lines[0]) + len(lines[1]) + 10
			}
			disk := &fullDisk{room: room}
			var errOut bytes.Buffer
			app.Writer, app.ErrWriter, app.Reader = disk, &errOut, strings.NewReader(three)
			code := cmdline.Main(app, append([]string{"solve15", "--goal", "blank-last"}, c.args...))
			assert.Equal(t, cmdline.ExitFailure, code)
			assert.Contains(t, errOut.String(), "no space left on device")
			assert.Contains(t, errOut.String(), c.want)
		})
	}
}

// A damaged automaton where the deepest is looked for is said on standard error, even with
// -q (its file, why, and the command that rebuilds it), and the search goes on with a
// shallower one: exit 0, the right length.
func TestDamagedAutomatonIsSaid(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prune-5x5-d18.tbl"), []byte("tilekit table\nnot really\n"), 0o644))
	t.Setenv("TILEKIT_TABLES", dir)
	state := "1 2 3 4 0 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24" // 4 moves from blank-first
	out, errOut, code := run(t, "", "--board", "5x5", "--goal", "blank-first", "-q", "--json", state)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"length":4`)
	assert.Contains(t, errOut, filepath.Join(dir, "prune-5x5-d18.tbl"))
	assert.Contains(t, errOut, "pdbgen build --pruning --board 5x5 --pruning-depth 18 --out "+dir)
}

// Input that is no list of states ends at once with exit 3: a device of zeros (no
// newline), random bytes (bad lines in a row); --local-workers and --quorum past their
// bounds are bad usage, said before anything starts.
func TestNoListEnds(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skipf("no %s here", dev)
		}
		_, errOut, code := run(t, "", "-q", "-f", dev)
		assert.Equal(t, cmdline.ExitBadInput, code, dev)
		assert.Contains(t, errOut, "not a list of states", dev)
	}
	_, errOut, code := run(t, "", "cluster", "--local-workers", "100000", worked)
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "--local-workers 100000: at most 256")
	for _, n := range []string{"0", "17"} {
		_, errOut, code = run(t, "", "cluster", "--quorum", n, worked)
		assert.Equal(t, cmdline.ExitUsage, code, n)
		assert.Contains(t, errOut, "--quorum must be from 1 to 16", n)
	}
}

// The README's man step works for a go install user: with only $(go env GOPATH)/bin (and
// the system's) on PATH, man finds the page it writes.
func TestReadmeManStep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds solve15 and pdbgen")
	}
	for _, tool := range []string{"bash", "man", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var step []string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "man1=") || strings.HasPrefix(line, `mkdir -p "$man1"`) {
			step = append(step, line)
		}
	}
	require.Len(t, step, 2, "the README's man step")
	gopath := t.TempDir()
	bin := filepath.Join(gopath, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	for _, cmd := range []string{"solve15", "pdbgen"} {
		exe := hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/"+cmd)
		require.NoError(t, os.Symlink(exe, filepath.Join(bin, cmd)))
	}
	goBin, _ := exec.LookPath("go")
	script := strings.Join(step, "\n") + "\nman -w solve15 && man -w pdbgen"
	cmd := exec.Command("bash", "-ec", script)
	cmd.Env = []string{"HOME=" + t.TempDir(), "GOPATH=" + gopath, "GOFLAGS=-buildvcs=false",
		"PATH=" + bin + ":" + filepath.Dir(goBin) + ":/usr/bin:/bin", "MANPATH="}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), filepath.Join(gopath, "share", "man", "man1", "solve15.1"))
	assert.Contains(t, string(out), filepath.Join(gopath, "share", "man", "man1", "pdbgen.1"))
}

// SIGINT to solve15 cluster after its first result: that result and the summary are
// printed, the instances not done are not solved (interrupted), exit 130, as plain
// solve15 does. Its last instance, k24-01 with the Manhattan distance alone, would take
// days.
func TestClusterInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds solve15")
	}
	exe := hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/solve15")
	k24, err := os.ReadFile("../../instances/korf24.txt")
	require.NoError(t, err)
	i := strings.Index(string(k24), "\nk24-01 ")
	require.Positive(t, i)
	hard, _, _ := strings.Cut(string(k24[i+1:]), "\n")
	in := "1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24\n5 1 2 3 4 0 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24\n" + hard + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang fails, never a slow machine
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "cluster", "--board", "5x5", "--goal", "blank-first", "--heuristic", "md",
		"--local-workers", "1", "--store", t.TempDir(), "-f", "-")
	cmd.Env = append(os.Environ(), "TILEKIT_TABLES="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(in)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var out []string
	for sc := bufio.NewScanner(stdout); sc.Scan(); { // the first result, then the interrupt
		out = append(out, sc.Text())
		if strings.HasPrefix(sc.Text(), "#1: 1 move (optimal") {
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", stderr.String())
	assert.Equal(t, 130, exit.ExitCode(), "%s", stderr.String())
	text := strings.Join(out, "\n")
	// Every instance is reported, in order: the first solved, k24-01 interrupted (the
	// second may be either, as the interrupt found it), then the summary.
	assert.Regexp(t, `(?s)^#1: 1 move \(optimal.*\n#2: .*\nk24-01: not solved \(interrupted\).*\nsummary: [12] solved optimally.*, [12] not solved`, text)
	// How the run stands, at once: a plain line here, without a terminal; on one, a
	// status line redrawn in place.
	assert.Contains(t, stderr.String(), "solve15 cluster: 0s: units: 0 done")
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) for a pseudo-terminal")
	}
	pty := exec.CommandContext(ctx, "script", "-qec", exe+" cluster --local-workers 1 --store "+t.TempDir()+" '1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15'", "/dev/null")
	pty.Env = cmd.Env
	got, err := pty.CombinedOutput()
	require.NoError(t, err, "%s", got)
	assert.Regexp(t, `\runits: 0 done, \d+ queued`, string(got))
	assert.Contains(t, string(got), "#1: 1 move (optimal")
}
