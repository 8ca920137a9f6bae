package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/report"
)

// A coordinator's runs of instances: whole ones, and split ones pass by pass (their units,
// proofs and audits).

// whole hands out each instance as a unit.
func (r *run) whole(ctx context.Context, entries []instance.Entry, sum *report.Summary, each func(instance.Entry, report.Record, error)) error {
	id := func(i int) string { return fmt.Sprintf("%s.%d", r.job.ID, i) }
	errc := make(chan error, 1)
	go func() {
		for lo := 0; lo < len(entries); lo += window / 2 {
			// Hand out the next half window once the one before it is done.
			if lo >= window {
				if err := r.wait(ctx, func() bool { return r.reported >= lo-window/2 }); err != nil {
					errc <- err
					return
				}
			}
			var batch []Unit
			for i := lo; i < min(lo+window/2, len(entries)); i++ {
				if in := entries[i].In; in != nil {
					batch = append(batch, Unit{ID: id(i), Index: i, Label: label(in), Start: in.State.Ints()})
				}
			}
			if err := r.publish(ctx, batch); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	for i, e := range entries {
		if e.In == nil {
			each(e, sum.Entry(r.goal, e, report.Record{}), e.Err)
		} else {
			var o *Outcome
			unit := id(i)
			if err := r.wait(ctx, func() bool { o = r.got[unit]; return o != nil }); err != nil {
				if ctx.Err() == nil {
					return err
				}
				r.interrupted(entries[i:], func(j int) string { return id(i + j) }, sum, each)
				return err
			}
			rec, err := r.record(e, o)
			if err == nil {
				rec, err = r.auditWhole(ctx, e, rec)
			}
			each(e, sum.Entry(r.goal, e, rec), err)
		}
		r.mu.Lock()
		r.reported = i + 1
		r.changed.Broadcast()
		r.mu.Unlock()
	}
	return <-errc
}

// interrupted reports the entries left when the run was interrupted, in order, as plain
// solve15 does: those whose outcome is in, as they are (not audited), and the others as
// not solved (interrupted).
func (r *run) interrupted(left []instance.Entry, unit func(j int) string, sum *report.Summary, each func(instance.Entry, report.Record, error)) {
	for j, e := range left {
		if e.In == nil {
			each(e, sum.Entry(r.goal, e, report.Record{}), e.Err)
			continue
		}
		r.mu.Lock()
		o := r.got[unit(j)]
		r.mu.Unlock()
		rec, err := report.NewRecord(r.goal, e.In.State, nil, context.Canceled), error(context.Canceled)
		if o != nil {
			rec, err = r.record(e, o)
		}
		each(e, sum.Entry(r.goal, e, rec), err)
	}
}

// auditWhole solves a whole instance again here, with probability Audit, and checks the
// worker's record against it: the same solution and counts, to the node. An instance
// whose audit cannot finish (Timeout) keeps its worker's record.
func (r *run) auditWhole(ctx context.Context, e instance.Entry, rec report.Record) (report.Record, error) {
	if r.auditor == nil || !rec.Solved || rand.Float64() >= r.c.Audit {
		return rec, nil
	}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if r.c.Timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, r.c.Timeout)
	}
	defer cancel()
	res, err := r.auditor.Solve(actx, e.In.State)
	if err != nil {
		return rec, nil
	}
	mine := report.NewRecord(r.goal, e.In.State, res, nil)
	// The serial search's counts: a worker on a GPU counts its own work apart.
	theirs, ours := rec.SerialWork(), mine.SerialWork()
	if mine.Moves != rec.Moves || ours != theirs || mine.Optimal != rec.Optimal {
		err := fmt.Errorf("%w: worker %q says of instance %s: %s in %d nodes (%d expanded); solved again here: %s in %d nodes (%d expanded)",
			ErrAudit, rec.Worker, label(e.In), format.Count(rec.Length, "move"), theirs.Nodes, theirs.Expanded, format.Count(mine.Length, "move"), ours.Nodes, ours.Expanded)
		bad := report.NewRecord(r.goal, e.In.State, nil, err)
		bad.Worker = rec.Worker
		return bad, err
	}
	if rec.Optimal {
		rec.Trust = report.TrustAudited
	}
	return rec, nil
}

