package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/tilekit/tilekit/internal/format"
)

// A coordinator's hand-outs: units published to the workers' queue, the workers' words
// about them (progress, acknowledgements, the server's advisories), and units lost or held
// too long handed out again.

// progress takes a worker's word about a unit it holds (Progress) to the queue: still
// searching, or handed back. Word without the unit's key, or about a delivery of
// another unit, is counted and passed over. A unit handed back, or held past the caps,
// is its worker's failure: taken off that delivery and handed out again (retire).
func (r *run) progress(ctx context.Context, m *nats.Msg) {
	var p Progress
	ok := json.Unmarshal(m.Data, &p) == nil && r.keyOf(p.Unit, p.Key)
	worker := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:] // the server's permissions see to it
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.refused++
		return
	}
	r.seenWorker(worker)
	if p.Back && p.Twice {
		r.retire(ctx, p.Unit, p.Ack, worker, twiceSaid(r.quorum()), false)
		return
	}
	if p.Back {
		said := "handed it back"
		if t := r.tally[worker]; t != nil && t.told {
			said += ", told to take no more of the job's units as " + t.why
		}
		r.retire(ctx, p.Unit, p.Ack, worker, said, true)
		return
	}
	if h := r.out[p.Unit]; h != nil {
		if seq, ok := ackSeq(p.Ack); ok && seq == h.seq {
			if t := r.tally[worker]; t != nil && t.told {
				// A worker told to take no more of the job's units holds none: the unit
				// goes to another at once rather than after the caps.
				r.retire(ctx, p.Unit, p.Ack, worker, "took it after being told to take no more of the job's units as "+t.why, true)
				return
			}
			now := time.Now()
			if h.held.IsZero() || h.heldSeq != seq {
				h.held, h.heldSeq, h.nodes, h.grew = now, seq, p.Nodes, now
			}
			if p.Nodes > h.nodes {
				h.nodes, h.grew = p.Nodes, now
			}
			switch {
			case now.Sub(h.held) > r.holdCap():
				r.refused++
				r.retire(ctx, p.Unit, p.Ack, worker, fmt.Sprintf("held it past %s without a result", r.holdCap()), true)
				return
			case now.Sub(h.grew) > r.stallCap():
				r.refused++
				r.retire(ctx, p.Unit, p.Ack, worker, fmt.Sprintf("held it for %s without its work growing", r.stallCap()), true)
				return
			}
		}
	}
	r.ack(p.Unit, p.Ack, "+WPI")
}

// retire takes the delivery of unit (its reply subject ack) from worker, who could not do
// it (said), and hands the unit out again, unless that makes it fail for good
// (failedBy). A delivery of another unit, or an earlier hand-out, is passed over. r.mu
// is held.
func (r *run) retire(ctx context.Context, unit, ack, worker, said string, blame bool) {
	h := r.out[unit]
	seq, ok := ackSeq(ack)
	if h == nil || !ok || seq != h.seq || h.failed == seq {
		r.ack(unit, ack, "-NAK") // as before hand-outs were confirmed: the server decides
		return
	}
	h.failed = seq
	r.ack(unit, ack, "+TERM") // this delivery ends; the unit goes out anew, or fails
	if blame {
		r.couldNot(worker, said)
	}
	if r.failedBy(h, worker, said) {
		delete(r.out, unit)
		go r.fail(ctx, h.unit, seq, h.failReason())
		return
	}
	r.again(ctx, h)
}

// seenWorker notes a word or a result of worker. r.mu is held.
func (r *run) seenWorker(worker string) {
	if worker == "" || worker == coordinatorName {
		return
	}
	if r.seen == nil {
		r.seen = map[string]time.Time{}
	}
	if _, ok := r.seen[worker]; !ok {
		r.lastNew = time.Now()
	}
	r.seen[worker] = time.Now()
}

