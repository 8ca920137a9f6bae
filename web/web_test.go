package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/web/site"
)

func newServer(t *testing.T, opt Options) *httptest.Server {
	s := New(opt)
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return ts
}

func call(t *testing.T, ts *httptest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(res.Body)
	require.NoError(t, json.Unmarshal(raw, &out), "body %q", raw)
	return res.StatusCode, out
}

func TestPageIsServed(t *testing.T) {
	ts := newServer(t, Options{})
	for _, path := range []string{"/", "/app.js", "/style.css"} {
		res, err := http.Get(ts.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, 200, res.StatusCode, path)
		assert.NotEmpty(t, body, path)
	}
	code, opts := call(t, ts, "GET", "/api/options", "")
	assert.Equal(t, 200, code)
	assert.Contains(t, opts["algorithms"], "idastar")
}

func TestBadRequests(t *testing.T) {
	ts := newServer(t, Options{})
	goal := `"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"`
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"malformed JSON", "POST", "/api/solve", `{"state": [1, 2,`, 400, "bad JSON"},
		{"two values", "POST", "/api/check", `{"state": "1 2 3"} {}`, 400, "more than one"},
		{"unknown field", "POST", "/api/solve", `{"stat": [1]}`, 400, "unknown field"},
		{"wrong size", "POST", "/api/solve", `{"state": [1, 2, 3]}`, 400, "wrong number of tiles"},
		{"wrong board", "POST", "/api/solve", `{"board": "9x9", "state": [1]}`, 400, "board size"},
		{"duplicate tile", "POST", "/api/check", `{"state": "1 1 3 4 5 6 7 8 9 10 11 12 13 14 15 0"}`, 400, "duplicate"},
		{"state not a list", "POST", "/api/check", `{"state": {"a": 1}}`, 400, "list of numbers"},
		{"unsolvable", "POST", "/api/solve", `{"state": "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0"}`, 422, "not solvable"},
		{"unknown algorithm", "POST", "/api/solve", `{"state": ` + goal + `, "algo": "dfs"}`, 400, "unknown algorithm"},
		{"unknown heuristic", "POST", "/api/solve", `{"state": ` + goal + `, "heuristic": "x"}`, 400, "unknown heuristic"},
		{"negative timeout", "POST", "/api/solve", `{"state": ` + goal + `, "timeout_seconds": -1}`, 400, "timeout"},
		{"shuffle too far", "POST", "/api/shuffle", `{"moves": 1000000}`, 400, "moves"},
		{"oversized body", "POST", "/api/solve", `{"state": "` + strings.Repeat("1 ", 20000) + `"}`, 413, "larger than"},
		// Signs are not dropped (issue 10): a negative tile is out of range.
		{"negative tile", "POST", "/api/solve", `{"state": [-1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0]}`, 400, "-1 at position 1"},
		{"signed word", "POST", "/api/check", `{"state": "1 2 3 4 5 6 7 8 9 10 11 12 13 -14 15 0"}`, 400, `"-14"`},
		{"negative goal", "POST", "/api/check", `{"goal": [-1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0], "state": ` + goal + `}`, 400, "goal"},
		{"unknown job", "GET", "/api/jobs/nope", "", 404, "no job"},
		{"unknown endpoint", "GET", "/api/nothing", "", 404, "no such API endpoint"},
	} {
		code, out := call(t, ts, tc.method, tc.path, tc.body)
		assert.Equal(t, tc.status, code, tc.name)
		assert.Contains(t, out["error"], tc.msg, tc.name)
	}
}

