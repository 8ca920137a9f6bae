package ida

import (
	"fmt"
	"slices"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/zindex"
)

// This file is the search with a catalogue of additive pattern databases (Clausecker &
// Reinefeld 2017): h is the Manhattan distance of the state plus twice the largest sum of
// half excesses over it of a partition's lookups. The partitions are the catalogue's and,
// with the options, the same taken on the state reflected about the main diagonal; a
// reflected lookup that the catalogue already has (closed catalogues have all of theirs)
// is read once, and so is a lookup that several partitions share.
//
// A move changes one tile, so in each partition one lookup changes: the distinct lookups
// of the moved tile (touch) are computed for every child first and the tables read
// together, so that the memory accesses of a node's children overlap; then each
// partition's sum is updated from them. A set is a catalogue of one partition (and the
// reflection's); its dual lookups (Zahavi, Felner et al. 2007) are those partitions read on
// the dual state (dualH), inconsistent, taken for a child that the others did not prune
// and propagated with BPMX (Felner et al. 2005).

// The limits of a catalogue, counting reflected lookups and partitions.
const (
	maxCatLookups = 64 // distinct lookups
	maxParts      = 32 // partitions (pdb.MaxPartitions)
	maxTouch      = 32 // distinct lookups that hold one tile
)

// catTables is a set prepared for search in the canonical frame.
type catTables struct {
	name    string
	lookups Lookups
	look    [maxCatLookups]pdb.Reader // the first nl are used
	nl      int
	np      int                       // partitions
	of      [maxCells][maxParts]uint8 // of[t][p]: the lookup of partition p that holds tile t
	slot    [maxCells][maxParts]uint8 // its place in touch[t]
	touch   [maxCells][maxTouch]uint8 // the distinct lookups that hold tile t
	ntouch  [maxCells]uint8           // how many
	goal    [maxCells]uint8           // the canonical goal: the tile on each cell
	wd      bool                      // also the maximum with walking distance (4x4)
	zero    bool                      // zero-aware tables
	plain   bool                      // a set, not a catalogue
	dual    bool                      // a set's dual lookups too (dualH)
	// eager looks every child up in full: a set of tables that are not zero-aware. Their
	// values are not consistent, so a child looked up in one partition alone would give
	// BPMX less than its full value (docs/SEARCH.md), and the search other nodes.
	eager bool
}

// hasBits reports whether a set has a table in the bit encoding.
func hasBits(set *pdb.Set) bool {
	for _, t := range set.Tables {
		if t.Bitmap != nil {
			return true
		}
	}
	return false
}

