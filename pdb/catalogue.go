package pdb

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tilekit/tilekit/board"
)

// A catalogue (Clausecker & Reinefeld 2017) is a set of several additive partitions of
// the tiles: h is the largest of the partitions' sums. Partitions share tables: each
// distinct group of tiles is one table, and a group whose reflection about the main
// diagonal is already a table reads that table through the reflection.

// Catalogue limits: what a catalogue file may ask for.
const (
	MaxPartitions     = 32       // partitions of a catalogue, counting added reflections
	MaxGroupTiles     = 8        // tiles of one group (25!/17! placements on 5x5)
	MaxCatalogueBytes = 64 << 10 // a catalogue file
)

// NewCatalogue makes the catalogue of the partitions (each a list of groups of tiles) for
// goal. With reflect, the reflection of each partition about the main diagonal is added
// unless it is there already (square boards whose goal is symmetric about the diagonal).
// A group that is the image of an earlier table's group under a symmetry of a square board
// reads that table through the symmetry (imageLookup), so that it is built and held once.
func NewCatalogue(name string, goal board.Goal, zeroAware, reflect bool, partitions [][][]int) (SetSpec, error) {
	spec := SetSpec{Name: name, Goal: goal, ZeroAware: zeroAware, Partitions: [][]int{}}
	size := goal.Size()
	if reflect && (size.W != size.H || !symmetricGoal(goal)) {
		return SetSpec{}, fmt.Errorf("pdb: catalogue %s: reflections need a square board whose goal is symmetric about the main diagonal", name)
	}
	all := partitions
	if reflect {
		seen := map[string]bool{}
		for _, part := range partitions {
			seen[partKey(part)] = true
		}
		for _, part := range partitions {
			var ref [][]int
			for _, g := range part {
				ref = append(ref, groupImage(goal, Transpose, g))
			}
			if !seen[partKey(ref)] {
				seen[partKey(ref)] = true
				all = append(all, ref)
			}
		}
	}
	if len(all) > MaxPartitions {
		return SetSpec{}, fmt.Errorf("pdb: catalogue %s has %d partitions (reflections included), at most %d", name, len(all), MaxPartitions)
	}
	lookups := map[string]int{}
	tables := map[string]int{}
	for _, part := range all {
		var ks []int
		for _, group := range part {
			if len(group) == 0 || len(group) > MaxGroupTiles {
				return SetSpec{}, fmt.Errorf("pdb: catalogue %s: a group has %d tiles (1 to %d)", name, len(group), MaxGroupTiles)
			}
			sorted := slices.Sorted(slices.Values(group))
			key := fmt.Sprint(sorted)
			k, ok := lookups[key]
			if !ok {
				l := Lookup{Table: -1, Tiles: sorted}
				if size.W == size.H {
					l = spec.imageLookup(sorted, tables)
				}
				if l.Table < 0 {
					tables[key] = len(spec.Tables)
					l.Table = len(spec.Tables)
					spec.Tables = append(spec.Tables, sorted)
				}
				k = len(spec.Lookups)
				lookups[key] = k
				spec.Lookups = append(spec.Lookups, l)
			}
			ks = append(ks, k)
		}
		spec.Partitions = append(spec.Partitions, ks)
	}
	if err := spec.Check(); err != nil {
		return SetSpec{}, err
	}
	return spec, nil
}

// imageLookup returns a lookup of group that reads an existing table (tables maps a
// table's sorted tiles to its number) through a symmetry of the board, or one with Table
// -1 when none fits: the image of the group's homes must be the table's tiles' homes, and
// the image of the blank's home in the blank's region (checkLookup), so that the table's
// distances are the group's. The lookup's tile i is the one whose home maps to table tile
// i's.
func (s *SetSpec) imageLookup(group []int, tables map[string]int) Lookup {
	for _, sym := range []Symmetry{Transpose, Rot90, Rot180, Rot270, FlipColumns, FlipRows, AntiTranspose} {
		img := groupImage(s.Goal, sym, group)
		tab, ok := tables[fmt.Sprint(slices.Sorted(slices.Values(img)))]
		if !ok {
			continue
		}
		plays := map[int]int{} // a table tile: the group's tile whose home maps to its home
		for i, t := range group {
			plays[img[i]] = t
		}
		l := Lookup{Table: tab, Map: sym}
		for _, tt := range s.Tables[tab] {
			l.Tiles = append(l.Tiles, plays[tt])
		}
		if s.checkLookup(len(s.Lookups), l) == nil {
			return l
		}
	}
	return Lookup{Table: -1, Tiles: group}
}

