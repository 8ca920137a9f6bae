package solve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/internal/hermetic"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// TestMain hides the tables installed on this machine, so that the defaults are the same
// everywhere.
func TestMain(m *testing.M) { hermetic.Main(m) }

// The zero options pick the fast IDA* with the strongest heuristic available on the 4x4
// board, the general search elsewhere, and every answer is optimal on the shared corpus.
func TestDefaults(t *testing.T) {
	for _, in := range corpus.Small() {
		res, err := Solve(context.Background(), in.Goal, in.Start, Options{})
		require.NoError(t, err, in.Name)
		assert.True(t, res.Solved && res.Optimal, in.Name)
		assert.Equal(t, in.Optimal, res.Length(), in.Name)
		assert.Equal(t, in.Optimal, res.LowerBound, in.Name)
		assert.Len(t, res.Tiles, in.Optimal)
		assert.NotEmpty(t, res.Heuristic)
		assert.NotEmpty(t, res.Tables)
	}
	s, err := New(context.Background(), board.BlankFirst(board.Size4x4), Options{})
	require.NoError(t, err)
	assert.Equal(t, "6-6-3", s.Heuristic())
	assert.Contains(t, s.About(), "IDA* with 6-6-3 (regular+reflected), tables: set 6-6-3 (embedded)")
	s, err = New(context.Background(), board.BlankLast(board.Size{W: 3, H: 3}), Options{})
	require.NoError(t, err)
	assert.Equal(t, "idastar with max (general search)", s.About())
	assert.True(t, s.Optimal())
}

// Options name other algorithms and heuristics; what the options get wrong is ErrOptions.
func TestOptions(t *testing.T) {
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	start := must(goal.Parse("8 6 7 2 5 4 3 0 1"))
	res, err := Solve(context.Background(), goal, start, Options{Algorithm: "astar", Heuristic: "chebyshev2"})
	require.NoError(t, err)
	assert.False(t, res.Optimal, "chebyshev2 is not admissible")
	assert.Equal(t, "astar", res.Algorithm)
	assert.Positive(t, res.PeakStored)
	for _, opt := range []Options{
		{Algorithm: "dfs"},
		{Heuristic: "euclid"},
		{Heuristic: "7-8", Algorithm: "astar"},
		{Lookups: "sideways"},
		{Heuristic: "7-8", Tables: t.TempDir()},
		{Pruning: "siblings"},
		{PruningDepth: -1},
		{PruningDepth: 99},
	} {
		_, err := New(context.Background(), board.BlankLast(board.Size4x4), opt)
		assert.ErrorIs(t, err, ErrOptions, "%+v", opt)
	}
	// A heuristic or set of another board, told before any table is read.
	five := board.BlankFirst(board.Size5x5)
	for _, opt := range []Options{{Heuristic: "6-6-3"}, {Heuristic: "7-8", Tables: t.TempDir()}} {
		_, err := New(context.Background(), five, opt)
		assert.ErrorIs(t, err, ErrOptions, "%+v", opt)
		assert.ErrorContains(t, err, "is for the 4x4 board", "%+v", opt)
	}
	_, err = New(context.Background(), five, Options{Heuristic: "wd"})
	assert.ErrorIs(t, err, ErrOptions)
	_, err = New(context.Background(), board.BlankLast(board.Size4x4), Options{Heuristic: "7-8", Tables: t.TempDir()})
	assert.ErrorContains(t, err, "pdbgen build --set 7-8")
}

