// Package web serves a page to play the sliding-tile puzzle and watch the solvers, with a
// small JSON API. The page's files are embedded; the searches run here, in Go, each in its
// own goroutine with a time limit, so long solves neither freeze the page nor the server.
//
// The API (all bodies JSON; errors are {"error": "..."} with a 4xx status):
//
//	GET    /api/options      algorithms, heuristics and boards the page offers
//	POST   /api/check        {"board","goal","state"} -> the state, or why it is not valid
//	POST   /api/shuffle      {"board","goal","moves"} -> a solvable state (moves 0: uniform)
//	POST   /api/solve        {"board","goal","state","algo","heuristic","timeout_seconds"}
//	                         -> 202 {"id","status":"running"}
//	GET    /api/jobs/{id}    the job: status, current bound, nodes, and when done the result
//	DELETE /api/jobs/{id}    stop the job
package web

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/search"
)

//go:embed static
var static embed.FS

// Options configure a Server. The zero value gives the defaults.
type Options struct {
	MaxJobs        int           // searches running at once; 0 for 4
	DefaultTimeout time.Duration // a job's time limit when the request gives none; 0 for 60 s
	MaxTimeout     time.Duration // the most a request may ask for; 0 for 10 min
	KeepDone       time.Duration // how long finished jobs can be fetched; 0 for 10 min
	MaxDone        int           // finished jobs kept at most (the oldest go first); 0 for 1000
	// Abandon cancels a running job that no client has asked about for this long (its
	// page was closed); 0 for 30 s. The page asks several times a second.
	Abandon time.Duration
}

// maxBody bounds request bodies: a 5x5 state with options is a few hundred bytes.
const maxBody = 16 << 10

// Server is the page and its API; it is an http.Handler.
type Server struct {
	opt     Options
	mux     *http.ServeMux
	mu      sync.Mutex
	jobs    map[string]*job
	done    []*job // finished jobs, oldest first
	running atomic.Int64
	stop    chan struct{}
	once    sync.Once
}

// New returns a server.
func New(opt Options) *Server {
	if opt.MaxJobs <= 0 {
		opt.MaxJobs = 4
	}
	if opt.DefaultTimeout <= 0 {
		opt.DefaultTimeout = time.Minute
	}
	if opt.MaxTimeout <= 0 {
		opt.MaxTimeout = 10 * time.Minute
	}
	if opt.KeepDone <= 0 {
		opt.KeepDone = 10 * time.Minute
	}
	if opt.MaxDone <= 0 {
		opt.MaxDone = 1000
	}
	if opt.Abandon <= 0 {
		opt.Abandon = 30 * time.Second
	}
	s := &Server{opt: opt, mux: http.NewServeMux(), jobs: map[string]*job{}, stop: make(chan struct{})}
	go func() {
		tick := time.NewTicker(opt.Abandon / 4)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				s.sweep()
			case <-s.stop:
				return
			}
		}
	}()
	files, _ := fs.Sub(static, "static")
	s.mux.Handle("GET /", http.FileServerFS(files))
	s.mux.HandleFunc("GET /api/options", s.options)
	s.mux.HandleFunc("POST /api/check", s.check)
	s.mux.HandleFunc("POST /api/shuffle", s.shuffle)
	s.mux.HandleFunc("POST /api/solve", s.solve)
	s.mux.HandleFunc("GET /api/jobs/{id}", s.getJob)
	s.mux.HandleFunc("DELETE /api/jobs/{id}", s.cancelJob)
	return s
}

// apiMethods are the methods of each API path, for the 405 answers.
var apiMethods = map[string]string{"/api/options": "GET", "/api/check": "POST", "/api/shuffle": "POST", "/api/solve": "POST"}

// unknownAPI answers requests under /api/ that no endpoint takes, in JSON like every other
// answer of the API: 405 for a known path with another method, else 404.
func unknownAPI(w http.ResponseWriter, r *http.Request) {
	allow, known := apiMethods[r.URL.Path]
	if !known && strings.HasPrefix(r.URL.Path, "/api/jobs/") && strings.Count(r.URL.Path, "/") == 3 {
		allow, known = "GET, DELETE", true
	}
	if known {
		w.Header().Set("Allow", allow)
		fail(w, http.StatusMethodNotAllowed, "%s %s: method not allowed (use %s)", r.Method, r.URL.Path, allow)
		return
	}
	fail(w, http.StatusNotFound, "no such API endpoint: %s %s", r.Method, r.URL.Path)
}

// ServeHTTP serves the page and the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		if _, pattern := s.mux.Handler(r); !strings.Contains(pattern, "/api/") {
			unknownAPI(w, r)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// Close stops every running job.
