package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/report"
)

// Redundancy (Coordinator.Quorum): each unit handed to Quorum distinct workers as copies,
// its result taken only once they agree, and a disagreement settled by the coordinator's
// own search, as BOINC accepts a result only from a quorum of distinct hosts (Anderson,
// "BOINC: A System for Public-Resource Computing and Storage", 2004).

// A vote is the copies of one unit.
type vote struct {
	unit     Unit // the unit, once handed out (a restart reads results before)
	known    bool
	settling bool // being searched here
}

// quorum is how many distinct workers each unit goes to.
func (r *run) quorum() int { return max(r.c.Quorum, 1) }

// copies makes each unit of units Quorum copies, all first copies before all second
// ones, so that distinct workers tend to take a unit's copies; without a quorum, units.
// Copies handed out again pass through as they are. r.mu is held.
func (r *run) copies(units []Unit) []Unit {
	q := r.quorum()
	if q == 1 {
		return units
	}
	var out []Unit
	for k := 1; k <= q; k++ {
		for _, u := range units {
			if u.Copy > 0 {
				if k == 1 {
					out = append(out, u)
				}
				continue
			}
			if k == 1 {
				if r.votes == nil {
					r.votes = map[string]*vote{}
				}
				v := r.votes[u.ID]
				if v == nil {
					v = &vote{}
					r.votes[u.ID] = v
				}
				v.unit, v.known = u, true
			}
			c := u
			c.ID, c.Copy = copyID(u.ID, k), k
			out = append(out, c)
		}
	}
	return out
}

// idsOf is the IDs under which unit id is handed out: its copies', or its own.
func (r *run) idsOf(id string) []string {
	q := r.quorum()
	if q == 1 {
		return []string{id}
	}
	ids := make([]string, q)
	for k := range ids {
		ids[k] = copyID(id, k+1)
	}
	return ids
}

// twice reports whether o is a result for a copy of a unit whose other copy its worker
// has already answered: it is passed over, and the copy goes out again, for another
// worker (failedBy; not the worker's failure). r.mu is held.
func (r *run) twice(ctx context.Context, o *Outcome) bool {
	base, k := unitOf(o.Unit)
	if k == 0 || o.Failed || o.Worker == "" {
		return false
	}
	dup := false
	for j, id := range r.idsOf(base) {
		if other := r.got[id]; j+1 != k && other != nil && other.Worker == o.Worker {
			dup = true
		}
	}
	if !dup {
		return false
	}
	if r.deferEarly(o.Ack, func(e *early) { e.unit, e.twice = o.Unit, o }) {
		return true
	}
	r.refused++
	seq, _ := ackSeq(o.Ack)
	h := r.out[o.Unit]
	if h == nil || seq != h.seq || h.failed == seq {
		return true
	}
	h.failed = seq
	if r.failedBy(h, o.Worker, twiceSaid(r.quorum())) {
		delete(r.out, o.Unit)
		go r.fail(ctx, h.unit, seq, h.failReason())
		return true
	}
	r.again(ctx, h)
	return true
}

// twiceSaid is what a copy's failure says when its worker has another copy.
func twiceSaid(q int) string {
	return fmt.Sprintf("it has another copy of this unit (--quorum %d needs %d distinct workers)", q, q)
}

// count takes the outcome of a copy of unit base into its vote, and decides the unit once
// every copy has one: failed when a copy failed for good, the copies' result when they
// agree (with the workers that agree), or, when they do not, the coordinator's own
// search's (settle). r.mu is held.
func (r *run) count(ctx context.Context, base string) {
	v := r.votes[base]
	if v == nil {
		v = &vote{}
		if r.votes == nil {
			r.votes = map[string]*vote{}
		}
		r.votes[base] = v
	}
	if !v.known || v.settling || r.got[base] != nil {
		return
	}
	var outs []*Outcome
	for _, id := range r.idsOf(base) {
		o := r.got[id]
		if o == nil {
			return
		}
		outs = append(outs, o)
	}
	for k, o := range outs {
		if o.Failed {
			m := *o
			m.Unit, m.Error = base, fmt.Sprintf("copy %d of %d: %s", k+1, len(outs), o.Error)
			r.decided(&m)
			return
		}
	}
	agreed := []string{outs[0].Worker}
	for _, o := range outs[1:] {
		if !agree(outs[0], o) {
			v.settling = true
			go r.settle(ctx, base, v.unit, outs)
			return
		}
		agreed = append(agreed, o.Worker)
	}
	m := *outs[0]
	m.Unit, m.Agreed = base, agreed
	r.decided(&m)
}

