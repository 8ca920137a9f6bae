package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
	"github.com/tilekit/tilekit/internal/hermetic"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// run runs pdbgen in-process and returns its standard output, standard error and status.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	app := newApp()
	var out, errOut bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errOut
	code := cmdline.Main(app, append([]string{"pdbgen"}, args...))
	return out.String(), errOut.String(), code
}

func TestWDAndInfo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wd.tbl")
	out, _, code := run(t, "wd", "--goal", "blank-first", "--out", path)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "24964 entries, max 35")

	out, _, code = run(t, "info", "--json", path)
	require.Equal(t, 0, code)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, "wd", info["kind"])
	assert.Equal(t, 4.0, info["width"])
	assert.Equal(t, 4.0, info["height"])
	assert.Equal(t, 24964.0, info["entries"])
	assert.Equal(t, 0.0, info["goal"].([]any)[0])
	hist := info["histogram"].([]any)
	assert.Len(t, hist, 36, "distances 0..35")
	total := 0.0
	for _, c := range hist {
		total += c.(float64)
	}
	assert.Equal(t, 24964.0, total)
	assert.NotContains(t, info, "tiles")

	// The same bytes on every run.
	again := filepath.Join(dir, "again.tbl")
	_, _, code = run(t, "wd", "--goal", "blank-first", "--out", again)
	require.Equal(t, 0, code)
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	assert.Equal(t, a, b)
}

func TestPDBAndBuild(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.tbl")
	_, _, code := run(t, "pdb", "-q", "--board", "3x3", "--tiles", "1,2,3", "--blank", "--out", path)
	require.Equal(t, 0, code)
	out, _, code := run(t, "info", "--json", path)
	require.Equal(t, 0, code)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, "pdb", info["kind"])
	assert.Equal(t, []any{1.0, 2.0, 3.0}, info["tiles"])
	assert.Equal(t, true, info["blank_in_index"])
	assert.Equal(t, 3024.0, info["entries"], "9*8*7*6")

	// A set (the default tables are data's test): its three files, and where they went.
	out, errOut, code := run(t, "build", "--set", "5-5-5", "--out", dir, "--workers", "2")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 3, strings.Count(out, "wrote "), "the three tables of 5-5-5")
	assert.Contains(t, errOut, "into "+dir)
	st, err := os.Stat(filepath.Join(dir, "pdb-4x4-1-2-3-4-7.tbl"))
	require.NoError(t, err)
	assert.Positive(t, st.Size())
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"wd", "--goal", "blank-sideways", "--out", "x"}, "--goal"},
		{[]string{"wd"}, "--out FILE is required"},
		{[]string{"pdb", "--tiles", "1,1", "--out", "x"}, "listed twice"},
		{[]string{"pdb", "--tiles", "1,2", "--board", "9x9", "--out", "x"}, "--board"},
		{[]string{"info"}, "at least one FILE"},
		{[]string{"info", "x.tbl", "--json"}, "flag --json comes after an argument"},
		{[]string{"wd", "--no-such-flag"}, "no-such-flag"},
		{[]string{"export", "x.tbl"}, "a TABLE and an OUT"},
		{[]string{"export", "--format", "csv", "x.tbl", "y"}, "the only format is raw"},
		{[]string{"biuld"}, "did you mean build?"},
		{[]string{"build", "--bits"}, "the default tables are not zero-aware"},
		{[]string{"build", "--set", "7-8", "--bits"}, "--bits: the 7-8 set's tables are not zero-aware"},
	} {
		_, errOut, code := run(t, tc.args...)
		assert.Equal(t, cmdline.ExitUsage, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.msg, "%v", tc.args)
	}
}

func TestInfoRejectsDamagedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.tbl")
	require.NoError(t, os.WriteFile(path, []byte("tilekit-table 9\n"), 0o644))
	_, errOut, code := run(t, "info", path)
	assert.Equal(t, cmdline.ExitFailure, code)
	assert.Contains(t, errOut, "version 9")
	assert.Contains(t, errOut, "bad.tbl")
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "small.tbl")
	_, _, code := run(t, "pdb", "-q", "--tiles", "11,12,15", "--blank", "--out", good)
	require.Equal(t, 0, code)
	out, _, code := run(t, "verify", good)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "small.tbl: OK (integrity, exactness, published)")

	// The same table with one payload byte flipped, and an unreadable file.
	raw, err := os.ReadFile(good)
	require.NoError(t, err)
	raw[len(raw)-30] ^= 0x01
	bad := filepath.Join(dir, "bad.tbl")
	require.NoError(t, os.WriteFile(bad, raw, 0o644))
	out, _, code = run(t, "verify", good, bad)
	assert.Equal(t, cmdline.ExitFailure, code)
	assert.Contains(t, out, "bad.tbl: FAILED")
	assert.Contains(t, out, "integrity: ")

	out, _, code = run(t, "verify", "--json", bad)
	assert.Equal(t, cmdline.ExitFailure, code)
	var report map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &report))
	assert.Equal(t, false, report["ok"])

	out, _, code = run(t, "verify", "--embedded")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "embedded set: OK (admissibility)")

	_, errOut, code := run(t, "verify")
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "--embedded")
}

// TestAutomaton builds an automaton, describes and verifies it, and catches one whose
// transitions were changed (with checksums made anew, so only the rebuild sees it).
func TestAutomaton(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := run(t, "build", "--pruning", "--board", "4x4", "--out", dir)
	require.Equal(t, 0, code, errOut)
	path := filepath.Join(dir, "prune-4x4-d12.tbl")
	assert.Contains(t, out+errOut, "prune 4x4 depth 12, 11671 states")
	out, _, code = run(t, "info", path)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "automaton: 11671 states, built from the duplicate strings of up to 12 blank moves")
	out, _, code = run(t, "verify", path)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "prune-4x4-d12.tbl: OK (integrity, exactness, rebuild)")

	tab, err := tablefile.Read(path)
	require.NoError(t, err)
	words := slices.Clone(tab.Words)
	i := 4 * 100
	for words[i] == tablefile.NoTransition {
		i++
	}
	words[i] = tablefile.NoTransition // prunes one more move
	changed, err := tablefile.NewPrune(tab.Size, tab.Depth, words)
	require.NoError(t, err)
	bad := filepath.Join(dir, "bad.tbl")
	require.NoError(t, tablefile.Write(context.Background(), bad, changed))
	out, _, code = run(t, "verify", bad)
	assert.Equal(t, cmdline.ExitFailure, code, out)
	assert.Contains(t, out, "bad.tbl: FAILED")

	_, errOut, code = run(t, "build", "--pruning", "--set", "7-8")
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "--pruning builds the automaton alone")
}

func TestAudit(t *testing.T) {
	out, _, code := run(t, "audit", "--board", "3x3", "--heuristic", "chebyshev2", "--json")
	require.Equal(t, 0, code)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	for _, key := range []string{"states", "overestimated", "max_overestimate", "inconsistent"} {
		assert.Contains(t, r, key)
	}
	assert.Equal(t, 181440.0, r["states"])
	assert.Greater(t, r["overestimated"], 0.0)

	out, _, code = run(t, "audit", "--board", "3x3", "--heuristic", "md")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "overestimated:   0 (0.00%)")

	_, errOut, code := run(t, "audit", "--board", "4x4", "--heuristic", "md")
	assert.Equal(t, cmdline.ExitUsage, code)
	assert.Contains(t, errOut, "--sample")
	_, _, code = run(t, "audit", "--board", "3x3", "--heuristic", "nope")
	assert.Equal(t, cmdline.ExitUsage, code)
}

// A table written to standard output is reported on standard error with the bytes written.
func TestOutToStandardOutput(t *testing.T) {
	out, errOut, code := run(t, "wd", "--out", "-")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, fmt.Sprintf("wrote -: wd 4x4 blank-last, 24964 entries, max 35, %d bytes", len(out)))
	assert.True(t, strings.HasPrefix(out, "tilekit-table 2\n"))
}

