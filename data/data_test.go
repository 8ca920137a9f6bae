package data

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// The committed files are exactly what a fresh build writes, with one worker or two.
// The embedded files are what an install writes, byte for byte, read back and all. (That
// the bytes do not depend on the number of workers is the builders' own tests' business.)
func TestEmbeddedMatchesFreshBuild(t *testing.T) {
	dir := t.TempDir()
	got, err := InstallDefaults(context.Background(), dir, BuildOptions{Workers: 2})
	require.NoError(t, err)
	require.Equal(t, dir, got)
	for _, spec := range Specs {
		fresh, err := os.ReadFile(filepath.Join(dir, spec.File))
		require.NoError(t, err)
		committed, err := Embedded(spec.File)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(committed, fresh),
			"%s differs from a fresh build: run `go run ./cmd/pdbgen build --out data`", spec.File)
	}
}

func TestDefault(t *testing.T) {
	tabs, err := Default()
	require.NoError(t, err)
	assert.Equal(t, "embedded", tabs.Source)
	assert.Equal(t, 24964, tabs.WDLast.Len())
	assert.Equal(t, 3, tabs.WDLast.BlankHome)
	assert.Equal(t, 0, tabs.WDFirst.BlankHome)
	assert.Equal(t, 43680, tabs.IDA15.Small.Len())
	assert.Equal(t, 524160, tabs.IDA15.Large.Len())
	assert.Equal(t, 0, tabs.IDA15.Eval(board.BlankLast(board.Size4x4).Tiles()))
}

func TestLoadDirNamesTheBadFile(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range Specs {
		raw, err := Embedded(spec.File)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, spec.File), raw, 0o644))
	}
	tabs, err := LoadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, dir, tabs.Source)

	// Flip one byte of the large PDB's payload.
	path := filepath.Join(dir, PDBLarge)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	raw[len(raw)-100] ^= 1
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	_, err = LoadDir(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), PDBLarge)
	assert.True(t, isIntegrity(err), "%v", err)

	require.NoError(t, os.Remove(path))
	_, err = LoadDir(dir)
	assert.ErrorContains(t, err, PDBLarge)
}

func isIntegrity(err error) bool {
	for _, e := range []error{tablefile.ErrChecksum, tablefile.ErrPayload} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Every single-bit change of an embedded file is rejected (issue 10: with format version 1,
// 80 of the 21,632 flips of the small IDA15 table were accepted).
func TestEveryBitCovered(t *testing.T) {
	if testing.Short() {
		t.Skip("22,000 decodes")
	}
	raw, err := Embedded(PDBSmall)
	require.NoError(t, err)
	accepted := 0
	for i := range raw {
		for bit := 0; bit < 8; bit++ {
			b := append([]byte(nil), raw...)
			b[i] ^= 1 << bit
			if _, err := tablefile.Decode(bytes.NewReader(b)); err == nil {
				accepted++
			}
		}
	}
	assert.Zero(t, accepted, "of %d single-bit flips", 8*len(raw))
	t.Logf("%d single-bit flips of %s, all rejected", 8*len(raw), PDBSmall)
}

// Accepted takes a table file under its own name, and refuses it under another table's
// name (intact, but not that table's values) and when its bytes are damaged.
func TestAccepted(t *testing.T) {
	raw, err := Embedded(PDBSmall)
	require.NoError(t, err)
	dir := t.TempDir()
	good := filepath.Join(dir, PDBSmall)
	require.NoError(t, os.WriteFile(good, raw, 0o644))
	tab, err := Accepted(good)
	require.NoError(t, err)
	assert.Equal(t, digests[PDBSmall], fmt.Sprintf("%x", tab.DecodedSHA))

	renamed := filepath.Join(dir, PDBLarge)
	require.NoError(t, os.WriteFile(renamed, raw, 0o644))
	_, err = Accepted(renamed)
	assert.ErrorIs(t, err, ErrNotStandard)

	damaged := slices.Clone(raw)
	damaged[len(damaged)-10] ^= 0x40
	bad := filepath.Join(t.TempDir(), PDBSmall)
	require.NoError(t, os.WriteFile(bad, damaged, 0o644))
	_, err = Accepted(bad)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNotStandard)
}