// failedBy notes that worker could not do unit h, and what it said, and reports whether
// the unit now fails for good: Queue.MaxDeliver distinct workers could not do it, or every
// worker heard of in the run could not and no new one came within the ack wait (a lone
// worker that cannot do it). One worker's failures, however many, never fail a unit that
// another can do. r.mu is held.
func (r *run) failedBy(h *handed, worker, said string) bool {
	if h.failers == nil {
		h.failers = map[string]string{}
	}
	if _, ok := h.failers[worker]; !ok {
		h.order = append(h.order, worker)
	}
	h.failers[worker] = said
	if len(h.failers) >= max(r.queue.MaxDeliver, 1) {
		return true
	}
	// Every worker heard of lately could not do it (a worker says it is there every third
	// of the ack wait, idle or not), and for an ack wait since none new came.
	recent := 2 * max(r.queue.AckWait, 10*time.Millisecond)
	for w, at := range r.seen {
		if _, failed := h.failers[w]; !failed && time.Since(at) < recent {
			h.allFailed = time.Time{}
			return false
		}
	}
	if h.allFailed.IsZero() || r.lastNew.After(h.allFailed) {
		h.allFailed = time.Now()
	}
	return h.tries >= 2 && time.Since(h.allFailed) >= r.queue.AckWait
}

// leaves notes that worker said it takes no more units, and why. r.mu is held.
func (r *run) leaves(worker, why string) {
	if r.left == nil {
		r.left = map[string]string{}
	}
	if _, ok := r.left[worker]; !ok && len(r.left) >= maxLeft {
		return
	}
	r.left[worker], r.lastLeft = why, time.Now()
}

// maxLeft bounds the workers whose leaving a run remembers.
const maxLeft = 1 << 16

// abandoned fails every unit still out once no worker is left to do it: some worker said
// it takes no more units (its GPU faulted), every other worker heard of in the run has
// left too or gone silent, and for an ack wait none new came. A run whose workers merely
// went silent waits for them, as one started before its workers waits for them; so does a
// run that no worker has left. A restarted coordinator hands the units failed out again.
func (r *run) abandoned(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.left) == 0 || time.Since(r.lastLeft) < r.queue.AckWait || time.Since(r.lastNew) < r.queue.AckWait {
		return
	}
	recent := 2 * max(r.queue.AckWait, 10*time.Millisecond)
	for w, at := range r.seen {
		if _, left := r.left[w]; !left && time.Since(at) < recent {
			return
		}
	}
	names := slices.Sorted(maps.Keys(r.left))
	said := make([]string, len(names))
	for i, w := range names {
		said[i] = fmt.Sprintf("%q left: %s", w, r.left[w])
	}
	why := fmt.Sprintf("no worker is left to do it (%s), and none came within the ack wait (%s)", strings.Join(said, "; "), r.queue.AckWait)
	for id, h := range r.out {
		if r.got[id] != nil || r.closed[id] {
			continue
		}
		delete(r.out, id)
		reason := why
		if len(h.order) > 0 {
			reason = h.failReason() + "; " + why
		}
		go r.fail(ctx, h.unit, h.seq, reason)
	}
}

// A tally is what one worker did in a run.
type tally struct {
	did, couldNot int    // units it returned a result for, and deliveries it could not do
	told          bool   // it was told to stop taking the job's units
	why           string // and why
}

// stopAfter is how many units a worker that did none may fail before it is told to stop
// taking the job's units.
const stopAfter = 3

// tallyOf is worker's tally. r.mu is held.
func (r *run) tallyOf(worker string) *tally {
	if r.tally == nil {
		r.tally = map[string]*tally{}
	}
	t := r.tally[worker]
	if t == nil {
		t = &tally{}
		r.tally[worker] = t
	}
	return t
}

