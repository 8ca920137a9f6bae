// Package web serves a page to play the sliding-tile puzzle and watch the solvers, and a
// small JSON API. The page solves in the browser: the toolkit compiled to WebAssembly
// (web/wasm) runs in a Web Worker, so the page is static files that any host can serve
// (package web/site, `solve15 site`). The JSON API solves on the server, each search in its own
// goroutine with a time limit, for those who want server-side solving.
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
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/web/api"
	"github.com/tilekit/tilekit/web/site"
)

// serveWasm sends the WebAssembly solver, gzip-compressed to a browser that accepts it.
func serveWasm(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/wasm")
	w.Header().Add("Vary", "Accept-Encoding")
	gz, err := site.GzippedWasm()
	if err != nil || !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		http.ServeFileFS(w, r, site.FS(), site.WasmFile)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
	w.Write(gz)
}

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
	// pageSets are the installed sets' files the page may download (site.SetFiles), read
	// on the first request for them.
	pageSets     map[string][]byte
	pageSetsOnce sync.Once
}

// sets serves the installed sets that fit a tab as solve15 site --sets writes them:
// sets/manifest.json and sets/NAME/FILE, which the page downloads when a set is chosen.
func (s *Server) sets(w http.ResponseWriter, r *http.Request) {
	s.pageSetsOnce.Do(func() {
		files, err := site.SetFiles(site.PageSets())
		if err != nil {
			files, _ = site.SetFiles(nil) // an empty manifest: the page offers the embedded tables
		}
		s.pageSets = files
	})
	b, ok := s.pageSets[strings.TrimPrefix(r.URL.Path, "/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, ".json") {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	w.Write(b)
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
	s.mux.Handle("GET /", http.FileServerFS(site.FS()))
	s.mux.HandleFunc("GET /sets/", s.sets)
	s.mux.HandleFunc("GET /"+site.WasmFile, serveWasm)
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
	reply(w, status, api.ErrorBody(fmt.Errorf(format, args...)))
}

// decode reads a JSON body into v as api.Decode does, answering the error itself.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, api.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		err = api.ErrTooLarge
	case err != nil:
		err = &api.Error{Status: api.BadRequest, Err: fmt.Errorf("reading the body: %w", err)}
	default:
		err = api.Decode(body, v)
	}
	if err != nil {
		answer(w, nil, err)
		return false
	}
	return true
}

// answer replies with v, or with the status and message of an api.Error.
func answer(w http.ResponseWriter, v any, err error) {
	status, body := api.Answer(v, err)
	reply(w, status, body)
}

func (s *Server) options(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, api.Options())
}

func (s *Server) check(w http.ResponseWriter, r *http.Request) {
	var req api.Puzzle
	if decode(w, r, &req) {
		res, err := api.Check(&req)
		answer(w, res, err)
	}
}

func (s *Server) shuffle(w http.ResponseWriter, r *http.Request) {
	var req api.ShuffleRequest
	if decode(w, r, &req) {
		res, err := api.Shuffle(&req)
		answer(w, res, err)
	}
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Serve serves the page and its API on addr until ctx is done, then shuts down within five
// seconds. ready, if not nil, is told the address listened on once it listens.
func Serve(ctx context.Context, addr string, opt Options, ready func(addr net.Addr)) error {
	srv := New(opt)
	defer srv.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(stop); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
