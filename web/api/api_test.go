package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

func TestPrepare(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int    // 0: accepted
		want       string // part of the error, or the goal's name when accepted
	}{
		{"defaults", `{"state": "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12"}`, 0, "blank-last"},
		{"numbers and a named goal", `{"goal": "blank-first", "state": [14,13,15,7,11,12,9,5,6,0,2,1,4,8,10,3]}`, 0, "blank-first"},
		{"3x3", `{"board": "3x3", "state": "1 2 3 4 5 6 7 0 8", "algo": "ASTAR", "heuristic": "md"}`, 0, "blank-last"},
		{"no state", `{}`, BadRequest, "no state given"},
		{"state of wrong type", `{"state": {"a": 1}}`, BadRequest, "list of numbers or a string"},
		{"short state", `{"state": "1 2 3"}`, BadRequest, "state:"},
		{"repeated tile", `{"state": [1,1,2,3,4,5,6,7,8,9,10,11,12,13,14,0]}`, BadRequest, "state:"},
		{"unsolvable", `{"state": "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0"}`, Unprocessed, "not solvable"},
		{"bad board", `{"board": "9x9", "state": "1"}`, BadRequest, "9x9"},
		{"5x5", `{"board": "5x5", "state": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 0"}`, 0, "blank-last"},
		{"bad goal", `{"goal": "blank-middle", "state": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"}`, BadRequest, "goal:"},
		{"unknown algorithm", `{"state": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0", "algo": "dfs"}`, BadRequest, "unknown algorithm \"dfs\""},
		{"unknown heuristic", `{"state": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0", "heuristic": "magic"}`, BadRequest, "unknown heuristic magic"},
		{"negative timeout", `{"state": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0", "timeout_seconds": -1}`, BadRequest, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req SolveRequest
			require.NoError(t, json.Unmarshal([]byte(tc.body), &req))
			job, err := req.Prepare(time.Second, time.Minute)
			if tc.status == 0 {
				require.NoError(t, err)
				assert.Equal(t, tc.want, job.Goal.Name())
				assert.Equal(t, time.Second, job.Timeout, "the default time limit")
				return
			}
			var e *Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Equal(t, tc.status, e.Status)
			assert.Contains(t, e.Error(), tc.want)
		})
	}
}

// Bodies are read by the same rules on the server and in the page's worker.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		body   string
		status int // 0: accepted
		want   string
	}{
		{`{"board": "3x3", "moves": 4}`, 0, ""},
		{`{"board": "3x3", "colour": "red"}`, BadRequest, "unknown field"},
		{`{"board": "3x3"} {"board": "4x4"}`, BadRequest, "more than one value"},
		{`{"board": `, BadRequest, "bad JSON"},
		{`{"board": "` + strings.Repeat("x", MaxBody) + `"}`, TooLarge, "larger than"},
	} {
		var req ShuffleRequest
		err := Decode([]byte(tc.body), &req)
		if tc.status == 0 {
			require.NoError(t, err)
			assert.Equal(t, 4, req.Moves)
			continue
		}
		status, body := Answer(nil, err)
		assert.Equal(t, tc.status, status, "%.40s", tc.body)
		assert.Contains(t, body.(map[string]string)["error"], tc.want, "%.40s", tc.body)
	}
	status, body := Answer(nil, errors.New("disk on fire"))
	assert.Equal(t, Failed, status)
	assert.Equal(t, map[string]string{"error": "disk on fire"}, body)
}

func TestPrepareClampsTimeouts(t *testing.T) {
	for _, tc := range []struct {
		seconds float64
		want    time.Duration
	}{
		{0, 10 * time.Second}, {1e-9, time.Millisecond}, {2.5, 2500 * time.Millisecond}, {1e300, time.Minute},
	} {
		req := SolveRequest{Puzzle: Puzzle{State: "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"}, Timeout: tc.seconds}
		job, err := req.Prepare(10*time.Second, time.Minute)
		require.NoError(t, err)
		assert.Equal(t, tc.want, job.Timeout, "%g s", tc.seconds)
	}
}

