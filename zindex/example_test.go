package zindex_test

import (
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/zindex"
)

// The worked example of docs/FORMAT.md: tiles 1, 2, 5, 6 on cells 5, 4, 1, 0 of the 4x4
// board.
func Example() {
	z, _ := zindex.For(board.Size4x4, 4)
	cells := []uint8{5, 4, 1, 0}
	mask := uint32(1<<0 | 1<<1 | 1<<4 | 1<<5)
	m := z.Map(mask)
	fmt.Println("map", m, "regions", z.Regions(m), "order", z.Order(cells, mask))
	fmt.Println("index", z.IndexBlank(cells, 15))
	// Output:
	// map 9 regions 1 order 23
	// index 287
}

// A search keeps a placement's ranks and steps them as a tile moves. Tile 0 moves right
// from cell 5 to cell 6, passing nothing; then tile 1 moves down from cell 4 to cell 8,
// passing cells 5, 6 and 7, of which tile 0 holds cell 6. Each step gives the index that
// ranking the new placement from scratch gives.
func ExampleScheme_Step() {
	z, _ := zindex.For(board.Size4x4, 4)
	st := z.Place([]uint8{5, 4, 1, 0})
	st = z.Step(st, 5, 6, 0, nil)
	fmt.Println(z.IndexOf(st, 5), z.IndexBlank([]uint8{6, 4, 1, 0}, 5))
	st = z.Step(st, 4, 8, 1, []uint8{0})
	fmt.Println(z.IndexOf(st, 4), z.IndexBlank([]uint8{6, 8, 1, 0}, 4))
	// Output:
	// 647 647
	// 3353 3353
}
