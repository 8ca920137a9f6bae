package web

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/search"
	"github.com/tilekit/tilekit/solve"
)

func newRand(seed uint64) *rand.Rand {
	if seed == 0 {
		return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return rand.New(rand.NewPCG(seed, seed))
}

// job is one search running (or finished) on the server.
type job struct {
	id       string
	cancel   context.CancelFunc
	started  time.Time
	bound    atomic.Int64
	nodes    atomic.Uint64
	lastSeen atomic.Int64 // when a client last asked for it (Unix nanoseconds)

	mu       sync.Mutex
	status   string // running, solved, failed, cancelled, timeout
	finished time.Time
	result   *solution
	err      string
}

// solution is a finished search, as the page shows it.
type solution struct {
	Length     int     `json:"length"`
	Moves      string  `json:"moves"`
	Tiles      []int   `json:"tiles"`
	Optimal    bool    `json:"optimal"`
	Algorithm  string  `json:"algorithm"`
	Heuristic  string  `json:"heuristic"`
	Nodes      uint64  `json:"nodes"`
	Expanded   uint64  `json:"expanded"`
	PeakStored int     `json:"peak_stored"`
	Seconds    float64 `json:"seconds"`
}

// view is what GET /api/jobs/{id} returns.
type view struct {
	ID      string    `json:"id"`
	Status  string    `json:"status"`
	Bound   int64     `json:"bound"`
	Nodes   uint64    `json:"nodes"`
	Seconds float64   `json:"seconds"`
	Result  *solution `json:"result,omitempty"`
	Error   string    `json:"error,omitempty"`
}

func (j *job) view() view {
	j.mu.Lock()
	defer j.mu.Unlock()
	end := time.Now()
	if !j.finished.IsZero() {
		end = j.finished
	}
	return view{ID: j.id, Status: j.status, Bound: j.bound.Load(), Nodes: j.nodes.Load(),
		Seconds: end.Sub(j.started).Seconds(), Result: j.result, Error: j.err}
}

func (s *Server) solve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		puzzle
		Algo      string  `json:"algo"`
		Heuristic string  `json:"heuristic"`
		Timeout   float64 `json:"timeout_seconds"`
	}
	goal, st, ok := read(w, r, &req, &req.puzzle, true)
	if !ok {
		return
	}
	if goal.Size().Cells() > maxCells {
		fail(w, http.StatusBadRequest, "the server solves boards of up to %d cells; use solve15 for %s", maxCells, goal.Size())
		return
	}
	algo := strings.ToLower(req.Algo)
	if algo == "" {
		algo = "idastar"
	}
	name := strings.ToLower(req.Heuristic)
	if !slices.Contains(search.Algorithms, algo) {
		fail(w, http.StatusBadRequest, "unknown algorithm %s (choose from %s)", algo, strings.Join(search.Algorithms, ", "))
		return
	}
	if !knownHeuristic(name) {
		fail(w, http.StatusBadRequest, "unknown heuristic %s (choose from %s)", name, strings.Join(heuristicNames(), ", "))
		return
	}
	if req.Timeout < 0 {
		fail(w, http.StatusBadRequest, "timeout_seconds must not be negative")
		return
	}
	timeout := s.opt.DefaultTimeout
	if req.Timeout > 0 {
		timeout = s.opt.MaxTimeout // clamped before converting: 1e300 s must not overflow
		if req.Timeout < s.opt.MaxTimeout.Seconds() {
			timeout = max(time.Duration(req.Timeout*float64(time.Second)), time.Millisecond)
		}
	}
	// Admission first: nothing costly happens for a request that is turned away.
	if s.running.Add(1) > int64(s.opt.MaxJobs) {
		s.running.Add(-1)
		fail(w, http.StatusTooManyRequests, "%d searches are already running; stop one or wait", s.opt.MaxJobs)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	j := &job{id: newID(), status: "running", cancel: cancel, started: time.Now()}
	j.lastSeen.Store(j.started.UnixNano())
	s.mu.Lock()
	s.jobs[j.id] = j
	s.mu.Unlock()
	go func() {
		defer s.running.Add(-1)
		defer cancel()
		sol, err := s.run(ctx, goal, st, algo, name, j)
		j.mu.Lock()
		j.finished = time.Now()
		switch {
		case err == nil:
			j.status, j.result = "solved", sol
		case errors.Is(err, context.DeadlineExceeded):
			j.status, j.err = "timeout", "no solution within "+timeout.String()
		case errors.Is(err, context.Canceled):
			j.status, j.err = "cancelled", "stopped"
		default:
			j.status, j.err = "failed", err.Error()
		}
		j.mu.Unlock()
		s.finished(j)
	}()
	reply(w, http.StatusAccepted, j.view())
}

