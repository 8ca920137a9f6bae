package repro

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/instances"
	"github.com/tilekit/tilekit/internal/batch"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/internal/svgplot"
	"github.com/tilekit/tilekit/search"
	"github.com/tilekit/tilekit/solve"
)

// Table4Budget is the most states unidirectional A* may store on one position of Table 4:
// 3,000,000 states, about 450 MB. The paper's UA* ran out of memory on 7 of the 28; it
// does not say how much it had. This budget is the smallest round figure above every
// count the paper reports for a solved position (2,565,243), so a position we cannot
// solve within it is one the paper's UA* could not have solved with as little either.
const Table4Budget = 3_000_000

// Table4Position is one row of Table 4: the paper's figures and ours.
type Table4Position struct {
	ID      string
	Goal    string
	Optimal int // found by the optimal search: 80 for every position

	PaperUALength, PaperBALength int    // 0: out of memory
	PaperUAStates, PaperBAStates uint64 // generated

	UALength int    // 0: the budget ran out
	UAStates uint64 // generated; where the budget ran out, generated until then
	UAStored int    // the most states stored at once
	BALength int
	BAStates uint64
}

// Table4Result is the reproduction of Hasan et al.'s Table 4.
type Table4Result struct {
	Positions []Table4Position
	Budget    int    // A*'s state budget
	Optimal   string // the optimal search used, for people
}

// The paper's figures, from a position's comment.
var table4Comment = regexp.MustCompile(`UA\* (?:out of memory|(\d+) moves ([\d,]+) states); BA\* (\d+) moves ([\d,]+) states`)

// table4Positions reads the 28 positions with the paper's figures.
func table4Positions() ([]Table4Position, []board.State, []board.Goal, error) {
	var out []Table4Position
	var starts []board.State
	var goals []board.Goal
	for _, file := range []struct {
		name string
		goal board.Goal
	}{{instances.Table4First, board.BlankFirst(board.Size4x4)}, {instances.Table4Last, board.BlankLast(board.Size4x4)}} {
		sc := bufio.NewScanner(strings.NewReader(instances.Text(file.name)))
		for line := 1; sc.Scan(); line++ {
			text, comment, _ := strings.Cut(sc.Text(), "#")
			if strings.TrimSpace(text) == "" {
				continue
			}
			in, err := instance.ParseLine(board.Size4x4, text)
			if err == nil {
				err = file.goal.Check(in.State)
			}
			m := table4Comment.FindStringSubmatch(comment)
			if err == nil && m == nil {
				err = errors.New("no figures of the paper in the comment")
			}
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s:%d: %w", file.name, line, err)
			}
			p := Table4Position{ID: in.ID, Goal: file.goal.Name()}
			p.PaperUALength, _ = strconv.Atoi(m[1])
			p.PaperUAStates = figure(m[2])
			p.PaperBALength, _ = strconv.Atoi(m[3])
			p.PaperBAStates = figure(m[4])
			out, starts, goals = append(out, p), append(starts, in.State), append(goals, file.goal)
		}
	}
	return out, starts, goals, nil
}

// figure reads a number written with commas ("" reads 0).
func figure(s string) uint64 {
	n, _ := strconv.ParseUint(strings.ReplaceAll(s, ",", ""), 10, 64)
	return n
}

// Table4 runs Table 4 of Hasan et al. (2023): on the 28 positions of the 15-puzzle that
// need 80 moves, BA* with HH, and unidirectional A* with HH within Table4Budget stored
// states, beside the paper's figures; and the optimal search (package solve with the
// strongest installed set) for the true lengths. Opt.Scale takes every Scale-th position.
func Table4(ctx context.Context, opt Options) (*Table4Result, error) {
	positions, starts, goals, err := table4Positions()
	if err != nil {
		return nil, err
	}
	if opt.Scale > 1 {
		var p []Table4Position
		var s []board.State
		var g []board.Goal
		for i := 0; i < len(positions); i += opt.Scale {
			p, s, g = append(p, positions[i]), append(s, starts[i]), append(g, goals[i])
		}
		positions, starts, goals = p, s, g
	}
	res := &Table4Result{Positions: positions, Budget: Table4Budget}
	opt.log("table 4: %d positions, BA* and A* with HH, and the optimal search", len(positions))
	var failure error
	type outcome struct {
		ua, ba *solve.Result
		uaErr  error
		opt    *solve.Result
		err    error
	}
	batch.Run(ctx, len(positions), opt.Workers, func(ctx context.Context, i int) outcome {
		var o outcome
		ba, err := general(ctx, goals[i], "bastar", heuristic.HH, solve.Options{})
		if err != nil {
			return outcome{err: err}
		}
		ua, err := general(ctx, goals[i], "astar", heuristic.HH, solve.Options{MaxStates: Table4Budget})
		if err != nil {
			return outcome{err: err}
		}
		if o.ba, o.err = ba.Solve(ctx, starts[i]); o.err != nil {
			return o
		}
		o.ua, o.uaErr = ua.Solve(ctx, starts[i])
		if o.uaErr != nil && !errors.Is(o.uaErr, search.ErrMemory) {
			o.err = o.uaErr
			return o
		}
		o.opt, o.err = solve.Solve(ctx, goals[i], starts[i], solve.Options{})
		return o
	}, func(i int, o outcome) {
		p := &res.Positions[i]
		if o.err != nil {
			if failure == nil {
				failure = fmt.Errorf("%s: %w", p.ID, o.err)
			}
			return
		}
		p.BALength, p.BAStates = len(o.ba.Moves), o.ba.Nodes
		p.UAStates, p.UAStored = o.ua.Nodes, o.ua.PeakStored
		if o.uaErr == nil {
			p.UALength = len(o.ua.Moves)
		}
		p.Optimal = o.opt.Length()
		res.Optimal = "IDA* with " + o.opt.Heuristic + " (" + o.opt.Tables + ")"
		opt.log("%s: optimal %d; A* %s; BA* %d moves, %s states", p.ID, p.Optimal, p.ua(), p.BALength, format.Thousands(p.BAStates))
	})
	if failure != nil {
		return nil, failure
	}
	return res, ctx.Err()
}