func (s *Server) Close() {
	s.once.Do(func() { close(s.stop) })
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.jobs {
		j.cancel()
	}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, format string, args ...any) {
	reply(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

// decode reads a JSON body into v, answering 413 or 400 itself when it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, http.StatusRequestEntityTooLarge, "request body larger than %d bytes", maxBody)
		} else {
			fail(w, http.StatusBadRequest, "bad JSON: %v", err)
		}
		return false
	}
	if dec.More() {
		fail(w, http.StatusBadRequest, "bad JSON: more than one value in the body")
		return false
	}
	return true
}

// puzzle is the part of a request that names a position.
type puzzle struct {
	Board string          `json:"board"`
	Goal  json.RawMessage `json:"goal"`
	State json.RawMessage `json:"state"`
}

// parse returns the goal and, when the request has one, the state. A state may be a list of
// numbers or a string as solve15 reads it.
func (p *puzzle) parse(needState bool) (board.Goal, board.State, int, error) {
	size := board.Size4x4
	if p.Board != "" {
		var err error
		if size, err = board.ParseSize(p.Board); err != nil {
			return board.Goal{}, nil, http.StatusBadRequest, err
		}
	}
	goal := board.BlankLast(size)
	if len(p.Goal) > 0 {
		var err error
		if goal, err = parseGoal(size, p.Goal); err != nil {
			return board.Goal{}, nil, http.StatusBadRequest, fmt.Errorf("goal: %w", err)
		}
	}
	if !needState {
		return goal, nil, 0, nil
	}
	if len(p.State) == 0 {
		return goal, nil, http.StatusBadRequest, errors.New("no state given")
	}
	s, err := parseState(size, p.State)
	if err != nil {
		return goal, nil, http.StatusBadRequest, fmt.Errorf("state: %w", err)
	}
	if err := goal.Check(s); err != nil {
		return goal, nil, http.StatusUnprocessableEntity, err
	}
	return goal, s, 0, nil
}

// parseState reads a JSON list of numbers, or a string as solve15 reads it.
func parseState(size board.Size, raw json.RawMessage) (board.State, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return board.Parse(size, text)
	}
	var nums []int
	if err := json.Unmarshal(raw, &nums); err != nil {
		return nil, errors.New("must be a list of numbers or a string")
	}
	return board.FromInts(size, nums)
}

// parseGoal reads a goal: a list of numbers, or a string that is a name or an arrangement.
func parseGoal(size board.Size, raw json.RawMessage) (board.Goal, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return board.ParseGoal(size, text)
	}
	s, err := parseState(size, raw)
	if err != nil {
		return board.Goal{}, err
	}
	return board.NewGoal(size, s)
}

func ints(s board.State) []int {
	out := make([]int, len(s))
	for i, t := range s {
		out[i] = int(t)
	}
	return out
}

func (s *Server) options(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, map[string]any{
		"boards":     []string{"3x3", "4x4"},
		"goals":      []string{"blank-last", "blank-first"},
		"algorithms": search.Algorithms,
		"heuristics": heuristicNames(),
		"admissible": map[string]bool{"auto": true, data.EmbeddedSet.Name: true, "hamming": true, "md": true, "lc": true, "chebyshev2": false, "wd": true, "pdb": true, "max": true, "hh": false},
	})
}

// read decodes a request body into req, whose puzzle part is p, and parses the position,
// answering the client itself (and returning false) when either fails.
func read(w http.ResponseWriter, r *http.Request, req any, p *puzzle, needState bool) (board.Goal, board.State, bool) {
	if !decode(w, r, req) {
		return board.Goal{}, nil, false
	}
	goal, st, status, err := p.parse(needState)
	if err != nil {
		fail(w, status, "%v", err)
		return board.Goal{}, nil, false
	}
	return goal, st, true
}

func (s *Server) check(w http.ResponseWriter, r *http.Request) {
	var req puzzle
	goal, st, ok := read(w, r, &req, &req, true)
	if !ok {
		return
	}
	reply(w, http.StatusOK, map[string]any{"ok": true, "state": ints(st), "goal": ints(goal.Tiles())})
}

func (s *Server) shuffle(w http.ResponseWriter, r *http.Request) {
	var req struct {
		puzzle
		Moves int    `json:"moves"`
		Seed  uint64 `json:"seed"`
	}
	goal, _, ok := read(w, r, &req, &req.puzzle, false)
	if !ok {
		return
	}
	if req.Moves < 0 || req.Moves > 10000 {
		fail(w, http.StatusBadRequest, "moves must be 0 (a uniformly random state) to 10000")
		return
	}
	rng := newRand(req.Seed)
	var st board.State
	if req.Moves == 0 {
		st = goal.Random(rng)
	} else {
		st, _ = goal.RandomWalk(req.Moves, rng)
	}
	reply(w, http.StatusOK, map[string]any{"state": ints(st), "goal": ints(goal.Tiles())})
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
