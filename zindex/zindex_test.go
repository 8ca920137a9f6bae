package zindex

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
)

// The entry counts Clausecker & Reinefeld give for the 24-puzzle.
func TestPublishedCounts(t *testing.T) {
	for _, c := range []struct {
		k    int
		want int64
	}{{6, 181_008_000}, {7, 4_066_655_040}, {8, 87_358_400_640}} {
		s, err := For(board.Size{W: 5, H: 5}, c.k)
		require.NoError(t, err)
		assert.Equal(t, c.want, s.Entries(), "%d tiles", c.k)
		assert.Equal(t, c.k < 8, s.Small(), "%d tiles", c.k)
	}
}

// Every (placement, region) of small boards has its own index, and the indices fill
// 0..Entries()-1; Unrank gives the state back.
func TestIndexIsABijection(t *testing.T) {
	for _, c := range []struct {
		size board.Size
		k    int
	}{{board.Size{W: 3, H: 3}, 3}, {board.Size{W: 4, H: 2}, 4}, {board.Size{W: 4, H: 3}, 3}, {board.Size{W: 4, H: 4}, 2}} {
		s, err := For(c.size, c.k)
		require.NoError(t, err)
		n := c.size.Cells()
		seen := make([]bool, s.Entries())
		cells := make([]uint8, c.k)
		var walk func(i int, used uint32)
		walk = func(i int, used uint32) {
			if i == c.k {
				m := s.Map(used)
				for r := 0; r < s.Regions(m); r++ {
					idx := s.Index(cells, r)
					require.Less(t, int64(idx), s.Entries())
					require.False(t, seen[idx], "%v region %d", cells, r)
					seen[idx] = true
					back := make([]uint8, c.k)
					gm, gr := s.Unrank(idx, back)
					require.Equal(t, cells, back)
					require.Equal(t, m, gm)
					require.Equal(t, r, gr)
				}
				return
			}
			for cell := 0; cell < n; cell++ {
				if used&(1<<cell) == 0 {
					cells[i] = uint8(cell)
					walk(i+1, used|1<<cell)
				}
			}
		}
		walk(0, 0)
		for i, ok := range seen {
			require.True(t, ok, "%s, %d tiles: index %d unused", c.size, c.k, i)
		}
	}
}

// Regions are numbered by their smallest cell, and a blank anywhere in a region finds it.
func TestRegions(t *testing.T) {
	size := board.Size{W: 4, H: 4}
	s, err := For(size, 4)
	require.NoError(t, err)
	// Tiles on 1, 4, 6, 9 cut the corner cell 0 and cell 5 off from the rest.
	cells := []uint8{1, 4, 6, 9}
	mask := uint32(1<<1 | 1<<4 | 1<<6 | 1<<9)
	m := s.Map(mask)
	assert.Equal(t, 3, s.Regions(m))
	assert.Equal(t, uint8(0), s.Region(m, 0))
	assert.Equal(t, uint8(1), s.Region(m, 2)) // 2, 3, 7, 8, 10, ...
	assert.Equal(t, uint8(2), s.Region(m, 5))
	assert.Equal(t, uint8(1), s.Region(m, 15))
	assert.Equal(t, uint8(NoRegion), s.Region(m, 4))
	assert.Equal(t, s.IndexBlank(cells, 15), s.Index(cells, 1))

	big, err := For(board.Size{W: 5, H: 5}, 7)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		perm := rng.Perm(25)
		c := make([]uint8, 7)
		for i := range c {
			c[i] = uint8(perm[i])
		}
		blank := perm[7+rng.IntN(18)]
		idx := big.IndexBlank(c, blank)
		back := make([]uint8, 7)
		_, r := big.Unrank(idx, back)
		require.Equal(t, c, back)
		var mask uint32
		for _, x := range c {
			mask |= 1 << x
		}
		require.Equal(t, int(big.Region(big.Map(mask), blank)), r)
	}
}

