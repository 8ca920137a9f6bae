package ida

import (
	"context"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/wd"
)

// maxCells is the largest board the solver handles: 5x5.
const maxCells = board.MaxCells

// move is a blank move: its direction and the cell the blank goes to.
type move struct{ dir, cell uint8 }

// frame is the solver's own view of an instance. The tables are built for one canonical
// goal per board (blank-last on 4x4, blank-first on 5x5); a goal whose blank's home is a
// corner is turned by a symmetry of the board so that the blank's home is the canonical
// one, and its tiles are relabelled so that the goal reads canonically: then every table
// applies. Other goals keep their labels and work with md, lc and wd.
type frame struct {
	cell      [maxCells]uint8 // cell p of the caller's board is cell[p] in the frame
	label     [maxCells]uint8 // tile t of the caller's goal is tile label[t] in the frame
	dirMap    [4]uint8        // a frame direction d is the caller's direction dirMap[d]
	inverse   [4]uint8        // and the caller's direction e is the frame's inverse[e]
	home      [maxCells]uint8 // goal cell of each frame tile
	canonical bool            // the frame goal is the board's canonical goal
	goal      board.Goal      // the frame's goal: the canonical one, or the caller's
}

// canonicalGoal is the goal the board's tables are built for.
func canonicalGoal(size board.Size) board.Goal {
	if size == board.Size4x4 {
		return board.BlankLast(size)
	}
	return board.BlankFirst(size)
}

// symDirs gives, for each symmetry of a frame, its effect on the blank's directions (U, D,
// L, R).
var symDirs = map[pdb.Symmetry][4]uint8{
	pdb.Identity:  {0, 1, 2, 3},
	pdb.Rot90:     {3, 2, 0, 1},
	pdb.Rot180:    {1, 0, 3, 2},
	pdb.Rot270:    {2, 3, 1, 0},
	pdb.Transpose: {2, 3, 0, 1},
}

func newFrame(goal board.Goal) frame {
	var f frame
	size := goal.Size()
	n := size.Cells()
	if pf, ok := pdb.NewFrame(goal, canonicalGoal(size)); ok {
		f.cell, f.label = pf.Cell, pf.Label
		for t := 0; t < n; t++ {
			f.home[f.label[t]] = f.cell[goal.Home(t)]
		}
		// A frame direction d is the caller's direction e with sym(e) = d.
		f.inverse = symDirs[pf.Sym]
		for e, d := range f.inverse {
			f.dirMap[d] = uint8(e)
		}
		f.canonical, f.goal = true, canonicalGoal(size)
		return f
	}
	for p := 0; p < n; p++ {
		f.cell[p] = uint8(p)
		f.label[p] = uint8(p)
		f.home[p] = uint8(goal.Home(p))
	}
	f.dirMap, f.inverse, f.goal = [4]uint8{0, 1, 2, 3}, [4]uint8{0, 1, 2, 3}, goal
	return f
}

// tables are the precomputed lookups of one goal, shared by every search.
type tables struct {
	size   board.Size
	n, w   int
	moves  [maxCells][4]move // the blank's moves from each cell, in the order of moveOrder
	nmoves [maxCells]uint8
	md     [maxCells][maxCells]uint8 // md[t][c]: Manhattan distance of tile t on cell c
	homes  [maxCells]uint8           // goal cell of each tile

	// Linear conflicts (4x4): a line of four cells is coded in base 5, digit i (the cell at
	// position i) being 1 + the goal position in the line of a tile whose goal line it is,
	// else 0. lcLine[code] is 2 x (tiles that must leave the line).
	lcLine     [625]uint8
	rowContrib [maxCells][maxCells]uint16 // rowContrib[t][c]: tile t on cell c, in its row's code
	colContrib [maxCells][maxCells]uint16 // colContrib[t][c]: tile t on cell c, in its column's code

	// Walking distance (4x4): next[(id*2+dir)*4+g] as in package wd, ids fit in 16 bits.
	wd                   *wd.WD // in the frame
	wdRowNext, wdColNext []uint16
	wdRowDist, wdColDist []uint8
	goalRow, goalCol     [maxCells]uint8

	// IDA15 (4x4, canonical frame only).
	ida15 *pdb.IDA15      // IDA15's tables, for PDB and Max
	patOf [maxCells]uint8 // which of their four lookups tile t belongs to

	// The pruning automaton (package prune): fsm[s*4+d] is the state after move d from
	// state s, or prune.Pruned; fsmStart[c] is the state at a root whose blank is on c.
	fsm      []uint32
	fsmStart [maxCells]uint32

	cat *catTables // an additive set or a catalogue of them (canonical frame only)
}

