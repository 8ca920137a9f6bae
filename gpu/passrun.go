package gpu

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
)

// work is what one launch searches: its subtrees' roots (and, for a catalogue, their
// lookups), in serial order unless the launch is given an order, the pass's bound, the
// most nodes the launch may generate (0: no limit), and the roots its frontier grows to on
// the card first (0: none; grow.go).
type work struct {
	roots []ida.Root
	seeds []ida.Seed
	bound int
	limit uint64
	grow  int
}

// maxParts is the most parts a subtree given up is split into.
const maxParts = 1 << 16

// The states of a subtree in a pass's run.
const (
	waiting = iota // to be searched
	gaveUp         // given up by its thread, to be split
	split          // split: its parts are subtrees of a deeper level
	done           // its result is known
)

// level is a batch whose subtrees a pass's run searches: the pass's own, or the parts of
// subtrees of another level given up and split further (passes.Deeper).
type level struct {
	b      *passes.Batch
	d      *passes.Deeper // how b was made (nil: the pass's batch)
	parent *level
	which  []int // the parent's subtrees that b's are the parts of
	roots  []ida.Root
	seeds  []ida.Seed
	out    []passes.SubtreeResult
	state  []uint8
	child  []*level // a split subtree's level (nil until one is split)
	chosen []int32  // a split subtree's place among its level's chosen ones
	first  int      // the first subtree known to hold a solution, itself or in its parts (len: none)
	next   int      // every subtree before it is done
	closed bool     // its results are its parent's
}

func newLevel(b *passes.Batch, m *ida.Model, d *passes.Deeper, parent *level, which []int) *level {
	n := len(b.Paths)
	return &level{b: b, d: d, parent: parent, which: which, roots: ida.Roots(b), seeds: m.Seeds(b),
		out: make([]passes.SubtreeResult, n), state: make([]uint8, n), first: n}
}

// settled says whether every subtree up to the first solution is done.
func (lv *level) settled() bool {
	for lv.next < len(lv.state) && lv.state[lv.next] == done {
		lv.next++
	}
	return lv.next >= len(lv.state) || lv.next > lv.first
}

// chosenOf is the chosen subtree (of lv.which) whose part subtree i of lv is.
func (lv *level) chosenOf(i int) int {
	return sort.Search(len(lv.which), func(k int) bool {
		_, to := lv.d.Parts(k)
		return to > i
	})
}

// item is subtree i of a level.
type item struct {
	lv *level
	i  int
}

// passRun is the search of one pass's batch on the device, where threads may give
// subtrees up (a set's: Tune.GiveUp). Its first launch searches the whole batch. Each
// later one takes what the pass still needs in serial order, up to capacity subtrees:
// subtrees not yet searched, and the subtrees given up, each split into parts (at least
// parts of them) as it is taken. Nothing after the first solution known is taken: a
// solution found below a subtree is a path within the bound, whose every node the serial
// search reaches (BPMX's values are admissible) unless it finds one earlier. Each split
// subtree's result is made from its parts' (passes.Deeper.Results) once they are done, so
// the pass's results are the serial search's, and the first solution is ida's.
type passRun struct {
	ctx        context.Context
	s          *ida.Solver
	m          *ida.Model
	b          *passes.Batch
	root       *level
	launch     func(w work, order []uint32, giveUp uint64) (*launch, error)
	grow       int    // the roots the first launch's frontier grows to on the card (0: none)
	giveUp     uint64 // the nodes below a subtree of the first launch at which its thread gives it up (0: never)
	partGiveUp uint64 // the same for a part of a subtree given up, in the later launches
	capacity   int
	parts      int
	used       uint64 // nodes the launches generated
	stats      *Stats
}

// run searches the pass, handing the first launch's subtrees out in order (nil: serial
// order), and returns the batch's results.
func (r *passRun) run(order []uint32) ([]passes.SubtreeResult, error) {
	root := r.root
	all := make([]item, len(root.roots))
	for i := range all {
		all[i] = item{root, i}
	}
	if err := r.search(all, work{roots: root.roots, seeds: root.seeds, grow: r.grow}, order, r.giveUp); err != nil {
		return root.out, err
	}
	for !root.settled() {
		items, w, splits, err := r.take()
		if err != nil {
			return root.out, err
		}
		if len(items) == 0 {
			if splits == 0 {
				return root.out, fmt.Errorf("gpu: internal error: a pass of bound %d left unsettled with nothing to search", r.b.Bound)
			}
			// Subtrees given up split into no parts (their pass holds no node below
			// them): their results are their own searches', and closing them moved the
			// pass on.
			continue
		}
		if err := r.search(items, w, nil, r.partGiveUp); err != nil {
			return root.out, err
		}
	}
	return root.out, nil
}

