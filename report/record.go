package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/solve"
)

// Record is the JSON form of one solve: what solve15 --json prints per instance, what the
// HTTP API and the page's worker answer. An unsolved search has solved false, length -1,
// empty moves and tiles, and error saying why ("timed out", "interrupted", a limit).
type Record struct {
	ID           string `json:"id,omitempty"`   // the instance's id, when it has one
	Line         int    `json:"line,omitempty"` // the instance's line or argument, from 1
	Start        []int  `json:"start"`
	Board        string `json:"board"`
	Goal         string `json:"goal"`
	Algorithm    string `json:"algorithm"`
	Heuristic    string `json:"heuristic"`
	Lookups      string `json:"lookups,omitempty"`
	Tables       string `json:"tables,omitempty"`
	Pruning      string `json:"pruning,omitempty"` // IDA*'s or RBFS's: "move back" or the automaton
	Solved       bool   `json:"solved"`
	Optimal      bool   `json:"optimal"`
	Length       int    `json:"length"`
	Moves        string `json:"moves"` // blank directions, U D L R
	Tiles        []int  `json:"tiles"` // the tiles that slide
	H0           int    `json:"h0"`
	LowerBound   int    `json:"lower_bound,omitempty"`
	KnownOptimal *int   `json:"known_optimal,omitempty"` // the optimum the input gave
	Nodes        uint64 `json:"nodes"`                   // generated
	Expanded     uint64 `json:"expanded"`
	// What one worker would have counted, when several searched one instance.
	SerialNodes    uint64        `json:"serial_nodes,omitempty"`
	SerialExpanded uint64        `json:"serial_expanded,omitempty"`
	PeakStored     int           `json:"peak_stored"`
	Seconds        float64       `json:"seconds"`
	NodesPerSecond float64       `json:"nodes_per_second"`
	Passes         []passes.Pass `json:"passes,omitempty"`
	Error          string        `json:"error,omitempty"`
	// A search shared out (solve15 cluster): the worker that solved the whole instance,
	// or the units of its split passes.
	Worker string       `json:"worker,omitempty"`
	Units  []UnitRecord `json:"units,omitempty"`
	// Trust says what an optimal solution of solve15 cluster rests on: "proven here" (the
	// coordinator searched the pass that proves it: TrustProven), "audited" (it searched
	// that pass again, and agreed: TrustAudited) or "as reported by N workers"
	// (TrustReported), "in agreement" where each result came from several (TrustAgreed).
	Trust string `json:"trust,omitempty"`
	// Dispute says where the workers given the same unit (solve15 cluster --quorum)
	// disagreed: what each said, and what the coordinator's own search found, which the
	// answer rests on; WrongWorkers names those whose results it contradicted.
	Dispute      string   `json:"dispute,omitempty"`
	WrongWorkers []string `json:"wrong_workers,omitempty"`
	// Device is what a GPU did, when one searched (solve15 --device).
	Device *solve.DeviceUse `json:"device,omitempty"`
}

// UnitRecord is the work of one subtree of a split pass, searched by Worker.
type UnitRecord struct {
	Bound    int     `json:"bound"`
	Seq      int     `json:"seq"`  // the subtree's place in its pass's frontier
	Path     string  `json:"path"` // its moves from the start
	Nodes    uint64  `json:"nodes"`
	Expanded uint64  `json:"expanded"`
	Seconds  float64 `json:"seconds"`
	Worker   string  `json:"worker"`
	Audited  bool    `json:"audited,omitempty"` // searched again by the coordinator, which agreed
}

// BadLine is the JSON form of an input line that is not a valid state: its id (when it
// gave one), its line, the board and goal it was read for, and why.
type BadLine struct {
	ID    string `json:"id,omitempty"` // the line's id, when it gave one that could be read
	Line  int    `json:"line"`
	Board string `json:"board"`
	Goal  string `json:"goal"`
	Error string `json:"error"`
}

// NewBadLine describes a bad entry of a stream read for goal.
func NewBadLine(goal board.Goal, e instance.Entry) BadLine {
	return BadLine{ID: e.ID, Line: e.Line, Board: goal.Size().String(), Goal: goal.Name(), Error: format.Message(e.Err)}
}

// SerialWork returns the nodes generated and expanded as one worker counts them: a search
// shared by several (or a GPU) counts them apart from its own work.
func (rec Record) SerialWork() passes.Work {
	if rec.SerialExpanded > 0 || rec.SerialNodes > 0 {
		return passes.Work{Nodes: rec.SerialNodes, Expanded: rec.SerialExpanded}
	}
	return passes.Work{Nodes: rec.Nodes, Expanded: rec.Expanded}
}