func TestShuffleIsSolvable(t *testing.T) {
	ts := newServer(t, Options{})
	for _, body := range []string{`{"moves": 0}`, `{"moves": 10, "goal": "blank-first"}`, `{"board": "3x3", "moves": 0}`} {
		for i := 0; i < 20; i++ {
			code, out := call(t, ts, "POST", "/api/shuffle", body)
			require.Equal(t, 200, code)
			var nums []int
			for _, v := range out["state"].([]any) {
				nums = append(nums, int(v.(float64)))
			}
			var goalNums []int
			for _, v := range out["goal"].([]any) {
				goalNums = append(goalNums, int(v.(float64)))
			}
			size := board.Size4x4
			if len(nums) == 9 {
				size = board.Size{W: 3, H: 3}
			}
			s, err := board.FromInts(size, nums)
			require.NoError(t, err)
			gs, err := board.FromInts(size, goalNums)
			require.NoError(t, err)
			g, err := board.NewGoal(size, gs)
			require.NoError(t, err)
			assert.True(t, g.Solvable(s), "%s gave an unsolvable %v", body, s)
		}
	}
}

// wait polls a job until it leaves "running".
func wait(t *testing.T, ts *httptest.Server, id string) map[string]any {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		_, v := call(t, ts, "GET", "/api/jobs/"+id, "")
		if v["status"] != "running" {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s still running", id)
	return nil
}

func TestSolveAndReplay(t *testing.T) {
	ts := newServer(t, Options{})
	start := "1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12"
	for _, tc := range []struct{ body string }{
		{`{"state": "` + start + `"}`},
		{`{"state": "` + start + `", "algo": "astar", "heuristic": "lc"}`},
		{`{"board": "3x3", "state": [8, 6, 7, 2, 5, 4, 3, 0, 1], "algo": "rbfs", "heuristic": "md"}`},
	} {
		code, out := call(t, ts, "POST", "/api/solve", tc.body)
		require.Equal(t, 202, code, "%v", out)
		v := wait(t, ts, out["id"].(string))
		require.Equal(t, "solved", v["status"], "%v", v)
		res := v["result"].(map[string]any)
		assert.Equal(t, true, res["optimal"])
		want := 29.0
		if strings.Contains(tc.body, "3x3") {
			want = 31
		}
		assert.Equal(t, want, res["length"])
		assert.Len(t, res["moves"], int(want))
	}
}

func TestStopAndLimits(t *testing.T) {
	ts := newServer(t, Options{MaxJobs: 1})
	hard := `{"goal": "blank-first", "state": "15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4", "heuristic": "md"}`
	code, out := call(t, ts, "POST", "/api/solve", hard)
	require.Equal(t, 202, code)
	id := out["id"].(string)

	// A second search is refused while the first runs; the server still answers.
	code, out = call(t, ts, "POST", "/api/solve", hard)
	assert.Equal(t, 429, code)
	assert.Contains(t, out["error"], "already running")
	code, _ = call(t, ts, "GET", "/api/options", "")
	assert.Equal(t, 200, code)

	time.Sleep(100 * time.Millisecond)
	_, v := call(t, ts, "GET", "/api/jobs/"+id, "")
	assert.Equal(t, "running", v["status"])
	assert.Greater(t, v["bound"], 0.0, "the current IDA* bound is shown")

	code, v = call(t, ts, "DELETE", "/api/jobs/"+id, "")
	assert.Equal(t, 200, code)
	assert.Equal(t, "cancelled", v["status"])

	// The slot is free again; a tiny time limit ends in a timeout.
	time.Sleep(50 * time.Millisecond)
	code, out = call(t, ts, "POST", "/api/solve", strings.Replace(hard, "}", `, "timeout_seconds": 0.05}`, 1))
	require.Equal(t, 202, code, "%v", out)
	v = wait(t, ts, out["id"].(string))
	assert.Equal(t, "timeout", v["status"])
}

func TestCheck(t *testing.T) {
	ts := newServer(t, Options{})
	code, out := call(t, ts, "POST", "/api/check", `{"goal": "blank-first", "state": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 14]}`)
	assert.Equal(t, 422, code)
	assert.Contains(t, out["error"], "blank-first")
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(map[string]any{"goal": "blank-first", "state": "1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15"})
	code, out = call(t, ts, "POST", "/api/check", b.String())
	assert.Equal(t, 200, code)
	assert.Equal(t, true, out["ok"])
}

// Whatever a client sends, the API answers with JSON and never a server error.
func FuzzRequests(f *testing.F) {
	endpoints := []string{"/api/solve", "/api/check", "/api/shuffle"}
	f.Add(uint8(0), `{"state": "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12", "algo": "idastar"}`)
	f.Add(uint8(1), `{"board": "3x3", "state": [1, 2, 3, 4, 5, 6, 7, 8, 0]}`)
	f.Add(uint8(2), `{"moves": 3, "goal": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}`)
	s := New(Options{DefaultTimeout: 50 * time.Millisecond, MaxJobs: 1000})
	f.Cleanup(s.Close)
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		path := endpoints[int(which)%len(endpoints)]
		req := httptest.NewRequest("POST", "http://x"+path, strings.NewReader(body))
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		require.Less(t, rec.Code, 500, "%s %q", path, body)
		var out map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), "%s %q -> %q", path, body, rec.Body.String())
	})
}

