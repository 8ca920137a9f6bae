package report

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/solve"
)

// TestRecordCheck: a record of a real solve checks; each forgery of it is caught.
func TestRecordCheck(t *testing.T) {
	korf := corpus.Korf100()
	in := korf[0]
	s, err := solve.New(context.Background(), in.Goal, solve.Options{})
	require.NoError(t, err)
	res, err := s.Solve(context.Background(), in.Start)
	require.NoError(t, err)
	good := NewRecord(in.Goal, in.Start, res, nil)
	require.NoError(t, good.Check(in.Goal, in.Start, true))
	unsolved := NewRecord(in.Goal, in.Start, nil, context.DeadlineExceeded)
	require.NoError(t, unsolved.Check(in.Goal, in.Start, true))
	other := korf[1].Start
	// pad makes a record of a longer solution, consistent but for its claim: the real one
	// and a move there and back (a cluster worker's forgery).
	pad := func(r *Record) {
		r.Moves += "DU"
		r.Length += 2
		r.LowerBound = r.Length
		moves, err := board.ParseDirs(r.Moves)
		require.NoError(t, err)
		r.Tiles, err = in.Goal.Size().DirsToTiles(in.Start, moves)
		require.NoError(t, err)
	}
	padded := good
	padded.Tiles = slices.Clone(good.Tiles)
	pad(&padded)
	assert.ErrorContains(t, padded.Check(in.Goal, in.Start, true), "after move 58 it is back where it was after move 56")
	padded.Optimal = false
	assert.NoError(t, padded.Check(in.Goal, in.Start, true), "a longer solution not claimed optimal is a solution")
	for _, c := range []struct {
		name    string
		forge   func(r *Record)
		optimal bool
	}{
		{"another start", func(r *Record) { r.Start = other.Ints() }, true},
		{"another goal", func(r *Record) { r.Goal = "blank-last" }, true},
		{"moves that do not reach the goal", func(r *Record) { r.Moves = r.Moves[:len(r.Moves)-2]; r.Length -= 2; r.Tiles = r.Tiles[:len(r.Tiles)-2] }, true},
		{"a move off the board", func(r *Record) { r.Moves = "UUUUUUU" + r.Moves }, true},
		{"not moves", func(r *Record) { r.Moves = "up" }, true},
		{"a length that is not the moves'", func(r *Record) { r.Length-- }, true},
		{"tiles that are not the moves'", func(r *Record) { r.Tiles[0]++ }, true},
		{"optimal from a solver that is not", func(r *Record) {}, false},
		{"a lower bound below the length", func(r *Record) { r.LowerBound -= 2 }, true},
		{"an unsolved record with moves", func(r *Record) { r.Solved = false }, true},
		{"a solution padded with a move there and back, claimed optimal", pad, true},
	} {
		r := good
		r.Start, r.Tiles = slices.Clone(good.Start), slices.Clone(good.Tiles)
		c.forge(&r)
		assert.Error(t, r.Check(in.Goal, in.Start, c.optimal), c.name)
	}
}

// A record's serial work is one worker's count: the serial counts of a search shared out,
// else its own.
func TestSerialWork(t *testing.T) {
	assert.Equal(t, passes.Work{Nodes: 8, Expanded: 4}, Record{Nodes: 10, Expanded: 5, SerialNodes: 8, SerialExpanded: 4}.SerialWork())
	assert.Equal(t, passes.Work{Nodes: 10, Expanded: 5}, Record{Nodes: 10, Expanded: 5}.SerialWork())
}

// ReadRecords keeps the records of a stream, passes over other objects, and names the
// value that is not a record and an input past its limit.
func TestReadRecords(t *testing.T) {
	in := `{"line":1,"start":[1,2,3,0],"board":"2x2","goal":"blank-last","solved":true,"length":0,"moves":"","tiles":[],"nodes":5}
{"line":2,"board":"2x2","goal":"blank-last","error":"not a state"}
{"line":3,"start":[1,2,0,3],"board":"2x2","goal":"blank-last","solved":true,"length":1,"moves":"R","tiles":[3],"nodes":7,"serial_nodes":6}
`
	recs, err := ReadRecords(strings.NewReader(in), "in", 1<<20)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, 3, recs[1].Line)
	assert.Equal(t, uint64(6), recs[1].SerialWork().Nodes)

	recs, err = ReadRecords(strings.NewReader(in+"{\"line\": 4, \"start\": [1,"), "in", 1<<20)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in: record 4 is not a solve15 --json record")
	assert.Len(t, recs, 2, "the records before it")

	_, err = ReadRecords(strings.NewReader(in), "in", 100)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 100 bytes")
}

// A summary counts each record once by its outcome, and of the optimal answers those that
// rest on their workers' word.
func TestSummaryCounts(t *testing.T) {
	var s Summary
	for _, c := range []struct {
		rec   Record
		known int
	}{
		{Record{Solved: true, Optimal: true, Length: 10, Nodes: 5, Trust: TrustProven}, 10},
		{Record{Solved: true, Optimal: true, Length: 12, Trust: TrustReported(2)}, -1},
		{Record{Solved: true, Optimal: true, Length: 12, Trust: TrustAudited}, -1},
		{Record{Solved: true, Optimal: true, Length: 14, Trust: TrustReported(1)}, 12}, // contradicts: a mismatch
		{Record{Solved: true, Length: 20, Nodes: 7}, -1},
		{Record{Nodes: 1}, -1},
	} {
		s.Add(&c.rec, c.known)
	}
	assert.Equal(t, Summary{Solved: 3, Reported: 1, Mismatched: 1, NotOptimal: 1, Unsolved: 1, Nodes: 13}, s)
	assert.Equal(t, "as reported by 2 workers", TrustReported(2))
	assert.True(t, (&Record{Trust: TrustReported(1)}).Reported())
	assert.False(t, (&Record{Trust: TrustAudited}).Reported())
}

