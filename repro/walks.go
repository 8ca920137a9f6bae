package repro

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/internal/svgplot"
	"github.com/tilekit/tilekit/search"
	"github.com/tilekit/tilekit/solve"
)

// WalkLimit is the expansion limit of the walks experiment, as in the browser demos.
const WalkLimit = 50_000

// WalkDepths are the scramble lengths of the walks experiment.
var WalkDepths = []int{10, 20, 30, 40, 50}

// WalkRow summarises one algorithm and heuristic at one scramble length.
type WalkRow struct {
	Depth         int
	Algorithm     string
	Heuristic     string
	Instances     int
	Solved        int
	MeanMillis    float64 // over solved instances
	MeanGenerated float64 // over solved instances
	MeanLength    float64 // over solved instances
}

// WalksResult is the walks experiment.
type WalksResult struct {
	PerDepth int
	Rows     []WalkRow
}

// Walks scrambles the blank-last 15-puzzle by 10, 20, 30, 40 and 50 random moves (10
// states each, never undoing the last move) and solves each with A* and RBFS, md and lc,
// under a limit of 50,000 expansions.
func Walks(ctx context.Context, opt Options) (*WalksResult, error) {
	goal := board.BlankLast(board.Size4x4)
	per := opt.scaled(10)
	rng := rand.New(rand.NewPCG(opt.Seed, 15))
	res := &WalksResult{PerDepth: per}
	for _, depth := range WalkDepths {
		opt.log("walks: %d states scrambled by %d moves", per, depth)
		starts := make([]board.State, per)
		for i := range starts {
			starts[i], _ = goal.RandomWalk(depth, rng)
		}
		for _, algo := range []string{"astar", "rbfs"} {
			for _, name := range []string{heuristic.MD, heuristic.LC} {
				s, err := general(ctx, goal, algo, name, solve.Options{MaxExpansions: WalkLimit})
				if err != nil {
					return nil, err
				}
				row := WalkRow{Depth: depth, Algorithm: algo, Heuristic: name, Instances: per}
				for _, r := range solveAll(ctx, s, starts, opt.Workers) {
					if r.err != nil {
						if errors.Is(r.err, search.ErrExpansions) {
							continue
						}
						return nil, r.err
					}
					row.Solved++
					row.MeanMillis += 1000 * seconds(r.res.Elapsed)
					row.MeanGenerated += float64(r.res.Nodes)
					row.MeanLength += float64(len(r.res.Moves))
				}
				if row.Solved > 0 {
					row.MeanMillis /= float64(row.Solved)
					row.MeanGenerated /= float64(row.Solved)
					row.MeanLength /= float64(row.Solved)
				}
				res.Rows = append(res.Rows, row)
			}
		}
	}
	return res, nil
}

// Markdown renders the result as a table.
func (r *WalksResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "15-puzzle (blank-last), %d states per scramble length, limit %d expansions; means over solved states.\n\n", r.PerDepth, WalkLimit)
	b.WriteString("| scramble | algorithm | heuristic | solved | mean time (ms) | mean generated | mean length |\n")
	b.WriteString("| ---: | --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %d of %d | %.2f | %.0f | %.2f |\n", row.Depth, row.Algorithm, row.Heuristic,
			row.Solved, row.Instances, row.MeanMillis, row.MeanGenerated, row.MeanLength)
	}
	return b.String()
}

// Plot writes the share solved against the scramble length, one line per algorithm and
// heuristic.
func (r *WalksResult) Plot(path string) error {
	lo, hi := 0.0, 1.05
	c := svgplot.Chart{Title: fmt.Sprintf("Solved within %d expansions", WalkLimit), XLabel: "random moves from the goal",
		YLabel: "share solved", YMin: &lo, YMax: &hi}
	index := map[string]int{}
	for _, row := range r.Rows {
		k := row.Algorithm + " " + row.Heuristic
		i, ok := index[k]
		if !ok {
			i = len(c.Series)
			index[k] = i
			c.Series = append(c.Series, svgplot.Series{Name: k})
		}
		c.Series[i].Points = append(c.Series[i].Points, svgplot.XY{X: float64(row.Depth), Y: float64(row.Solved) / float64(row.Instances)})
	}
	return save(&c, path)
}
