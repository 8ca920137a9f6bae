package api

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/report"
)

// viaJSON is what a JavaScript program gets of v from the server: its JSON, parsed.
func viaJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// The page's worker gets the same answers as the server's clients: Tree is JSON's shape.
func TestTreeIsJSON(t *testing.T) {
	known := 44
	full := report.Record{
		ID: "k-1", Line: 3, Start: []int{1, 0, 2, 3}, Board: "2x2", Goal: "blank-last",
		Algorithm: "idastar", Heuristic: "md", Lookups: "regular", Tables: "embedded",
		Solved: true, Optimal: true, Length: 2, Moves: "LU", Tiles: []int{1, 2}, H0: 2,
		LowerBound: 2, KnownOptimal: &known, Nodes: 1 << 40, Expanded: 7, SerialNodes: 9,
		SerialExpanded: 8, PeakStored: 3, Seconds: 0.25, NodesPerSecond: 1e6,
		Passes: []passes.Pass{{}}, Error: "none", Worker: "w1",
		Units: []report.UnitRecord{{Bound: 4, Seq: 1, Path: "UL", Nodes: 5, Expanded: 2}},
	}
	for _, v := range []any{
		full,
		&full,
		report.Record{Start: []int{}, Tiles: nil}, // omitempty and empty lists
		Options(),
		ErrorBody(errors.New("no")),
		map[string]any{"state": board.State(nil).Ints(), "ok": true, "n": 3, "x": nil},
	} {
		assert.Equal(t, viaJSON(t, v), Tree(v), "%T", v)
	}
}

// FromTree reads what Decode (encoding/json) reads, and refuses what it must.
func TestFromTree(t *testing.T) {
	for _, body := range []string{
		`{"board": "3x3", "state": [8,6,7,2,5,4,3,0,1], "algo": "astar", "timeout_seconds": 2.5}`,
		`{"goal": "blank-first", "state": "1 2 3", "heuristic": null}`,
		`{}`,
	} {
		var want, got SolveRequest
		require.NoError(t, json.Unmarshal([]byte(body), &want), body)
		var tree any
		require.NoError(t, json.Unmarshal([]byte(body), &tree))
		require.NoError(t, FromTree(tree, &got), body)
		assert.Equal(t, want, got, body)
	}
	var shuffle ShuffleRequest
	require.NoError(t, FromTree(map[string]any{"moves": 40.0, "seed": 9007199254740992.0, "board": "4x4"}, &shuffle))
	assert.Equal(t, ShuffleRequest{Puzzle: Puzzle{Board: "4x4"}, Moves: 40, Seed: 1 << 53}, shuffle)

	big := make([]any, MaxTreeNodes)
	for _, tc := range []struct {
		tree any
		want string
	}{
		{[]any{1.0}, "must be an object, not a list"},
		{"x", "must be an object, not a string"},
		{map[string]any{"colour": "red"}, `unknown field "colour"`},
		{map[string]any{"moves": "ten"}, `field "moves": a whole number expected, not a string`},
		{map[string]any{"moves": 1.5}, `field "moves": a whole number expected, not a fraction`},
		{map[string]any{"seed": -1.0}, `field "seed": -1 is out of range`},
		{map[string]any{"moves": 1e300}, "out of range"},
		{map[string]any{"board": 3.0}, `field "board": a string expected, not the number 3`},
		{map[string]any{"state": big}, "more than 4096 values"},
	} {
		var req ShuffleRequest
		err := FromTree(tc.tree, &req)
		var e *Error
		require.True(t, errors.As(err, &e), "%v", tc.tree)
		assert.Equal(t, BadRequest, e.Status)
		assert.Contains(t, err.Error(), tc.want)
	}
	// A list of numbers in a state is read as the server reads it.
	var req SolveRequest
	require.NoError(t, FromTree(map[string]any{"board": "3x3", "state": []any{1.5}}, &req))
	_, _, err := req.Parse(true)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "list of numbers or a string"), err.Error())
}