// split solves each instance by IDA*, its large passes shared out as subtrees.
func (r *run) split(ctx context.Context, entries []instance.Entry, sum *report.Summary, each func(instance.Entry, report.Record, error)) error {
	c := r.c
	opt := c.Rule.ClusterDefaults()
	for i, e := range entries {
		if e.In == nil {
			each(e, sum.Entry(r.goal, e, report.Record{}), e.Err)
			continue
		}
		var units []report.UnitRecord
		r.proof = nil
		ictx, cancel := ctx, context.CancelFunc(func() {})
		if c.Timeout > 0 {
			ictx, cancel = context.WithTimeout(ctx, c.Timeout)
		}
		// An audit that finds a result wrong stops the instance at once.
		ictx, stop := context.WithCancel(ictx)
		r.mu.Lock()
		r.stopInstance = stop
		r.mu.Unlock()
		res, err := c.Solver.SolveSplit(ictx, e.In.State, opt, func(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
			results, done, err := r.pass(ctx, i, e.In, b)
			units = append(units, done...)
			return results, err
		})
		if aerr := r.checkAudits(); aerr != nil {
			res, err = nil, aerr // no answer rests on a result an audit contradicts
		}
		stop()
		cancel()
		if ctx.Err() != nil {
			// Interrupted: this instance with what its passes proved, and those after it
			// as never started, as plain solve15 reports them.
			rec := report.NewRecord(r.goal, e.In.State, res, ctx.Err())
			rec.Units = units
			each(e, sum.Entry(r.goal, e, rec), ctx.Err())
			r.interrupted(entries[i+1:], func(int) string { return "" }, sum, each)
			return ctx.Err()
		}
		rec := report.NewRecord(r.goal, e.In.State, res, err)
		rec.Units = units
		if rec.Optimal {
			rec.Trust = r.trust(len(res.Moves), units)
		}
		r.mu.Lock()
		for _, d := range r.disputesOf(i) {
			rec.Dispute = strings.TrimPrefix(rec.Dispute+"; "+d.Dispute, "; ")
			for _, w := range d.Wrong {
				if !slices.Contains(rec.WrongWorkers, w) {
					rec.WrongWorkers = append(rec.WrongWorkers, w)
				}
			}
		}
		r.mu.Unlock()
		each(e, sum.Entry(r.goal, e, rec), err)
	}
	return nil
}

// pass hands out the subtrees of one split pass and waits for its decision: the first
// subtree in order with a solution, once every subtree before it is done, or none once all
// are done; or the node limit (b.MaxNodes), once the units' nodes pass it. The units still
// queued then go, and those being searched are told to stop. It returns each subtree's
// result (zero for those not searched) and the units' records.
func (r *run) pass(ctx context.Context, index int, in *instance.Instance, b *passes.Batch) ([]passes.SubtreeResult, []report.UnitRecord, error) {
	r.mu.Lock()
	r.bound = b.Bound
	r.mu.Unlock()
	ids := make([]string, len(b.Paths))
	units := make([]Unit, len(b.Paths))
	for k, p := range b.Paths {
		ids[k] = fmt.Sprintf("%s.%d.b%d.%d", r.job.ID, index, b.Bound, k)
		units[k] = Unit{ID: ids[k], Index: index, Label: label(in), Start: b.Start.Ints(),
			Bound: b.Bound, Path: board.FormatDirs(p), Seq: k}
	}
	// The units go out in the serial search's order. (Handing the largest expected first
	// shortens a pass's tail, but in the last pass it searched far past the solution: k24-04
	// took over twice as long.)
	if err := r.publish(ctx, units); err != nil {
		return nil, nil, err
	}
	var failed *Outcome
	overLimit := false
	err := r.wait(ctx, func() bool {
		if b.MaxNodes > 0 {
			var nodes uint64
			for k := range ids {
				if o := r.got[ids[k]]; o != nil {
					nodes += o.Work.Nodes
				}
			}
			if nodes >= b.MaxNodes {
				overLimit = true
				return true
			}
		}
		for k := range ids {
			o := r.got[ids[k]]
			switch {
			case o == nil:
				return false
			case o.Failed:
				failed = o
				return true
			case o.Found:
				if err := r.checkFound(o, units[k], b); err != nil {
					failed = &Outcome{Unit: o.Unit, Worker: o.Worker, Failed: true, Error: err.Error()}
				}
				return true
			}
		}
		return true
	})
	// Decided, or given up (a timeout): what is left of the pass goes.
	r.mu.Lock()
	for _, id := range ids {
		for _, handed := range r.idsOf(id) {
			delete(r.out, handed)
			r.closed[handed] = true
		}
		r.closed[id] = true
	}
	r.mu.Unlock()
	r.js.Conn().Publish(cancelSubject+r.job.ID, []byte(passKey(r.job.ID, index, b.Bound)))
	pctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	r.units.Purge(pctx, jetstream.WithPurgeSubject(unitsSubject+r.job.ID))
	cancel()
	if err != nil {
		return nil, nil, err
	}
	results, first, done, err := r.gather(ids, units, b, failed)
	if err != nil {
		return results, done, err
	}
	if overLimit {
		return results, done, passes.ErrNodeLimit
	}
	upto := len(ids) - 1
	if first >= 0 {
		upto = first
	}
	picked := r.chooseAudits(units, ids, upto, b)
	if first < 0 {
		r.proof = &proofPass{b: b, units: units, ids: ids, picked: picked}
	} else {
		r.auditProof(b.Bound)
	}
	for i := range done {
		done[i].Audited = picked[done[i].Seq] // checked at the instance's end: one that disagrees fails it
	}
	return results, done, nil
}

