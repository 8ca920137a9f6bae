// Package zindex ranks the abstract states of zero-aware pattern databases (Clausecker &
// Reinefeld, "Zero-aware pattern databases with 1-bit entries for sliding tile puzzles",
// SoCS 2017): a placement of k pattern tiles together with the region of free cells that
// holds the blank.
//
// The placement's free cells (those of no pattern tile) fall into connected regions; the
// blank moves inside its region at no cost to the pattern, so the region, not the cell,
// is what the entry depends on. A plain additive table (Korf & Felner 2002) keeps the least
// value over the regions; a zero-aware one keeps every region's.
//
// Scheme zperm-v1 (docs/FORMAT.md) splits a placement into its map, the set of cells the
// pattern tiles occupy, and the order of the tiles on those cells. The number of regions
// depends on the map alone, so
//
//	index = (first[map] + region) * k! + order
//
// where map is the rank of the set of occupied cells in the combinatorial number system
// (the sum of C(c_j, j+1) over the occupied cells c_0 < c_1 < ...), first[map] the number
// of regions of all maps of smaller rank, region the number of the blank's region (regions
// are numbered by their smallest cell), and order the lexicographic rank of the tiles'
// places among the occupied cells (tile i of the pattern on the p_i-th smallest occupied
// cell: the rank of the permutation p). On 5x5, 6 tiles make 181,008,000 entries, 1.42
// times the 127,512,000 placements; 7 tiles 4,066,655,040 (Clausecker & Reinefeld's
// counts).
//
// A search moves one tile at a time. A State keeps a placement's mask, map rank and order
// rank in one word, and Step updates them for a move: the map's rank changes in a term for
// the moving tile and one for each pattern tile it passes, the order in one digit for each
// tile passed (none for a move sideways). IndexOf adds the blank's region.
package zindex

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/tilekit/tilekit/board"
)

// Name is the scheme's name in table headers.
const Name = "zperm-v1"

// MaxRegions is the most regions a map may leave; the builders record regions in a byte.
const MaxRegions = 8

// A Scheme ranks the zero-aware states of k tiles on one board.
type Scheme struct {
	size board.Size
	n, k int
	fact uint32 // k!
	// weight[i] = (k-1-i)!: what a digit of tile i weighs in the order's rank
	weight [8]uint32
	binom  [board.MaxCells + 1][board.MaxCells + 1]uint32
	first  []uint32 // first[m]: the regions of the maps ranked below m; first[maps] is the total
	// region[m*n+c]: the number of the region of free cell c under map m; NoRegion for
	// the occupied cells.
	region []uint8
	// mapInfo[m] is what IndexOf needs of map m in one word, one cache line to read:
	// first[m] in the low 32 bits, and above them the cells of region 1 when the map
	// leaves two regions (none when one), or manyRegions when it leaves more (then
	// region has the answer).
	mapInfo []uint64
	nbr     [board.MaxCells]uint32 // the cells next to each cell
	dark    uint32                 // the cells of odd row + column
	orders  orders                 // the order's tables (blocks.go)
}

// manyRegions marks, in mapInfo's high word, a map of more than two regions.
const manyRegions = 1 << 31

// NoRegion marks an occupied cell in the region table.
const NoRegion = 0xFF

var (
	schemesMu sync.Mutex
	schemes   = map[[3]int]*Scheme{}
)