// couldNot notes that worker could not do a unit (said); a worker that could not do
// stopAfter units and did none is told to stop taking the job's units, with why (a
// worker without the job's tables, or one that hands back everything, stops burning the
// queue's deliveries; one that does not listen loses nothing but its own time, failedBy).
// r.mu is held.
func (r *run) couldNot(worker, said string) {
	if worker == "" || worker == coordinatorName {
		return
	}
	t := r.tallyOf(worker)
	t.couldNot++
	if t.did == 0 && t.couldNot >= stopAfter && !t.told {
		t.told = true
		t.why = fmt.Sprintf("it could not do %d of the job's units and did none (the last: %s)", t.couldNot, said)
		r.js.Conn().Publish(stopSubject+r.job.ID+"."+worker, []byte(t.why))
	}
}

// failReason names the workers that could not do h and what each said last.
func (h *handed) failReason() string {
	var said []string
	for _, w := range h.order {
		said = append(said, fmt.Sprintf("%s said: %s", w, h.failers[w]))
	}
	return fmt.Sprintf("tried %d times, by %s: %s", h.tries, format.Count(len(h.order), "worker"), strings.Join(said, "; "))
}

// again hands h's unit out anew after a pause (againDelay). r.mu is held.
func (r *run) again(ctx context.Context, h *handed) {
	h.waiting = true
	unit := h.unit
	time.AfterFunc(r.againDelay(h), func() {
		r.mu.Lock()
		h.waiting = false
		r.mu.Unlock()
		r.publish(ctx, []Unit{unit})
	})
}

// againDelay is how long a unit some worker could not do waits before it goes out again.
// While a worker present has not failed it, a moment (10 ms): a worker that takes every
// unit it can, and cannot or will not do them, must not keep them from the others,
// whose next request takes the unit as soon as it is back. Once every worker present
// has failed it, half the time since, up to a quarter of the ack wait (at most 5 s): the
// unit waits for a new worker, or one not heard of yet, without spinning (failedBy).
func (r *run) againDelay(h *handed) time.Duration {
	if h.allFailed.IsZero() {
		return 10 * time.Millisecond
	}
	return min(max(time.Since(h.allFailed)/2, 10*time.Millisecond), max(r.queue.AckWait/4, 20*time.Millisecond), 5*time.Second)
}

// holdCap is the longest a worker's words keep one hand-out of a unit: the job's timeout
// and twice the ack wait, or without a timeout Queue.MaxHold (a day by default).
func (r *run) holdCap() time.Duration {
	if r.job.Timeout > 0 {
		return r.job.Timeout + 2*r.queue.AckWait
	}
	return cmp.Or(r.queue.MaxHold, 24*time.Hour)
}

// stallCap is how long a worker's words keep a hand-out while the nodes they report do
// not grow: ten ack waits (five minutes by default). A CPU search reports its nodes three
// times an ack wait, a GPU pass after each launch; opening the job's tables on the
// worker's first unit counts as a stall.
func (r *run) stallCap() time.Duration { return 10 * r.queue.AckWait }

// ack sends word to the queue about a delivery of unit: the reply subject of a delivery
// in this run of that unit, and nothing else (the coordinator may publish anywhere). r.mu
// is held.
func (r *run) ack(unit, subject, word string) {
	if r.deferEarly(subject, func(e *early) {
		// A quick worker's: said once the hand-out is confirmed (published). An
		// acknowledgement is the last word.
		if e.word != "+ACK" {
			e.unit, e.subject, e.word = unit, subject, word
		}
	}) {
		return
	}
	seq, ok := ackSeq(subject)
	if !ok || r.seqs[seq] != unit {
		// No delivery, or one of another unit (but a delivery of an earlier run, read
		// again on a restart, is no fault).
		if subject != "" && (!ok || r.seqs[seq] != "") {
			r.refused++
		}
		return
	}
	r.js.Conn().Publish(subject, []byte(word))
}

// early is word about a delivery whose hand-out the server had not yet confirmed: to the
// queue (subject, word), a failure (fail) or a second copy's result (twice), for unit.
type early struct {
	unit, subject, word string
	fail                *Outcome
	twice               *Outcome // a result from a worker with another copy of the unit (twice)
}

