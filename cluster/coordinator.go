package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// Coordinator hands out the units of a run and gathers their results.
type Coordinator struct {
	Solver  *solve.Solver // the plan; workers make it again from its options, with their own tables
	Timeout time.Duration // the most one instance may take (whole instances only)
	// Split shares each instance's large passes out as subtrees, rather than whole
	// instances: for one instance too large for one machine.
	Split bool
	// Rule is the rule of the split passes (solve.SplitOptions): its zero fields take the
	// cluster's defaults (SplitOptions.ClusterDefaults: at most 16,384 subtrees of about a
	// million nodes, passes after a million split, subtrees expected above four times the
	// unit split further).
	Rule  solve.SplitOptions
	Queue Queue // the queue's settings (zero: DefaultQueue)
	// Audit is the fraction of a split instance's subtree results, chosen at random once
	// they are in, that the coordinator searches again itself (0: none; 1: all), while
	// the workers go on. A subtree's search is deterministic, so the two must agree on the
	// solution and to the node; a disagreement fails the instance and names the worker.
	Audit float64
	// TrustProof leaves the pass that proves a split instance's solution optimal (the last
	// that finds nothing) to the audit's sample; by default the coordinator searches all
	// of it again, so that no worker can hide a shorter solution there.
	TrustProof bool
	// Quorum hands each unit to this many distinct workers and takes its result only when
	// they agree: the same solution, or none, and the same counts. Where they do not, the
	// coordinator searches the unit itself, takes its own result, and says which workers
	// it found wrong (report.Record.Dispute). 0 or 1: each unit once.
	Quorum int
	// KeepFailed reports the units that failed in an earlier run on the store as failed
	// again, rather than handing them out anew.
	KeepFailed bool
	// Status, if set, hears of the run's progress about twice a second.
	Status func(Status)
	// Resumed, if set, hears how many units' results an earlier run on the store left,
	// once they are read (none: not called).
	Resumed func(units int)

	fingerprint string // tests: another fingerprint than the solver's
}

// run is one Coordinator.Run.
type run struct {
	c       *Coordinator
	js      jetstream.JetStream
	units   jetstream.Stream
	job     Job
	queue   Queue
	goal    board.Goal
	begin   time.Time
	mu      sync.Mutex
	changed *sync.Cond
	secret  []byte              // the job's: unitKey
	results jetstream.Stream    // the job's results
	got     map[string]*Outcome // by unit id: the first outcome of each unit
	workers map[string]bool
	// seen is when each worker last said anything (word or result), lastNew when one was
	// first heard of: a unit fails for good when every worker heard of could not do it
	// and none new came within the ack wait (failedBy).
	seen    map[string]time.Time
	lastNew time.Time
	// resumed counts the results taken that an earlier run stored (Coordinator.Resumed).
	resumed int
	// left is why each worker that said it takes no more units left (a GPU's fault), and
	// lastLeft when the last did: once every worker heard of has left or gone silent, and
	// none new came within the ack wait, the units left fail (abandoned).
	left     map[string]string
	lastLeft time.Time
	// tally is what each worker did and could not do in the run: one that could not do
	// stopAfter units and did none is told to stop taking the job's units (couldNot).
	tally map[string]*tally
	// votes are the units handed out as copies (Coordinator.Quorum), by unit id;
	// disputes the outcomes the coordinator's search settled, until their instance takes
	// them; doneUnits counts the units decided.
	votes     map[string]*vote
	disputes  []*Outcome
	doneUnits int
	refused   int // results and progress passed over: junk, without the unit's key, or holding a unit past holdCap
	// seqs names the unit of each hand-out (its place in the queue) in this run: a
	// worker's word acknowledges only a delivery of its own unit.
	seqs map[uint64]string
	// early holds word about deliveries of hand-outs not yet confirmed (a worker may
	// answer a unit before the server's acknowledgement of its hand-out reaches the
	// coordinator); seqFloor is the queue's last place when the run began.
	early    map[uint64]early
	seqFloor uint64
	// handedOut counts the hand-outs, and base and limit the bytes of the results'
	// stream: it may hold base, and one result of the largest size per hand-out.
	handedOut   int
	base, limit int64
	drops       chan uint64 // results to delete from the stream: junk and repeats
	dropsClosed bool
	nodes       uint64
	failed      int
	bound       int
	reported    int   // whole instances: how many entries have been reported, in order
	err         error // the results' consumer failed
	// Audits (split instances): the coordinator's own solver without limits, the subtrees
	// waiting for it, those not yet checked, how many were, and the first disagreement.
	// out holds the units handed out and not yet answered, by id (watch).
	out map[string]*handed
	// closed holds the units of the passes decided: they are not handed out again.
	closed map[string]bool
	// sent holds the hand-outs published and not yet confirmed by the server.
	sent []sent

	// proof is the current instance's last split pass that found nothing: when the next
	// finds a solution, the pass that proves it optimal.
	proof *proofPass

	auditor    *solve.Solver
	auditQueue chan audit
	// stopInstance stops the split instance being solved (an audit found a result wrong).
	stopInstance context.CancelFunc
	auditing     sync.WaitGroup
	audited      int
	auditErr     error
}