// Issue 10, defect 8: work is admitted before it is done, every answer is JSON, limits are
// clamped, finished and abandoned jobs do not pile up.
func TestAdmissionAndLimits(t *testing.T) {
	s := New(Options{MaxJobs: 1, MaxDone: 3, Abandon: 200 * time.Millisecond})
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/api/solve", "POST"}, {"GET", "/api/solve", "POST"}, {"POST", "/api/options", "GET"},
		{"PATCH", "/api/jobs/abc", "GET, DELETE"},
	} {
		code, out := call(t, ts, tc.method, tc.path, "")
		assert.Equal(t, 405, code, tc.path)
		assert.Contains(t, out["error"], "use "+tc.allow, tc.path)
	}
	code, out := call(t, ts, "PROPFIND", "/api/solve/x", "")
	assert.Equal(t, 404, code)
	assert.Contains(t, out["error"], "no such API endpoint")

	// A huge timeout is clamped, not overflowed into an instant timeout.
	hard := `{"goal": "blank-first", "state": "15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4", "heuristic": "md", "timeout_seconds": 1e300}`
	code, out = call(t, ts, "POST", "/api/solve", hard)
	require.Equal(t, 202, code)
	id := out["id"].(string)
	time.Sleep(50 * time.Millisecond)
	_, v := call(t, ts, "GET", "/api/jobs/"+id, "")
	assert.Equal(t, "running", v["status"])

	// While it runs, requests that would build tables are turned away, not queued behind
	// it: each answered while the job (asked about, so not abandoned) still runs.
	custom := `{"goal": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "state": "1 2 3 4 5 6 7 8 9 10 11 12 13 0 14 15", "heuristic": "wd"}`
	for i := 0; i < 50; i++ {
		code, _ = call(t, ts, "POST", "/api/solve", custom)
		assert.Equal(t, 429, code)
		_, v = call(t, ts, "GET", "/api/jobs/"+id, "")
		require.Equal(t, "running", v["status"])
	}
	code, out = call(t, ts, "POST", "/api/solve", `{"board": "4x5", "state": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 0"}`)
	assert.Equal(t, 400, code)
	assert.Contains(t, out["error"], "up to 16 cells")

	// Nobody asks about the job any more: it is cancelled.
	require.Eventually(t, func() bool {
		s.mu.Lock()
		j := s.jobs[id]
		s.mu.Unlock()
		return j.view().Status == "cancelled"
	}, 30*time.Second, 20*time.Millisecond)

	// Finished jobs are kept up to MaxDone, the oldest dropped first.
	var ids []string
	for i := 0; i < 5; i++ {
		code, out = call(t, ts, "POST", "/api/solve", `{"state": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"}`)
		require.Equal(t, 202, code, "%v", out)
		ids = append(ids, out["id"].(string))
		wait(t, ts, ids[i])
	}
	for i, id := range ids {
		code, _ := call(t, ts, "GET", "/api/jobs/"+id, "")
		if i < 2 {
			assert.Equal(t, 404, code, "job %d is forgotten", i)
		} else {
			assert.Equal(t, 200, code, "job %d is kept", i)
		}
	}
	s.mu.Lock()
	assert.Len(t, s.jobs, 3)
	s.mu.Unlock()
}

