package web

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/fifteen"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/search"
)

func newRand(seed uint64) *rand.Rand {
	if seed == 0 {
		return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return rand.New(rand.NewPCG(seed, seed))
}

// job is one search running (or finished) on the server.
type job struct {
	id      string
	cancel  context.CancelFunc
	started time.Time
	bound   atomic.Int64
	nodes   atomic.Uint64

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
	algo := strings.ToLower(req.Algo)
	if algo == "" {
		algo = "idastar"
	}
	name := strings.ToLower(req.Heuristic)
	if name == "" {
		name = "max"
	}
	timeout := s.opt.DefaultTimeout
	if req.Timeout < 0 {
		fail(w, http.StatusBadRequest, "timeout_seconds must not be negative")
		return
	}
	if req.Timeout > 0 {
		timeout = min(time.Duration(req.Timeout*float64(time.Second)), s.opt.MaxTimeout)
	}
	// The job exists before it is registered so the search can report its progress to it.
	j := &job{id: newID(), status: "running"}
	run, err := s.runner(goal, algo, name, j)
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	if s.running.Add(1) > int64(s.opt.MaxJobs) {
		s.running.Add(-1)
		fail(w, http.StatusTooManyRequests, "%d searches are already running; stop one or wait", s.opt.MaxJobs)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	j.cancel, j.started = cancel, time.Now()
	s.mu.Lock()
	s.forgetOld()
	s.jobs[j.id] = j
	s.mu.Unlock()
	go func() {
		defer s.running.Add(-1)
		defer cancel()
		sol, err := run(ctx, st)
		j.mu.Lock()
		defer j.mu.Unlock()
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
	}()
	reply(w, http.StatusAccepted, j.view())
}

// runner prepares a search that reports its progress to j: the specialised 4x4 IDA* where
// it applies, else the general one. Errors are the request's fault.
func (s *Server) runner(goal board.Goal, algo, name string, j *job) (func(context.Context, board.State) (*solution, error), error) {
	known := false
	for _, a := range search.Algorithms {
		known = known || a == algo
	}
	if !known {
		return nil, errors.New("unknown algorithm " + algo + " (choose from " + strings.Join(search.Algorithms, ", ") + ")")
	}
	progress := func(bound int, nodes uint64) {
		j.bound.Store(int64(bound))
		j.nodes.Store(nodes)
	}
	if fh, err := fifteen.ParseHeuristic(name); err == nil && goal.Size() == board.Size4x4 && algo == "idastar" {
		solver, err := fifteen.New(goal, fifteen.Options{Heuristic: fh, Progress: progress})
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, st board.State) (*solution, error) {
			res, err := solver.Solve(ctx, st)
			if err != nil {
				return nil, err
			}
			j.nodes.Store(res.Nodes)
			return newSolution(goal, st, res.Moves, res.Optimal, "idastar", fh.String(), res.Nodes, res.Expanded, len(res.Moves)+1, res.Elapsed), nil
		}, nil
	}
	h, err := heuristic.New(name, goal, nil)
	if err != nil {
		return nil, err
	}
	// A* and BA* on the page get 5 million states (about 700 MB) each: several visitors
	// at once must not exhaust the machine.
	opt := search.Options{MaxStates: 5_000_000, Progress: progress}
	return func(ctx context.Context, st board.State) (*solution, error) {
		res, err := search.Run(ctx, algo, h, st, opt)
		if err != nil {
			return nil, err
		}
		j.nodes.Store(res.Nodes)
		return newSolution(goal, st, res.Moves, res.Optimal, res.Algorithm, res.Heuristic, res.Nodes, res.Expanded, res.PeakStored, res.Elapsed), nil
	}, nil
}

func newSolution(goal board.Goal, start board.State, moves []board.Dir, optimal bool, algo, h string, nodes, expanded uint64, peak int, elapsed time.Duration) *solution {
	tiles, _ := goal.Size().DirsToTiles(start, moves)
	return &solution{Length: len(moves), Moves: board.FormatDirs(moves), Tiles: tiles, Optimal: optimal,
		Algorithm: algo, Heuristic: h, Nodes: nodes, Expanded: expanded, PeakStored: peak, Seconds: elapsed.Seconds()}
}

// forgetOld drops finished jobs older than KeepDone. s.mu is held.
func (s *Server) forgetOld() {
	for id, j := range s.jobs {
		j.mu.Lock()
		old := !j.finished.IsZero() && time.Since(j.finished) > s.opt.KeepDone
		j.mu.Unlock()
		if old {
			delete(s.jobs, id)
		}
	}
}

func (s *Server) lookup(w http.ResponseWriter, r *http.Request) *job {
	s.mu.Lock()
	j := s.jobs[r.PathValue("id")]
	s.mu.Unlock()
	if j == nil {
		fail(w, http.StatusNotFound, "no job %q (finished jobs are kept %s)", r.PathValue("id"), s.opt.KeepDone)
	}
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
