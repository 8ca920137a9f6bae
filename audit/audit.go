// Package audit measures a heuristic against exact distances: how often and by how much it
// overestimates (so whether it is admissible), whether it is consistent (no move changes it
// by more than one), and how close it comes on average.
//
// Small boards are audited exhaustively: the exact distance of every state comes from one
// breadth-first search (a pattern database of all the tiles and the blank, built by package
// bfs; 181,440 states on the 8-puzzle). Larger boards are audited on a sample of random
// states solved optimally by package solve.
package audit

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/solve"
)

// MaxExhaustiveCells is the largest board audited exhaustively: 10 cells (3,628,800
// arrangements); the next size up, 12 cells, has 479 million.
const MaxExhaustiveCells = 10

// Example is a state where the heuristic overestimates.
type Example struct {
	State     string `json:"state"`
	H         int    `json:"h"`
	Distance  int    `json:"distance"`
	Overshoot int    `json:"overshoot"`
}

// Report is the outcome of an audit.
type Report struct {
	Board           string    `json:"board"`
	Goal            string    `json:"goal"`
	Heuristic       string    `json:"heuristic"`
	ClaimedAdmiss   bool      `json:"claimed_admissible"`
	Mode            string    `json:"mode"` // "exhaustive" or "sample"
	States          int64     `json:"states"`
	Overestimated   int64     `json:"overestimated"`
	MaxOverestimate int       `json:"max_overestimate"`
	Inconsistent    int64     `json:"inconsistent"` // moves (each counted once) changing h by more than 1
	Moves           int64     `json:"moves_checked"`
	MeanH           float64   `json:"mean_h"`
	MeanDistance    float64   `json:"mean_distance"`
	MeanRatio       float64   `json:"mean_ratio"` // mean of h/d over states with d > 0
	Histogram       []int64   `json:"overestimate_histogram"`
	Examples        []Example `json:"examples"`
}

// Options tune an audit.
type Options struct {
	Sample   int    // states to sample when the board is too large to enumerate
	Walk     int    // sample by random walks of this many moves instead of uniform states
	Seed     uint64 // random seed of the sample
	Examples int    // counter-examples kept; 0 for 5
	Workers  int    // 0 for all cores
}

