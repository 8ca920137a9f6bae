package gpu

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/passes"
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

// selfTest solves a fixed list of positions on the device and on one CPU goroutine, every
// pass after the first split onto the GPU, and compares the solutions and the serial
// counts: of the 4x4 and 5x5 boards with the Manhattan distance (pass.h), and of the 4x4
// board with a catalogue of zero-aware tables in the bit encoding, built here in a tenth of
// a second (cat.h, the kernel's small-t search). Every position has passes that reach the
// GPU, and one that does not fails the self-test, so it cannot pass without the GPU having
// searched. It fails with the first disagreement, and when it has not finished within
// limit (0: no limit), saying how far it got; the limit never chooses the positions.
func selfTest(ctx context.Context, dv *Device, limit time.Duration) ([]Check, error) {
	cat, err := selfTestCatalogue(ctx)
	if err != nil {
		return nil, err
	}
	cases := selfTestCases(cat)
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	checks, err := runCases(ctx, dv, cases)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && limit > 0 {
		total := 0
		for _, c := range cases {
			total += len(c.starts)
		}
		return checks, fmt.Errorf("gpu: the self-test did not finish within %v: %d of its %d positions checked", limit, len(checks), total)
	}
	return checks, err
}

// selfCase is one heuristic of the self-test and its positions.
type selfCase struct {
	name   string
	goal   board.Goal
	opt    ida.Options
	starts []string
}

// selfTestCases are the self-test's positions: random walks (from the goal, of 38-58
// moves) chosen once, each of 3-9 passes that go to the GPU and 0.02-13 million serial
// nodes, a few milliseconds on one core (TestSelfTestPositionsReachTheGPU).
func selfTestCases(cat *pdb.Set) []selfCase {
	return []selfCase{
		{"md", board.BlankFirst(board.Size4x4), ida.Options{Heuristic: ida.MD}, []string{
			"10 6 11 3 2 0 9 7 4 5 13 1 12 14 15 8",
			"4 13 15 2 8 6 1 0 12 11 10 3 14 9 5 7",
			"9 7 3 5 6 0 8 11 14 1 4 13 12 15 2 10",
		}},
		{"md", board.BlankFirst(board.Size5x5), ida.Options{Heuristic: ida.MD}, []string{
			"1 6 3 9 7 5 2 8 4 19 10 15 13 14 18 20 12 11 0 17 21 16 22 23 24",
			"1 2 3 9 7 10 0 6 12 4 16 5 11 18 13 20 21 22 14 8 17 15 23 24 19",
			"2 5 1 4 9 11 10 7 6 14 15 20 12 3 0 21 24 13 18 8 22 16 23 17 19",
		}},
		{"a zero-aware catalogue in bits", board.BlankFirst(board.Size4x4), ida.Options{Set: cat}, []string{
			"6 8 0 1 4 15 13 3 14 11 9 5 12 10 7 2",
			"5 6 1 10 13 2 3 7 14 4 0 15 12 9 8 11",
			"8 13 2 12 5 4 6 1 0 3 15 11 14 9 10 7",
		}},
	}
}

// runCases runs the self-test's cases, and fails with the first position where the GPU
// and the CPU disagree or where no pass went to the GPU.
func runCases(ctx context.Context, dv *Device, cases []selfCase) (out []Check, err error) {
	for _, c := range cases {
		if out, err = c.run(ctx, dv, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// run checks the case's positions on an engine of its own, adding them to out.
func (c selfCase) run(ctx context.Context, dv *Device, out []Check) ([]Check, error) {
	s, err := ida.New(c.goal, c.opt)
	if err != nil {
		return out, err
	}
	e, err := dv.Engine(s)
	if err != nil {
		return out, err
	}
	defer e.Close()
	for _, text := range c.starts {
		start, err := board.Parse(c.goal.Size(), text)
		if err != nil {
			return out, fmt.Errorf("gpu: the self-test's position %q: %w", text, err)
		}
		ck, err := check(ctx, s, e, start)
		if err != nil {
			return out, err
		}
		ck.Heuristic = c.name
		out = append(out, ck)
		if !ck.Agree {
			return out, fmt.Errorf("gpu: the self-test's %s position %s with %s: %s", ck.Board, ck.Start, c.name, ck.Problem)
		}
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

// check solves start on one CPU goroutine and with e (s's engine), and compares.
func check(ctx context.Context, s *ida.Solver, e *Engine, start board.State) (Check, error) {
	c := Check{Board: s.Goal().Size().String(), Start: start.String()}
	begin := time.Now()
	want, err := s.Solve(ctx, start)
	if err != nil {
		return c, err
	}
	c.CPU = time.Since(begin).Seconds()
	c.Length, c.Serial, c.Expanded = len(want.Moves), want.Nodes, want.Expanded
	before := e.Stats()
	begin = time.Now()
	got, err := s.Run(ctx, start, passes.Plan{Runner: e, Split: func(p passes.PassPlan) (int, func([]board.Dir) bool) {
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
	case got.Serial != passes.Work{Nodes: want.Nodes, Expanded: want.Expanded}:
		c.Problem = fmt.Sprintf("serial counts %d generated, %d expanded through the GPU; %d and %d on the CPU", got.Serial.Nodes, got.Serial.Expanded, want.Nodes, want.Expanded)
	case c.Passes == 0:
		c.Problem = "no pass went to the GPU"
	default:
		c.Agree = true
	}
	return c, nil
}
