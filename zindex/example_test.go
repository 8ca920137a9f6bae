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

// A search keeps a placement's ranks and steps them as a tile moves: the tile on cell 5
// moves right to cell 6, leaving the blank on cell 5. Step gives the same index as ranking
// the new placement from scratch.
func ExampleScheme_Step() {
	z, _ := zindex.For(board.Size4x4, 4)
	st := z.Place([]uint8{5, 4, 1, 0})
	next, ok := z.Step(st, 5, 6)
	fmt.Println(ok, z.IndexOf(next, 5), z.IndexBlank([]uint8{6, 4, 1, 0}, 5))
	// A move down from cell 4 to cell 8 passes cells 5, 6 and 7, and 5 is taken: the
	// tile's place among the occupied cells changes, and Step leaves it to Place.
	_, ok = z.Step(st, 4, 8)
	fmt.Println(ok)
	// Output:
	// true 647 647
	// false
}