// search searches items (w: their roots) in one launch, a thread giving a subtree up at
// giveUp nodes, and takes in its results.
func (r *passRun) search(items []item, w work, order []uint32, giveUp uint64) error {
	if len(items) == 0 {
		return nil
	}
	w.bound = r.b.Bound
	if r.b.MaxNodes > 0 {
		if r.used >= r.b.MaxNodes {
			return passes.ErrNodeLimit
		}
		w.limit = r.b.MaxNodes - r.used
	}
	l, err := r.launch(w, order, giveUp)
	if err != nil {
		return err
	}
	for j := range l.gen {
		r.used += l.gen[j]
	}
	r.b.Did(r.used) // for Options.Progress: the launch's work
	if l.stopped {
		for j, it := range items {
			it.lv.out[it.i].Work.Add(passes.Work{Nodes: l.gen[j], Expanded: l.exp[j]})
		}
		if err := r.ctx.Err(); err != nil {
			return err
		}
		return passes.ErrNodeLimit
	}
	var touched []*level
	for j, it := range items {
		lv, i := it.lv, it.i
		res := &lv.out[i]
		switch {
		case j > l.best:
			// After the first solution: its work is the GPU's, and it is left.
			res.Work.Add(passes.Work{Nodes: l.gen[j], Expanded: l.exp[j]})
			continue
		case j == l.best && l.value != nil && l.value[j] < 0:
			// The first solution, below a subtree searched otherwise than the serial
			// search would have (a donated part's value rose): it holds a solution (the
			// serial search reaches every node of the path found unless it finds one
			// earlier), and its parts' replay, on the card, says which is first.
			r.spoiled(l.value[j])
			lv.state[i] = gaveUp
			r.found(lv, i)
		case j == l.best:
			// The first solution: its threads' counts run past it, in their order. Its
			// subtree is searched again split across the solver's cores (solving), for
			// the serial search's first solution and counts up to it.
			begin := time.Now()
			got, err := r.solving(lv, i)
			r.stats.SplitSeconds += time.Since(begin).Seconds()
			if err != nil {
				return err
			}
			if got.Moves == nil {
				return fmt.Errorf("gpu: internal error: the GPU found the goal below subtree %d (%s) of the pass of bound %d, the CPU none",
					i, board.FormatDirs(lv.b.Paths[i]), r.b.Bound)
			}
			*res = got
			lv.state[i] = done
			r.found(lv, i)
		case l.value != nil && l.value[j] < 0:
			r.spoiled(l.value[j])
			lv.state[i] = gaveUp
		default:
			*res = passes.SubtreeResult{Searched: true, Work: passes.Work{Nodes: l.gen[j], Expanded: l.exp[j]}}
			if l.value != nil {
				res.Value = int(l.value[j])
			}
			lv.state[i] = done
		}
		if len(touched) == 0 || touched[len(touched)-1] != lv {
			touched = append(touched, lv)
		}
	}
	for _, lv := range touched {
		if err := r.close(lv); err != nil {
			return err
		}
	}
	return nil
}

// solvingParts is about how many parts the subtree where the GPU met the first solution is
// split into, for the cores: many for each of them, so that they share it whatever its
// shape.
const solvingParts = 4096

// solving searches subtree i of lv, where the GPU met the first solution, again as the
// serial search would up to it: split into parts (passes.Deeper), the parts searched on the
// solver's workers, every core (passes.Workers), and the subtree's result made from
// theirs; never on one core alone, but for a subtree within a move of the bound, which
// holds no parts.
func (r *passRun) solving(lv *level, i int) (passes.SubtreeResult, error) {
	r.stats.Solving++
	d, err := passes.Deepen(r.ctx, lv.b, []int{i}, solvingParts)
	if err != nil {
		return passes.SubtreeResult{}, err
	}
	var parts []passes.SubtreeResult
	if len(d.Batch.Paths) > 0 {
		if parts, err = passes.Workers(0).SearchSubtrees(r.ctx, d.Batch); err != nil {
			return passes.SubtreeResult{}, err
		}
	}
	got, err := d.Results(r.ctx, parts)
	if err != nil {
		return passes.SubtreeResult{}, err
	}
	return got[0], nil
}

// spoiled counts a subtree whose search on the device was not the serial one (value:
// givenUp or raised), to be split.
func (r *passRun) spoiled(value int32) {
	if value == raised {
		r.stats.Raised++
	}
}