// export never writes over its own input (by the same name or another link to it), and
// an empty OUT is a usage error; the table is left as it was.
func TestExportKeepsItsInput(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "small.tbl")
	_, _, code := run(t, "pdb", "-q", "--tiles", "11,12,15", "--blank", "--out", table)
	require.Equal(t, 0, code)
	before, err := os.ReadFile(table)
	require.NoError(t, err)
	link := filepath.Join(dir, "link.tbl")
	require.NoError(t, os.Link(table, link))
	for _, out := range []string{table, link, ""} {
		_, errOut, code := run(t, "export", table, out)
		assert.Equal(t, cmdline.ExitUsage, code, "OUT %q", out)
		assert.Contains(t, errOut, "OUT:", "OUT %q", out)
	}
	after, err := os.ReadFile(table)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// The GUIDE's list of the sets is the one pdbgen help build prints (pdb.SetList): their
// build time and memory come from one place.
func TestGuideSetList(t *testing.T) {
	guide, err := os.ReadFile("../../docs/GUIDE.md")
	require.NoError(t, err)
	var want []string
	for _, line := range strings.Split(pdb.SetList(), "\n") {
		want = append(want, strings.TrimSpace(line))
	}
	block := strings.Join(want, "\n")
	assert.True(t, strings.Contains(string(guide), "```text\n"+block+"\n```"), "the GUIDE's list of sets should be pdb.SetList():\n%s", block)
}

// The completion scripts, in the shells themselves, complete a set's name after --set by
// asking pdbgen: bash always; fish and zsh where they are installed (.ci/run installs
// them).
func TestShellCompletion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pdbgen")
	}
	bin := t.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "pdbgen"), ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	shell := func(name, script string) string {
		cmd := exec.Command(name, "-c", script)
		cmd.Env = append(os.Environ(), path)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
		return string(out)
	}
	if _, err := exec.LookPath("bash"); err == nil {
		got := shell("bash", `source <(pdbgen completion bash)
COMP_WORDS=(pdbgen build --set sm); COMP_CWORD=3; _pdbgen_complete; echo "${COMPREPLY[@]}"
COMP_WORDS=(pdbgen build --set ''); COMP_CWORD=3; _pdbgen_complete; echo "${COMPREPLY[@]}"
COMP_WORDS=(pdbgen bu); COMP_CWORD=1; _pdbgen_complete; echo "${COMPREPLY[@]}"
cd "$(mktemp -d)" && touch korf.tbl kept.txt
COMP_WORDS=(pdbgen info --json ko); COMP_CWORD=3; _pdbgen_complete; echo "${COMPREPLY[@]}"
COMP_WORDS=(pdbgen pdb --out k); COMP_CWORD=3; _pdbgen_complete; echo "${COMPREPLY[@]}"`)
		lines := strings.Split(strings.TrimSpace(got), "\n")
		require.Len(t, lines, 5, got)
		assert.Equal(t, "small-t", lines[0])
		assert.Equal(t, strings.Join(strings.Split(strings.ReplaceAll(pdb.SetNames(), ",", ""), " "), " "), lines[1])
		assert.Equal(t, "build", lines[2])
		assert.Equal(t, "", lines[3], "a file argument: bash's own completion (-o default) offers the files")
		assert.Equal(t, "kept.txt korf.tbl", lines[4], "a file flag's value: the files, not the flag again")
	}
	if _, err := exec.LookPath("fish"); err != nil {
		if os.Getenv("TILEKIT_E2E") == "require" {
			t.Fatalf("no fish to check its completion: %v", err)
		}
		t.Logf("no fish here: its completion is not checked")
		return
	}
	got := shell("fish", `pdbgen completion fish | source; complete -C 'pdbgen build --set sm'`)
	assert.Contains(t, got, "small-t")
	got = shell("fish", `pdbgen completion fish | source; cd (mktemp -d); touch korf.tbl; complete -C 'pdbgen pdb --goal '; echo ---; complete -C 'pdbgen pdb --out ko'`)
	before, after, _ := strings.Cut(got, "---")
	assert.Contains(t, before, "blank-first")
	assert.NotContains(t, before, "korf.tbl", "no files after --goal")
	assert.Contains(t, after, "korf.tbl")

	// zsh, through its bash emulation (bashcompinit), driven as a user at a terminal
	// would: TAB completes a set, a value and a file.
	if _, err := exec.LookPath("zsh"); err != nil {
		if os.Getenv("TILEKIT_E2E") == "require" {
			t.Fatalf("no zsh to check its completion: %v", err)
		}
		t.Logf("no zsh here: its completion is not checked")
		return
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "korf.tbl"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kept.txt"), nil, 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang fails, never a slow machine
	defer cancel()
	script := `zmodload zsh/zpty
zpty z 'PS1="> " TERM=dumb zsh -f -i'
zpty -w z 'autoload -U compinit && compinit -u -D; source <(pdbgen completion zsh); cd ` + dir + `; print -r -- RE""ADY'
zpty -r z out '*READY*'
for line want in 'pdbgen build --set sm' '*small-t *' 'pdbgen pdb --goal blank-f' '*blank-first *' 'pdbgen pdb --out ko' '*korf.tbl *'; do
  zpty -w -n z $line$'\t'
  zpty -r z out $want && print -r -- "completed: $want"
  zpty -w -n z $'\C-u'
done
zpty -d z`
	cmd := exec.CommandContext(ctx, "zsh", "-f", "-c", script)
	cmd.Env = append(os.Environ(), path)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "zsh: %s", out)
	for _, want := range []string{"small-t", "blank-first", "korf.tbl"} {
		assert.Contains(t, string(out), "completed: *"+want+" *")
	}
}

