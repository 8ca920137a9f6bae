package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/solve"
)

// Worker takes units from the queue and searches them.
type Worker struct {
	Name    string // how results name the worker (host:pid by default in solve15)
	Tables  string // the directory of tables to use ("" for the usual places)
	Threads int    // units searched at once (0: one per core)
	// Log hears of what people should know: units refused or failed, with the reason.
	Log func(msg string)
	// Units, if set, hears of each unit finished, with its work.
	Units func(u *Unit, o *Outcome)

	mu      sync.Mutex
	solvers map[string]*solverEntry // by job id

	// The passes decided (job id + "/" + bound), and the cancel functions of the units of
	// each pass being searched here, which the coordinator's word stops.
	passMu  sync.Mutex
	decided map[string]bool
	running map[string]map[*context.CancelFunc]bool
}

// decide marks a pass decided and stops its units searched here.
func (w *Worker) decide(pass string) {
	w.passMu.Lock()
	defer w.passMu.Unlock()
	w.decided[pass] = true
	for cancel := range w.running[pass] {
		(*cancel)()
	}
}

// track registers the cancel function of a unit of pass, and reports false when the pass
// is already decided; untrack forgets it.
func (w *Worker) track(pass string, cancel *context.CancelFunc) bool {
	w.passMu.Lock()
	defer w.passMu.Unlock()
	if w.decided[pass] {
		return false
	}
	if w.running[pass] == nil {
		w.running[pass] = map[*context.CancelFunc]bool{}
	}
	w.running[pass][cancel] = true
	return true
}

func (w *Worker) untrack(pass string, cancel *context.CancelFunc) {
	w.passMu.Lock()
	defer w.passMu.Unlock()
	delete(w.running[pass], cancel)
	if len(w.running[pass]) == 0 {
		delete(w.running, pass)
	}
}

type solverEntry struct {
	s   *solve.Solver
	err error
}

// Run takes units until ctx is done, riding out losses of the server. A unit being
// searched when ctx ends is handed back to the queue at once.
func (w *Worker) Run(ctx context.Context, nc *nats.Conn) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	// The coordinator configures the queue: wait for it.
	var cons jetstream.Consumer
	for waited := 0; ; waited++ {
		if cons, err = js.Consumer(ctx, unitsStream, workersName); err == nil {
			break
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return fmt.Errorf("cluster: the workers' consumer: %w", err)
		}
		if waited == 6 { // a coordinator starting beside us takes a moment
			w.log("waiting for a coordinator to set up the queue")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
	ackWait := cons.CachedInfo().Config.AckWait
	w.passMu.Lock()
	w.decided, w.running = map[string]bool{}, map[string]map[*context.CancelFunc]bool{}
	w.passMu.Unlock()
	sub, err := nc.Subscribe(cancelSubject+">", func(m *nats.Msg) { w.decide(string(m.Data)) })
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	w.mu.Lock()
	w.solvers = map[string]*solverEntry{}
	w.mu.Unlock()
	threads := w.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				msg, err := cons.Next(jetstream.FetchMaxWait(time.Second))
				if errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrNoMessages) {
					continue
				}
				if err != nil {
					if ctx.Err() != nil || nc.IsClosed() {
						return
					}
					w.log("fetching a unit: %v", err)
					time.Sleep(time.Second)
					continue
				}
				// A unit whose result could not be stored is not acknowledged: the queue
				// hands it out again once the server is back.
				if err := w.handle(ctx, js, msg, ackWait); err != nil && ctx.Err() == nil {
					w.log("%v", err)
					time.Sleep(time.Second)
				}
			}
		}()
	}
	wg.Wait()
	return nil
}

func (w *Worker) log(format string, args ...any) {
	if w.Log != nil {
		w.Log(fmt.Sprintf(format, args...))
	}
}

// solver returns the solver of a job, made once.
func (w *Worker) solver(job Job, goal board.Goal) (*solve.Solver, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.solvers[job.ID]; e != nil {
		return e.s, e.err
	}
	e := &solverEntry{}
	opt := job.Options
	opt.Tables, opt.Workers = w.Tables, 1
	if job.Split {
		opt.MaxNodes = 0 // the coordinator counts a split search's nodes
	}
	e.s, e.err = solve.New(goal, opt)
	if e.err == nil && e.s.Fingerprint() != job.Fingerprint {
		e.err = fmt.Errorf("this worker's tables differ from the coordinator's (%s: fingerprint %s here, %s there); give it the same tables (--tables)",
			e.s.About(), e.s.Fingerprint(), job.Fingerprint)
		e.s = nil
	}
	w.solvers[job.ID] = e
	return e.s, e.err
}