// For returns the scheme of k tiles on a board of the given size, made once per process
// (for 7 tiles on 5x5, 480,700 maps: 16 MB, a fraction of a second).
func For(size board.Size, k int) (*Scheme, error) {
	if err := size.Check(); err != nil {
		return nil, err
	}
	n := size.Cells()
	if k < 1 || k > 8 || k > n-1 {
		return nil, fmt.Errorf("zindex: %d tiles on a %s board: a zero-aware table takes 1 to %d tiles", k, size, min(8, n-1))
	}
	key := [3]int{size.W, size.H, k}
	schemesMu.Lock()
	defer schemesMu.Unlock()
	if s := schemes[key]; s != nil {
		return s, nil
	}
	s := &Scheme{size: size, n: n, k: k, fact: 1}
	for i := 2; i <= k; i++ {
		s.fact *= uint32(i)
	}
	for i, w := k-1, uint32(1); i >= 0; i-- {
		s.weight[i] = w
		w *= uint32(k - i)
	}
	for a := 0; a <= n; a++ {
		s.binom[a][0] = 1
		for b := 1; b <= a; b++ {
			s.binom[a][b] = s.binom[a-1][b-1] + s.binom[a-1][b]
		}
	}
	maps := int(s.binom[n][k])
	s.first = make([]uint32, maps+1)
	s.region = make([]uint8, maps*n)
	s.mapInfo = make([]uint64, maps)
	nbr := &s.nbr
	for c := 0; c < n; c++ {
		for _, d := range board.Dirs {
			if q := size.Step(c, d); q >= 0 {
				nbr[c] |= 1 << q
			}
		}
		if (size.Row(c)+size.Col(c))%2 == 1 {
			s.dark |= 1 << c
		}
	}
	full := uint32(1)<<n - 1
	total := uint64(0)
	m := 0
	for mask := uint32(1)<<k - 1; m < maps; m++ {
		s.first[m] = uint32(total)
		row := s.region[m*n : (m+1)*n]
		for c := range row {
			row[c] = NoRegion
		}
		free := full &^ mask
		r := 0
		for rest := free; rest != 0; r++ {
			// Flood the region of the smallest cell left.
			reg := rest & -rest
			for {
				next := reg
				for x := reg; x != 0; x &= x - 1 {
					next |= nbr[bits.TrailingZeros32(x)]
				}
				next &= free
				if next == reg {
					break
				}
				reg = next
			}
			for x := reg; x != 0; x &= x - 1 {
				row[bits.TrailingZeros32(x)] = uint8(r)
			}
			rest &^= reg
		}
		if r > MaxRegions {
			return nil, fmt.Errorf("zindex: a map of %d tiles on %s leaves %d regions, more than %d", k, size, r, MaxRegions)
		}
		var cells uint64 // of region 1, or manyRegions
		switch {
		case r == 2:
			for c, reg := range row {
				if reg == 1 {
					cells |= 1 << c
				}
			}
		case r > 2:
			cells = manyRegions
		}
		s.mapInfo[m] = total | cells<<32
		total += uint64(r)
		// The next mask with k bits (Gosper's hack): the maps in increasing order are
		// the maps by rank.
		low := mask & -mask
		next := mask + low
		mask = next | ((mask^next)>>2)/low
	}
	s.first[maps] = uint32(total)
	schemes[key] = s
	return s, nil
}

// Entries returns the number of zero-aware states.
func (s *Scheme) Entries() int64 { return int64(s.first[len(s.first)-1]) * int64(s.fact) }

// Tiles is the number of pattern tiles.
func (s *Scheme) Tiles() int { return s.k }

// Map returns the rank of the set of occupied cells (k bits of mask).
func (s *Scheme) Map(mask uint32) uint32 {
	var r uint32
	for j := 1; mask != 0; j++ {
		r += s.binom[bits.TrailingZeros32(mask)][j]
		mask &= mask - 1
	}
	return r
}

// Regions returns how many regions map m leaves.
func (s *Scheme) Regions(m uint32) int { return int(s.first[m+1] - s.first[m]) }

// Region returns the number of the region of free cell c under map m (NoRegion if c is
// occupied).
func (s *Scheme) Region(m uint32, c int) uint8 { return s.region[int(m)*s.n+c] }

// Order returns the rank of the tiles' order on the occupied cells mask: cells[i] is the
// cell of tile i.
func (s *Scheme) Order(cells []uint8, mask uint32) uint32 {
	var used, r uint32
	for i := 0; i < s.k; i++ {
		p := uint32(bits.OnesCount32(mask & (1<<cells[i] - 1))) // its place among the cells
		r = r*uint32(s.k-i) + p - uint32(bits.OnesCount32(used&(1<<p-1)))
		used |= 1 << p
	}
	return r
}

