// Package web serves a page to play the sliding-tile puzzle and watch the solvers, and a
// small JSON API. The page solves in the browser: the toolkit compiled to WebAssembly
// (web/wasm) runs in a Web Worker, so the page is static files that any host can serve
// (WriteSite, `solve15 site`). The JSON API solves on the server, each search in its own
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
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/web/api"
)

//go:embed static
var static embed.FS

// Site returns the page's files: everything a static host needs to serve the page, which
// solves in the browser (index.html, app.js, style.css, tilekit.js, worker.js,
// wasm_exec.js, tilekit.wasm).
func Site() fs.FS {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has it
	}
	return files
}

// Manifest lists the sets a site offers for download (DIR/sets/manifest.json): for each,
// its name, board, description and files, each with its size and SHA-256.
type Manifest struct {
	Sets []ManifestSet `json:"sets"`
}

// A ManifestSet is one set of a Manifest.
type ManifestSet struct {
	Name  string         `json:"name"`
	Board string         `json:"board"`
	About string         `json:"about"`
	Files []ManifestFile `json:"files"`
}

// A ManifestFile is one file of a set, at sets/NAME/FILE beside the page.
type ManifestFile struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// WriteSets copies the installed sets named (found as data.LoadSet finds them, and checked
// as it checks them) into dir/sets/NAME/ with the manifest dir/sets/manifest.json, for the
// page to download on demand. It returns the paths written, relative to dir.
func WriteSets(ctx context.Context, dir string, names []string) ([]string, error) {
	var m Manifest
	var written []string
	for _, name := range names {
		spec, err := pdb.SetByName(name)
		if err != nil {
			return nil, err
		}
		files, _, err := data.SetFiles(name, nil)
		if err != nil {
			return nil, err
		}
		if err := fitsPage(name, files, MaxPageSet); err != nil {
			return nil, err
		}
		ms := ManifestSet{Name: name, Board: spec.Size().String(), About: spec.About}
		if err := os.MkdirAll(filepath.Join(dir, "sets", name), 0o755); err != nil {
			return nil, err
		}
		names := make([]string, 0, len(files))
		for t := range spec.Tables {
			names = append(names, data.SetFile(spec, t))
		}
		// The board's automaton, when SetFiles found it installed, goes with the set.
		if fsm := data.AutomatonFile(spec.Size(), data.PruningDepth(spec.Size())); files[fsm] != nil {
			names = append(names, fsm)
		}
		for _, file := range names {
			b := files[file]
			rel := path.Join("sets", name, file)
			if err := atomicfile.Write(ctx, filepath.Join(dir, filepath.FromSlash(rel)), b); err != nil {
				return nil, err
			}
			written = append(written, rel)
			ms.Files = append(ms.Files, ManifestFile{Name: file, Bytes: len(b), SHA256: fmt.Sprintf("%x", sha256.Sum256(b))})
		}
		m.Sets = append(m.Sets, ms)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "sets"), 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(ctx, filepath.Join(dir, "sets", "manifest.json"), append(b, '\n')); err != nil {
		return nil, err
	}
	return append(written, "sets/manifest.json"), nil
}

// MaxPageSet bounds the decoded size of a set the page is offered: the page's solver holds
// its tables in WebAssembly's memory (7-8 takes 288 MB, small-t in bits 250 MB; small-t in
// nibbles, 1.0 GB, would exhaust a tab).
const MaxPageSet = 512 << 20

// fitsPage refuses a set whose tables take more than limit bytes decoded.
func fitsPage(name string, files map[string][]byte, limit int64) error {
	var total int64
	for file, b := range files {
		h, err := tablefile.DecodeHeader(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		total += h.DecodedBytes()
	}
	if total > limit {
		hint := ""
		if spec, err := pdb.SetByName(name); err == nil && spec.ZeroAware {
			hint = fmt.Sprintf("; in the bit encoding it takes a quarter of that: pdbgen build --set %s --bits", name)
		}
		return fmt.Errorf("the %s set's tables take %s decoded, more than a browser tab holds (%s)%s",
			name, format.Bytes(total), format.Bytes(limit), hint)
	}
	return nil
}

// WriteSite writes the page's files into dir (created if need be), each atomically, and
// returns their names.
func WriteSite(ctx context.Context, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	err := fs.WalkDir(Site(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Site(), name)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(ctx, filepath.Join(dir, name), b); err != nil {
			return err
		}
		names = append(names, name)
		if name == wasmFile { // for hosts that serve precompressed files
			gz, err := gzipped()
			if err != nil {
				return err
			}
			if err := atomicfile.Write(ctx, filepath.Join(dir, name+".gz"), gz); err != nil {
				return err
			}
			names = append(names, name+".gz")
		}
		return nil
	})
	return names, err
}

// wasmFile is the page's WebAssembly solver, the one large file of the site.
const wasmFile = "tilekit.wasm"

var (
	gzOnce  sync.Once
	gzBytes []byte
	gzErr   error
)

// gzipped returns the WebAssembly solver gzip-compressed, made once (a third of its size).
func gzipped() ([]byte, error) {
	gzOnce.Do(func() {
		raw, err := fs.ReadFile(Site(), wasmFile)
		if err != nil {
			gzErr = err
			return
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(raw)
		if gzErr = zw.Close(); gzErr == nil {
			gzBytes = b.Bytes()
		}
	})
	return gzBytes, gzErr
}

// serveWasm sends the WebAssembly solver, gzip-compressed to a browser that accepts it.
func serveWasm(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/wasm")
	w.Header().Add("Vary", "Accept-Encoding")
	gz, err := gzipped()
	if err != nil || !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		http.ServeFileFS(w, r, Site(), wasmFile)
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
	s.mux.Handle("GET /", http.FileServerFS(Site()))
	s.mux.HandleFunc("GET /"+wasmFile, serveWasm)
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