// NewRecord describes a search of start for goal: its result (nil when the search did not
// start) and error.
func NewRecord(goal board.Goal, start board.State, res *solve.Result, err error) Record {
	rec := Record{Start: start.Ints(), Board: goal.Size().String(), Goal: goal.Name(), Error: ErrorText(err), Length: -1, Tiles: []int{}}
	if res == nil {
		return rec
	}
	rec.Algorithm, rec.Heuristic, rec.Lookups, rec.Tables, rec.Pruning = res.Algorithm, res.Heuristic, res.Lookups, res.Tables, res.Pruning
	rec.Solved, rec.Optimal = res.Solved, res.Optimal
	rec.H0, rec.LowerBound = res.H0, res.LowerBound
	rec.Nodes, rec.Expanded, rec.Passes, rec.PeakStored = res.Nodes, res.Expanded, res.Passes, res.PeakStored
	rec.SerialNodes, rec.SerialExpanded = res.SerialNodes, res.SerialExpanded
	rec.Device = res.Device
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
	return format.Message(err)
}

// Label names the record's instance for people: its id, or #N for the N-th line or
// argument.
func (r *Record) Label() string {
	if r.ID != "" {
		return r.ID
	}
	return fmt.Sprintf("#%d", r.Line)
}

// WriteText writes the record for people: the length and whether it is optimal, the moves
// in both notations and the search's figures; or why it was not solved.
func (r *Record) WriteText(w io.Writer) {
	if !r.Solved {
		fmt.Fprintf(w, "%s: not solved (%s)", r.Label(), r.Error)
		if r.LowerBound > 0 {
			fmt.Fprintf(w, ": optimum at least %d", r.LowerBound)
		}
		fmt.Fprintf(w, "; %s nodes, %.2fs\n", format.Thousands(r.Nodes), r.Seconds)
		return
	}
	note := "optimal"
	if r.Trust != "" {
		note += ", " + r.Trust
	}
	switch {
	case r.Error != "":
		note = "MISMATCH: " + r.Error
	case !r.Optimal:
		note = fmt.Sprintf("not proven optimal: %s with %s", r.Algorithm, r.Heuristic)
		if r.KnownOptimal != nil && *r.KnownOptimal != r.Length {
			note += fmt.Sprintf("; the input says the optimum is %d", *r.KnownOptimal)
		}
	}
	fmt.Fprintf(w, "%s: %s (%s)\n  blank: %s\n  tiles: %s\n", r.Label(), format.Count(r.Length, "move"), note, r.Moves, format.Ints(r.Tiles, " "))
	fmt.Fprintf(w, "  %s nodes (%s expanded, %s stored at most), %.3fs, %.1f M nodes/s, h0 %d\n",
		format.Thousands(r.Nodes), format.Thousands(r.Expanded), format.Thousands(uint64(r.PeakStored)), r.Seconds, r.NodesPerSecond/1e6, r.H0)
	if r.Dispute != "" {
		fmt.Fprintf(w, "  DISPUTED: %s\n", r.Dispute)
	}
}

// The trusts of an optimal answer of solve15 cluster (Record.Trust) that rests on a search
// of the coordinator's.
const (
	TrustProven  = "proven here"
	TrustAudited = "audited"
)

// reportedBy begins the trust of an answer that rests on its workers' word.
const reportedBy = "as reported by "

// TrustReported is the trust of an optimal answer that rests on the word of n workers.
func TrustReported(n int) string { return reportedBy + format.Count(n, "worker") }

// TrustAgreed is the trust of an optimal answer that rests on the word of n workers,
// where each result it rests on came from quorum distinct workers that agreed.
func TrustAgreed(n, quorum int) string {
	switch {
	case quorum <= 1:
		return TrustReported(n)
	case n <= quorum:
		return TrustReported(n) + " in agreement"
	}
	return fmt.Sprintf("%s, each result from %d in agreement", TrustReported(n), quorum)
}

// Reported says whether the record's optimality rests on its workers' word alone.
func (r *Record) Reported() bool { return strings.HasPrefix(r.Trust, reportedBy) }