// maxEarly bounds the words kept for hand-outs not yet confirmed: a worker cannot have
// more deliveries than units are being handed out.
const maxEarly = 1 << 16

// ofThisRun reports whether seq is a place in the queue that this run's hand-outs may
// have taken (after the queue's last message when the run began).
func (r *run) ofThisRun(seq uint64) bool { return seq > r.seqFloor }

// deferEarly keeps what set says of the delivery at subject when it is a hand-out of this
// run whose place the server has not confirmed yet (settleEarly decides it once it has),
// and reports whether it did. r.mu is held.
func (r *run) deferEarly(subject string, set func(e *early)) bool {
	seq, ok := ackSeq(subject)
	if !ok || r.early == nil || !r.ofThisRun(seq) || r.seqs[seq] != "" {
		return false
	}
	e := r.early[seq]
	set(&e)
	r.keepEarly(seq, e)
	return true
}

// keepEarly keeps e for the hand-out at seq, within maxEarly. r.mu is held.
func (r *run) keepEarly(seq uint64, e early) {
	if _, ok := r.early[seq]; ok || len(r.early) < maxEarly {
		r.early[seq] = e
	}
}

// settleEarly says to the queue what was said of the delivery at seq before its hand-out
// was confirmed, and decides an early failure of unit h. r.mu is held.
func (r *run) settleEarly(ctx context.Context, seq uint64, h *handed) {
	e, ok := r.early[seq]
	if !ok {
		return
	}
	delete(r.early, seq)
	if e.unit != h.unit.ID {
		r.refused++ // word about another unit's delivery
		return
	}
	if e.word != "" {
		r.js.Conn().Publish(e.subject, []byte(e.word))
	}
	if e.fail != nil && r.got[e.unit] == nil && r.failedForGood(ctx, e.fail) {
		r.take(ctx, e.fail)
	}
	if e.twice != nil && r.got[e.unit] == nil {
		r.twice(ctx, e.twice)
	}
}

// ackSeq is the place in the queue of the unit whose delivery has the reply subject
// subject: $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>,
// or with a domain and an account hash before the stream, and a token after.
func ackSeq(subject string) (uint64, bool) {
	t := strings.Split(subject, ".")
	switch {
	case len(t) < 9 || t[0] != "$JS" || t[1] != "ACK":
		return 0, false
	case len(t) == 9:
		t = t[2:]
	case len(t) == 12:
		t = t[4:11]
	default:
		return 0, false
	}
	if t[0] != unitsStream || t[1] != workersName {
		return 0, false
	}
	var seq uint64
	for i, s := range t[2:] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, false
		}
		if i == 1 {
			seq = n
		}
	}
	return seq, seq > 0
}

