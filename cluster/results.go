package cluster

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/report"
)

// The results of a coordinator's run: a worker's outcome read and checked (accept), the
// stream of outcomes listened to, and a whole instance's record made from its outcome.

// accept checks a message on the job's results: an outcome of a unit of the job, with
// the unit's key, from the worker its subject names. It returns the outcome, its worker
// the subject's name ("" for the coordinator's own), or nil.
func (r *run) accept(subject string, data []byte) *Outcome {
	name := subject[strings.LastIndexByte(subject, '.')+1:]
	if name != coordinatorName && ValidName(name) != nil {
		return nil
	}
	var o Outcome
	if json.Unmarshal(data, &o) != nil || o.Job != r.job.ID || o.Unit == "" || !r.keyOf(o.Unit, o.Key) {
		return nil
	}
	o.Worker = name
	if name == coordinatorName {
		o.Worker = ""
	}
	o.Error = clean(o.Error)
	if rec := o.Record; rec != nil && !o.Failed {
		// A worker's record is a claim: one that did not solve its instance, where the
		// job's own limits did not stop it, or whose figures no search could have, fails
		// this hand-out only, and the unit goes out again (failedForGood).
		switch {
		case !rec.Solved && !r.limited(rec):
			o.Failed, o.Error, o.Record = true, "not solved: "+clean(rec.Error), nil
		case !plausible(rec):
			o.Failed, o.Error, o.Record = true, fmt.Sprintf("figures no search could have (%g s, %d nodes)", rec.Seconds, rec.Nodes), nil
		}
	}
	return &o
}

// timely fails a worker's outcome of a hand-out in this run that claims a longer search
// than its unit has been out: since its first hand-out in this run was confirmed, with a
// second and 1% to spare for the clocks' grain. Such a claim fails that hand-out only
// (failedForGood), as other implausible figures do. (A delivery of an earlier run, before
// the coordinator restarted, may well have searched longer.) r.mu is held.
func (r *run) timely(o *Outcome) {
	h := r.out[o.Unit]
	seq, ok := ackSeq(o.Ack)
	if o.Failed || o.Worker == "" || h == nil || h.first.IsZero() || !ok || !r.ofThisRun(seq) {
		return
	}
	s := o.Seconds
	if o.Record != nil {
		s = max(s, o.Record.Seconds)
	}
	out := time.Since(h.first).Seconds()
	if s > out*1.01+1 || math.IsNaN(s) {
		o.Failed, o.Error = true, fmt.Sprintf("claims %.3g s of search for a unit out %.3g s", s, out)
		o.Record, o.Moves, o.Found = nil, "", false
	}
}

// limited reports whether rec, a record not solved, was stopped by the job's own limits:
// its timeout, or its node limit, which its figures reach.
func (r *run) limited(rec *report.Record) bool {
	t, n := r.job.Timeout, r.job.Options.MaxNodes
	return t > 0 && rec.Seconds >= 0.9*t.Seconds() || n > 0 && rec.Nodes >= n
}

// Bounds on a worker's figures: a search of at most maxSeconds, generating at most
// maxRate nodes a second (far beyond any machine's) or minNodes in all.
const (
	maxSeconds = 1e7 // 115 days
	maxRate    = 1e11
	minNodes   = 1e6
)

// plausible says whether a record's figures are some search's: finite, not negative,
// within maxSeconds, and its nodes within what maxRate gives in its time.
func plausible(rec *report.Record) bool {
	s := rec.Seconds
	most := max(maxRate*s, minNodes)
	return s >= 0 && s <= maxSeconds && !math.IsNaN(s) && float64(rec.Nodes) <= most && float64(rec.Expanded) <= most &&
		float64(rec.SerialNodes) <= most && float64(rec.SerialExpanded) <= most
}

// clean is a worker's text as the coordinator prints it: without control characters
// (escape sequences that would rewrite the terminal) and at most maxText bytes.
func clean(s string) string { return format.Outside(s, maxText) }

// maxText is the most of a worker's text the coordinator keeps.
const maxText = 300

// keyOf reports whether key is the key of unit.
func (r *run) keyOf(unit, key string) bool {
	return subtle.ConstantTimeCompare([]byte(key), []byte(unitKey(r.secret, unit))) == 1
}