// A Summary counts the records of a batch.
type Summary struct {
	Solved, NotOptimal, Unsolved, Mismatched, Invalid int
	Reported                                          int // of Solved, those whose optimality rests on workers' word (Record.Reported)
	// Disputed counts the records whose workers disagreed (Record.Dispute), and Wrong
	// names the workers whose results were found wrong, in order.
	Disputed int
	Wrong    []string
	// NotStarted counts, of Unsolved, the instances an interruption left unstarted.
	NotStarted int
	Nodes      uint64
	Search     time.Duration // the searches' time, added up
}

// Add counts a record of an instance whose known optimal length is known (-1 for none),
// and marks it as a mismatch when it contradicts that length.
func (s *Summary) Add(r *Record, known int) {
	switch {
	case !r.Solved && known >= 0 && r.LowerBound > known:
		// Every solution of known moves or fewer was ruled out: the input is wrong, or is
		// for another goal (solve.ErrPastOptimum says which, where it can).
		s.Mismatched++
		r.Error = fmt.Sprintf("MISMATCH: no solution of fewer than %d moves, where the input says the optimum is %d", r.LowerBound, known)
		if g := r.goalThatFits(known); g != "" {
			r.Error += fmt.Sprintf(": is the input for --goal %s? The start's Manhattan distance under it fits %d", g, known)
		}
	case !r.Solved:
		s.Unsolved++
	case known >= 0 && r.Optimal && r.Length != known:
		s.Mismatched++
		r.Error = fmt.Sprintf("found %d moves, but the input says the optimum is %d", r.Length, known)
	case !r.Optimal:
		s.NotOptimal++
	default:
		s.Solved++
		if r.Reported() {
			s.Reported++
		}
	}
	if r.Dispute != "" {
		s.Disputed++
		for _, w := range r.WrongWorkers {
			if i, found := slices.BinarySearch(s.Wrong, w); !found {
				s.Wrong = slices.Insert(s.Wrong, i, w)
			}
		}
	}
	// Sums saturate rather than wrap: records come from workers too, and a plausible one
	// each may still add up past the types.
	s.Nodes = saturatingAdd(s.Nodes, r.Nodes)
	if sum := float64(s.Search) + max(r.Seconds, 0)*float64(time.Second); sum < math.MaxInt64 {
		s.Search = time.Duration(sum)
	} else {
		s.Search = math.MaxInt64
	}
}

// goalThatFits names the other standard goal of the record's board ("blank-first" for
// "blank-last", and back) when its start's Manhattan distance under that goal fits
// optimum (at most it, of the same parity): an input whose optimum the search passed may
// be for that goal. Else "".
func (r *Record) goalThatFits(optimum int) string {
	size, err := board.ParseSize(r.Board)
	if err != nil {
		return ""
	}
	other := board.BlankFirst(size)
	switch r.Goal {
	case other.Name():
		other = board.BlankLast(size)
	case board.BlankLast(size).Name():
	default:
		return ""
	}
	start, err := board.FromInts(size, r.Start)
	if err != nil || other.Check(start) != nil {
		return ""
	}
	if md := other.Manhattan(start); md <= optimum && (optimum-md)%2 == 0 {
		return other.Name()
	}
	return ""
}

// saturatingAdd is a + b, or the largest uint64 where that does not fit.
func saturatingAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// Entry completes the record of an entry of a stream of instances of goal and counts it:
// for an instance, its id, line and known optimum are filled in and a contradicted
// optimum is marked in its error; a bad line gets a record of its line and error.
func (s *Summary) Entry(goal board.Goal, e instance.Entry, rec Record) Record {
	if e.In == nil {
		s.Invalid++
		return Record{Line: e.Line, Board: goal.Size().String(), Goal: goal.Name(), Error: ErrorText(e.Err)}
	}
	rec.ID, rec.Line = e.In.ID, e.In.Line
	if e.In.Optimal >= 0 {
		rec.KnownOptimal = &e.In.Optimal
	}
	s.Add(&rec, e.In.Optimal)
	return rec
}

// Total is the number of instances searched.
func (s *Summary) Total() int { return s.Solved + s.NotOptimal + s.Unsolved + s.Mismatched }

