package web

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/web/api"
)

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
	result   *report.Record
	err      string
}

// view is what GET /api/jobs/{id} returns.
type view struct {
	ID      string         `json:"id"`
	Status  string         `json:"status"`
	Bound   int64          `json:"bound"`
	Nodes   uint64         `json:"nodes"`
	Seconds float64        `json:"seconds"`
	Result  *report.Record `json:"result,omitempty"`
	Error   string         `json:"error,omitempty"`
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
	var req api.SolveRequest
	if !decode(w, r, &req) {
		return
	}
	work, err := req.Prepare(s.opt.DefaultTimeout, s.opt.MaxTimeout)
	if err != nil {
		answer(w, nil, err)
		return
	}
	// Admission first: nothing costly happens for a request that is turned away.
	if s.running.Add(1) > int64(s.opt.MaxJobs) {
		s.running.Add(-1)
		fail(w, http.StatusTooManyRequests, "%d searches are already running; stop one or wait", s.opt.MaxJobs)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), work.Timeout)
	j := &job{id: newID(), status: "running", cancel: cancel, started: time.Now()}
	j.lastSeen.Store(j.started.UnixNano())
	s.mu.Lock()
	s.jobs[j.id] = j
	s.mu.Unlock()
	go func() {
		defer s.running.Add(-1)
		defer cancel()
		// Tables are built here, inside the admitted, timed, cancellable job.
		sol, err := work.Run(ctx, func(bound int, nodes uint64) {
			j.bound.Store(int64(bound))
			j.nodes.Store(nodes)
		}, 200*time.Millisecond)
		if sol != nil {
			j.nodes.Store(sol.Nodes)
		}
		j.mu.Lock()
		j.finished = time.Now()
		switch {
		case err == nil:
			j.status, j.result = "solved", sol
		case errors.Is(err, context.DeadlineExceeded):
			j.status, j.err = "timeout", "no solution within "+work.Timeout.String()
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
