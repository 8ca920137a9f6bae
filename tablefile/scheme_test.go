package tablefile

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every index scheme is declared once, consistently, and docs/FORMAT.md describes each:
// a section of its own, the header's index field, and the raw export's list for those
// whose entries are values.
func TestSchemesAndTheirDocument(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "FORMAT.md"))
	require.NoError(t, err)
	text := string(doc)
	_, export, ok := strings.Cut(text, "## Raw export")
	require.True(t, ok)
	var field string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "| `index` |") {
			field = line
		}
	}
	require.NotEmpty(t, field, "the index field's row")
	kinds := []string{KindPDB, KindWD, KindPrune}
	encodings := []string{EncodingRaw, EncodingHalfExcess, EncodingBit, EncodingU32}
	seen := map[string]bool{}
	for _, s := range Schemes {
		assert.False(t, seen[s.Name], "%s declared twice", s.Name)
		seen[s.Name] = true
		assert.Contains(t, kinds, s.Kind, s.Name)
		assert.NotEmpty(t, s.Encodings, s.Name)
		for _, e := range s.Encodings {
			assert.Contains(t, encodings, e, s.Name)
		}
		assert.NotEmpty(t, s.Formula, s.Name)
		assert.Equal(t, s.ZeroAware, slices.Contains(s.Encodings, EncodingBit), "%s: the bit encoding is the zero-aware tables'", s.Name)
		got, ok := SchemeOf(s.Name)
		assert.True(t, ok)
		assert.Equal(t, s.Name, got.Name)

		assert.Contains(t, text, "### `"+s.Name+"`", "FORMAT.md has a section on %s", s.Name)
		assert.Contains(t, field, "`"+s.Name+"`", "FORMAT.md's index field names %s", s.Name)
		if s.Values {
			assert.Contains(t, export, "`"+s.Name+"`", "FORMAT.md's raw export names %s", s.Name)
		}
	}
	_, ok = SchemeOf("kperm-v2")
	assert.False(t, ok)
}

// Decode checks its checksums with the SHA-256 it is given: a wrong one fails every file.
func TestSetSHA256(t *testing.T) {
	raw := encode(t, sample(t))
	calls := 0
	SetSHA256(func(b []byte) [32]byte { calls++; return sha256.Sum256(b) })
	_, err := Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	assert.Positive(t, calls)
	SetSHA256(func([]byte) [32]byte { return [32]byte{} })
	_, err = Decode(bytes.NewReader(raw))
	assert.Error(t, err)
	SetSHA256(nil)
	_, err = Decode(bytes.NewReader(raw))
	require.NoError(t, err)
}
