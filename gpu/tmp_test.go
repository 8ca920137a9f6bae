package gpu

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/ida"
)

func TestTmpRepro(t *testing.T) {
	bin := buildHost(t)
	goal := board.BlankFirst(board.Size4x4)
	start, err := board.Parse(board.Size4x4, "0 1 6 15 3 13 7 5 2 4 12 14 8 9 11 10")
	require.NoError(t, err)
	s, _ := ida.New(goal, ida.Options{Heuristic: ida.MD})
	m, _ := s.Model()
	want, _ := s.Solve(context.Background(), start)
	for _, th := range []int{1, 64, 1000, 5000} {
		for _, budget := range []int{1, 300, 100000} {
			h := &hostRunner{t: t, bin: bin, s: s, m: m, threads: th, budget: budget}
			got, err := s.Run(context.Background(), start, ida.Plan{Runner: h, Split: func(p ida.PassPlan) (int, func([]board.Dir) bool) {
				if len(p.Passes) == 0 {
					return 0, nil
				}
				return 1 << 14, nil
			}})
			require.NoError(t, err)
			fmt.Println(th, budget, got.Serial.Nodes-want.Nodes, got.Serial.Expanded-want.Expanded, h.donated, h.last.best)
		}
	}
}