// decided makes o its unit's outcome, the unit's copies' vote decided. r.mu is held.
func (r *run) decided(o *Outcome) {
	r.got[o.Unit] = o
	r.doneUnits++
	if o.Failed {
		r.failed++
	}
	r.changed.Broadcast()
}

// agree reports whether two workers' outcomes of one unit say the same: the same
// solution, or none, and the serial search's counts.
func agree(a, b *Outcome) bool {
	if a.Record == nil || b.Record == nil {
		return a.Record == nil && b.Record == nil && a.Found == b.Found && a.Moves == b.Moves && a.Work == b.Work && a.Value == b.Value
	}
	x, y := a.Record, b.Record
	return x.Solved == y.Solved && x.Optimal == y.Optimal && x.Length == y.Length && x.Moves == y.Moves && x.SerialWork() == y.SerialWork()
}

// says says what an outcome claims, for people.
func says(o *Outcome) string {
	if o.Record == nil {
		return claim(o)
	}
	rec := o.Record
	if !rec.Solved {
		return "not solved"
	}
	w := rec.SerialWork()
	what := format.Count(rec.Length, "move")
	if rec.Optimal {
		what += ", optimal"
	}
	return fmt.Sprintf("%s in %d nodes (%d expanded)", what, w.Nodes, w.Expanded)
}

// settle searches unit u here, its copies' outcomes having disagreed, and makes that its
// outcome, saying the dispute and naming the workers it contradicts; a search that cannot
// finish fails the unit.
func (r *run) settle(ctx context.Context, base string, u Unit, outs []*Outcome) {
	mine, err := r.searchHere(ctx, u)
	r.mu.Lock()
	defer r.mu.Unlock()
	var said []string
	var wrong []string
	for _, o := range outs {
		said = append(said, fmt.Sprintf("worker %q said %s", o.Worker, says(o)))
		if err == nil && !agree(o, mine) && !slices.Contains(wrong, o.Worker) {
			wrong = append(wrong, o.Worker)
		}
	}
	if err != nil {
		r.decided(&Outcome{Unit: base, Index: u.Index, Seq: u.Seq, Failed: true,
			Error: fmt.Sprintf("the workers disagreed (%s), and the search here could not settle it: %v", strings.Join(said, "; "), err)})
		return
	}
	mine.Unit, mine.Index, mine.Seq, mine.Here, mine.Wrong = base, u.Index, u.Seq, true, wrong
	mine.Dispute = fmt.Sprintf("on %s the workers disagreed: %s; searched here: %s, which the answer rests on (wrong: %s)",
		unitName(u), strings.Join(said, "; "), says(mine), strings.Join(quoted(wrong), ", "))
	if u.Bound > 0 {
		r.disputes = append(r.disputes, mine) // its instance's record says it (split)
	}
	r.decided(mine)
}

// unitName names a unit for people: its instance, and a subtree's pass and path.
func unitName(u Unit) string {
	if u.Bound == 0 {
		return "instance " + u.Label
	}
	return fmt.Sprintf("instance %s's subtree %q in the pass of bound %d", u.Label, u.Path, u.Bound)
}

// quoted is each name quoted.
func quoted(names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, fmt.Sprintf("%q", n))
	}
	return out
}

// searchHere searches unit u with the coordinator's own solver, as a worker does: a whole
// instance within the job's timeout, or a subtree to its end.
func (r *run) searchHere(ctx context.Context, u Unit) (*Outcome, error) {
	start, err := board.FromInts(r.goal.Size(), u.Start)
	if err != nil {
		return nil, err
	}
	if u.Bound == 0 {
		if r.c.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, r.c.Timeout)
			defer cancel()
		}
		res, err := r.auditor.Solve(ctx, start)
		if err != nil {
			return nil, err
		}
		rec := report.NewRecord(r.goal, start, res, nil)
		return &Outcome{Record: &rec, Work: rec.SerialWork()}, nil
	}
	path, err := board.ParseDirs(u.Path)
	if err != nil {
		return nil, err
	}
	res, err := r.auditor.SearchBelow(ctx, start, path, u.Bound)
	if err != nil {
		return nil, err
	}
	return &Outcome{Found: res.Moves != nil, Moves: board.FormatDirs(res.Moves), Work: res.Work, Value: res.Value}, nil
}

// disputesOf takes the disputes settled for instance index (its split passes' units).
// r.mu is held.
func (r *run) disputesOf(index int) []*Outcome {
	var mine []*Outcome
	r.disputes = slices.DeleteFunc(r.disputes, func(o *Outcome) bool {
		if o.Index == index {
			mine = append(mine, o)
			return true
		}
		return false
	})
	return mine
}