// Run solves the entries, reporting each, in their order, as soon as it and all before it
// are done, like solve.Solver.Batch; bad entries are reported in their place. The error is
// a failure to use the NATS server or ctx's; units that fail are reported in their records
// (matching ErrFailed).
func (c *Coordinator) Run(ctx context.Context, nc *nats.Conn, entries []instance.Entry, each func(e instance.Entry, rec report.Record, err error)) (*report.Summary, error) {
	if c.Split && !c.Solver.Splits() {
		return nil, fmt.Errorf("%w: %s cannot be split into subtrees", solve.ErrOptions, c.Solver.About())
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	q := c.Queue
	if q.AckWait == 0 {
		q = DefaultQueue
	}
	units, err := setup(ctx, js, q)
	if err != nil {
		return nil, err
	}
	r := &run{c: c, js: js, units: units, queue: q, goal: c.Solver.Goal(), begin: time.Now(),
		got: map[string]*Outcome{}, workers: map[string]bool{}, out: map[string]*handed{}, closed: map[string]bool{},
		seqs: map[uint64]string{}, early: map[uint64]early{}, drops: make(chan uint64, 4096), seen: map[string]time.Time{}}
	r.changed = sync.NewCond(&r.mu)
	opt, err := c.Solver.Options().Portable() // a catalogue file travels as its text
	if err != nil {
		return nil, err
	}
	r.job = c.job(entries, opt)
	if r.job.ID, r.secret, err = jobID(ctx, js, q, r.job.ID); err != nil {
		return nil, err
	}
	results, err := r.openResults(ctx)
	if err != nil {
		return nil, err
	}
	// Units of this job left queued by an earlier coordinator on this store go; what is
	// missing is handed out again below.
	if err := units.Purge(ctx, jetstream.WithPurgeSubject(unitsSubject+r.job.ID)); err != nil {
		return nil, fmt.Errorf("cluster: clearing the queue: %w", err)
	}
	info, err := units.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: the queue: %w", err)
	}
	r.seqFloor = info.State.LastSeq
	stop, err := r.listen(ctx, nc, results)
	if err != nil {
		return nil, err
	}
	defer stop()
	r.mu.Lock()
	resumed := r.resumed
	r.mu.Unlock()
	if c.Resumed != nil && resumed > 0 {
		c.Resumed(resumed)
	}
	watching := make(chan struct{})
	defer close(watching)
	go r.watch(ctx, watching)
	if c.Status != nil { // at once (the run's 0%), then about twice a second
		r.status(ctx)
		done := make(chan struct{})
		defer close(done)
		go every(ctx, done, 500*time.Millisecond, func() { r.status(ctx) })
	}
	// Wake the waiters when ctx ends.
	quit := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.changed.Broadcast()
		r.mu.Unlock()
	})
	defer quit()

	if c.Audit > 0 || c.Split && !c.TrustProof || c.Quorum > 1 {
		aopt := c.Solver.Options()
		aopt.MaxNodes = 0 // a subtree is searched to its end, as the workers do
		aopt.Workers = 1  // and an instance on one goroutine, so that its counts are theirs
		if r.auditor, err = solve.New(ctx, r.goal, aopt); err != nil {
			return nil, fmt.Errorf("cluster: the auditor: %w", err)
		}
		if r.auditor.Fingerprint() != c.Solver.Fingerprint() {
			return nil, fmt.Errorf("cluster: the auditor's solver is not the coordinator's: %s against %s", r.auditor.About(), c.Solver.About())
		}
		r.auditQueue = make(chan audit, 1024)
		for range runtime.GOMAXPROCS(0) {
			go r.runAuditor(ctx)
		}
		defer close(r.auditQueue)
	}
	sum := &report.Summary{}
	if c.Split {
		err = r.split(ctx, entries, sum, each)
	} else {
		err = r.whole(ctx, entries, sum, each)
	}
	return sum, err
}