// Run audits h on its goal's board: exhaustively when the board has at most
// MaxExhaustiveCells cells, else on opt.Sample states.
func Run(ctx context.Context, h *heuristic.Heuristic, opt Options) (*Report, error) {
	if opt.Examples <= 0 {
		opt.Examples = 5
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	r := &Report{Board: h.Goal.Size().String(), Goal: h.Goal.Name(), Heuristic: h.Name, ClaimedAdmiss: h.Admissible}
	if h.Goal.Size().Cells() <= MaxExhaustiveCells {
		return r, exhaustive(ctx, h, r, opt)
	}
	if opt.Sample <= 0 {
		return nil, fmt.Errorf("audit: a %s board has too many states to enumerate; give a sample size", h.Goal.Size())
	}
	return r, sample(ctx, h, r, opt)
}

// tally accumulates one state's figures.
func (r *Report) tally(size board.Size, s board.State, h, d int, ratio *float64, keep int) {
	r.States++
	r.MeanH += float64(h)
	r.MeanDistance += float64(d)
	if d > 0 {
		*ratio += float64(h) / float64(d)
	}
	if over := h - d; over > 0 {
		r.Overestimated++
		r.MaxOverestimate = max(r.MaxOverestimate, over)
		for len(r.Histogram) <= over {
			r.Histogram = append(r.Histogram, 0)
		}
		r.Histogram[over]++
		if len(r.Examples) < keep {
			r.Examples = append(r.Examples, Example{State: size.Format(s), H: h, Distance: d, Overshoot: over})
		}
	}
}

func (r *Report) finish(ratio float64, nonzero int64) {
	if r.States > 0 {
		r.MeanH /= float64(r.States)
		r.MeanDistance /= float64(r.States)
	}
	if nonzero > 0 {
		r.MeanRatio = ratio / float64(nonzero)
	}
	if r.Histogram == nil {
		r.Histogram = []int64{}
	}
	if r.Examples == nil {
		r.Examples = []Example{}
	}
}

func exhaustive(ctx context.Context, h *heuristic.Heuristic, r *Report, opt Options) error {
	r.Mode = "exhaustive"
	goal := h.Goal
	size := goal.Size()
	n := size.Cells()
	var tiles []int
	for t := 1; t < n; t++ {
		tiles = append(tiles, t)
	}
	// A pattern of every tile and the blank: its database is the exact distance table.
	p, err := pdb.NewPattern(goal, tiles, true)
	if err != nil {
		return err
	}
	dist, err := pdb.Build(ctx, p, pdb.Options{Workers: opt.Workers})
	if err != nil {
		return err
	}
	// h of every reachable state, in parallel.
	hs := make([]int16, p.Len())
	var wg sync.WaitGroup
	per := (p.Len() + opt.Workers - 1) / opt.Workers
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cells := make([]uint8, n)
			s := make(board.State, n)
			for i := w * per; i < min((w+1)*per, p.Len()); i++ {
				if dist.Entries[i] == pdb.Unreachable {
					continue
				}
				toState(p, uint32(i), cells, s)
				hs[i] = int16(h.Eval(s))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	cells := make([]uint8, n)
	s := make(board.State, n)
	var ratio float64
	var nonzero int64
	for i := 0; i < p.Len(); i++ {
		d := dist.Entries[i]
		if d == pdb.Unreachable {
			continue
		}
		toState(p, uint32(i), cells, s)
		r.tally(size, s, int(hs[i]), int(d), &ratio, opt.Examples)
		if d > 0 {
			nonzero++
		}
		// Each move once: from the lower index to the higher.
		b := s.Blank()
		for _, dir := range board.Dirs {
			q := size.Step(b, dir)
			if q < 0 {
				continue
			}
			s[b], s[q] = s[q], 0
			j := p.Index(s)
			s[q], s[b] = s[b], 0
			if int(j) > i {
				r.Moves++
				if diff := int(hs[i]) - int(hs[j]); diff > 1 || diff < -1 {
					r.Inconsistent++
				}
			}
		}
	}
	r.finish(ratio, nonzero)
	return nil
}

// toState fills s with the arrangement of index i of the all-tile pattern.
func toState(p *pdb.Pattern, i uint32, cells []uint8, s board.State) {
	p.Unrank(i, cells)
	tiles := p.Tiles()
	for k, t := range tiles {
		s[cells[k]] = uint8(t)
	}
	s[cells[len(tiles)]] = 0
}

func sample(ctx context.Context, h *heuristic.Heuristic, r *Report, opt Options) error {
	r.Mode = "sample"
	goal := h.Goal
	size := goal.Size()
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	solve, err := optimalSolver(goal)
	if err != nil {
		return err
	}
	var ratio float64
	var nonzero int64
	for i := 0; i < opt.Sample; i++ {
		var s board.State
		if opt.Walk > 0 {
			s, _ = goal.RandomWalk(opt.Walk, rng)
		} else {
			s = goal.Random(rng)
		}
		d, err := solve(ctx, s)
		if err != nil {
			return fmt.Errorf("audit: solving sample %d (%s): %w", i+1, size.Format(s), err)
		}
		hv := h.Eval(s)
		r.tally(size, s, hv, d, &ratio, opt.Examples)
		if d > 0 {
			nonzero++
		}
		for _, dir := range board.Dirs {
			n := s.Clone()
			if size.Move(n, dir) {
				r.Moves++
				if diff := hv - h.Eval(n); diff > 1 || diff < -1 {
					r.Inconsistent++
				}
			}
		}
	}
	r.finish(ratio, nonzero)
	return nil
}

// optimalSolver returns the fastest optimal solver for the goal: package solve's choice.
func optimalSolver(goal board.Goal) (func(context.Context, board.State) (int, error), error) {
	s, err := solve.New(context.Background(), goal, solve.Options{})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, st board.State) (int, error) {
		res, err := s.Solve(ctx, st)
		if err != nil {
			return 0, err
		}
		return res.Length(), nil
	}, nil
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) {
	claim := "admissible"
	if !r.ClaimedAdmiss {
		claim = "not admissible"
	}
	fmt.Fprintf(w, "%s on %s, goal %s (%s by design), %s audit\n", r.Heuristic, r.Board, r.Goal, claim, r.Mode)
	fmt.Fprintf(w, "  states:          %d\n", r.States)
	fmt.Fprintf(w, "  overestimated:   %d (%.2f%%), by at most %d\n", r.Overestimated, 100*float64(r.Overestimated)/float64(max(r.States, 1)), r.MaxOverestimate)
	fmt.Fprintf(w, "  inconsistent:    %d of %d moves change h by more than 1\n", r.Inconsistent, r.Moves)
	fmt.Fprintf(w, "  mean h:          %.3f against a mean distance of %.3f (mean h/d %.3f)\n", r.MeanH, r.MeanDistance, r.MeanRatio)
	for _, e := range r.Examples {
		fmt.Fprintf(w, "  e.g. %s: h %d, distance %d\n", e.State, e.H, e.Distance)
	}
}
