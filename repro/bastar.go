package repro

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/svgplot"
	"github.com/tilekit/tilekit/search"
	"github.com/tilekit/tilekit/solve"
)

// BAStarResult is the BA* experiment on Korf's 100.
type BAStarResult struct {
	Instances     int
	MeanGenerated float64
	MeanExpanded  float64
	MeanLength    float64
	MeanOptimal   float64
	Optimal       int
	MeanMillis    float64
	MaxGenerated  uint64
	Excess        map[int]int // length - optimal -> instances
}

// BAStar solves Korf's 100 with bidirectional A* and HH, as Hasan et al. did.
func BAStar(ctx context.Context, opt Options) (*BAStarResult, error) {
	korf := corpus.Korf100()
	korf = korf[:opt.scaled(len(korf))]
	starts := make([]board.State, len(korf))
	for i, in := range korf {
		starts[i] = in.Start
	}
	s, err := general(ctx, korf[0].Goal, "bastar", heuristic.HH, solve.Options{})
	if err != nil {
		return nil, err
	}
	res := &BAStarResult{Instances: len(korf), Excess: map[int]int{}}
	opt.log("BA*: %d of Korf's instances", len(korf))
	for i, r := range solveAll(ctx, s, starts, opt.Workers) {
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", korf[i].Name, r.err)
		}
		length := len(r.res.Moves)
		res.MeanGenerated += float64(r.res.Nodes)
		res.MeanExpanded += float64(r.res.Expanded)
		res.MeanLength += float64(length)
		res.MeanOptimal += float64(korf[i].Optimal)
		res.MeanMillis += 1000 * seconds(r.res.Elapsed)
		res.MaxGenerated = max(res.MaxGenerated, r.res.Nodes)
		res.Excess[length-korf[i].Optimal]++
		if length == korf[i].Optimal {
			res.Optimal++
		}
	}
	n := float64(len(korf))
	for _, v := range []*float64{&res.MeanGenerated, &res.MeanExpanded, &res.MeanLength, &res.MeanOptimal, &res.MeanMillis} {
		*v /= n
	}
	return res, nil
}

// Markdown renders the result beside the published figures.
func (r *BAStarResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Korf's 100 (blank-first), bidirectional A* with HH = WD + linear conflicts + MD/3, turns of %d then %d expansions.\n\n", search.FirstTurn, search.Turn)
	b.WriteString("| | ours | Hasan et al. 2023 |\n| --- | ---: | ---: |\n")
	fmt.Fprintf(&b, "| instances | %d | 100 |\n", r.Instances)
	fmt.Fprintf(&b, "| mean states generated | %.0f | 48,420 |\n", r.MeanGenerated)
	fmt.Fprintf(&b, "| mean states expanded | %.0f | |\n", r.MeanExpanded)
	fmt.Fprintf(&b, "| mean length | %.2f | 55.01 |\n", r.MeanLength)
	fmt.Fprintf(&b, "| mean optimal length | %.2f | 53.05 |\n", r.MeanOptimal)
	fmt.Fprintf(&b, "| optimal solutions | %d | 39 |\n", r.Optimal)
	fmt.Fprintf(&b, "| mean time | %.0f ms (Go) | 640 ms (Java) |\n", r.MeanMillis)
	b.WriteString("\nDistribution of length - optimal:\n\n| excess | instances |\n| ---: | ---: |\n")
	var keys []int
	for k := range r.Excess {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| %d | %d |\n", k, r.Excess[k])
	}
	return b.String()
}

// Plot writes the distribution of length - optimal as bars.
func (r *BAStarResult) Plot(path string) error {
	c := svgplot.Chart{Title: "BA* with HH on Korf's 100: length above the optimum", XLabel: "length - optimal", YLabel: "instances"}
	hi := 0
	for k := range r.Excess {
		hi = max(hi, k)
	}
	for k := 0; k <= hi; k++ {
		c.Bars = append(c.Bars, svgplot.Bar{Label: fmt.Sprint(k), Value: float64(r.Excess[k])})
	}
	return save(&c, path)
}
