package data

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tilekit/tilekit/board"
)

// A request that asks for what cannot be built together is refused before anything is
// built, saying why (by Check, reading nothing, where the choices exclude each other); the
// others name the set they build.
func TestRequestCheck(t *testing.T) {
	for _, c := range []struct {
		r     Request
		want  string // "" for none
		set   string // the set built, "" for none
		early bool   // Check says so too, reading nothing
	}{
		{Request{}, "", "", false},
		{Request{Set: "7-8"}, "", "7-8", false},
		{Request{Board: board.Size5x5}, "", "small-t", false},
		{Request{Board: board.Size5x5, Automata: true}, "", "", false},
		{Request{Set: "small-t", Bits: true}, "", "small-t", false},
		{Request{Set: "7-8", Catalogue: "x.cat"}, "not both", "", true},
		{Request{Set: "7-8", Automata: true, Board: board.Size4x4}, "the automaton alone", "", true},
		{Request{Automata: true}, "which board", "", true},
		{Request{Bits: true}, "not zero-aware", "", true},
		{Request{Set: "7-8", Bits: true}, "not zero-aware", "", false},
		{Request{Set: "7-8", Board: board.Size5x5}, "is for 4x4", "", false},
		{Request{Set: "8-8"}, "8-8", "", false},
		{Request{Catalogue: "testdata/no-such.cat", Board: board.Size5x5}, "no-such.cat", "", false},
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
		if c.early {
			assert.Equal(t, err, c.r.Check(), "%+v", c.r)
		} else {
			assert.NoError(t, c.r.Check(), "%+v: Check reads nothing", c.r)
		}
	}
}
