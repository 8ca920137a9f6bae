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
