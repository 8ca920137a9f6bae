package solve

import (
	"context"
	"testing"
	"time"

	"github.com/tilekit/tilekit/board"
)

func TestZZFrontierTime(t *testing.T) {
	ctx := context.Background()
	size, _ := board.ParseSize("5x5")
	goal, _ := board.ParseGoal(size, "blank-first")
	st, err := board.Parse(size, "14 5 9 2 18 8 23 19 12 17 15 0 10 20 4 6 11 21 1 7 24 3 16 22 13")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"6-6-6-6", "small-t"} {
		s, err := New(ctx, goal, Options{Heuristic: h, Tables: "/root/.cache/tilekit/tables", Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ bound, want int }{{95, 1 << 16}, {95, 1 << 18}, {91, 1 << 18}} {
			var ds []time.Duration
			var n int
			for r := 0; r < 3; r++ {
				b := time.Now()
				paths, _, err := s.Frontier(ctx, st, c.bound, c.want, nil)
				if err != nil {
					t.Fatal(err)
				}
				ds = append(ds, time.Since(b))
				n = len(paths)
			}
			t.Logf("RESULT %s bound %d want %d: %d subtrees, %v", h, c.bound, c.want, n, ds)
		}
	}
}