// The summary's line says how many optimal answers rest on a worker's word (so that -q,
// which prints only the line, keeps it); its sums saturate instead of wrapping: 200
// records of 1e17 nodes, and of seconds past what a Duration holds.
func TestSummaryLineAndSums(t *testing.T) {
	var s Summary
	s.Add(&Record{Solved: true, Optimal: true, Length: 12, Trust: TrustReported(1)}, -1)
	s.Add(&Record{Solved: true, Optimal: true, Length: 12, Trust: TrustProven}, -1)
	assert.Contains(t, s.Text(time.Second, 0), "summary: 2 solved optimally (1 on a worker's word, not checked here), ")
	var plain Summary
	plain.Add(&Record{Solved: true, Optimal: true, Length: 12, Trust: TrustProven}, -1)
	assert.Contains(t, plain.Text(time.Second, 0), "summary: 1 solved optimally, 0 solved without")

	var big Summary
	for range 200 {
		big.Add(&Record{Solved: true, Optimal: true, Length: 12, Nodes: 1e17, Seconds: 1e9}, -1)
	}
	assert.Equal(t, uint64(math.MaxUint64), big.Nodes, "saturated, not wrapped")
	assert.Equal(t, time.Duration(math.MaxInt64), big.Search)
	assert.NotContains(t, big.Text(time.Second, 0), "-", "no negative figure")
}

// Answers settled by the coordinator's search after their workers disagreed (--quorum) are
// counted in the line, with the wrong workers named once each, in order; a record says its
// dispute; an answer whose result several workers agreed on still rests on their word.
func TestSummaryOfDisputes(t *testing.T) {
	var s Summary
	s.Add(&Record{Solved: true, Optimal: true, Length: 12, Trust: TrustProven, Dispute: "…", WrongWorkers: []string{"zed", "mallory"}}, -1)
	s.Add(&Record{Solved: true, Optimal: true, Length: 12, Trust: TrustProven, Dispute: "…", WrongWorkers: []string{"mallory"}}, -1)
	s.Add(&Record{Solved: true, Optimal: true, Length: 12, Trust: TrustAgreed(2, 2)}, -1)
	assert.Equal(t, 2, s.Disputed)
	assert.Equal(t, []string{"mallory", "zed"}, s.Wrong)
	assert.Equal(t, 1, s.Reported)
	assert.Contains(t, s.Text(time.Second, 0), "summary: 3 solved optimally (1 on a worker's word, not checked here; 2 where workers disagreed, settled by the search here), ")
	assert.Equal(t, "as reported by 2 workers in agreement", TrustAgreed(2, 2))
	assert.Equal(t, "as reported by 5 workers, each result from 2 in agreement", TrustAgreed(5, 2))
	assert.Equal(t, TrustReported(3), TrustAgreed(3, 1))
	var b strings.Builder
	(&Record{Solved: true, Optimal: true, Length: 2, Moves: "UL", Trust: TrustProven, Dispute: `on instance #1 the workers disagreed: worker "m" said 4 moves`}).WriteText(&b)
	assert.Contains(t, b.String(), "(optimal, proven here)")
	assert.Contains(t, b.String(), `  DISPUTED: on instance #1 the workers disagreed: worker "m" said 4 moves`)
}

// An answer not proven optimal shows the input's optimum where it differs; a record not
// solved whose proven lower bound passes the input's optimum is a mismatch.
func TestKnownOptimumSaid(t *testing.T) {
	known := 57
	r := Record{ID: "k4", Solved: true, Length: 59, Algorithm: "bastar", Heuristic: "hh", KnownOptimal: &known}
	var b strings.Builder
	r.WriteText(&b)
	assert.Contains(t, b.String(), "59 moves (not proven optimal: bastar with hh; the input says the optimum is 57)")
	var sum Summary
	sum.Add(&r, known)
	assert.Equal(t, 1, sum.NotOptimal)
	past := Record{ID: "k5", LowerBound: 59, Error: "interrupted"}
	sum.Add(&past, known)
	assert.Equal(t, 1, sum.Mismatched)
	assert.Equal(t, "MISMATCH: no solution of fewer than 59 moves, where the input says the optimum is 57", past.Error)
	// Searched for blank-last, a blank-first position whose optimum the file gives: the
	// mismatch names the goal its Manhattan distance fits; under blank-first it fits none.
	first := board.BlankFirst(board.Size4x4)
	start, _ := first.RandomWalk(20, rand.New(rand.NewPCG(70, 1)))
	md := first.Manhattan(start)
	wrong := Record{ID: "w", Board: "4x4", Goal: "blank-last", Start: start.Ints(), LowerBound: 80}
	sum.Add(&wrong, md)
	assert.Equal(t, fmt.Sprintf("MISMATCH: no solution of fewer than 80 moves, where the input says the optimum is %d: is the input for --goal blank-first? The start's Manhattan distance under it fits %d", md, md), wrong.Error)
	right := Record{ID: "r", Board: "4x4", Goal: "blank-first", Start: start.Ints(), LowerBound: md + 2}
	sum.Add(&right, md)
	assert.NotContains(t, right.Error, "--goal", "blank-last's distance is far from it")
	below := Record{ID: "k6", LowerBound: 55, Error: "interrupted"}
	sum.Add(&below, known)
	assert.Equal(t, 1, sum.Unsolved)
}