// job describes the run, its ID the hash of what it computes: the key under which jobID
// keeps the nonce of the run's id, so that a coordinator restarted on the same input finds
// the results of the one before.
func (c *Coordinator) job(entries []instance.Entry, opt solve.Options) Job {
	goal := c.Solver.Goal()
	opt.Tables, opt.Workers, opt.Lanes = "", 0, 0
	j := Job{Board: goal.Size().String(), Goal: goal.Tiles().String(), Options: opt, Timeout: c.Timeout,
		Fingerprint: c.Solver.Fingerprint(), Split: c.Split}
	if c.fingerprint != "" {
		j.Fingerprint = c.fingerprint
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	enc.Encode(j)
	enc.Encode([]any{c.Split, c.Rule.Subtrees, c.Rule.UnitNodes, c.Rule.SplitFrom})
	if c.Quorum > 1 {
		enc.Encode(c.Quorum) // another quorum is another job: its results are copies'
	}
	for _, e := range entries {
		if e.In != nil {
			enc.Encode([]any{e.In.ID, e.In.State.String()})
		}
	}
	j.ID = hex.EncodeToString(h.Sum(nil)[:10])
	return j
}

// openResults creates the stream of the job's results, or opens it on a restart, with
// room for what it holds, a megabyte, and one result of the largest size per unit to
// be handed out (raised as they are: published).
func (r *run) openResults(ctx context.Context) (jetstream.Stream, error) {
	keep := r.queue.Keep
	if keep <= 0 {
		keep = DefaultQueue.Keep
	}
	r.base = 1 << 20
	if s, err := r.js.Stream(ctx, resultsPrefix+r.job.ID); err == nil {
		r.base += int64(s.CachedInfo().State.Bytes)
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("cluster: the results' stream: %w", err)
	}
	r.limit = r.base
	s, err := r.js.CreateOrUpdateStream(ctx, resultsConfig(r.job.ID, keep, r.limit))
	if err != nil {
		return nil, fmt.Errorf("cluster: the results' stream: %w", err)
	}
	r.results = s
	return s, nil
}

// roomFor raises the results' stream's limit to cover n more hand-outs.
func (r *run) roomFor(ctx context.Context, n int) error {
	r.mu.Lock()
	r.handedOut += n
	need := r.base + int64(r.handedOut)*maxResult
	if need <= r.limit {
		r.mu.Unlock()
		return nil
	}
	r.limit = need + need/2 // fewer updates
	limit := r.limit
	r.mu.Unlock()
	keep := r.queue.Keep
	if keep <= 0 {
		keep = DefaultQueue.Keep
	}
	if _, err := r.js.UpdateStream(ctx, resultsConfig(r.job.ID, keep, limit)); err != nil {
		return fmt.Errorf("cluster: raising the results' room to %d bytes: %w", limit, err)
	}
	return nil
}

// wait waits until done says so (under the lock), ctx ends or the results fail.
func (r *run) wait(ctx context.Context, done func() bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !done() {
		if r.err != nil {
			return fmt.Errorf("cluster: reading results: %w", r.err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.changed.Wait()
	}
	return nil
}

// window is how many whole instances may be handed out and not done at once, so that a
// huge input does not flood the queue.
const window = 4096

// status calls Status with how the run stands.
func (r *run) status(ctx context.Context) {
	var s Status
	if cons, err := r.js.Consumer(ctx, unitsStream, workersName); err == nil {
		if info, err := cons.Info(ctx); err == nil {
			s.Queued, s.InFlight = int(info.NumPending), info.NumAckPending
		}
	}
	r.mu.Lock()
	s.Done, s.Failed, s.Refused, s.Workers, s.Nodes, s.Bound = r.doneUnits, r.failed, r.refused, len(r.workers), r.nodes, r.bound
	r.mu.Unlock()
	if el := time.Since(r.begin).Seconds(); el > 0 {
		s.Rate = float64(s.Nodes) / el
	}
	r.c.Status(s)
}