// Proving a zero-aware table shows its progress: at once (0%) and at the end, a plain
// line each without a terminal, a status line redrawn in place on one.
func TestVerifyShowsProgress(t *testing.T) {
	file := filepath.Join(t.TempDir(), "z5.tbl")
	_, errOut, code := run(t, "pdb", "--tiles", "1,2,3,4,5", "--zero-aware", "--out", file)
	require.Equal(t, 0, code, errOut)
	_, errOut, code = run(t, "verify", file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "z5.tbl exactness: 0.0% entries")
	assert.Contains(t, errOut, "z5.tbl exactness: 100.0% entries")

	out := underPTY(t, "verify "+file)
	assert.Regexp(t, `\rz5\.tbl exactness +\[ +\] +0\.0% entries`, out)
	assert.Contains(t, out, "100.0% entries")
}

// underPTY runs pdbgen with args (words, as a shell reads them) at a pseudo-terminal
// (script(1)), and returns what it printed; it skips the test without one.
func underPTY(t *testing.T, args string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds pdbgen")
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) for a pseudo-terminal")
	}
	exe := hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/pdbgen")
	out, err := exec.Command("script", "-qec", exe+" "+args, "/dev/null").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// Reading and describing a large table (a megabyte or more), and building an automaton,
// show their progress at once: a plain line without a terminal, a status line redrawn in
// place on one.
func TestLongStepsShowProgress(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "z6.tbl") // 11,816,640 entries: about 1.1 MB
	_, errOut, code := run(t, "pdb", "--tiles", "1,2,3,4,5,6", "--zero-aware", "--out", file)
	require.Equal(t, 0, code, errOut)
	_, errOut, code = run(t, "info", file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "z6.tbl: 0.0% reading 1 MB")
	_, errOut, code = run(t, "build", "--pruning", "--board", "4x4", "--out", filepath.Join(dir, "a"))
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^prune-4x4-d12\.tbl: [\d.]+% searched from 1 of 16 cells`, errOut)

	assert.Regexp(t, `\rz6\.tbl +\[ +\] +0\.0% reading 1 MB`, underPTY(t, "info "+file))
	assert.Regexp(t, `\rprune-4x4-d12\.tbl +\[=+ *\] +[\d.]+% searched from 1 of 16 cells`, underPTY(t, "build --pruning --board 4x4 --out "+filepath.Join(dir, "b")))
}