// A job runs through package solve and answers with a replayable optimal solution.
func TestRun(t *testing.T) {
	req := SolveRequest{Puzzle: Puzzle{Board: "3x3", State: []int{8, 6, 7, 2, 5, 4, 3, 0, 1}}}
	job, err := req.Prepare(time.Minute, time.Minute)
	require.NoError(t, err)
	sol, err := job.Run(context.Background(), nil, time.Second)
	require.NoError(t, err)
	assert.Equal(t, 31, sol.Length, "one of the two hardest 8-puzzle positions")
	assert.True(t, sol.Optimal)
	dirs, err := board.ParseDirs(sol.Moves)
	require.NoError(t, err)
	end, err := job.Goal.Size().Replay(job.Start, dirs)
	require.NoError(t, err)
	assert.True(t, end.Equal(job.Goal.Tiles()))
}

func TestShuffle(t *testing.T) {
	req := &ShuffleRequest{Puzzle: Puzzle{Board: "3x3"}, Moves: 20, Seed: 7}
	a, err := Shuffle(req)
	require.NoError(t, err)
	b, err := Shuffle(req)
	require.NoError(t, err)
	assert.Equal(t, a, b, "a seed gives the same state")
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	st, err := board.FromInts(goal.Size(), a["state"].([]int))
	require.NoError(t, err)
	assert.NoError(t, goal.Check(st))

	for _, moves := range []int{-1, 10001} {
		_, err := Shuffle(&ShuffleRequest{Moves: moves})
		var e *Error
		require.True(t, errors.As(err, &e))
		assert.Equal(t, BadRequest, e.Status)
	}
}

// Whatever a request holds, Prepare and Check answer with a result or an *Error of status
// 400 or 422, never a panic.
func FuzzPrepare(f *testing.F) {
	f.Add(`{"state": "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12", "algo": "idastar"}`)
	f.Add(`{"board": "3x3", "state": [1, 2, 3, 4, 5, 6, 7, 8, 0], "goal": "blank-first"}`)
	f.Add(`{"board": "2x2", "goal": [0, 1, 2, 3], "state": "3 0 / 2 1", "timeout_seconds": 1e308}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req SolveRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		for _, err := range []error{
			func() error { _, err := req.Prepare(time.Second, time.Minute); return err }(),
			func() error { _, err := Check(&req.Puzzle); return err }(),
		} {
			if err == nil {
				continue
			}
			var e *Error
			require.True(t, errors.As(err, &e), "%q: %v", body, err)
			require.Contains(t, []int{BadRequest, Unprocessed}, e.Status, "%q", body)
		}
	})
}

// A set whose tables are intact but not the ones pdbgen builds is refused with words for
// the page, whose user has no pdbgen: it names the site's owner as the one to act.
func TestLoadSetNotStandard(t *testing.T) {
	dir := t.TempDir()
	_, err := data.InstallSet(context.Background(), pdb.Set555, dir, data.BuildOptions{})
	require.NoError(t, err)
	files, _, err := data.SetFiles("5-5-5", []string{dir})
	require.NoError(t, err)
	name := data.SetFile(pdb.Set555, 0)
	f, err := tablefile.Decode(bytes.NewReader(files[name]))
	require.NoError(t, err)
	p, err := pdb.LoadPacked(f)
	require.NoError(t, err)
	p.Nibbles[100] ^= 0x11 // two entries changed, the file written anew with good checksums
	nf, err := p.File()
	require.NoError(t, err)
	changed := filepath.Join(dir, "changed.tbl")
	require.NoError(t, tablefile.Write(context.Background(), changed, nf))
	files[name], err = os.ReadFile(changed)
	require.NoError(t, err)
	_, err = LoadSet("5-5-5", files)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the site's 5-5-5 tables are not the ones pdbgen builds")
	assert.Contains(t, err.Error(), "the site's owner")
	assert.True(t, errors.Is(err, data.ErrNotStandard))
}

// A set installed where the server finds sets is offered by name, as on the command line:
// a request naming it is prepared, not refused as unknown.
func TestInstalledSetsAreOffered(t *testing.T) {
	dir := t.TempDir()
	_, err := data.InstallSet(context.Background(), pdb.Set555, dir, data.BuildOptions{})
	require.NoError(t, err)
	t.Setenv("TILEKIT_TABLES", dir)
	assert.Contains(t, Heuristics(), "5-5-5")
	req := SolveRequest{Puzzle: Puzzle{State: "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"}, Heuristic: "5-5-5"}
	job, err := req.Prepare(time.Second, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, "5-5-5", job.Heuristic)
}
