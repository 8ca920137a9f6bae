package fifteen

import (
	"context"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/wd"
)

// frame is the solver's own view of an instance. A goal with the blank in a corner is
// reflected (if needed) so the blank's home is cell 15, and its tiles relabelled so that
// the goal reads 1 2 ... 15 0: then every table, the IDA15 PDBs included, applies. Other
// goals keep their labels and work with md, lc and wd.
type frame struct {
	cell   [16]uint8 // cell p of the caller's board is cell[p] in the frame
	label  [16]uint8 // tile t of the caller's goal is tile label[t] in the frame
	dirMap [4]uint8  // a frame direction d is the caller's direction dirMap[d]
	home   [16]uint8 // goal cell of each frame tile
}

var symmetries = []struct {
	name string
	cell func(int) int
	dirs [4]uint8 // image of U, D, L, R
}{
	{"identity", func(c int) int { return c }, [4]uint8{0, 1, 2, 3}},
	{"mirror-columns", pdb.MirrorCols, [4]uint8{0, 1, 3, 2}},
	{"mirror-rows", pdb.MirrorRows, [4]uint8{1, 0, 2, 3}},
	{"rotate-180", func(c int) int { return 15 - c }, [4]uint8{1, 0, 3, 2}},
}

func newFrame(goal board.Goal) (f frame, blankLast bool) {
	for _, sym := range symmetries {
		if sym.cell(goal.Home(0)) != 15 {
			continue
		}
		for p := 0; p < 16; p++ {
			f.cell[p] = uint8(sym.cell(p))
		}
		for t := 0; t < 16; t++ {
			c := f.cell[goal.Home(t)]
			f.label[t] = (c + 1) % 16 // cell c holds tile c+1 in blank-last; cell 15 the blank
			f.home[f.label[t]] = c
		}
		f.dirMap = sym.dirs
		return f, true
	}
	for p := 0; p < 16; p++ {
		f.cell[p] = uint8(p)
		f.label[p] = uint8(p)
		f.home[p] = uint8(goal.Home(p))
	}
	f.dirMap = symmetries[0].dirs
	return f, false
}

// tables are the precomputed lookups of one goal, shared by every search.
type tables struct {
	md [16][16]uint8 // md[t][c]: Manhattan distance of tile t on cell c

	// Linear conflicts: a line of four cells is coded in base 5, digit i (the cell at
	// position i) being 1 + the goal position in the line of a tile whose goal line it is,
	// else 0. lcLine[code] is 2 x (tiles that must leave the line).
	lcLine     [625]uint8
	rowContrib [16][16]uint16 // rowContrib[t][c]: tile t on cell c, in its row's code
	colContrib [16][16]uint16 // colContrib[t][c]: tile t on cell c, in its column's code

	// Walking distance: next[(id*2+dir)*4+g] as in package wd, ids fit in 16 bits.
	wdRowTable, wdColTable *wd.Table
	wdRowNext, wdColNext   []uint16
	wdRowDist, wdColDist   []uint8
	goalRow, goalCol       [16]uint8

	// IDA15 (frame goal blank-last only).
	pdb      *pdb.IDA15
	patOf    [16]uint8    // which of the four lookups tile t belongs to
	patTiles [4][5]uint8  // the tiles of each lookup, in index order (blank last)
	patCell  [4][16]uint8 // cell map of each lookup: identity or a mirror
	patLen   [4]uint8     // elements ranked: 4 or 5
	patTab   [4][]uint8   // entries of each lookup
}

// newTables prepares the lookups a heuristic needs: WD tables when wantWD, the IDA15 set
// when wantPDB (which needs a blank-last frame).
func newTables(ctx context.Context, f frame, blankLast, wantWD, wantPDB bool, def *data.Tables) (*tables, error) {
	t := &tables{}
	for tile := 1; tile < 16; tile++ {
		hr, hc := int(f.home[tile])/4, int(f.home[tile])%4
		t.goalRow[tile], t.goalCol[tile] = uint8(hr), uint8(hc)
		for c := 0; c < 16; c++ {
			t.md[tile][c] = uint8(abs(c/4-hr) + abs(c%4-hc))
			if c/4 == hr {
				t.rowContrib[tile][c] = uint16(1+hc) * pow5[c%4]
			}
			if c%4 == hc {
				t.colContrib[tile][c] = uint16(1+hr) * pow5[c/4]
			}
		}
	}
	for code := range t.lcLine {
		t.lcLine[code] = lineConflict(code)
	}
	if wantWD {
		if err := t.loadWD(ctx, f, blankLast, def); err != nil {
			return nil, err
		}
	}
	if wantPDB {
		if !blankLast {
			return nil, ErrGoal
		}
		t.loadPDB(def.IDA15)
	}
	return t, nil
}