// TestPruning solves Korf's instances with the automaton (the default) and the move-back
// rule: the same optimal lengths, fewer nodes, each record naming its pruning, and
// fingerprints that tell the two apart.
func TestPruning(t *testing.T) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	auto, err := New(context.Background(), goal, Options{})
	require.NoError(t, err)
	parent, err := New(context.Background(), goal, Options{Pruning: PruneParent})
	require.NoError(t, err)
	require.NotEqual(t, auto.Fingerprint(), parent.Fingerprint())
	assert.Contains(t, auto.About(), "pruning: automaton depth 12")
	assert.Contains(t, parent.About(), "pruning: move back")
	var a, p uint64
	for _, in := range korf[:6] {
		ra, err := auto.Solve(context.Background(), in.Start)
		require.NoError(t, err)
		rp, err := parent.Solve(context.Background(), in.Start)
		require.NoError(t, err)
		require.Equal(t, in.Optimal, ra.Length(), in.Name)
		require.Equal(t, in.Optimal, rp.Length(), in.Name)
		assert.Equal(t, "automaton depth 12, 11671 states", ra.Pruning)
		assert.Equal(t, "move back", rp.Pruning)
		a += ra.Expanded
		p += rp.Expanded
	}
	assert.Less(t, float64(a), 0.85*float64(p), "the automaton expands at least 15%% fewer nodes")
}

// A search stopped by its context or a limit returns what it established.
func TestStopped(t *testing.T) {
	korf := corpus.Korf100()[87]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	res, err := Solve(ctx, korf.Goal, korf.Start, Options{Heuristic: "md"})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
	require.NotNil(t, res)
	assert.False(t, res.Solved)
	assert.Equal(t, -1, res.Length())
	assert.Positive(t, res.LowerBound)
	_, err = Solve(context.Background(), korf.Goal, korf.Start, Options{MaxNodes: 1000})
	assert.Error(t, err)
	_, err = Solve(context.Background(), korf.Goal, must(board.Parse(board.Size4x4, "0 2 1 3 4 5 6 7 8 9 10 11 12 13 14 15")), Options{})
	assert.ErrorIs(t, err, board.ErrUnsolvable)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A result names the tables it used: those of Options.Tables when given, for the general
// search too.
func TestTablesSource(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range data.Specs[:4] {
		raw, err := data.Embedded(spec.File)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, spec.File), raw, 0o644))
	}
	goal := board.BlankLast(board.Size{W: 3, H: 3})
	start := must(goal.Parse("8 6 7 2 5 4 3 0 1"))
	res, err := Solve(context.Background(), goal, start, Options{Algorithm: "astar", Heuristic: "pdb", Tables: dir})
	require.NoError(t, err)
	assert.Equal(t, 31, res.Length())
	assert.Equal(t, dir, res.Tables)
	res, err = Solve(context.Background(), goal, start, Options{Algorithm: "astar", Heuristic: "pdb"})
	require.NoError(t, err)
	assert.Equal(t, "embedded", res.Tables)
}