// Text is the summary's line for people, with the run's wall time and, of it, the time
// spent preparing the tables (0: not said).
func (s *Summary) Text(wall, prepared time.Duration) string {
	rate := 0.0
	if s.Search > 0 {
		rate = float64(s.Nodes) / s.Search.Seconds()
	}
	tables := ""
	if prepared > 0 {
		tables = fmt.Sprintf(" (%.2fs preparing the tables)", prepared.Seconds())
	}
	// Said in the line itself, so that -q keeps it: whose word these rest on.
	var notes []string
	if s.Reported > 0 {
		notes = append(notes, fmt.Sprintf("%d on a worker's word, not checked here", s.Reported))
	}
	if s.Disputed > 0 {
		notes = append(notes, fmt.Sprintf("%d where workers disagreed, settled by the search here", s.Disputed))
	}
	word := ""
	if len(notes) > 0 {
		word = " (" + strings.Join(notes, "; ") + ")"
	}
	unstarted := ""
	if s.NotStarted > 0 {
		unstarted = fmt.Sprintf(" (%d never started)", s.NotStarted)
	}
	return fmt.Sprintf("summary: %d solved optimally%s, %d solved without proof of optimality, %d not solved%s, %d mismatched, %d invalid; %s nodes, %.2fs wall%s, %.2fs search, %.1f M nodes/s",
		s.Solved, word, s.NotOptimal, s.Unsolved, unstarted, s.Mismatched, s.Invalid, format.Thousands(s.Nodes), wall.Seconds(), tables, s.Search.Seconds(), rate/1e6)
}

// Check verifies what a record claims about start for goal, as far as it can be checked
// without searching again: the board, goal and start are those asked for; a solution
// replays from start to the goal, with the length and tiles it states; an optimal one is
// claimed only by a solver that proves optimality (optimal), with the length as its
// lower bound and a start value not above it. A record from elsewhere (a cluster's
// worker) is checked before it is believed.
func (r *Record) Check(goal board.Goal, start board.State, optimal bool) error {
	size := goal.Size()
	switch {
	case r.Board != size.String() || r.Goal != goal.Name():
		return fmt.Errorf("report: the record is for %s %s, not %s %s", r.Board, r.Goal, size, goal.Name())
	case !slices.Equal(r.Start, start.Ints()):
		return fmt.Errorf("report: the record's start %v is not %v", r.Start, start.Ints())
	case !r.Solved:
		if r.Optimal || r.Moves != "" || r.Length != -1 {
			return errors.New("report: an unsolved record claims a solution")
		}
		return nil
	}
	moves, err := board.ParseDirs(r.Moves)
	if err != nil {
		return fmt.Errorf("report: the record's moves: %w", err)
	}
	end, err := size.Replay(start, moves)
	if err != nil {
		return fmt.Errorf("report: the record's moves do not replay: %w", err)
	}
	if !end.Equal(goal.Tiles()) {
		return fmt.Errorf("report: the record's %d moves end on %s, not the goal", len(moves), end)
	}
	if r.Length != len(moves) {
		return fmt.Errorf("report: the record states length %d for %d moves", r.Length, len(moves))
	}
	if tiles, _ := size.DirsToTiles(start, moves); !slices.Equal(tiles, r.Tiles) {
		return errors.New("report: the record's tiles are not its moves")
	}
	if r.Optimal && (!optimal || r.LowerBound != r.Length || r.H0 > r.Length) {
		return fmt.Errorf("report: the record claims %d moves optimal (lower bound %d, h0 %d) where that is not proven", r.Length, r.LowerBound, r.H0)
	}
	if r.Optimal {
		// A solution that comes back to a state it passed is not shortest: the moves
		// between can go (a padded answer).
		seen := map[string]int{}
		for k := 0; k <= len(moves); k++ {
			s, _ := size.Replay(start, moves[:k])
			if i, ok := seen[string(s)]; ok {
				return fmt.Errorf("report: the record claims %d moves optimal, but after move %d it is back where it was after move %d: a shorter solution leaves the moves between out", r.Length, k, i)
			}
			seen[string(s)] = k
		}
	}
	return nil
}

// ReadRecords reads the records of a stream of solve15 --json output (one JSON object a
// line): the objects that are records (they have a start); others, such as bad lines,
// are passed over. Reading stops with an error, naming the input and the value, at a
// value that is not a JSON object or after limit bytes.
func ReadRecords(r io.Reader, name string, limit int64) ([]Record, error) {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	dec := json.NewDecoder(lr)
	var out []Record
	for n := 1; ; n++ {
		var rec Record
		err := dec.Decode(&rec)
		if lr.N <= 0 {
			return out, fmt.Errorf("%s: more than %d bytes of records", name, limit)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: record %d is not a solve15 --json record: %v", name, n, err)
		}
		if rec.Start != nil {
			out = append(out, rec)
		}
	}
}
