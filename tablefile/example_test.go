package tablefile_test

import (
	"bytes"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// Write a table and read it back: the header says what it holds.
func ExampleDecode() {
	entries := make([]uint8, tablefile.PDBEntries(4, 1, true)) // tile 3 and the blank on 2x2
	t, err := tablefile.New(tablefile.KindPDB, board.BlankLast(board.Size{W: 2, H: 2}), []int{3}, true, entries)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := t.Encode(&buf); err != nil {
		panic(err)
	}
	back, err := tablefile.Decode(&buf)
	if err != nil {
		panic(err)
	}
	fmt.Println(back.Kind, back.Size, back.Tiles, back.BlankInIndex, back.Header.Entries)
	// Output: pdb 2x2 [3] true 12
}
