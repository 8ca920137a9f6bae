//go:build linux && (amd64 || arm64)

package gpu

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
)

// An Engine searches one solver's split passes on a device: an passes.Runner. Its searches
// run one at a time.
type Engine struct {
	dv     *Device
	solver *ida.Solver
	model  *ida.Model

	kernel uintptr    // its kind's entry (kinds)
	grow   [2]uintptr // its kind's growth's kernels, count and write (0: it does not grow)
	at     modelAt    // the tables, in device memory
	buf    *buffers   // the launches' buffers, in device memory
	grid   uint32

	turn  chan struct{} // held by the launch under way: one at a time
	mu    sync.Mutex
	stats Stats
}

// Engine prepares s's tables on the device. s's heuristic must be one the GPU searches
// (errHeuristic otherwise).
func (dv *Device) Engine(s *ida.Solver) (*Engine, error) {
	m, err := s.Model()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errHeuristic, err)
	}
	k, kd, err := kindOf(m)
	if err != nil {
		return nil, err
	}
	if k >= len(dv.entry) {
		return nil, fmt.Errorf("%w: the tests' kind %s, which the PTX does not have", errHeuristic, kd.entry)
	}
	e := &Engine{dv: dv, solver: s, model: m, kernel: dv.entry[k], grow: dv.grow[k], turn: make(chan struct{}, 1)}
	err = dv.do(func() error {
		var err error
		if e.at, err = putModel(dv, m); err != nil {
			return err
		}
		nl, np := 0, 0
		if kd.seeds {
			nl, np = len(m.Set.Lookups), m.Set.Parts
		}
		if e.buf, err = newBuffers(dv, queueCap, nl, np); err != nil {
			return err
		}
		var blocks int32
		if err := dv.d.check("cuOccupancyMaxActiveBlocksPerMultiprocessor", dv.d.cuOccupancyMaxActiveBlocksPer(&blocks, e.kernel, blockThreads, 0)); err != nil || blocks < 1 {
			blocks = 1
		}
		e.grid = uint32(int(blocks) * dv.info.SMs)
		return e.fitLocal()
	})
	if err != nil {
		e.Close()
		return nil, err
	}
	e.stats.Threads = int(e.grid) * blockThreads
	return e, nil
}

// fitLocal refuses a kernel whose local memory (a thread's path: 18 KB with a catalogue,
// 24 KB with a set) would take more than half the memory free once the tables are in. The
// driver reserves it for every thread the card could hold at once, not only those a
// launch has: fewer threads would not make it fit.
func (e *Engine) fitLocal() error {
	var local int32
	if e.dv.d.cuFuncGetAttribute(&local, funcLocalBytes, e.kernel) != 0 || local <= 0 {
		return nil
	}
	resident := uint64(e.dv.info.ThreadsPerSM) * uint64(e.dv.info.SMs)
	if resident == 0 {
		resident = uint64(e.grid) * blockThreads
	}
	var free, total uint64
	e.dv.d.cuMemGetInfo(&free, &total)
	if need := uint64(local) * resident; need > free/2 {
		return fmt.Errorf("%w: the kernel takes %.1f KB of local memory a thread, which the driver reserves for each of the %d threads %s holds at once: %.1f GB, more than half the %.1f GB free",
			errMemory, float64(local)/1e3, resident, e.dv.info.Name, float64(need)/1e9, float64(free)/1e9)
	}
	return nil
}

// Close releases the engine's device memory (on any goroutine; nothing once a kernel
// failed, whose context the device's Close releases).
func (e *Engine) Close() error {
	e.dv.do(func() error {
		e.at.free(e.dv)
		if e.buf != nil {
			e.buf.free(e.dv)
		}
		return nil
	})
	return nil
}

// Stats returns what the engine's launches have done so far.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// SearchSubtrees searches the batch's subtrees on the device (passes.Runner), handing them to
// the threads in serial order.
func (e *Engine) SearchSubtrees(ctx context.Context, b *passes.Batch) ([]passes.SubtreeResult, error) {
	return e.Search(ctx, b, Hints{})
}

