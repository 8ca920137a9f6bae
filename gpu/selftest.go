package gpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
)

// Check is one position of a self-test: what the GPU and the CPU found.
type Check struct {
	Board     string  `json:"board"`
	Heuristic string  `json:"heuristic"`
	Start     string  `json:"start"`
	Length    int     `json:"length"`
	Passes    int     `json:"passes"` // passes split onto the GPU
	Serial    uint64  `json:"serial_nodes"`
	Device    uint64  `json:"device_nodes"`
	Seconds   float64 `json:"gpu_seconds"`
	CPU       float64 `json:"cpu_seconds"`
	Agree     bool    `json:"agree"`
	Problem   string  `json:"problem,omitempty"`
	Expanded  uint64  `json:"serial_expanded"`
}

// SelfTest solves positions (random walks from a fixed seed) on the device and on one CPU
// goroutine, every pass after the first split onto the GPU, and compares the solutions and
// the serial counts: of the 4x4 and 5x5 boards with the Manhattan distance (search.h), and
// of the 4x4 board with a catalogue of zero-aware tables in the bit encoding, built here in
// a tenth of a second (cat.h, the kernel's small-t search). It takes about as long as
// budget (the CPU's searches), and fails with the first disagreement.
func SelfTest(ctx context.Context, dv *Device, budget time.Duration) ([]Check, error) {
	rng := rand.New(rand.NewPCG(2017, 39))
	cat, err := selfTestCatalogue(ctx)
	if err != nil {
		return nil, err
	}
	return selfTest(ctx, dv, budget, rng, []selfCase{
		{"md", board.BlankFirst(board.Size4x4), ida.Options{Heuristic: ida.MD}, 56, 3},
		{"md", board.BlankFirst(board.Size5x5), ida.Options{Heuristic: ida.MD}, 40, 3},
		{"a zero-aware catalogue in bits", board.BlankFirst(board.Size4x4), ida.Options{Set: cat}, 56, 2},
	})
}

// selfCase is one heuristic of the self-test: at most max positions, random walks of walk
// moves, then 4 more each.
type selfCase struct {
	name      string
	goal      board.Goal
	opt       ida.Options
	walk, max int
}

// selfTest runs the self-test's cases.
func selfTest(ctx context.Context, dv *Device, budget time.Duration, rng *rand.Rand, cases []selfCase) ([]Check, error) {
	var out []Check
	for _, c := range cases {
		s, err := ida.New(c.goal, c.opt)
		if err != nil {
			return out, err
		}
		// The CPU's searches are bounded: a position past the bound is skipped.
		bounded := c.opt
		bounded.MaxNodes = selfTestNodes
		cpu, err := ida.New(c.goal, bounded)
		if err != nil {
			return out, err
		}
		e, err := dv.Engine(s)
		if err != nil {
			return out, err
		}
		// Each heuristic its share of the budget, and at least one position.
		caseBegin := time.Now()
		for k, n := 0, 0; k < 6 && n < c.max && (n == 0 || time.Since(caseBegin) < budget/time.Duration(len(cases))); k++ {
			start, _ := c.goal.RandomWalk(c.walk+4*k, rng)
			ck, err := check(ctx, cpu, s, e, start)
			if errors.Is(err, ida.ErrNodeLimit) {
				continue
			}
			ck.Heuristic = c.name
			out = append(out, ck)
			n++
			if err != nil {
				e.Close()
				return out, err
			}
			if !ck.Agree {
				e.Close()
				return out, fmt.Errorf("gpu: the self-test's %s position %s with %s: %s", ck.Board, ck.Start, c.name, ck.Problem)
			}
		}
		e.Close()
	}
	return out, nil
}

// selfTestCatalogue builds the self-test's catalogue: the rows and the columns of 4x4 in
// groups of four (and their reflections), zero-aware, in the bit encoding.
func selfTestCatalogue(ctx context.Context) (*pdb.Set, error) {
	spec, err := pdb.NewCatalogue("self-test", board.BlankLast(board.Size4x4), true, true, [][][]int{
		{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15}},
		{{1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}, {4, 8, 12}},
	})
	if err != nil {
		return nil, err
	}
	set, err := pdb.NewSet(ctx, spec, 1)
	if err != nil {
		return nil, err
	}
	return set.ToBits(ctx, 1)
}

// selfTestNodes bounds the self-test's CPU searches (about a second each).
const selfTestNodes = 100_000_000

// check solves start on the CPU (with cpu, a solver that may stop at its node limit) and
// with e (s's engine), and compares.
func check(ctx context.Context, cpu, s *ida.Solver, e *Engine, start board.State) (Check, error) {
	c := Check{Board: s.Goal().Size().String(), Start: start.String()}
	begin := time.Now()
	want, err := cpu.Solve(ctx, start)
	if err != nil {
		return c, err
	}
	c.CPU = time.Since(begin).Seconds()
	c.Length, c.Serial, c.Expanded = len(want.Moves), want.Nodes, want.Expanded
	before := e.Stats()
	begin = time.Now()
	got, err := s.Run(ctx, start, ida.Plan{Runner: e, Split: func(p ida.PassPlan) (int, func([]board.Dir) bool) {
		if len(p.Passes) == 0 {
			return 0, nil
		}
		return 1 << 14, nil
	}})
	if err != nil {
		return c, err
	}
	c.Seconds = time.Since(begin).Seconds()
	after := e.Stats()
	c.Passes, c.Device = after.Passes-before.Passes, after.Nodes-before.Nodes
	switch {
	case board.FormatDirs(got.Moves) != board.FormatDirs(want.Moves):
		c.Problem = fmt.Sprintf("the GPU's solution %s, the CPU's %s", board.FormatDirs(got.Moves), board.FormatDirs(want.Moves))
	case got.Serial != ida.Work{Nodes: want.Nodes, Expanded: want.Expanded}:
		c.Problem = fmt.Sprintf("serial counts %d generated, %d expanded through the GPU; %d and %d on the CPU", got.Serial.Nodes, got.Serial.Expanded, want.Nodes, want.Expanded)
	case c.Passes == 0:
		c.Problem = "no pass went to the GPU"
	default:
		c.Agree = true
	}
	return c, nil
}
