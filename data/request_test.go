package data

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tilekit/tilekit/board"
)

// A request that asks for what cannot be built together is refused before anything is
// built, saying why; the others name the set they build.
func TestRequestCheck(t *testing.T) {
	for _, c := range []struct {
		r    Request
		want string // "" for none
		set  string // the set built, "" for none
	}{
		{Request{}, "", ""},
		{Request{Set: "7-8"}, "", "7-8"},
		{Request{Board: board.Size5x5}, "", "small-t"},
		{Request{Board: board.Size5x5, Automata: true}, "", ""},
		{Request{Set: "small-t", Bits: true}, "", "small-t"},
		{Request{Set: "7-8", Catalogue: "x.cat"}, "not both", ""},
		{Request{Set: "7-8", Automata: true, Board: board.Size4x4}, "the automaton alone", ""},
		{Request{Automata: true}, "which board", ""},
		{Request{Bits: true}, "not zero-aware", ""},
		{Request{Set: "7-8", Bits: true}, "not zero-aware", ""},
		{Request{Set: "7-8", Board: board.Size5x5}, "is for 4x4", ""},
		{Request{Set: "8-8"}, "8-8", ""},
		{Request{Catalogue: "testdata/no-such.cat", Board: board.Size5x5}, "no-such.cat", ""},
	} {
		spec, err := c.r.spec()
		if c.want == "" {
			if assert.NoError(t, err, "%+v", c.r) && c.set != "" {
				assert.Equal(t, c.set, spec.Name, "%+v", c.r)
			}
			continue
		}
		assert.ErrorIs(t, err, ErrRequest, "%+v", c.r)
		assert.ErrorContains(t, err, c.want, "%+v", c.r)
		assert.Equal(t, err, c.r.Check())
	}
}