// Search searches the batch's subtrees on the device as sch says. The results, the
// solution and the serial counts do not depend on it.
//
// A thread gives up a subtree once it has generated Tune.GiveUp nodes below it (by
// default never; where a set's threads do not donate, Tune.NoDonate, a few times its share
// of the pass's expected nodes, sch.Expected). Where a set's threads donate, a subtree
// where a part donated would have cut its donor's node (BPMX) counts as given up.
// The engine splits the subtrees given up further (passes.Deeper), searches their parts in
// another launch (and so on), and makes their results from their parts'; it takes them a
// chunk at a time in serial order (Tune.Chunk), and leaves those after the first solution.
// The work of a subtree given up counts only in the engine's Stats.
//
// Searches of several goroutines take the device in turn, a launch at a time; one waiting
// for its turn returns ctx's error as soon as ctx is done.
func (e *Engine) Search(ctx context.Context, b *passes.Batch, sch Hints) ([]passes.SubtreeResult, error) {
	// The roots are made before the search's first launch takes its turn: another's may
	// be on the GPU.
	root := newLevel(b, e.model, nil, nil, nil)
	if root.roots == nil && len(b.Paths) > 0 {
		return nil, fmt.Errorf("gpu: a batch that ida did not make has no roots to search")
	}
	own := Stats{Passes: 1, Threads: e.Stats().Threads}
	defer func() {
		e.mu.Lock()
		e.stats.Add(own)
		e.mu.Unlock()
		if sch.Tally != nil {
			sch.Tally.Add(own)
		}
	}()
	var giveUp uint64
	if e.model.Set != nil {
		giveUp = uint64(e.dv.tune.GiveUp)
		if giveUp == 0 && !e.Donates() && sch.Expected > 0 {
			giveUp = max(uint64(giveUpShares*sch.Expected/float64(max(own.Threads, 1))), minGiveUp)
		}
	}
	r := &passRun{ctx: ctx, s: e.solver, m: e.model, b: b, stats: &own,
		root:     root,
		capacity: e.chunk(own.Threads),
		parts:    int(cmp.Or(e.dv.tune.Parts, minParts)),
		giveUp:   giveUp,
		grow:     e.growTo(own.Threads),
		launch: func(w work, order []uint32, giveUp uint64) (*launch, error) {
			// The device is this search's for the launch only: between launches
			// (splitting, the solving subtree searched again) another's may run.
			waited := time.Now()
			select {
			case e.turn <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			own.WaitSeconds += time.Since(waited).Seconds()
			l, err := e.launch(ctx, w, order, giveUp, &own)
			<-e.turn
			if l == nil && err == nil {
				err = errors.New("gpu: internal error: a launch of no subtrees")
			}
			return l, err
		},
	}
	if giveUp > 0 {
		r.partGiveUp = cmp.Or(uint64(e.dv.tune.PartGiveUp), max(giveUp/partGiveUpShare, min(giveUp, minGiveUp/partGiveUpShare)))
	}
	return r.run(sch.Order)
}

// Grows says whether the engine grows a pass's frontier on the card (its kind's
// kernels, Tune.Roots). The growth keeps the order of the top the host hands it: the
// roots grown below a subtree are taken where it would have been.
func (e *Engine) Grows() bool { return e.grow[0] != 0 && e.dv.tune.Roots != 1 }

// growTo is the roots a pass's frontier grows to on the card, for a launch of threads
// threads (Tune.Roots; 0: no growth).
func (e *Engine) growTo(threads int) int {
	if !e.Grows() {
		return 0
	}
	return int(cmp.Or(e.dv.tune.Roots, uint32(min(rootsPerThread*threads, maxRoots))))
}

// maxRoots is the most roots a frontier grows to by default (Tune.Roots may ask for more):
// 4 a thread of a card of 520,000 threads, whose two levels take 670 MB of its memory (an
// H100's take 173 MB).
const maxRoots = 1 << 21

// A thread that does not donate gives a subtree up once it has generated giveUpShares
// times its share of the pass's expected nodes below it, and never under minGiveUp (the
// kernel looks at every poll: 32 expansions); it gives a part of one up after
// partGiveUpShare times fewer. A launch after a pass's first takes at most chunkSubtrees
// subtrees where the threads donate, chunkShare a thread where they do not; each subtree
// given up is split into at least minParts (as many as fill the launch where there are
// few), at most maxParts. The CPU makes every part (a frontier below the subtree, with
// the set's lookups): on k24-38 with 6-6-6-6, in the fake driver's emulation, splitting
// two subtrees into 65,571 parts took 2.27 s of two cores, into 9,348 parts 0.21 s, for
// 2,128 more rounds of the threads (docs/RESULTS.md).
const (
	giveUpShares    = 4
	minGiveUp       = 1 << 11
	partGiveUpShare = 4
	minParts        = 16
	chunkSubtrees   = 1 << 13
	chunkShare      = 2
)

// chunk is the most subtrees a launch after a pass's first holds (Tune.Chunk), for a
// launch of threads threads.
func (e *Engine) chunk(threads int) int {
	if e.dv.tune.Chunk != 0 {
		return int(e.dv.tune.Chunk)
	}
	if e.Donates() {
		return chunkSubtrees
	}
	return max(chunkShare*threads, 1)
}

// launch searches w's subtrees in one launch, handing them out in order (nil: serial
// order), a thread giving up a subtree below which it has generated giveUp nodes (0:
// never), and adds its figures to st. It returns nil for no subtrees.
func (e *Engine) launch(ctx context.Context, w work, order []uint32, giveUp uint64, st *Stats) (*launch, error) {
	n := len(w.roots)
	if n == 0 {
		return nil, nil
	}
	var out [passSize]byte
	var l *launch
	var upload, search, grown time.Duration
	var gr growth
	le := binary.LittleEndian
	err := e.dv.do(func() error {
		begin := time.Now()
		k := passKnobs{limit: w.limit, giveUp: giveUp, cancel: e.dv.hostDev + hostCancel,
			donateAfter: cmp.Or(e.dv.tune.DonateAfter, donateAfter), pollEvery: e.dv.tune.PollEvery, waitMax: e.dv.tune.WaitMax,
			turn: e.dv.tune.Turn, most: e.donateMost(), above: e.dv.tune.DonateAbove, keep: e.keep(),
			donates: e.Donates(), values: e.model.Set != nil}
		if err := e.buf.stage(e.dv, w, order, k); err != nil {
			return err
		}
		h := e.dv.hostBytes()
		le.PutUint32(h[hostCancel:], 0)
		upload = time.Since(begin)
		// Cancel reaches the kernel through the mapped flag.
		stop := make(chan struct{})
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			select {
			case <-ctx.Done():
				le.PutUint32(h[hostCancel:], 1)
			case <-stop:
			}
		}()
		begin = time.Now()
		var err error
		if w.grow > 0 {
			gr, err = e.buf.grow(e.dv, func(which int, blocks uint32) error {
				fn := e.dv.order
				if which != growOrder {
					fn = e.grow[which-1]
				}
				return e.dv.launch(fn, blocks, e.buf.pass, e.at.tables)
			}, n, w.grow, false)
			grown = time.Since(begin)
		}
		if err == nil && !gr.stopped {
			err = e.dv.launch(e.kernel, e.grid, e.buf.pass, e.at.tables)
		}
		search = time.Since(begin)
		close(stop)
		<-watched
		if err != nil {
			return err
		}
		l, out, err = e.buf.collect(e.dv, n, e.model.Set != nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	if gr.stopped {
		l.stopped = true
	}
	one := Stats{Launches: 1, Subtrees: uint64(n), Roots: uint64(n), Donated: le.Uint64(out[passDonated:]),
		Claims: le.Uint64(out[passClaims:]), Misses: le.Uint64(out[passMisses:]),
		Threads: int(le.Uint32(out[passThreads:])), UploadSeconds: upload.Seconds(), SearchSeconds: search.Seconds(),
		Busy: le.Uint64(out[passBusy:]), Cycles: le.Uint64(out[passCycles:])}
	if w.grow > 0 {
		one.Roots, one.Levels, one.GrowLaunches, one.GrowSeconds = uint64(gr.roots), gr.levels, gr.launches, grown.Seconds()
	}
	for i := range l.gen {
		one.Nodes += l.gen[i]
		one.Expanded += l.exp[i]
	}
	st.Add(one)
	return l, nil
}

// donateMost is the most nodes a thread donates at a poll (Tune.DonateMost; 0: the
// kernel's default), held to what lets every thread's donations fit the queue at once (a
// thread donates only while the queue has room for every thread's donateMost + 3).
func (e *Engine) donateMost() uint32 {
	limit := max(queueCap/(int(e.grid)*blockThreads)-4, 1)
	return min(e.dv.tune.DonateMost, uint32(limit))
}

// keep is how many roots threads with a large root keep the queue at, idle threads or
// none (Tune.Keep; default: one for every keepShare threads, at most what the queue holds
// beside every thread's donations).
func (e *Engine) keep() uint32 {
	threads := int(e.grid) * blockThreads
	limit := uint32(max(queueCap-threads*(int(e.donateMost())+3), 0))
	return min(cmp.Or(e.dv.tune.Keep, uint32(threads/keepShare)), limit)
}

// keepShare is the threads for each root the queue is kept at by default: on the fake
// driver with an H100's threads, keeping an eighth of them took 0.73-0.76 times the
// rounds of keeping one on the three larger of six of Korf's 100 with md, and as many on
// the three smaller (docs/RESULTS.md, "The frontier grown on the card").
const keepShare = 8

// Donates says whether the engine's threads give work to idle ones: all but a set's that
// is not zero-aware tuned not to (Tune.NoDonate), whose threads give up what proves large.
func (e *Engine) Donates() bool {
	return e.model.Set == nil || !e.model.Set.Eager || e.dv.tune.NoDonate == 0
}

var _ passes.Runner = (*Engine)(nil)
