package solve

import (
	"context"
	"errors"

	"github.com/tilekit/tilekit/board"
)

// Record is the JSON form of one solve: what solve15 --json prints per instance, what the
// HTTP API and the page's worker answer. An unsolved search has solved false, length -1,
// empty moves and tiles, and error saying why ("timed out", "interrupted", a limit).
type Record struct {
	ID             string  `json:"id,omitempty"`   // the instance's id, when it has one
	Line           int     `json:"line,omitempty"` // the instance's line or argument, from 1
	Start          []int   `json:"start"`
	Board          string  `json:"board"`
	Goal           string  `json:"goal"`
	Algorithm      string  `json:"algorithm"`
	Heuristic      string  `json:"heuristic"`
	Lookups        string  `json:"lookups,omitempty"`
	Tables         string  `json:"tables,omitempty"`
	Solved         bool    `json:"solved"`
	Optimal        bool    `json:"optimal"`
	Length         int     `json:"length"`
	Moves          string  `json:"moves"` // blank directions, U D L R
	Tiles          []int   `json:"tiles"` // the tiles that slide
	H0             int     `json:"h0"`
	LowerBound     int     `json:"lower_bound,omitempty"`
	KnownOptimal   *int    `json:"known_optimal,omitempty"` // the optimum the input gave
	Nodes          uint64  `json:"nodes"`                   // generated
	Expanded       uint64  `json:"expanded"`
	PeakStored     int     `json:"peak_stored"`
	Seconds        float64 `json:"seconds"`
	NodesPerSecond float64 `json:"nodes_per_second"`
	Passes         []Pass  `json:"passes,omitempty"`
	Error          string  `json:"error,omitempty"`
}

// NewRecord describes a search of start for goal: its result (nil when the search did not
// start) and error.
func NewRecord(goal board.Goal, start board.State, res *Result, err error) Record {
	rec := Record{Start: Ints(start), Board: goal.Size().String(), Goal: goal.Name(), Error: ErrorText(err), Length: -1, Tiles: []int{}}
	if res == nil {
		return rec
	}
	rec.Algorithm, rec.Heuristic, rec.Lookups, rec.Tables = res.Algorithm, res.Heuristic, res.Lookups, res.Tables
	rec.Solved, rec.Optimal = res.Solved, res.Optimal
	rec.H0, rec.LowerBound = res.H0, res.LowerBound
	rec.Nodes, rec.Expanded, rec.Passes, rec.PeakStored = res.Nodes, res.Expanded, res.Passes, res.PeakStored
	rec.Seconds = res.Elapsed.Seconds()
	rec.Tiles, rec.Length = res.Tiles, res.Length()
	if res.Solved {
		rec.Moves = board.FormatDirs(res.Moves)
	}
	if rec.Seconds > 0 {
		rec.NodesPerSecond = float64(rec.Nodes) / rec.Seconds
	}
	return rec
}

// ErrorText says for people why a search stopped: "timed out", "interrupted", or the
// error's own message; "" for none.
func ErrorText(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "interrupted"
	}
	return err.Error()
}

// Ints writes a state as plain numbers, as JSON carries it.
func Ints(s board.State) []int {
	out := make([]int, len(s))
	for i, t := range s {
		out[i] = int(t)
	}
	return out
}
