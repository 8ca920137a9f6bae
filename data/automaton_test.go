package data

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
		for _, depth := range []int{16, 17, InstallDepth(board.Size5x5)} {
			a, err := prune.Build(context.Background(), board.Size5x5, depth)
			require.NoError(t, err)
			f, err := a.File()
			require.NoError(t, err)
			name := AutomatonFile(board.Size5x5, depth)
			require.Equal(t, digests[name], fmt.Sprintf("%x", f.DecodedSHA), name)
		}
	}
	for _, size := range []board.Size{board.Size4x4, board.Size5x5} {
		a, err := prune.Build(context.Background(), size, PruningDepth(size))
		require.NoError(t, err)
		f, err := a.File()
		require.NoError(t, err)
		name := AutomatonFile(size, PruningDepth(size))
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
	a, from, note, err := Automaton(ctx, size, 8, []string{dir})
	require.NoError(t, err)
	require.Equal(t, AutomatonBuilt, from)
	require.Contains(t, note, "not the table that pdbgen builds")
	require.Equal(t, 8, a.Depth())
	forget(size, 8)
	require.NoError(t, RecordVerified(ctx, path, fmt.Sprintf("%x", tab.DecodedSHA)))
	a2, from, note, err := Automaton(ctx, size, 8, []string{dir})
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
	a3, from, note, err := Automaton(ctx, size, 8, []string{dir})
	require.NoError(t, err)
	require.Equal(t, AutomatonBuilt, from)
	require.Contains(t, note, "checksum")
	require.Equal(t, a.Transitions(), a3.Transitions())
	// The embedded one.
	a4, from, _, err := Automaton(ctx, board.Size4x4, 0, []string{t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, AutomatonEmbedded, from)
	require.Equal(t, PruningDepth(board.Size4x4), a4.Depth())
	_, from, _, err = Automaton(ctx, board.Size4x4, 0, nil)
	require.NoError(t, err)
	require.Equal(t, AutomatonEmbedded, from, "a later call says where the kept automaton came from")
}

// forget drops an automaton the process keeps.
func forget(size board.Size, depth int) {
	automata.Lock()
	delete(automata.got, automatonKey{size, depth})
	automata.Unlock()
}

// TestDeepestInstalledAutomaton: depth 0 takes the deepest trusted automaton installed
// above the board's default, and the default when the deeper one is damaged.
func TestDeepestInstalledAutomaton(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	size := board.Size{W: 3, H: 3}
	deep := PruningDepth(size) + 2
	for _, depth := range []int{PruningDepth(size) - 2, deep} {
		path, tab, err := InstallAutomaton(ctx, size, depth, dir, nil)
		require.NoError(t, err)
		require.NoError(t, RecordVerified(ctx, path, fmt.Sprintf("%x", tab.DecodedSHA)))
		forget(size, depth)
	}
	a, from, _, err := Automaton(ctx, size, 0, []string{dir})
	require.NoError(t, err)
	require.Equal(t, dir, from)
	require.Equal(t, deep, a.Depth(), "the deepest installed, not the shallower one")
	forget(size, deep)

	path := filepath.Join(dir, AutomatonFile(size, deep))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)-3] ^= 0xFF
	require.NoError(t, os.WriteFile(path, b, 0o644))
	a, from, note, err := Automaton(ctx, size, 0, []string{dir})
	require.NoError(t, err)
	require.Equal(t, AutomatonBuilt, from)
	require.Equal(t, PruningDepth(size), a.Depth(), "a damaged deeper file is passed over")
	require.Contains(t, note, path, "and named")
	require.Contains(t, note, fmt.Sprintf("depth %d instead", PruningDepth(size)))
	require.Equal(t, []int{18, 14}, InstallDepths(board.Size5x5))
	require.Equal(t, []int{12}, InstallDepths(board.Size4x4))
}