// Step follows a tile's moves as Place ranks them from scratch, on random walks of
// pattern tiles, both moves that pass none of the pattern's tiles and moves that pass
// some; IndexOf reads the same index as IndexBlank for every free cell.
func TestStepFollowsPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct {
		size board.Size
		k    int
	}{{board.Size{W: 3, H: 3}, 3}, {board.Size{W: 4, H: 3}, 4}, {board.Size{W: 4, H: 4}, 7}, {board.Size5x5, 6}, {board.Size5x5, 7}} {
		s, err := For(c.size, c.k)
		require.NoError(t, err)
		n := c.size.Cells()
		cells := make([]uint8, c.k)
		for i, p := range rng.Perm(n)[:c.k] {
			cells[i] = uint8(p)
		}
		st := s.Place(cells)
		clear, past := 0, 0
		for range 3000 {
			i := rng.IntN(c.k)
			to := c.size.Step(int(cells[i]), board.Dirs[rng.IntN(4)])
			if to < 0 || slices.Contains(cells, uint8(to)) {
				continue
			}
			from := cells[i]
			passed := passedTiles(cells, int(from), to)
			cells[i] = uint8(to)
			want := s.Place(cells)
			require.Equal(t, want, s.Step(st, from, uint8(to), uint8(i), passed), "%v: %d to %d past %v", cells, from, to, passed)
			if len(passed) == 0 {
				clear++
			} else {
				past++
			}
			st = want
			for b := 0; b < n; b++ {
				if !slices.Contains(cells, uint8(b)) {
					require.Equal(t, s.IndexBlank(cells, b), s.IndexOf(st, uint8(b)), "%v blank %d", cells, b)
				}
			}
		}
		assert.Positive(t, clear, "%s: moves that pass no tile", c.size)
		assert.Positive(t, past, "%s: moves that pass tiles", c.size)
	}
}

// IndexOf adds the blank's region for every map and free cell, whether the map leaves
// one region, two (read from the map's word) or more (read from the region table).
func TestIndexOfEveryMap(t *testing.T) {
	for _, c := range []struct {
		size board.Size
		k    int
	}{{board.Size4x4, 7}, {board.Size5x5, 6}} {
		s, err := For(c.size, c.k)
		require.NoError(t, err)
		n := c.size.Cells()
		var kinds [4]int // maps of one, two and more regions
		cells := make([]uint8, c.k)
		for mask := uint32(1)<<c.k - 1; mask < 1<<n; {
			for i, x := 0, mask; x != 0; i, x = i+1, x&(x-1) {
				cells[i] = uint8(bits.TrailingZeros32(x))
			}
			st := s.Place(cells) // the tiles in the order of their cells: order 0
			m := s.Map(mask)
			kinds[min(s.Regions(m), 3)]++
			for b := 0; b < n; b++ {
				if mask&(1<<b) == 0 {
					want := (s.first[m] + uint32(s.Region(m, b))) * s.fact
					require.Equal(t, want, s.IndexOf(st, uint8(b)), "%s map %d blank %d", c.size, m, b)
				}
			}
			low := mask & -mask
			next := mask + low
			mask = next | ((mask^next)>>2)/low
		}
		assert.Equal(t, int(s.binom[n][c.k]), kinds[1]+kinds[2]+kinds[3])
		assert.Positive(t, kinds[2], "%s: maps of two regions", c.size)
		assert.Positive(t, kinds[3], "%s: maps of more", c.size)
	}
}

// passedTiles returns the numbers of the tiles on the cells strictly between from and to,
// in increasing order of cell.
func passedTiles(cells []uint8, from, to int) []uint8 {
	var passed []uint8
	for cell := min(from, to) + 1; cell < max(from, to); cell++ {
		if o := slices.Index(cells, uint8(cell)); o >= 0 {
			passed = append(passed, uint8(o))
		}
	}
	return passed
}

// BenchmarkIndex compares ranking a 6-tile placement from scratch with stepping its ranks,
// on the moves of a random walk (5x5).
func BenchmarkIndex(b *testing.B) {
	s, err := For(board.Size5x5, 6)
	require.NoError(b, err)
	rng := rand.New(rand.NewPCG(1, 1))
	cells := []uint8{0, 1, 2, 3, 4, 5}
	type move struct {
		i        int
		from, to uint8
		passed   []uint8
	}
	var walk []move
	for len(walk) < 4096 {
		i := rng.IntN(6)
		to := board.Size5x5.Step(int(cells[i]), board.Dirs[rng.IntN(4)])
		if to < 0 || slices.Contains(cells, uint8(to)) {
			continue
		}
		walk = append(walk, move{i, cells[i], uint8(to), passedTiles(cells, int(cells[i]), to)})
		cells[i] = uint8(to)
	}
	start := []uint8{0, 1, 2, 3, 4, 5}
	b.Run("scratch", func(b *testing.B) {
		sum := uint32(0)
		for b.Loop() {
			c := slices.Clone(start)
			for _, m := range walk {
				c[m.i] = m.to
				sum += s.IndexBlank(c, int(m.from))
			}
		}
		_ = sum
	})
	b.Run("step", func(b *testing.B) {
		sum := uint32(0)
		for b.Loop() {
			st := s.Place(start)
			for _, m := range walk {
				st = s.Step(st, m.from, m.to, uint8(m.i), m.passed)
				sum += s.IndexOf(st, m.from)
			}
		}
		_ = sum
	})
}