// proofPass is a split pass that found nothing, and its subtrees audited.
type proofPass struct {
	b       *passes.Batch
	units   []Unit
	ids     []string
	picked  map[int]bool
	audited bool // all of it
}

// auditProof has the auditor search again every subtree of the pass that proves a
// solution found in the pass of bound optimal (the pass of bound-2, when it was split),
// unless TrustProof.
func (r *run) auditProof(bound int) {
	p := r.proof
	if p == nil || p.b.Bound != bound-2 || r.c.TrustProof || r.auditor == nil {
		return
	}
	var chosen []audit
	r.mu.Lock()
	for k, id := range p.ids {
		if o := r.got[id]; o != nil && !o.Failed && !p.picked[k] {
			chosen = append(chosen, audit{unit: p.units[k], of: *o, b: p.b, path: p.b.Paths[k]})
			p.picked[k] = true
		}
	}
	r.audited += len(chosen)
	r.mu.Unlock()
	r.auditing.Add(len(chosen))
	for _, a := range chosen {
		r.auditQueue <- a
	}
	p.audited = true
}

// trust says what an optimal solution of length moves rests on (Record.Trust), and
// marks the units of the pass that proves it audited when they all were.
func (r *run) trust(moves int, units []report.UnitRecord) string {
	p := r.proof
	if p == nil || p.b.Bound != moves-2 {
		return report.TrustProven // the coordinator searched the pass that proves it
	}
	if p.audited {
		for i := range units {
			if units[i].Bound == p.b.Bound && p.picked[units[i].Seq] {
				units[i].Audited = true
			}
		}
		return report.TrustAudited
	}
	workers := map[string]bool{}
	r.mu.Lock()
	for _, id := range p.ids {
		if o := r.got[id]; o != nil && !o.Here {
			workers[o.Worker] = true
			for _, w := range o.Agreed {
				workers[w] = true
			}
		}
	}
	r.mu.Unlock()
	return report.TrustAgreed(len(workers), r.quorum())
}

// gather reads a decided pass's outcomes: each subtree's result, the first subtree in
// order with a solution (not failed's; -1: none), and the units' records; failed, if
// set, is the unit that fails the pass.
func (r *run) gather(ids []string, units []Unit, b *passes.Batch, failed *Outcome) ([]passes.SubtreeResult, int, []report.UnitRecord, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var done []report.UnitRecord
	results := make([]passes.SubtreeResult, len(ids))
	first := -1
	for k, id := range ids {
		o := r.got[id]
		if o == nil || o.Failed {
			continue
		}
		results[k] = passes.SubtreeResult{Searched: true, Work: o.Work, Value: o.Value}
		done = append(done, report.UnitRecord{Bound: b.Bound, Seq: k, Path: units[k].Path, Nodes: o.Work.Nodes,
			Expanded: o.Work.Expanded, Seconds: o.Seconds, Worker: o.Worker})
		if o.Found && (failed == nil || failed.Unit != o.Unit) {
			moves, err := board.ParseDirs(o.Moves)
			if err != nil {
				return results, first, done, fmt.Errorf("cluster: the solution of unit %s from %s: %w", id, o.Worker, err)
			}
			results[k].Moves = moves
			if first < 0 {
				first = k
			}
		}
	}
	if failed != nil {
		return results, first, done, fmt.Errorf("%w: unit %s: %s", ErrFailed, failed.Unit, failed.Error)
	}
	return results, first, done, nil
}