// Index returns the index of the state with tile i on cells[i] and the blank in region
// region of their map. Index, IndexMask, IndexBlank, Unrank and IndexOf take indices of
// 32 bits, for schemes of at most 2^32 entries (Small); Index64 and Unrank64 any.
func (s *Scheme) Index(cells []uint8, region int) uint32 { return uint32(s.Index64(cells, region)) }

// Index64 is Index for any scheme.
func (s *Scheme) Index64(cells []uint8, region int) uint64 {
	var mask uint32
	for i := 0; i < s.k; i++ {
		mask |= 1 << cells[i]
	}
	m := s.Map(mask)
	return uint64(s.first[m]+uint32(region))*uint64(s.fact) + uint64(s.Order(cells, mask))
}

// Small reports whether the scheme's indices fit in 32 bits.
func (s *Scheme) Small() bool { return s.Entries() <= 1<<32 }

// IndexMask is IndexBlank with the occupied cells' mask already known.
func (s *Scheme) IndexMask(cells []uint8, mask uint32, blank int) uint32 {
	m := s.Map(mask)
	return (s.first[m]+uint32(s.region[int(m)*s.n+blank]))*s.fact + s.Order(cells, mask)
}

// IndexBlank returns the index of the state with tile i on cells[i] and the blank on cell
// blank (a free cell).
func (s *Scheme) IndexBlank(cells []uint8, blank int) uint32 {
	var mask uint32
	for i := 0; i < s.k; i++ {
		mask |= 1 << cells[i]
	}
	return s.IndexMask(cells, mask, blank)
}

// Unrank returns the state of index idx: the tiles' cells (into cells), the map, and the
// blank's region.
func (s *Scheme) Unrank(idx uint32, cells []uint8) (m uint32, region int) {
	return s.Unrank64(uint64(idx), cells)
}