// The zero value of Options is the recommended setting, not the slowest (issue 10).
func TestZeroOptionsAreRecommended(t *testing.T) {
	for _, tc := range []struct {
		goal board.Goal
		want string
	}{
		{board.BlankLast(board.Size4x4), "6-6-3"}, // the embedded set, with no other installed
		{board.BlankFirst(board.Size4x4), "6-6-3"},
		{must(board.ParseGoal(board.Size4x4, "1 2 3 4 5 6 0 7 8 9 10 11 12 13 14 15")), "wd"},
		{board.BlankFirst(board.Size5x5), "md"}, // no 24-puzzle set installed
	} {
		s, err := New(context.Background(), tc.goal, Options{Tables: t.TempDir()})
		require.NoError(t, err)
		assert.Equal(t, tc.want, s.Heuristic(), tc.goal.Name())
	}
	in := corpus.Korf100()[0]
	res, err := Solve(context.Background(), in.Goal, in.Start, Options{Tables: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, in.Optimal, res.Length())
	assert.Equal(t, "6-6-3", res.Heuristic)
	assert.Less(t, res.Nodes, uint64(2_000_000), "Korf #1 with the recommended heuristic")
	_, err = New(context.Background(), board.BlankFirst(board.Size5x5), Options{Heuristic: "6-6-6-6", Tables: t.TempDir()})
	assert.ErrorContains(t, err, "pdbgen build --set 6-6-6-6", "not installed: the message says how to build it")
	assert.ErrorIs(t, err, ErrOptions)
}

// Auto takes the strongest set installed and says where it read it; an installed set
// that cannot be read is reported, not passed over for a weaker one.
func TestAutoInstalledSets(t *testing.T) {
	goal := board.BlankLast(board.Size4x4)
	dir := t.TempDir()
	set, err := pdb.NewSet(context.Background(), pdb.Set555, 0)
	require.NoError(t, err)
	for i, tab := range set.Tables {
		f, err := tab.File()
		require.NoError(t, err)
		require.NoError(t, tablefile.Write(context.Background(), filepath.Join(dir, data.SetFile(pdb.Set555, i)), f))
	}
	s, err := New(context.Background(), goal, Options{Tables: dir})
	require.NoError(t, err)
	assert.Equal(t, "6-6-3", s.Heuristic(), "the embedded 6-6-3 is stronger than 5-5-5")
	assert.Contains(t, s.About(), "tables: set 6-6-3 (embedded)")
	s, err = New(context.Background(), goal, Options{Heuristic: "5-5-5", Tables: dir})
	require.NoError(t, err)
	assert.Regexp(t, `tables: set 5-5-5 \(sha256:[0-9a-f]{16}\) in `+regexp.QuoteMeta(dir), s.About(), "the text says where")
	start, err := board.Parse(board.Size4x4, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15")
	require.NoError(t, err)
	res, err := s.Solve(context.Background(), start)
	require.NoError(t, err)
	assert.Regexp(t, `^set 5-5-5 \(sha256:[0-9a-f]{16}\)$`, res.Tables, "a record names the set by its values, not by this machine's directory")
	assert.NotContains(t, res.Tables, dir)

	for i := range pdb.Set663.Tables {
		require.NoError(t, os.WriteFile(filepath.Join(dir, data.SetFile(pdb.Set663, i)), []byte("not a table"), 0o644))
	}
	_, err = New(context.Background(), goal, Options{Tables: dir})
	require.ErrorContains(t, err, data.SetFile(pdb.Set663, 0), "a broken installed 6-6-3 is reported")
}

// A catalogue of the user's: its tables built as pdbgen build --catalogue builds them are
// refused until verified (their values are known to no one), then it solves Korf's
// instances optimally, named as the catalogue, with at least 5-5-5's pruning.
func TestCatalogueFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "two.cat")
	require.NoError(t, os.WriteFile(file, []byte("# 5-5-5, then 4-4-4-3\n1,2,3,4,7\n5,6,9,10,13\n8,11,12,14,15\n\n1 2 5 6\n3 4 7 8\n9 10 13 14\n11 12 15\n"), 0o644))
	spec, err := data.ReadCatalogue(file, board.Size4x4)
	require.NoError(t, err)
	require.Len(t, spec.Partitions, 3, "5-5-5, its reflection, and 4-4-4-3, which is its own")
	_, err = data.InstallSet(context.Background(), spec, dir, data.BuildOptions{})
	require.NoError(t, err)
	korf := corpus.Korf100()
	opt := Options{Catalogue: file, Tables: dir}
	_, err = New(context.Background(), korf[0].Goal, opt)
	require.ErrorIs(t, err, data.ErrNotStandard)
	for tab := range spec.Tables {
		path := filepath.Join(dir, data.SetFile(spec, tab))
		f, err := tablefile.Read(path)
		require.NoError(t, err)
		require.NoError(t, data.RecordVerified(context.Background(), path, fmt.Sprintf("%x", f.DecodedSHA)))
	}
	s, err := New(context.Background(), korf[0].Goal, opt)
	require.NoError(t, err)
	set555, err := New(context.Background(), korf[0].Goal, Options{Heuristic: "5-5-5", Tables: dir})
	require.NoError(t, err, "the catalogue's first partition is 5-5-5: its files serve that set too")
	for _, i := range []int{0, 2, 11} {
		res, err := s.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		assert.Equal(t, korf[i].Optimal, res.Length())
		assert.Equal(t, "catalogue "+file, res.Heuristic)
		assert.Equal(t, "partitions", res.Lookups)
		plain, err := set555.Solve(context.Background(), korf[i].Start)
		require.NoError(t, err)
		assert.LessOrEqual(t, res.Nodes, plain.Nodes)
	}
	_, err = New(context.Background(), korf[0].Goal, Options{Catalogue: file, Heuristic: "md"})
	assert.ErrorIs(t, err, ErrOptions)
	_, err = New(context.Background(), korf[0].Goal, Options{Catalogue: filepath.Join(dir, "none.cat")})
	assert.ErrorIs(t, err, ErrOptions)
	_, err = New(context.Background(), board.BlankFirst(board.Size{W: 3, H: 3}), Options{Catalogue: file})
	assert.ErrorIs(t, err, ErrOptions)
}