// checkFound checks a subtree's solution before it is believed: a solution of the unit's
// pass has the pass's bound in moves, starts with the unit's path and replays from the
// start to the goal. A solution that does not is the worker's fault.
func (r *run) checkFound(o *Outcome, u Unit, b *passes.Batch) error {
	moves, err := board.ParseDirs(o.Moves)
	if err == nil {
		var end board.State
		switch end, err = r.goal.Size().Replay(b.Start, moves); {
		case err != nil:
		case len(moves) != b.Bound:
			err = fmt.Errorf("%d moves in the pass of bound %d", len(moves), b.Bound)
		case !strings.HasPrefix(o.Moves, u.Path):
			err = fmt.Errorf("moves %s do not start with the subtree's path %s", o.Moves, u.Path)
		case !end.Equal(r.goal.Tiles()):
			err = fmt.Errorf("moves %s end on %s, not the goal", o.Moves, end)
		}
	}
	if err != nil {
		return fmt.Errorf("worker %q sent a solution of unit %s that fails its check: %v", o.Worker, o.Unit, err)
	}
	return nil
}

// audit is a subtree's result, to be checked by searching the subtree again here.
type audit struct {
	unit Unit
	of   Outcome
	b    *passes.Batch
	path []board.Dir
}

// DefaultAudit is solve15 cluster's audit fraction.
const DefaultAudit = 0.05

// ErrAudit is matched by the error of an instance whose audit found a worker's result
// wrong (it matches ErrFailed too).
var ErrAudit = fmt.Errorf("%w: an audit found a worker's result wrong", ErrFailed)

// chooseAudits picks, among the pass's results up to the deciding subtree (those its
// decision rests on), each with probability Audit once the results are in (so that no
// worker knows beforehand which of its results will be checked), and has the auditor
// search those subtrees again, in the background.
func (r *run) chooseAudits(units []Unit, ids []string, upto int, b *passes.Batch) map[int]bool {
	if r.auditor == nil {
		return nil
	}
	var chosen []audit
	picked := map[int]bool{}
	r.mu.Lock()
	for k := 0; k <= upto && k < len(ids); k++ {
		o := r.got[ids[k]]
		if o == nil || o.Failed || rand.Float64() >= r.c.Audit {
			continue
		}
		chosen = append(chosen, audit{unit: units[k], of: *o, b: b, path: b.Paths[k]})
		picked[k] = true
	}
	r.audited += len(chosen)
	r.mu.Unlock()
	r.auditing.Add(len(chosen))
	for _, a := range chosen {
		r.auditQueue <- a // the auditor holds no lock: a full queue only slows the pass
	}
	return picked
}

// runAuditor searches the audits' subtrees again with the coordinator's own solver, one
// at a time, and keeps the first disagreement.
func (r *run) runAuditor(ctx context.Context) {
	for a := range r.auditQueue {
		res, err := r.auditor.SearchBelow(ctx, a.b.Start, a.path, a.b.Bound)
		var bad error
		switch {
		case err != nil:
			bad = fmt.Errorf("%w: the audit of unit %s (worker %q's result) could not be done: %v", ErrFailed, a.of.Unit, a.of.Worker, err)
		case (res.Moves != nil) != a.of.Found || board.FormatDirs(res.Moves) != a.of.Moves || res.Work != a.of.Work || res.Value != a.of.Value:
			mine := Outcome{Found: res.Moves != nil, Moves: board.FormatDirs(res.Moves), Work: res.Work, Value: res.Value}
			bad = fmt.Errorf("%w: worker %q says of unit %s: %s; searched again here: %s", ErrAudit, a.of.Worker, a.of.Unit, claim(&a.of), claim(&mine))
		}
		if bad != nil {
			r.mu.Lock()
			if r.auditErr == nil {
				r.auditErr = bad
				if r.stopInstance != nil {
					r.stopInstance()
				}
			}
			r.mu.Unlock()
		}
		r.auditing.Done()
	}
}

// checkAudits waits for the audits of the current instance and returns the first
// disagreement they found.
func (r *run) checkAudits() error {
	if r.auditor == nil {
		return nil
	}
	r.auditing.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.auditErr
	r.auditErr = nil
	return err
}

// claim says what an outcome claims about its subtree.
func claim(o *Outcome) string {
	what := "no solution"
	if o.Found {
		what = "solution " + o.Moves
	}
	return fmt.Sprintf("%s in %d nodes (%d expanded)", what, o.Work.Nodes, o.Work.Expanded)
}