// handle searches one unit, publishes its outcome, then acknowledges it. Only a failure
// to talk to the server is returned (the unit is then handed out again); a unit that
// cannot be searched is handed back (or, on its last delivery, reported failed).
func (w *Worker) handle(ctx context.Context, js jetstream.JetStream, msg jetstream.Msg, ackWait time.Duration) error {
	t, err := decodeUnit(msg.Data())
	if err != nil {
		w.log("%v: dropped", err)
		return msg.TermWithReason("not a unit")
	}
	u := t.Unit
	meta, err := msg.Metadata()
	if err != nil {
		return err
	}
	// Keep the unit ours while it is searched.
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(max(ackWait/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				msg.InProgress()
			}
		}
	}()
	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if u.Bound > 0 { // a pass decided stops its units
		pass := fmt.Sprintf("%s/%d", u.Job.ID, u.Bound)
		if !w.track(pass, &cancel) {
			cancel()
		}
		defer w.untrack(pass, &cancel)
	}
	begin := time.Now()
	out, err := w.search(uctx, t)
	switch {
	case ctx.Err() != nil: // this worker stops: hand the unit back now
		msg.Nak()
		return nil
	case uctx.Err() != nil: // its pass is decided
		return msg.Term()
	case err != nil:
		if meta.NumDelivered < uint64(max(1, w.maxDeliver(js))) {
			w.log("unit %s (%s): %v; handed back", u.ID, u.Label, err)
			return msg.NakWithDelay(time.Duration(meta.NumDelivered) * 200 * time.Millisecond)
		}
		out = &Outcome{Failed: true, Error: fmt.Sprintf("tried %d times; the last worker (%s) said: %v", meta.NumDelivered, w.Name, err)}
		w.log("unit %s (%s) failed: %s", u.ID, u.Label, out.Error)
	}
	out.Job, out.Unit, out.Index, out.Seq, out.Worker = u.Job.ID, u.ID, u.Index, u.Seq, w.Name
	out.Seconds = time.Since(begin).Seconds()
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	// A result found is stored even when this worker is stopping.
	pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer pcancel()
	if out.Failed {
		if _, err := js.Publish(pctx, deadSubject+u.Job.ID, msg.Data()); err != nil {
			return err
		}
	}
	if _, err := js.Publish(pctx, resultSubject+u.Job.ID, data, jetstream.WithMsgID(u.ID)); err != nil {
		return fmt.Errorf("cluster: publishing the result of %s: %w", u.ID, err)
	}
	if w.Units != nil {
		w.Units(&u, out)
	}
	return msg.DoubleAck(pctx)
}

// maxDeliver is the consumer's MaxDeliver, as it is now.
func (w *Worker) maxDeliver(js jetstream.JetStream) int {
	cons, err := js.Consumer(context.Background(), unitsStream, workersName)
	if err != nil {
		return DefaultQueue.MaxDeliver
	}
	return cons.CachedInfo().Config.MaxDeliver
}

// search runs one unit.
func (w *Worker) search(ctx context.Context, t *task) (*Outcome, error) {
	u, start := &t.Unit, t.start
	s, err := w.solver(u.Job, t.goal)
	if err != nil {
		return nil, err
	}
	if u.Bound == 0 {
		if u.Job.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, u.Job.Timeout)
			defer cancel()
		}
		res, err := s.Solve(ctx, start)
		if res == nil {
			return nil, err
		}
		rec := solve.NewRecord(s.Goal(), start, res, err)
		return &Outcome{Record: &rec, Work: solve.Work{Nodes: res.Nodes, Expanded: res.Expanded}}, nil
	}
	moves, work, err := s.SearchBelow(ctx, start, t.path, u.Bound)
	if err != nil {
		return nil, err
	}
	return &Outcome{Found: moves != nil, Moves: board.FormatDirs(moves), Work: work}, nil
}

// task is a unit decoded and checked.
type task struct {
	Unit
	goal  board.Goal
	start board.State
	path  []board.Dir
}

// maxBound is the deepest pass a subtree unit may ask for (the searches' path arrays).
const maxBound = 255

// decodeUnit reads a unit from the queue: outside input, checked whole before any search.
func decodeUnit(data []byte) (*task, error) {
	t := &task{}
	if err := json.Unmarshal(data, &t.Unit); err != nil {
		return nil, fmt.Errorf("a unit that is not JSON (%v)", err)
	}
	bad := func(format string, args ...any) (*task, error) {
		return nil, fmt.Errorf("unit %.40q: %s", t.ID, fmt.Sprintf(format, args...))
	}
	size, err := board.ParseSize(t.Job.Board)
	if err != nil {
		return bad("board: %v", err)
	}
	if t.goal, err = board.ParseGoal(size, t.Job.Goal); err != nil {
		return bad("goal: %v", err)
	}
	if t.start, err = board.FromInts(size, t.Start); err != nil {
		return bad("start: %v", err)
	}
	if err := t.goal.Check(t.start); err != nil {
		return bad("start: %v", err)
	}
	if t.Bound < 0 || t.Bound > maxBound {
		return bad("bound %d is not from 0 to %d", t.Bound, maxBound)
	}
	if t.Bound == 0 && t.Path != "" {
		return bad("a path without a bound")
	}
	if t.path, err = board.ParseDirs(t.Path); err != nil {
		return bad("path: %v", err)
	}
	if t.Bound > 0 && len(t.path) >= t.Bound {
		return bad("a path of %d moves at bound %d", len(t.path), t.Bound)
	}
	if t.Job.Timeout < 0 {
		return bad("a negative timeout")
	}
	return t, nil
}