// found records that subtree i of lv holds a solution, and so the subtrees that hold it
// in the levels above.
func (r *passRun) found(lv *level, i int) {
	for lv != nil && i < lv.first {
		lv.first = i
		if lv.parent == nil {
			return
		}
		i = lv.which[lv.chosenOf(i)]
		lv = lv.parent
	}
}

// close makes the results of lv's chosen subtrees from their parts' once lv is settled,
// and so up the levels.
func (r *passRun) close(lv *level) error {
	for lv.parent != nil && !lv.closed && lv.settled() {
		begin := time.Now()
		got, err := lv.d.Results(r.ctx, lv.out)
		r.stats.SplitSeconds += time.Since(begin).Seconds()
		if err != nil {
			return err
		}
		lv.closed = true
		p := lv.parent
		for k, i := range lv.which {
			p.out[i], p.state[i] = got[k], done
			if got[k].Moves != nil && i < p.first {
				p.first = i
			}
		}
		if k := p.first; k < len(p.state) && p.state[k] == done && p.out[k].Moves == nil {
			return fmt.Errorf("gpu: internal error: subtree %d of a pass of bound %d held a solution in its parts, and none once they were replayed", k, r.b.Bound)
		}
		lv.out, lv.roots, lv.seeds = nil, nil, nil
		lv = p
	}
	return nil
}

// walk calls f for each subtree of lv from from to to (exclusive) that the pass still
// needs and that is not split, in serial order, descending into the parts of those split;
// it stops, returning false, when f does.
func walk(lv *level, from, to int, f func(lv *level, i int) bool) bool {
	from, to = max(from, lv.next), min(to, lv.first+1)
	for i := from; i < to; i++ {
		switch lv.state[i] {
		case done:
		case split:
			c := lv.child[i]
			lo, hi := c.d.Parts(int(lv.chosen[i]))
			if !walk(c, lo, hi, f) {
				return false
			}
		default:
			if !f(lv, i) {
				return false
			}
		}
	}
	return true
}

// take returns what the next launch searches: in serial order, the subtrees still needed,
// those given up split first, up to the capacity; and how many subtrees it split (a
// subtree may split into no parts, its result then known at once).
func (r *passRun) take() ([]item, work, int, error) {
	// What fits, counting each subtree given up as r.parts.
	var plain, ups int
	var chosen []item
	walk(r.root, 0, len(r.root.state), func(lv *level, i int) bool {
		if lv.state[i] == gaveUp {
			chosen = append(chosen, item{lv, i})
			ups++
		} else {
			plain++
		}
		return plain+ups*r.parts < r.capacity
	})
	// Those given up, split: each level's at once, into as many parts as fill the launch.
	most, splits := plain, ups
	if ups > 0 {
		parts := min(max((r.capacity-plain)/ups, r.parts), maxParts)
		for len(chosen) > 0 {
			lv, n := chosen[0].lv, 1
			for n < len(chosen) && chosen[n].lv == lv {
				n++
			}
			which := make([]int, n)
			for k := range which {
				which[k] = chosen[k].i
			}
			chosen = chosen[n:]
			n, err := r.split(lv, which, parts)
			if err != nil {
				return nil, work{}, 0, err
			}
			most += n
		}
	}
	// Then the same stretch of the pass again: the subtrees waiting, parts included.
	var items []item
	var w work
	cat := false
	walk(r.root, 0, len(r.root.state), func(lv *level, i int) bool {
		if lv.state[i] != waiting {
			return true
		}
		if len(items) >= most {
			return false
		}
		items = append(items, item{lv, i})
		w.roots = append(w.roots, lv.roots[i])
		if lv.seeds != nil {
			w.seeds = append(w.seeds, lv.seeds[i])
			cat = true
		}
		return true
	})
	if cat && len(w.seeds) != len(w.roots) {
		return nil, work{}, 0, errors.New("gpu: internal error: a launch of subtrees with and without their lookups")
	}
	return items, w, splits, nil
}

// split splits the subtrees which of lv, given up, into about parts each: a level of their
// parts, whose number it returns.
func (r *passRun) split(lv *level, which []int, parts int) (int, error) {
	begin := time.Now()
	d, err := passes.Deepen(r.ctx, lv.b, which, parts)
	r.stats.SplitSeconds += time.Since(begin).Seconds()
	if err != nil {
		return 0, err
	}
	r.stats.GivenUp += uint64(len(which))
	c := newLevel(d.Batch, r.m, d, lv, which)
	if lv.child == nil {
		lv.child, lv.chosen = make([]*level, len(lv.state)), make([]int32, len(lv.state))
	}
	for k, i := range which {
		lv.state[i], lv.child[i], lv.chosen[i] = split, c, int32(k)
	}
	return len(c.state), r.close(c)
}