// listen gathers the job's outcomes: those stored before (it returns once they are all
// read) and those to come; acknowledges the deliveries they answer and forwards the
// workers' progress to the queue; and turns units handed out too often into failed
// outcomes. What is not an outcome of the job with its unit's key, and every outcome of a
// unit after its first, is counted and deleted.
func (r *run) listen(ctx context.Context, nc *nats.Conn, results jetstream.Stream) (stop func(), err error) {
	info, err := results.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: the results' stream: %w", err)
	}
	stored := int(info.State.Msgs)
	// Units that failed in an earlier run are tried again: the workers may have what they
	// lacked (tables, time) now.
	last := info.State.LastSeq
	cons, err := r.js.OrderedConsumer(ctx, results.CachedInfo().Config.Name, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, fmt.Errorf("cluster: reading results: %w", err)
	}
	deleting := make(chan struct{})
	go func() {
		defer close(deleting)
		for seq := range r.drops {
			dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			results.DeleteMsg(dctx, seq)
			cancel()
		}
	}()
	read := 0
	cc, err := cons.Consume(func(m jetstream.Msg) {
		meta, merr := m.Metadata()
		o := r.accept(m.Subject(), m.Data())
		r.mu.Lock()
		defer r.mu.Unlock()
		defer r.changed.Broadcast()
		read++ // every message of the stream, junk included: the restart waits for them all
		drop := func() {
			if merr == nil && !r.dropsClosed {
				select {
				case r.drops <- meta.Sequence.Stream:
				default: // deleting is behind: the stream's limit still holds
				}
			}
		}
		if o == nil {
			r.refused++
			drop()
			return
		}
		r.ack(o.Unit, o.Ack, "+ACK")
		r.timely(o)
		if o.Failed && !r.c.KeepFailed && merr == nil && meta.Sequence.Stream <= last || r.got[o.Unit] != nil || !r.failedForGood(ctx, o) || r.twice(ctx, o) {
			drop()
			return
		}
		if merr == nil && meta.Sequence.Stream <= last {
			r.resumed++
		}
		r.take(ctx, o)
	}, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, nats.ErrConnectionClosed) {
			r.mu.Lock()
			r.err = err
			r.changed.Broadcast()
			r.mu.Unlock()
		}
	}))
	if err != nil {
		r.dropsClosed = true
		close(r.drops)
		return nil, fmt.Errorf("cluster: reading results: %w", err)
	}
	present, err := nc.Subscribe(presenceSubject+"*", func(m *nats.Msg) {
		if name := strings.TrimPrefix(m.Subject, presenceSubject); ValidName(name) == nil {
			r.mu.Lock()
			r.seenWorker(name)
			if len(m.Data) > 0 {
				r.leaves(name, clean(string(m.Data)))
			} else {
				delete(r.left, name) // there again
			}
			r.mu.Unlock()
		}
	})
	if err != nil {
		cc.Stop()
		r.mu.Lock()
		r.dropsClosed = true
		close(r.drops)
		r.mu.Unlock()
		return nil, fmt.Errorf("cluster: hearing the workers: %w", err)
	}
	sub, err := nc.Subscribe(maxDeliveries, func(m *nats.Msg) { r.givenUp(ctx, m.Data) })
	if err == nil {
		var progress *nats.Subscription
		if progress, err = nc.Subscribe(progressSubject+r.job.ID+".*", func(m *nats.Msg) { r.progress(ctx, m) }); err == nil {
			s := sub
			sub = nil
			stop = func() {
				progress.Unsubscribe()
				present.Unsubscribe()
				s.Unsubscribe()
				cc.Stop()
				r.mu.Lock()
				r.dropsClosed = true
				close(r.drops)
				r.mu.Unlock()
				<-deleting
			}
		} else {
			sub.Unsubscribe()
		}
	}
	if err != nil {
		present.Unsubscribe()
		cc.Stop()
		r.mu.Lock()
		r.dropsClosed = true
		close(r.drops)
		r.mu.Unlock()
		return nil, err
	}
	r.mu.Lock()
	for read < stored && r.err == nil && ctx.Err() == nil {
		r.changed.Wait()
	}
	r.mu.Unlock()
	return stop, ctx.Err()
}