// maxCells bounds the boards the server solves: the tables of larger boards take hundreds
// of megabytes to build.
const maxCells = 16

// run builds the search for the request, inside the job (so that building is admitted,
// timed and cancellable like the search), and runs it.
func (s *Server) run(ctx context.Context, goal board.Goal, st board.State, algo, name string, j *job) (*solution, error) {
	run, err := s.runner(ctx, goal, algo, name, j)
	if err != nil {
		return nil, err
	}
	return run(ctx, st)
}

// finished records that j is done, and forgets the oldest finished jobs beyond MaxDone
// or older than KeepDone.
func (s *Server) finished(j *job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = append(s.done, j)
	for len(s.done) > 0 && (len(s.done) > s.opt.MaxDone || time.Since(s.done[0].finished) > s.opt.KeepDone) {
		delete(s.jobs, s.done[0].id)
		s.done[0] = nil
		s.done = s.done[1:]
	}
}

// sweep cancels running jobs that no client has asked about for Abandon: the page that
// started them is gone.
func (s *Server) sweep() {
	limit := time.Now().Add(-s.opt.Abandon).UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.jobs {
		if j.lastSeen.Load() < limit {
			j.cancel()
		}
	}
}

// runner prepares the search of a job, through package solve, reporting to j.
func (s *Server) runner(ctx context.Context, goal board.Goal, algo, name string, j *job) (func(context.Context, board.State) (*solution, error), error) {
	progress := func(bound int, nodes uint64) {
		j.bound.Store(int64(bound))
		j.nodes.Store(nodes)
	}
	// A* and BA* on the page get 5 million states (about 700 MB) each: several visitors
	// at once must not exhaust the machine.
	solver, err := solve.NewContext(ctx, goal, solve.Options{Algorithm: algo, Heuristic: name,
		MaxStates: 5_000_000, Progress: progress, ProgressEvery: 200 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, st board.State) (*solution, error) {
		res, err := solver.Solve(ctx, st)
		if err != nil {
			return nil, err
		}
		j.nodes.Store(res.Nodes)
		return newSolution(res), nil
	}, nil
}

func newSolution(res *solve.Result) *solution {
	return &solution{Length: len(res.Moves), Moves: board.FormatDirs(res.Moves), Tiles: res.Tiles, Optimal: res.Optimal,
		Algorithm: res.Algorithm, Heuristic: res.Heuristic, Nodes: res.Nodes, Expanded: res.Expanded,
		PeakStored: res.PeakStored, Seconds: res.Elapsed.Seconds()}
}

func (s *Server) lookup(w http.ResponseWriter, r *http.Request) *job {
	s.mu.Lock()
	j := s.jobs[r.PathValue("id")]
	s.mu.Unlock()
	if j == nil {
		fail(w, http.StatusNotFound, "no job %q (finished jobs are kept %s)", r.PathValue("id"), s.opt.KeepDone)
		return nil
	}
	j.lastSeen.Store(time.Now().UnixNano())
	return j
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	if j := s.lookup(w, r); j != nil {
		reply(w, http.StatusOK, j.view())
	}
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	j := s.lookup(w, r)
	if j == nil {
		return
	}
	j.cancel()
	// Wait briefly for the search to notice, so the answer shows the final status.
	for i := 0; i < 50; i++ {
		if v := j.view(); v.Status != "running" {
			reply(w, http.StatusOK, v)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	reply(w, http.StatusOK, j.view())
}

// heuristicNames lists what the API offers: auto (the strongest available), the embedded
// set, and every heuristic of package heuristic.
func heuristicNames() []string {
	return append([]string{"auto", data.EmbeddedSet.Name}, heuristic.Names...)
}

func knownHeuristic(name string) bool {
	return name == "" || slices.Contains(heuristicNames(), name)
}
