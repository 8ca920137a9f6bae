package prune

import (
	"encoding/binary"
	"testing"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// FuzzFromFile gives FromFile arbitrary transitions: it must accept only well-formed
// automata (check passes) and never panic.
func FuzzFromFile(f *testing.F) {
	a := Parent(board.Size{W: 2, H: 2})
	seed := make([]byte, 4*len(a.next))
	for i, w := range a.next {
		binary.LittleEndian.PutUint32(seed[4*i:], w)
	}
	f.Add(seed)
	f.Add(seed[:64])
	f.Fuzz(func(t *testing.T, raw []byte) {
		words := make([]uint32, len(raw)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
		tab, err := tablefile.NewPrune(board.Size{W: 2, H: 2}, 0, words)
		if err != nil {
			return
		}
		got, err := FromFile(tab)
		if err == nil {
			if cerr := got.check(); cerr != nil {
				t.Fatalf("accepted a malformed automaton: %v", cerr)
			}
		}
	})
}
