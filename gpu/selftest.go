package gpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
)

// Check is one position of a self-test: what the GPU and the CPU found.
type Check struct {
	Board    string  `json:"board"`
	Start    string  `json:"start"`
	Length   int     `json:"length"`
	Passes   int     `json:"passes"` // passes split onto the GPU
	Serial   uint64  `json:"serial_nodes"`
	Device   uint64  `json:"device_nodes"`
	Seconds  float64 `json:"gpu_seconds"`
	CPU      float64 `json:"cpu_seconds"`
	Agree    bool    `json:"agree"`
	Problem  string  `json:"problem,omitempty"`
	Expanded uint64  `json:"serial_expanded"`
}

// SelfTest solves positions of the 4x4 and 5x5 boards (random walks from a fixed seed,
// with the Manhattan distance) on the device and on one CPU goroutine, every pass after
// the first split onto the GPU, and compares the solutions and the serial counts. It takes
// about as long as budget (the CPU's searches), and fails with the first disagreement.
func SelfTest(ctx context.Context, dv *Device, budget time.Duration) ([]Check, error) {
	rng := rand.New(rand.NewPCG(2017, 39))
	begin := time.Now()
	var out []Check
	for _, size := range []board.Size{board.Size4x4, board.Size5x5} {
		goal := board.BlankFirst(size)
		s, err := ida.New(goal, ida.Options{Heuristic: ida.MD})
		if err != nil {
			return out, err
		}
		// The CPU's searches are bounded: a position past the bound is skipped.
		cpu, err := ida.New(goal, ida.Options{Heuristic: ida.MD, MaxNodes: selfTestNodes})
		if err != nil {
			return out, err
		}
		e, err := dv.Engine(s)
		if err != nil {
			return out, err
		}
		walk := 56
		if size == board.Size5x5 {
			walk = 40
		}
		for k := 0; k < 6 && len(out) < 3*(1+int(size.W-4)) && time.Since(begin) < budget; k++ {
			start, _ := goal.RandomWalk(walk+4*k, rng)
			c, err := check(ctx, cpu, s, e, start)
			if errors.Is(err, ida.ErrNodeLimit) {
				continue
			}
			out = append(out, c)
			if err != nil {
				e.Close()
				return out, err
			}
			if !c.Agree {
				e.Close()
				return out, fmt.Errorf("gpu: the self-test's %s position %s: %s", c.Board, c.Start, c.Problem)
			}
		}
		e.Close()
	}
	return out, nil
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