// A zero-aware catalogue built with its tables in the bit encoding (a quarter of the
// memory) solves as its half-excess build does: the same nodes and lengths.
func TestCatalogueInBits(t *testing.T) {
	text := "0,1,2,3,4,7\n0,5,6,9,10,13\n0,8,11,12,14,15\n"
	korf := corpus.Korf100()
	var nodes [2][]uint64
	for k, bits := range []bool{false, true} {
		dir := t.TempDir()
		spec, err := data.ParseCatalogue(text, "555z", board.Size4x4)
		require.NoError(t, err)
		_, err = data.InstallSet(context.Background(), spec, dir, data.BuildOptions{Bits: bits})
		require.NoError(t, err)
		for tab := range spec.Tables {
			path := filepath.Join(dir, data.SetFile(spec, tab))
			f, err := tablefile.Read(path)
			require.NoError(t, err)
			if bits {
				assert.Equal(t, tablefile.EncodingBit, f.Encoding)
			}
			require.NoError(t, data.RecordVerified(context.Background(), path, fmt.Sprintf("%x", f.DecodedSHA)))
		}
		s, err := New(context.Background(), korf[0].Goal, Options{CatalogueText: text, Tables: dir})
		require.NoError(t, err)
		for _, i := range []int{0, 2, 11} {
			res, err := s.Solve(context.Background(), korf[i].Start)
			require.NoError(t, err)
			assert.Equal(t, korf[i].Optimal, res.Length())
			assert.Equal(t, "catalogue (text)", res.Heuristic)
			nodes[k] = append(nodes[k], res.Nodes)
		}
	}
	assert.Equal(t, nodes[0], nodes[1])
	_, err := data.InstallSet(context.Background(), pdb.Set555, t.TempDir(), data.BuildOptions{Bits: true})
	assert.ErrorContains(t, err, "not zero-aware")
}

// BA* searches with its own heuristic: another one, or a board it does not serve, is
// refused as bad options rather than ignored or failed at search time.
func TestBAStarOptions(t *testing.T) {
	goal4 := board.BlankLast(board.Size4x4)
	_, err := New(context.Background(), goal4, Options{Algorithm: "bastar", Heuristic: "md"})
	assert.ErrorIs(t, err, ErrOptions)
	assert.ErrorContains(t, err, "its own heuristic")
	_, err = New(context.Background(), board.BlankLast(board.Size5x5), Options{Algorithm: "bastar"})
	assert.ErrorIs(t, err, ErrOptions)
	assert.ErrorContains(t, err, "bastar serves no 5x5 board")
	s, err := New(context.Background(), goal4, Options{Algorithm: "bastar", Heuristic: "hh"})
	require.NoError(t, err)
	assert.Equal(t, "hh", s.Heuristic())
}

// A cluster's job is identified by a hash of its options' JSON: the keys are those of
// earlier versions, so that a coordinator restarted with this one finds the results of the
// run before (a new field that changes results must say so here, and change the ids).
func TestOptionsJSONKeepsJobIDs(t *testing.T) {
	b, err := json.Marshal(Options{Device: Device{Kind: deviceGPU, Ordinal: 1, Library: "x"}, Lanes: 0})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Algorithm":"","Heuristic":"","Lookups":"","WithWD":false,"Tables":"","Catalogue":"",
		"CatalogueText":"","Pruning":"","PruningDepth":0,"MaxNodes":0,"MaxExpansions":0,"MaxStates":0,"Workers":0,
		"Lanes":0}`, string(b))
	var old Options
	require.NoError(t, json.Unmarshal([]byte(`{"Heuristic":"7-8","Lanes":3}`), &old), "an older coordinator's job, with lanes")
	assert.Equal(t, "7-8", old.Heuristic)
}