// The solver goes gzip-compressed to a browser that accepts it, whole to one that does not;
// the options say which heuristics each board takes; an unsolvable position gets a hint.
func TestNewcomerFixes(t *testing.T) {
	ts := newServer(t, Options{})
	raw, err := fs.ReadFile(site.FS(), site.WasmFile)
	require.NoError(t, err)
	req, _ := http.NewRequest("GET", ts.URL+"/"+site.WasmFile, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
	require.NoError(t, err)
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
	assert.Equal(t, "application/wasm", res.Header.Get("Content-Type"))
	zr, err := gzip.NewReader(res.Body)
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, raw, got)
	gz, _ := site.GzippedWasm()
	assert.Less(t, len(gz), len(raw)/2, "gzip at least halves the solver")

	req, _ = http.NewRequest("GET", ts.URL+"/"+site.WasmFile, nil)
	res, err = http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	whole, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Empty(t, res.Header.Get("Content-Encoding"))
	assert.Equal(t, raw, whole)

	_, opts := call(t, ts, "GET", "/api/options", "")
	byBoard := opts["by_board"].(map[string]any)
	assert.Contains(t, byBoard["4x4"], "6-6-3")
	assert.NotContains(t, byBoard["3x3"], "6-6-3", "a set serves only its own board")
	assert.Contains(t, byBoard["3x3"], "md")
	assert.NotContains(t, byBoard["5x5"], "wd", "no walking-distance table for 5x5")
	assert.Contains(t, byBoard["5x5"], "md")
	assert.Equal(t, "best available", opts["labels"].(map[string]any)["auto"])

	code, body := call(t, ts, "POST", "/api/check", `{"state": "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"}`)
	assert.Equal(t, 422, code)
	assert.Contains(t, body["error"], "solvable for the blank-first goal: choose that goal")
	assert.NotContains(t, body["error"], "board:")

	dir := t.TempDir()
	names, err := site.WriteSite(t.Context(), dir)
	require.NoError(t, err)
	assert.Contains(t, names, site.WasmFile+".gz")
}

// The served page offers the installed sets that fit a tab, as solve15 site --sets writes
// them: the manifest, and each file with the size and checksum it gives.
func TestInstalledSetsAreServed(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(data.EnvTables, dir)
	_, err := data.InstallSet(context.Background(), pdb.Set555, dir, data.BuildOptions{})
	require.NoError(t, err)
	ts := newServer(t, Options{})
	code, raw := get(t, ts, "/sets/manifest.json")
	require.Equal(t, 200, code, "%s", raw)
	var m site.Manifest
	require.NoError(t, json.Unmarshal(raw, &m))
	require.Len(t, m.Sets, 1)
	assert.Equal(t, "5-5-5", m.Sets[0].Name)
	require.NotEmpty(t, m.Sets[0].Files)
	for _, f := range m.Sets[0].Files {
		code, b := get(t, ts, "/sets/5-5-5/"+f.Name)
		require.Equal(t, 200, code, f.Name)
		assert.Len(t, b, f.Bytes)
		assert.Equal(t, f.SHA256, fmt.Sprintf("%x", sha256.Sum256(b)))
	}
	code, _ = get(t, ts, "/sets/5-5-5/../../etc/passwd")
	assert.NotEqual(t, 200, code)
	code, _ = get(t, ts, "/sets/7-8/nothing.tbl")
	assert.Equal(t, 404, code)
}

// get fetches path, its status and body.
func get(t *testing.T, ts *httptest.Server, path string) (int, []byte) {
	t.Helper()
	res, err := http.Get(ts.URL + path)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, b
}