// groupImage returns the tiles whose homes are the images under sym of the group's homes,
// in the group's order.
func groupImage(goal board.Goal, sym Symmetry, group []int) []int {
	out := make([]int, len(group))
	for i, t := range group {
		out[i] = int(goal.Tiles()[sym.Apply(goal.Size().W, goal.Home(t))])
	}
	return out
}

// partKey names a partition whatever the order of its groups and of their tiles.
func partKey(part [][]int) string {
	var groups []string
	for _, g := range part {
		groups = append(groups, fmt.Sprint(slices.Sorted(slices.Values(g))))
	}
	slices.Sort(groups)
	return strings.Join(groups, " ")
}

// symmetricGoal reports whether reflecting the board about the main diagonal keeps the
// blank's home (both named goals on square boards): then every tile's home reflects onto
// another tile's, and a group's reflection is a group of tiles.
func symmetricGoal(goal board.Goal) bool {
	w := goal.Size().W
	return Transpose.Apply(w, goal.Home(0)) == goal.Home(0)
}

// ParseCatalogue reads a catalogue file: one group of tiles per line (numbers separated by
// commas or spaces), partitions separated by blank lines, # starting a comment. A group
// may start with 0, the blank, as Clausecker's catalogues do to mark zero-aware tables:
// then every group must, and the catalogue is zero-aware. name names the file in errors.
// The file holds at most 64 kB.
func ParseCatalogue(r io.Reader, name string, goal board.Goal, reflect bool) (SetSpec, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxCatalogueBytes+1))
	if err != nil {
		return SetSpec{}, fmt.Errorf("pdb: catalogue %s: %w", name, err)
	}
	if len(data) > MaxCatalogueBytes {
		return SetSpec{}, fmt.Errorf("pdb: catalogue %s is larger than %d bytes", name, MaxCatalogueBytes)
	}
	var parts [][][]int
	var cur [][]int
	zero, plain := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxCatalogueBytes)
	line := 0
	for more := true; more; {
		more = sc.Scan()
		line++
		raw := ""
		if more {
			raw = sc.Text()
		}
		text, _, _ := strings.Cut(raw, "#")
		if text = strings.TrimSpace(text); text == "" {
			// A blank line (or the end) closes a partition; a comment line does not.
			if cur != nil && strings.TrimSpace(raw) == "" {
				if len(parts) == MaxPartitions {
					return SetSpec{}, fmt.Errorf("pdb: catalogue %s:%d: more than %d partitions", name, line, MaxPartitions)
				}
				parts, cur = append(parts, cur), nil
			}
			continue
		}
		tiles, err := board.Fields(text)
		if err != nil {
			return SetSpec{}, fmt.Errorf("pdb: catalogue %s:%d: %w", name, line, err)
		}
		if len(tiles) > 0 && tiles[0] == 0 {
			zero++
			tiles = tiles[1:]
		} else {
			plain++
		}
		for _, t := range tiles {
			if t < 1 || t >= goal.Size().Cells() {
				return SetSpec{}, fmt.Errorf("pdb: catalogue %s:%d: no tile %d on %s", name, line, t, goal.Size())
			}
		}
		if len(tiles) == 0 || len(tiles) > MaxGroupTiles {
			return SetSpec{}, fmt.Errorf("pdb: catalogue %s:%d: a group has %d tiles (1 to %d)", name, line, len(tiles), MaxGroupTiles)
		}
		if len(cur) == board.MaxCells {
			return SetSpec{}, fmt.Errorf("pdb: catalogue %s:%d: a partition of more groups than cells", name, line)
		}
		cur = append(cur, tiles)
	}
	if err := sc.Err(); err != nil {
		return SetSpec{}, fmt.Errorf("pdb: catalogue %s: %w", name, err)
	}
	if zero > 0 && plain > 0 {
		return SetSpec{}, fmt.Errorf("pdb: catalogue %s: %d groups start with 0 (zero-aware) and %d do not: mark all or none", name, zero, plain)
	}
	if len(parts) == 0 {
		return SetSpec{}, fmt.Errorf("pdb: catalogue %s has no partitions", name)
	}
	spec, err := NewCatalogue(name, goal, zero > 0, reflect, parts)
	if err != nil {
		return SetSpec{}, fmt.Errorf("%w (in %s)", err, name)
	}
	return spec, nil
}
