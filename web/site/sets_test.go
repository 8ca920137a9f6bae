package site

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/data"
)

// A set too large for a browser tab is refused when the site is written, with the way out
// for a zero-aware one.
func TestSetMustFitThePage(t *testing.T) {
	files := map[string][]byte{}
	for t := range data.EmbeddedSet.Tables {
		name := data.SetFile(data.EmbeddedSet, t)
		b, err := data.Embedded(name)
		if err != nil {
			panic(err)
		}
		files[name] = b
	}
	require.NoError(t, fitsPage("6-6-3", files, MaxPageSet))
	err := fitsPage("6-6-3", files, 1<<20)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than a browser tab holds")
	assert.NotContains(t, err.Error(), "--bits")
	err = fitsPage("6-6-3z", files, 1<<20)
	assert.Contains(t, err.Error(), "pdbgen build --set 6-6-3z --bits")
}