// take makes o its unit's outcome. r.mu is held.
func (r *run) take(ctx context.Context, o *Outcome) {
	r.got[o.Unit] = o
	r.nodes += o.Work.Nodes
	if base, k := unitOf(o.Unit); k > 0 && r.quorum() > 1 {
		defer r.count(ctx, base) // a copy's: its unit is decided once all are in
	} else {
		r.doneUnits++
		if o.Failed {
			r.failed++
		}
	}
	if o.Worker != "" {
		r.workers[o.Worker] = true
		if !o.Failed {
			r.tallyOf(o.Worker).did++
		}
	}
	r.seenWorker(o.Worker)
	r.changed.Broadcast()
}

// failedForGood reports whether a failed outcome is the unit's: a worker that could not
// search a unit handed out in this run fails only that hand-out, and the unit is handed
// out again until Queue.MaxDeliver distinct workers could not do it, or every worker
// could not (failedBy: so that no one worker, mistaken or malicious, fails a unit that
// another can do); then the failure stands, naming the workers and what they said. r.mu
// is held.
func (r *run) failedForGood(ctx context.Context, o *Outcome) bool {
	if !o.Failed || o.Worker == "" {
		return true
	}
	r.seenWorker(o.Worker)
	if r.deferEarly(o.Ack, func(e *early) { e.unit, e.fail = o.Unit, o }) {
		return false
	}
	seq, _ := ackSeq(o.Ack)
	h := r.out[o.Unit]
	if h == nil {
		return !r.closed[o.Unit] // a pass decided takes no failure; an earlier run's may stand
	}
	if seq != h.seq || h.failed == seq {
		return false // an earlier hand-out's, or this one's again
	}
	h.failed = h.seq
	r.couldNot(o.Worker, o.Error)
	if !r.failedBy(h, o.Worker, o.Error) {
		r.again(ctx, h)
		return false
	}
	o.Error = h.failReason()
	return true
}

// record is the record of a whole instance's outcome. A worker's record is believed only
// once it checks (report.Record.Check): a solution that does not replay, or a claim the
// solver cannot make, is the worker's fault, reported with its name, not an answer.
func (r *run) record(e instance.Entry, o *Outcome) (report.Record, error) {
	if o.Failed || o.Record == nil {
		err := fmt.Errorf("%w: %s", ErrFailed, o.Error)
		rec := report.NewRecord(r.goal, e.In.State, nil, err)
		return rec, err
	}
	if err := o.Record.Check(r.goal, e.In.State, r.c.Solver.Optimal()); err != nil {
		err = fmt.Errorf("%w: worker %q sent a result that fails its check: %v", ErrFailed, o.Worker, err)
		rec := report.NewRecord(r.goal, e.In.State, nil, err)
		rec.Worker = o.Worker
		return rec, err
	}
	rec := *o.Record
	rec.Worker = o.Worker
	// What the coordinator prints is its own words or what it checked: the worker's note
	// goes (a mismatch or a caveat is the coordinator's to say), and its other text is
	// cleaned.
	rec.Error, rec.Trust, rec.Dispute, rec.WrongWorkers = "", "", o.Dispute, o.Wrong
	if !rec.Solved { // stopped by the job's limits (accept)
		rec.Error = "not solved within the job's --timeout or --max-nodes"
	}
	rec.Algorithm, rec.Heuristic, rec.Lookups = clean(rec.Algorithm), clean(rec.Heuristic), clean(rec.Lookups)
	rec.Tables, rec.Pruning = clean(rec.Tables), clean(rec.Pruning)
	if rec.Device != nil {
		d := *rec.Device
		d.Name, d.Driver, d.Capability = clean(d.Name), clean(d.Driver), clean(d.Capability)
		rec.Device = &d
	}
	switch {
	case rec.Optimal && o.Here:
		rec.Trust = report.TrustProven // searched here: its workers disagreed
	case rec.Optimal:
		rec.Trust = report.TrustAgreed(max(len(o.Agreed), 1), r.quorum())
	}
	return rec, nil
}

// label names an instance for people.
func label(in *instance.Instance) string {
	return (&report.Record{ID: in.ID, Line: in.Line}).Label()
}