// newTables prepares what every heuristic needs (moves, md, lc) and, on demand, the
// walking-distance tables (from rows, the canonical goal's, when given) and the IDA15 set.
func newTables(ctx context.Context, f frame, size board.Size, wantWD, wantPDB bool, rows *wd.Table, ida15 *pdb.IDA15) (*tables, error) {
	t := &tables{size: size, n: size.Cells(), w: size.W}
	for c := 0; c < t.n; c++ {
		for _, d := range moveOrder(f) {
			if q := size.Step(c, d); q >= 0 {
				t.moves[c][t.nmoves[c]] = move{uint8(d), uint8(q)}
				t.nmoves[c]++
			}
		}
	}
	// md[0] is the blank's distance from its home (not part of the Manhattan distance).
	for tile := 0; tile < t.n; tile++ {
		hr, hc := int(f.home[tile])/t.w, int(f.home[tile])%t.w
		t.goalRow[tile], t.goalCol[tile] = uint8(hr), uint8(hc)
		for c := 0; c < t.n; c++ {
			t.md[tile][c] = uint8(abs(c/t.w-hr) + abs(c%t.w-hc))
			if size == board.Size4x4 && tile > 0 {
				if c/4 == hr {
					t.rowContrib[tile][c] = uint16(1+hc) * pow5[c%4]
				}
				if c%4 == hc {
					t.colContrib[tile][c] = uint16(1+hr) * pow5[c/4]
				}
			}
		}
	}
	for code := range t.lcLine {
		t.lcLine[code] = lineConflict(code)
	}
	if wantWD {
		if err := t.loadWD(ctx, f, rows); err != nil {
			return nil, err
		}
	}
	if wantPDB {
		if !f.canonical || size != board.Size4x4 {
			return nil, ErrGoal
		}
		t.loadPDB(ida15)
	}
	return t, nil
}

var pow5 = [4]uint16{1, 5, 25, 125}

// moveOrder returns the order in which the search tries the blank's moves, in the frame:
// up, left, right, down in the caller's own view of the board, the order of Korf's
// programs, so that node counts compare with the published ones (the order decides how
// much of the last pass is searched before the first solution).
func moveOrder(f frame) [4]board.Dir {
	var out [4]board.Dir
	for i, want := range [4]board.Dir{board.Up, board.Left, board.Right, board.Down} {
		for d := 0; d < 4; d++ {
			if board.Dir(f.dirMap[d]) == want {
				out[i] = board.Dir(d)
			}
		}
	}
	return out
}

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

// loadWD takes the walking-distance tables of the frame's goal: the canonical goal's
// rows (when given) for a canonical frame, else built (milliseconds).
func (t *tables) loadWD(ctx context.Context, f frame, canonical *wd.Table) (err error) {
	if f.canonical && canonical != nil {
		t.wd, err = wd.FromTables(f.goal, canonical, canonical)
	} else {
		t.wd, err = wd.New(ctx, f.goal, 0)
	}
	if err != nil {
		return err
	}
	t.wdRowNext, t.wdRowDist = compact(t.wd.Rows), t.wd.Rows.Dists()
	t.wdColNext, t.wdColDist = compact(t.wd.Cols), t.wd.Cols.Dists()
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

// loadPDB takes IDA15's tables.
func (t *tables) loadPDB(h *pdb.IDA15) {
	t.ida15 = h
	for tile := 1; tile < 16; tile++ {
		t.patOf[tile] = uint8(pdb.IDA15Lookup(tile))
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// wdStep returns the walking-distance pattern ids after tile moves the blank in direction
// dir (up and down change the rows' pattern, left and right the columns').
func (t *tables) wdStep(row, col uint16, dir, tile uint8) (uint16, uint16) {
	if dir < 2 {
		return t.wdRowNext[(int(row)*2+int(dir))*4+int(t.goalRow[tile])], col
	}
	return row, t.wdColNext[(int(col)*2+int(dir-2))*4+int(t.goalCol[tile])]
}

// wdOf is the walking distance of the pattern ids row and col.
// step returns move i of the blank on cell blank and the automaton's state after it from
// state (prune.Pruned: the automaton prunes the move).
func (t *tables) step(blank uint8, state uint32, i uint8) (move, uint32) {
	mv := t.moves[blank][i]
	return mv, t.fsm[state*4+uint32(mv.dir)]
}

func (t *tables) wdOf(row, col uint16) int { return int(t.wdRowDist[row]) + int(t.wdColDist[col]) }
