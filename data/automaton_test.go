package data

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

// TestAutomatonDigests builds each board's default automaton and checks its digest, and
// the embedded file against it; with TILEKIT_DEEP_AUTOMATA=1, the deeper ones of 5x5
// whose digests are known too (depth 18 takes 1.5 minutes and 2.8 GB).
func TestAutomatonDigests(t *testing.T) {
	if os.Getenv("TILEKIT_DEEP_AUTOMATA") != "" {
		for _, depth := range []int{16, 17, prune.InstallDepth(board.Size5x5)} {
			a, err := prune.Build(context.Background(), board.Size5x5, depth)
			require.NoError(t, err)
			f, err := a.File()
			require.NoError(t, err)
			name := AutomatonFile(board.Size5x5, depth)
			require.Equal(t, digests[name], fmt.Sprintf("%x", f.DecodedSHA), name)
		}
	}
	for _, size := range []board.Size{board.Size4x4, board.Size5x5} {
		a, err := prune.Build(context.Background(), size, prune.DefaultDepth(size))
		require.NoError(t, err)
		f, err := a.File()
		require.NoError(t, err)
		name := AutomatonFile(size, prune.DefaultDepth(size))
		require.Equal(t, digests[name], fmt.Sprintf("%x", f.DecodedSHA), name)
		if b, err := embedded.ReadFile(name); err == nil {
			require.LessOrEqual(t, len(b), embedAutomatonBytes, name)
			back, err := tablefile.Decode(bytes.NewReader(b))
			require.NoError(t, err)
			require.Equal(t, f.DecodedSHA, back.DecodedSHA, "the embedded %s is out of date: pdbgen build --pruning --board %s --out data", name, size)
		} else {
			require.Equal(t, board.Size5x5, size, "the 4x4 automaton is embedded")
		}
	}
}

// TestAutomatonInstalled installs an automaton, loads it from the directory, and falls
// back to building one when the file is damaged, saying so.
func TestAutomatonInstalled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	size := board.Size{W: 3, H: 3}
	_, _, err := InstallAutomaton(ctx, size, 1, dir, nil)
	require.Error(t, err, "depth 1 is the move-back rule")
	path, tab, err := InstallAutomaton(ctx, size, 8, dir, nil)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "prune-3x3-d8.tbl"), path)
	// Not a standard file: refused until pdbgen verify records it.
	a, from, note, err := Automaton(ctx, size, 8, []string{dir}, nil)
	require.NoError(t, err)
	require.Equal(t, AutomatonBuilt, from)
	require.Contains(t, note, "not the table that pdbgen builds")
	require.Equal(t, 8, a.Depth())
	forget(size, 8)
	require.NoError(t, RecordVerified(ctx, path, fmt.Sprintf("%x", tab.DecodedSHA)))
	a2, from, note, err := Automaton(ctx, size, 8, []string{dir}, nil)
	require.NoError(t, err)
	require.Equal(t, dir, from)
	require.Empty(t, note)
	require.Equal(t, a.Transitions(), a2.Transitions())
	// A damaged file is rebuilt in memory, with a note.
	forget(size, 8)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)-3] ^= 0xFF
	require.NoError(t, os.WriteFile(path, b, 0o644))
	a3, from, note, err := Automaton(ctx, size, 8, []string{dir}, nil)
	require.NoError(t, err)
	require.Equal(t, AutomatonBuilt, from)
	require.Contains(t, note, "checksum")
	require.Equal(t, a.Transitions(), a3.Transitions())
	// The embedded one.
	a4, from, _, err := Automaton(ctx, board.Size4x4, prune.DefaultDepth(board.Size4x4), []string{t.TempDir()}, nil)
	require.NoError(t, err)
	require.Equal(t, AutomatonEmbedded, from)
	require.Equal(t, prune.DefaultDepth(board.Size4x4), a4.Depth())
	_, from, _, err = Automaton(ctx, board.Size4x4, prune.DefaultDepth(board.Size4x4), nil, nil)
	require.NoError(t, err)
	require.Equal(t, AutomatonEmbedded, from, "a later call says where the kept automaton came from")
}

// forget drops an automaton the process keeps.
func forget(size board.Size, depth int) {
	automata.Lock()
	delete(automata.got, automatonKey{size, depth})
	automata.Unlock()
}

// TestOpenAutomaton: the depths installed are listed deepest first; an installed
// automaton is opened, one not installed is ErrNotInstalled, a damaged one refused with its
// path, and none is built.
func TestOpenAutomaton(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	size := board.Size{W: 3, H: 3}
	for _, depth := range []int{6, 9} {
		path, tab, err := InstallAutomaton(ctx, size, depth, dir, nil)
		require.NoError(t, err)
		require.NoError(t, RecordVerified(ctx, path, fmt.Sprintf("%x", tab.DecodedSHA)))
		forget(size, depth)
	}
	require.Equal(t, []int{9, 6}, InstalledDepths(size, []string{dir}))
	require.Empty(t, InstalledDepths(board.Size5x5, []string{dir}))
	a, from, err := OpenAutomaton(size, 9, []string{dir})
	require.NoError(t, err)
	require.Equal(t, dir, from)
	require.Equal(t, 9, a.Depth())
	_, _, err = OpenAutomaton(size, 7, []string{dir})
	require.ErrorIs(t, err, ErrNotInstalled)

	path := filepath.Join(dir, AutomatonFile(size, 6))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)-3] ^= 0xFF
	require.NoError(t, os.WriteFile(path, b, 0o644))
	_, _, err = OpenAutomaton(size, 6, []string{dir})
	require.ErrorContains(t, err, path)
	automata.Lock()
	_, kept := automata.got[automatonKey{size, 6}]
	automata.Unlock()
	require.False(t, kept, "nothing built")
	_, _, _, err = Automaton(ctx, size, prune.MaxDepth+1, []string{dir}, nil)
	require.Error(t, err)
}

// A build in memory is announced before it starts, with why, and then each of its steps.
func TestAutomatonBuildProgress(t *testing.T) {
	type call struct{ done, total int }
	var calls []call
	var notes []string
	forget(board.Size{W: 3, H: 3}, 9) // kept for the process by another test
	_, from, note, err := Automaton(context.Background(), board.Size{W: 3, H: 3}, 9, []string{t.TempDir()}, func(n string, done, total int) {
		calls = append(calls, call{done, total})
		notes = append(notes, n)
	})
	require.NoError(t, err)
	require.Equal(t, AutomatonBuilt, from)
	require.NotEmpty(t, calls)
	assert.Equal(t, call{0, 0}, calls[0], "announced before the build")
	last := calls[len(calls)-1]
	assert.Positive(t, last.total)
	assert.Equal(t, last.total, last.done, "every step told")
	assert.Equal(t, note, notes[0])
	assert.Contains(t, note, "pdbgen build --pruning --board 3x3 --pruning-depth 9")
}

// A search on 4x4 never builds its automaton first (one is embedded); one on 5x5 does
// unless an automaton of the board is installed, of any depth.
func TestNeedsAutomaton(t *testing.T) {
	dir := t.TempDir()
	assert.False(t, NeedsAutomaton(board.Size4x4, []string{dir}))
	assert.True(t, NeedsAutomaton(board.Size5x5, []string{dir}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, AutomatonFile(board.Size5x5, 16)), []byte("x"), 0o644))
	assert.False(t, NeedsAutomaton(board.Size5x5, []string{t.TempDir(), dir}))
}