var pow5 = [4]uint16{1, 5, 25, 125}

// lineConflict returns 2 x the fewest tiles that must leave a line so that no two of its
// tiles that belong to it are in reversed order: the tiles minus the longest increasing
// run of their goal positions.
func lineConflict(code int) uint8 {
	var goals []int
	for i := 0; i < 4; i++ {
		if d := code % 5; d > 0 {
			goals = append(goals, d-1)
		}
		code /= 5
	}
	best := 0
	lis := make([]int, len(goals))
	for i := range goals {
		lis[i] = 1
		for j := 0; j < i; j++ {
			if goals[j] < goals[i] && lis[j]+1 > lis[i] {
				lis[i] = lis[j] + 1
			}
		}
		best = max(best, lis[i])
	}
	return uint8(2 * (len(goals) - best))
}

func (t *tables) loadWD(ctx context.Context, f frame, blankLast bool, def *data.Tables) error {
	var rows, cols *wd.Table
	if blankLast {
		rows, cols = def.WDLast, def.WDLast
	} else {
		// Other goals: build their tables (a few milliseconds).
		home := int(f.home[0])
		var err error
		if rows, err = wd.Build(ctx, 4, 4, home/4, 0); err != nil {
			return err
		}
		if cols, err = wd.Build(ctx, 4, 4, home%4, 0); err != nil {
			return err
		}
	}
	t.wdRowTable, t.wdColTable = rows, cols
	t.wdRowNext, t.wdRowDist = compact(rows), rows.Dists()
	t.wdColNext, t.wdColDist = compact(cols), cols.Dists()
	return nil
}

// compact copies a WD transition table into 16-bit ids: 24,964 patterns fit.
func compact(w *wd.Table) []uint16 {
	next := w.Transitions()
	out := make([]uint16, len(next))
	for i, n := range next {
		out[i] = uint16(n) // None becomes 0xFFFF and is never followed: the move is legal
	}
	return out
}

func (t *tables) loadPDB(h *pdb.IDA15) {
	t.pdb = h
	groups := [4][]int{pdb.IDA15Small, pdb.IDA15Large, pdb.IDA15MirrorCols, pdb.IDA15MirrorRows}
	maps := [4]func(int) int{func(c int) int { return c }, func(c int) int { return c }, pdb.MirrorCols, pdb.MirrorRows}
	for k, tiles := range groups {
		for i, tile := range tiles {
			t.patOf[tile] = uint8(k)
			t.patTiles[k][i] = uint8(tile)
		}
		t.patTiles[k][len(tiles)] = 0
		t.patLen[k] = uint8(len(tiles) + 1)
		for c := 0; c < 16; c++ {
			t.patCell[k][c] = uint8(maps[k](c))
		}
	}
	t.patTab = [4][]uint8{h.Small.Entries, h.Large.Entries, h.Large.Entries, h.Large.Entries}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// wdRowID and wdColID return the WD pattern id of a matrix and blank line.
func (t *tables) wdRowID(m [4][4]uint8, blank int) uint16 { return t.wdID(t.wdRowTable, m, blank) }

func (t *tables) wdColID(m [4][4]uint8, blank int) uint16 { return t.wdID(t.wdColTable, m, blank) }

func (t *tables) wdID(w *wd.Table, m [4][4]uint8, blank int) uint16 {
	var p wd.Pattern
	p.Blank = blank
	for l := 0; l < 4; l++ {
		for g := 0; g < 4; g++ {
			p.M[l][g] = m[l][g]
		}
	}
	id, ok := w.ID(&p)
	if !ok {
		panic("fifteen: internal error: a board's WD pattern is not in the table")
	}
	return uint16(id)
}