// ua describes our A*'s outcome: its length and states, or where the budget ran out.
func (p *Table4Position) ua() string {
	if p.UALength == 0 {
		return "out of memory at " + format.Thousands(uint64(p.UAStored)) + " stored (" + format.Thousands(p.UAStates) + " generated)"
	}
	return fmt.Sprintf("%d moves, %s states", p.UALength, format.Thousands(p.UAStates))
}

// Means returns the mean length and generated states of BA* over all positions, and of
// A* over those it solved (with their count): ours, then the paper's.
func (r *Table4Result) Means() (ours, paper [2][2]float64, solved, paperSolved int) {
	var n float64
	for _, p := range r.Positions {
		n++
		ours[0][0] += float64(p.BALength)
		ours[0][1] += float64(p.BAStates)
		paper[0][0] += float64(p.PaperBALength)
		paper[0][1] += float64(p.PaperBAStates)
		if p.UALength > 0 {
			solved++
			ours[1][0] += float64(p.UALength)
			ours[1][1] += float64(p.UAStates)
		}
		if p.PaperUALength > 0 {
			paperSolved++
			paper[1][0] += float64(p.PaperUALength)
			paper[1][1] += float64(p.PaperUAStates)
		}
	}
	for k, d := range map[int]float64{0: n, 1: float64(solved)} {
		if d > 0 {
			ours[k][0], ours[k][1] = ours[k][0]/d, ours[k][1]/d
		}
	}
	for k, d := range map[int]float64{0: n, 1: float64(paperSolved)} {
		if d > 0 {
			paper[k][0], paper[k][1] = paper[k][0]/d, paper[k][1]/d
		}
	}
	return ours, paper, solved, paperSolved
}

// Markdown renders each position beside the paper's figures, and the means.
func (r *Table4Result) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Hasan et al. (2023), Table 4: the 28 positions of the 15-puzzle that need 80 moves. BA* with HH (turns of %d then %d expansions) and unidirectional A* with HH, within %s stored states (about %d MB); the optimal lengths by %s. States are generated states.\n\n",
		search.FirstTurn, search.Turn, format.Thousands(uint64(r.Budget)), r.Budget*150>>20, r.Optimal)
	b.WriteString("| position | goal | optimal | paper UA* | our A* | paper BA* | our BA* |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	cell := func(length int, states uint64) string {
		if length == 0 {
			return "out of memory"
		}
		return fmt.Sprintf("%d moves, %s", length, format.Thousands(states))
	}
	for _, p := range r.Positions {
		ours := cell(p.UALength, p.UAStates)
		if p.UALength == 0 {
			ours = fmt.Sprintf("out of memory (%s generated)", format.Thousands(p.UAStates))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s |\n", p.ID, p.Goal, p.Optimal,
			cell(p.PaperUALength, p.PaperUAStates), ours, cell(p.PaperBALength, p.PaperBAStates), cell(p.BALength, p.BAStates))
	}
	ours, paper, solved, paperSolved := r.Means()
	fmt.Fprintf(&b, "\n| mean | ours | paper |\n| --- | ---: | ---: |\n")
	fmt.Fprintf(&b, "| BA* length, all %d | %.2f | %.2f |\n", len(r.Positions), ours[0][0], paper[0][0])
	fmt.Fprintf(&b, "| BA* states, all %d | %s | %s |\n", len(r.Positions), format.Thousands(uint64(ours[0][1])), format.Thousands(uint64(paper[0][1])))
	fmt.Fprintf(&b, "| A* solved | %d | %d |\n", solved, paperSolved)
	fmt.Fprintf(&b, "| A* length, over those solved | %.2f | %.2f |\n", ours[1][0], paper[1][0])
	fmt.Fprintf(&b, "| A* states, over those solved | %s | %s |\n", format.Thousands(uint64(ours[1][1])), format.Thousands(uint64(paper[1][1])))
	return b.String()
}

// Plot draws the generated states per position, ours against the paper's, on a log scale.
func (r *Table4Result) Plot(path string) error {
	c := svgplot.Chart{Title: "Table 4: states generated on the 28 positions that need 80 moves", XLabel: "position",
		YLabel: "states generated (log scale)", LogY: true, LegendTop: true}
	series := []svgplot.Series{{Name: "paper BA*"}, {Name: "our BA*"}, {Name: "paper UA* (solved)", Markers: true}, {Name: "our A* (solved)", Markers: true}}
	for i, p := range r.Positions {
		x := float64(i + 1)
		series[0].Points = append(series[0].Points, svgplot.XY{X: x, Y: float64(p.PaperBAStates)})
		series[1].Points = append(series[1].Points, svgplot.XY{X: x, Y: float64(p.BAStates)})
		if p.PaperUALength > 0 {
			series[2].Points = append(series[2].Points, svgplot.XY{X: x, Y: float64(p.PaperUAStates)})
		}
		if p.UALength > 0 {
			series[3].Points = append(series[3].Points, svgplot.XY{X: x, Y: float64(p.UAStates)})
		}
	}
	for _, s := range series {
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	return save(&c, path)
}