// Unrank64 is Unrank for any scheme.
func (s *Scheme) Unrank64(idx uint64, cells []uint8) (m uint32, region int) {
	slot, order := uint32(idx/uint64(s.fact)), uint32(idx%uint64(s.fact))
	// The map: the last m with first[m] <= slot.
	lo, hi := 0, len(s.first)-2
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.first[mid] <= slot {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	m = uint32(lo)
	region = int(slot - s.first[m])
	// The occupied cells, in increasing order, then the order's places among them.
	var occ [8]uint8
	mask := s.Mask(m)
	for j := 0; mask != 0; j, mask = j+1, mask&(mask-1) {
		occ[j] = uint8(bits.TrailingZeros32(mask))
	}
	var p [8]uint8
	s.unrankOrder(order, p[:s.k])
	for i := 0; i < s.k; i++ {
		cells[i] = occ[p[i]]
	}
	return m, region
}

// A State is a placement's ranks kept for a search that moves one tile at a time: the
// mask of occupied cells, the map's rank and the order's rank in one word. Place ranks a
// placement from scratch; Step updates the ranks for a move.
type State uint64

const (
	mapShift   = board.MaxCells // the mask takes the low 25 bits
	mapMask    = 1<<22 - 1      // C(25, 8) < 2^21
	orderShift = mapShift + 22  // the order, below 8! < 2^16
)

// Occupied returns the mask of the cells the placement occupies.
func (st State) Occupied() uint32 { return uint32(st) & (1<<mapShift - 1) }

// Place returns the state of the placement with tile i on cells[i].
func (s *Scheme) Place(cells []uint8) State {
	var mask uint32
	for i := 0; i < s.k; i++ {
		mask |= 1 << cells[i]
	}
	return State(mask) | State(s.Map(mask))<<mapShift | State(s.Order(cells, mask))<<orderShift
}

// Step returns the state after the tile on cell from moves to the free cell to. moved is
// the moving tile's number in the pattern and passed the numbers of the tiles on the
// occupied cells between from and to, in increasing order of cell (Occupied tells which
// cells): none for a move sideways, and mostly none for a move up or down. The tile's
// place among the occupied cells changes by len(passed) and each passed tile's by one, so
// the map's rank changes in len(passed)+1 terms and the order in one digit for each tile
// passed.
func (s *Scheme) Step(st State, from, to, moved uint8, passed []uint8) State {
	mask := st.Occupied()
	m := uint32(st>>mapShift) & mapMask
	if len(passed) == 0 {
		// The tile keeps its place j among the occupied cells: the order stays.
		j := bits.OnesCount32(mask&(1<<min(from, to)-1)) + 1
		m += s.binom[to][j] - s.binom[from][j]
		return st&^(1<<orderShift-1) | State(mask^(1<<from|1<<to)) | State(m&mapMask)<<mapShift
	}
	order := uint32(st >> orderShift)
	j := bits.OnesCount32(mask & (1<<from - 1)) // the moving tile's place
	n := len(passed)
	lo, hi := min(from, to), max(from, to)
	between := mask & (1<<hi - 1<<(lo+1))
	if to > from {
		// Its place becomes j+n; those of the cells passed, j+1 to j+n, go down by one.
		m += s.binom[to][j+n+1] - s.binom[from][j+1]
		for p := j + 1; between != 0; p++ {
			c := bits.TrailingZeros32(between)
			between &= between - 1
			m += s.binom[c][p] - s.binom[c][p+1]
		}
		for _, b := range passed {
			if b > moved {
				order += s.weight[moved]
			} else {
				order -= s.weight[b]
			}
		}
	} else {
		// Its place becomes j-n; those of the cells passed, j-n to j-1, go up by one.
		m += s.binom[to][j-n+1] - s.binom[from][j+1]
		for p := j - n; between != 0; p++ {
			c := bits.TrailingZeros32(between)
			between &= between - 1
			m += s.binom[c][p+2] - s.binom[c][p+1]
		}
		for _, b := range passed {
			if b > moved {
				order -= s.weight[moved]
			} else {
				order += s.weight[b]
			}
		}
	}
	return State(mask^(1<<from|1<<to)) | State(m&mapMask)<<mapShift | State(order)<<orderShift
}

// IndexOf returns the index of the placement st with the blank on free cell blank: Index
// of the same placement and the blank's region.
func (s *Scheme) IndexOf(st State, blank uint8) uint32 {
	m := uint32(st>>mapShift) & mapMask
	info := s.mapInfo[m]
	f, cells := uint32(info), uint32(info>>32)
	if cells&manyRegions == 0 {
		f += cells >> (blank & 31) & 1 // region 1 or 0
	} else {
		f += uint32(s.region[int(m)*s.n+int(blank)])
	}
	return f*s.fact + uint32(st>>orderShift)
}

// Layout is what another implementation of Step and IndexOf (the GPU kernel's) needs of
// a scheme: the board's cells and the pattern's tiles, k!, each tile's weight in the
// order's rank, the binomial coefficients, and per map its first region's number with
// the cells of its region 1 (mapInfo) and each cell's region.
type Layout struct {
	N, K    int
	Fact    uint32
	Weight  [8]uint32
	Binom   [board.MaxCells + 1][board.MaxCells + 1]uint32
	MapInfo []uint64 // as IndexOf reads it: first[m], and above it region 1's cells or 1<<31 (ManyRegions)
	Region  []uint8  // Region[m*N+c]
}

// ManyRegions marks, in a map's MapInfo high word, a map of more than two regions: its
// regions are in Layout.Region.
const ManyRegions = manyRegions

// Layout returns the scheme's layout. Its slices are the scheme's: do not modify them.
func (s *Scheme) Layout() Layout {
	return Layout{N: s.n, K: s.k, Fact: s.fact, Weight: s.weight, Binom: s.binom, MapInfo: s.mapInfo, Region: s.region}
}

// Word is the State's word: the mask of occupied cells in bits 0-24, the map's rank in
// the 22 bits above, and the order's rank above them.
func (st State) Word() uint64 { return uint64(st) }