// givenUp turns a unit that reached MaxDeliver without a result (its workers died or went
// silent) into a failed outcome, and takes it off the queue.
func (r *run) givenUp(ctx context.Context, advisory []byte) {
	var a struct {
		Seq        uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if json.Unmarshal(advisory, &a) != nil {
		return
	}
	raw, err := r.units.GetMsg(ctx, a.Seq)
	if err != nil {
		return
	}
	var u Unit
	if json.Unmarshal(raw.Data, &u) != nil || u.Job.ID != r.job.ID {
		return
	}
	r.fail(ctx, u, a.Seq, fmt.Sprintf("handed out %d times without a result: each worker that took it stopped, or went silent for longer than the ack wait (%s)", a.Deliveries, r.queue.AckWait))
	r.units.DeleteMsg(ctx, a.Seq)
}

// fail stores a failed outcome of unit u, handed out as message seq of the queue. Its
// message id is that hand-out's, so that a later hand-out's result is never taken for a
// repeat of it.
func (r *run) fail(ctx context.Context, u Unit, seq uint64, why string) {
	key := unitKey(r.secret, u.ID)
	o := Outcome{Job: u.Job.ID, Unit: u.ID, Index: u.Index, Seq: u.Seq, Failed: true, Error: why, Key: key}
	out, _ := json.Marshal(o)
	r.js.Publish(ctx, resultSubject+u.Job.ID+"."+coordinatorName, out, jetstream.WithMsgID(msgID(u.ID, key, seq, 0)))
}

// publish hands out the units that have no outcome yet.
func (r *run) publish(ctx context.Context, units []Unit) error {
	r.mu.Lock()
	units = r.copies(units)
	r.mu.Unlock()
	for i := range units {
		r.mu.Lock()
		done := r.got[units[i].ID] != nil || r.closed[units[i].ID]
		r.mu.Unlock()
		if done {
			continue
		}
		units[i].Job, units[i].Key = r.job, unitKey(r.secret, units[i].ID)
		data, err := json.Marshal(&units[i])
		if err != nil {
			return err
		}
		f, err := r.js.PublishAsync(unitsSubject+r.job.ID, data)
		if err != nil {
			return fmt.Errorf("cluster: handing out %s: %w", units[i].ID, err)
		}
		r.mu.Lock()
		r.sent = append(r.sent, sent{units[i], f})
		r.mu.Unlock()
		// A pass of many thousand units goes out in batches: past its pending limit
		// (4,000), an asynchronous publish stalls and then fails on a loaded server.
		if (i+1)%publishBatch == 0 {
			if err := r.published(ctx); err != nil {
				return err
			}
		}
	}
	return r.published(ctx)
}

// publishBatch is how many units go out before the coordinator waits for the server to
// take them.
const publishBatch = 1024

// published waits until the server has taken every unit published, and has watch keep
// each hand-out's place in the queue.
func (r *run) published(ctx context.Context) error {
	select {
	case <-r.js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	batch := r.sent
	r.sent = nil
	r.mu.Unlock()
	if err := r.roomFor(ctx, len(batch)); err != nil {
		return err
	}
	seqs := make([]uint64, len(batch))
	for i, s := range batch {
		select {
		case ack := <-s.f.Ok():
			seqs[i] = ack.Sequence
		case err := <-s.f.Err():
			return fmt.Errorf("cluster: handing out %s: %w", s.unit.ID, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range batch {
		r.seqs[seqs[i]] = s.unit.ID
		if r.closed[s.unit.ID] {
			delete(r.early, seqs[i])
			continue
		}
		h := r.out[s.unit.ID]
		if h == nil {
			h = &handed{unit: s.unit, first: time.Now()}
			r.out[s.unit.ID] = h
		}
		h.seq, h.tries, h.gone = seqs[i], h.tries+1, time.Time{}
		r.settleEarly(ctx, seqs[i], h)
	}
	return nil
}

// sent is a unit published and not yet confirmed.
type sent struct {
	unit Unit
	f    jetstream.PubAckFuture
}

// handed is a unit handed out and not yet answered: its place in the queue, how many
// times it went out, and since when it has been missing from the queue.
type handed struct {
	unit   Unit
	seq    uint64
	tries  int       // hand-outs
	first  time.Time // when its first hand-out in this run was confirmed (timely)
	lost   int       // hand-outs that left the queue without a result (lost)
	gone   time.Time
	failed uint64 // the hand-out (seq) a worker said it could not search
	// failers are the workers that could not do the unit, and what each said last, in
	// order (failedBy); waiting, that it waits to go out again (again).
	failers map[string]string
	order   []string
	waiting bool
	// allFailed is since when every worker heard of could not do the unit.
	allFailed time.Time
	// held is when a worker first said hand-out heldSeq was in progress (holdCap), grew
	// when the nodes it reported last grew, to nodes (stallCap).
	held    time.Time
	heldSeq uint64
	grew    time.Time
	nodes   uint64
}

// watch hands out again the units that left the queue without a result, until done: a
// worker stores a unit's result before it acknowledges the unit, so one acknowledged
// without a result was dropped (a worker that takes units and discards them). After
// Queue.MaxDeliver such losses a unit is reported failed. A unit being searched stays
// in the queue (its worker says it is in progress), and so does one waiting.
func (r *run) watch(ctx context.Context, done <-chan struct{}) {
	every(ctx, done, min(max(r.queue.AckWait/3, 50*time.Millisecond), 5*time.Second), func() {
		r.lost(ctx)
		r.abandoned(ctx)
	})
}

// every calls f every period until done is closed or ctx ends.
func every(ctx context.Context, done <-chan struct{}, period time.Duration, f func()) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		f()
	}
}

// lostGrace is how long a unit is missing from the queue without a result before it is
// taken for lost: a result is stored before its unit is acknowledged, and reaches the
// coordinator within milliseconds. (A queue of a short ack wait, in tests, waits half of
// it.)
func (r *run) lostGrace() time.Duration { return min(time.Second, r.queue.AckWait/2) }

// lost finds the units that left the queue without a result, and hands them out again or
// reports them failed.
func (r *run) lost(ctx context.Context) {
	r.mu.Lock()
	var missing []handed
	for id, h := range r.out {
		if r.got[id] != nil {
			delete(r.out, id)
			continue
		}
		missing = append(missing, *h)
	}
	r.mu.Unlock()
	if len(missing) == 0 {
		return
	}
	subject := unitsSubject + r.job.ID
	info, err := r.units.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil || int(info.State.Subjects[subject]) >= len(missing) {
		return // every unit unanswered is still in the queue
	}
	var again []Unit
	for _, m := range missing {
		if _, err := r.units.GetMsg(ctx, m.seq); !errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		r.mu.Lock()
		h := r.out[m.unit.ID]
		switch {
		case h == nil || h.seq != m.seq || r.got[m.unit.ID] != nil || h.waiting:
			// answered, or handed out again, meanwhile, or waiting to be
		case h.gone.IsZero():
			h.gone = time.Now()
		case time.Since(h.gone) < r.lostGrace():
		case h.lost+1 >= max(r.queue.MaxDeliver, 1):
			delete(r.out, m.unit.ID)
			r.mu.Unlock()
			r.fail(ctx, m.unit, m.seq, fmt.Sprintf("taken and acknowledged without a result %s: a worker took it and dropped it", format.Count(h.lost+1, "time")))
			continue
		default:
			h.lost++
			again = append(again, m.unit)
		}
		r.mu.Unlock()
	}
	if len(again) > 0 {
		r.publish(ctx, again)
	}
}

// Status is the progress of a run.
type Status struct {
	Done     int     // units with a result
	Queued   int     // units waiting for a worker (on the whole queue)
	InFlight int     // units taken by a worker and not yet acknowledged
	Failed   int     // units given up
	Refused  int     // results and progress passed over: junk, or not from a worker the unit was handed to
	Workers  int     // workers that sent results
	Nodes    uint64  // generated by the units done
	Rate     float64 // nodes a second, since the start
	Bound    int     // the pass of a split search
}

// String is the status for people, as one line.
func (st Status) String() string {
	text := fmt.Sprintf("units: %d done, %d queued, %d in flight", st.Done, st.Queued, st.InFlight)
	if st.Failed > 0 {
		text += fmt.Sprintf(", %d failed", st.Failed)
	}
	if st.Refused > 0 {
		text += fmt.Sprintf(", %d messages refused", st.Refused)
	}
	if st.Bound > 0 {
		text += fmt.Sprintf("; bound %d", st.Bound)
	}
	// Workers are known by their results: a run whose first units are long has none yet.
	return text + fmt.Sprintf("; results from %s; %s nodes, %.1f M nodes/s", format.Count(st.Workers, "worker"), format.Thousands(st.Nodes), st.Rate/1e6)
}