// newCatalogue prepares set for the canonical frame of its board.
func newCatalogue(set *pdb.Set, lookups Lookups) (*catTables, error) {
	spec := set.SetSpec
	size := spec.Size()
	if !spec.Goal.Equal(canonicalGoal(size)) {
		return nil, fmt.Errorf("ida: set %s is for goal %s, not the board's canonical one", spec.Name, spec.Goal.Name())
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	if lookups.dual() && (spec.Partitions != nil || hasBits(set)) {
		return nil, badOptions("ida: %s is a catalogue or has tables in the bit encoding: its lookups are regular or reflected, not dual", spec.Name)
	}
	s := &catTables{name: spec.Name, lookups: lookups, plain: spec.Partitions == nil}
	if s.plain {
		// A set takes by default its reflection too; dual lookups are the set's partitions
		// read on the dual state (dualH).
		lookups = lookups.resolve()
		s.lookups, s.dual = lookups, lookups.dual()
	}
	w := size.W
	n := size.Cells()
	goal := spec.Goal.Tiles()
	copy(s.goal[:], goal)
	// sigma maps a tile to the tile whose home is its home reflected (a canonical goal is
	// symmetric about the main diagonal).
	var sigma [maxCells]uint8
	for t := 0; t < n; t++ {
		sigma[t] = goal[pdb.Transpose.Apply(w, spec.Goal.Home(t))]
	}
	// add returns the index of a lookup, adding it unless an equal one is there.
	add := func(l pdb.Lookup, reflected bool) (uint8, error) {
		tiles, cells := make([]uint8, len(l.Tiles)), make([]uint8, n)
		for i, t := range l.Tiles {
			// The reflected state holds tile sigma(t) on the reflection of t's cell: its
			// lookup reads the tiles sigma^-1(l.Tiles) = sigma(l.Tiles) of the state.
			tiles[i] = uint8(t)
			if reflected {
				tiles[i] = sigma[t]
			}
		}
		for c := range cells {
			if reflected {
				cells[c] = uint8(l.Map.Apply(w, pdb.Transpose.Apply(w, c)))
			} else {
				cells[c] = uint8(l.Map.Apply(w, c))
			}
		}
		lt := pdb.NewReader(set.Tables[l.Table], tiles, cells)
		for k := range s.nl {
			if s.look[k].Same(&lt) {
				return uint8(k), nil
			}
		}
		if s.nl == maxCatLookups {
			return 0, fmt.Errorf("ida: set %s needs more than %d lookups", spec.Name, maxCatLookups)
		}
		s.look[s.nl] = lt
		s.nl++
		return uint8(s.nl - 1), nil
	}
	var parts [][]uint8
	seen := map[string]bool{}
	for _, reflected := range []bool{false, true} {
		// A catalogue holds the reflections it wants (pdb.NewCatalogue adds them): only
		// asked for by name are they added here.
		if reflected && lookups&Reflected != Reflected {
			break
		}
		for _, part := range spec.Parts() {
			var ks []uint8
			for _, k := range part {
				i, err := add(spec.Lookups[k], reflected)
				if err != nil {
					return nil, err
				}
				ks = append(ks, i)
			}
			key := string(slices.Sorted(slices.Values(ks)))
			if seen[key] {
				continue // the reflection of a partition the catalogue has
			}
			seen[key] = true
			parts = append(parts, ks)
		}
	}
	if len(parts) > maxParts {
		return nil, fmt.Errorf("ida: set %s has %d partitions (with reflections), at most %d are supported", spec.Name, len(parts), maxParts)
	}
	s.np = len(parts)
	for k := range s.nl {
		s.zero = s.zero || s.look[k].ZeroAware()
	}
	for p, ks := range parts {
		for _, k := range ks {
			for _, t := range s.look[k].Tiles[:s.look[k].K] {
				j := slices.Index(s.touch[t][:s.ntouch[t]], k)
				if j < 0 {
					if int(s.ntouch[t]) == maxTouch {
						return nil, fmt.Errorf("ida: set %s reads tile %d in more than %d lookups", spec.Name, t, maxTouch)
					}
					j = int(s.ntouch[t])
					s.touch[t][j] = k
					s.ntouch[t]++
				}
				s.of[t][p], s.slot[t][p] = k, uint8(j)
			}
		}
	}
	return s, nil
}

// catState is a search's view of its node under the set: the half excess of each lookup
// and each partition's sum, and for a table in the bit encoding its value modulo 4 (what
// reading a child's value from its bit takes: pdb.NextValue).
//
// A zero-aware lookup also keeps its placement's ranks (zindex.State), from which a child's
// index follows in a few operations (zindex.Scheme.Step).
type catState struct {
	ex  [maxCatLookups]uint8
	hm  [maxCatLookups]uint8
	sum [maxParts]int16
	z   [maxCatLookups]zindex.State
}

// bestPart returns the partition of the largest sum.
func (ss *catState) bestPart(np int) int {
	b := 0
	for p := 1; p < np; p++ {
		if ss.sum[p] > ss.sum[b] {
			b = p
		}
	}
	return b
}

// best returns the largest partition sum.
func (ss *catState) best(np int) int {
	b := ss.sum[0]
	for p := 1; p < np; p++ {
		b = max(b, ss.sum[p])
	}
	return int(b)
}

// catH returns the catalogue's heuristic at the current node, with the dual lookups when
// the options ask for them.
func (st *walk) catH() int { return st.catValue(st.t.cat.dual) }

// catValue returns the catalogue's heuristic at the current node, with the dual lookups
// if dual.
func (st *walk) catValue(dual bool) int {
	h := st.md + 2*st.cat.best(st.t.cat.np)
	if st.t.cat.wd {
		h = max(h, st.wd())
	}
	if dual {
		h = max(h, st.dualH())
	}
	return h
}

// valueBelow returns the heuristic value of the current node as the search meets it as a
// child (not the root): the dual lookups are taken only where the blank is within
// dualReach of its home, as the loop takes them.
func (st *walk) valueBelow() int {
	if st.t.cat == nil || !st.t.cat.dual {
		return st.h()
	}
	h := st.catValue(false)
	if h > 0 && int(st.t.md[0][st.pos[0]]) <= dualReach {
		h = max(h, st.dualH())
	}
	return h
}

// dualH returns a lower bound from the dual state (Zahavi, Felner et al. 2007): in the
// canonical frame, where a tile's label is its goal cell, the dual swaps the roles of tiles
// and cells: tile t stands on the home of the tile that stands on t's home. A solution of a
// state whose blank is home, its moves taken in reverse order as swaps of cells, solves the
// dual, so the two are equally far from the goal; with the blank elsewhere that fails
// (the dual may even be unsolvable). So the blank is first taken home along a fixed path
// (rows, then columns) and the dual is that of the state reached, S': the state is at
// least d(S') - |path| from the goal, and d(S') = d(dual(S')) is at least the set's value
// on dual(S'): the largest sum of a partition's (the regular lookups' and the reflected).
func (st *walk) dualH() int {
	s := st.t.cat
	t := st.t
	var b [maxCells]uint8
	copy(b[:t.n], st.board[:t.n])
	blank := int(st.pos[0])
	b[blank] = 0
	home := int(t.homes[0])
	hr, hc := home/t.w, home%t.w
	moves := 0
	for blank != home {
		next := blank
		switch r, c := blank/t.w, blank%t.w; {
		case r < hr:
			next += t.w
		case r > hr:
			next -= t.w
		case c < hc:
			next++
		default:
			next--
		}
		b[blank], b[next] = b[next], 0
		blank = next
		moves++
	}
	var dpos [maxCells]uint8
	dpos[0] = t.homes[0] // the dual's blank is home, as the state's was made to be
	for c := 0; c < t.n; c++ {
		if tile := s.goal[c]; tile != 0 { // tile's home is c
			dpos[tile] = t.homes[b[c]]
		}
	}
	best := 0
	for p := 0; p < s.np; p++ {
		best = max(best, st.partSum(p, func(k uint8) int { return s.look[k].Value(&dpos) }))
	}
	return best - moves
}

// dualReach is how far the blank may be from home for dualH to be tried: the farther,
// the weaker the dual value (it pays the blank's way home) and the less it prunes for its
// cost.
const dualReach = 6

// initCat computes the lookups of the current node from scratch, or takes them from seed.
func (st *walk) initCat() {
	s := st.t.cat
	if st.seed != nil {
		st.cat = *st.seed
	} else {
		st.cat = catState{}
		for k := range s.nl {
			st.cat.ex[k], st.cat.hm[k] = s.look[k].Fresh(&st.pos)
			st.cat.z[k] = s.look[k].Place(&st.pos)
		}
		for p := 0; p < s.np; p++ {
			st.cat.sum[p] = int16(st.partSum(p, func(k uint8) int { return int(st.cat.ex[k]) }))
		}
	}
	if st.kids == nil {
		st.kids = make([][4]catChild, len(st.path)+1)
	}
}

// partSum adds value over the distinct lookups of partition p.
func (st *walk) partSum(p int, value func(k uint8) int) int {
	s := st.t.cat
	var counted [maxCatLookups]bool
	sum := 0
	for t := 1; t < st.t.n; t++ {
		if k := s.of[t][p]; !counted[k] {
			counted[k] = true
			sum += value(k)
		}
	}
	return sum
}

// child is one successor while a node's children are evaluated.
type catChild struct {
	q, tile, dir uint8
	state        uint32 // the pruning automaton's
	md           int
	idx          [maxTouch]uint32       // the indices of the lookups that hold the moved tile
	ex           [maxTouch]uint8        // their half excesses
	hm           [maxTouch]uint8        // their values modulo 4 (tables in the bit encoding)
	z            [maxTouch]zindex.State // their ranks (zero-aware tables)
	sum          [maxParts]int16        // the partitions' sums
	wdRow, wdCol uint16                 // walking-distance pattern ids, when maxed with WD
	h            int
	full         bool // looked up in every partition (else pruned by partition bp alone)
	bp           int  // the partition of the largest sum
}
