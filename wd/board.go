package wd

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
)

// WD evaluates the walking distance of states for one goal: Rows is the table of the row
// axis, Cols that of the column axis. On a square board whose goal has the blank on the
// main diagonal (both named goals) they are the same table.
type WD struct {
	goal       board.Goal
	Rows, Cols *Table
}

// New builds both tables for the goal. workers is as for Build.
func New(ctx context.Context, goal board.Goal, workers int) (*WD, error) {
	rows, err := BuildRows(ctx, goal, workers)
	if err != nil {
		return nil, err
	}
	return FromRows(ctx, goal, rows, workers)
}

// BuildRows builds the table of the goal's row axis: the one a table file holds.
func BuildRows(ctx context.Context, goal board.Goal, workers int) (*Table, error) {
	size := goal.Size()
	return Build(ctx, size.H, size.W, size.Row(goal.Home(0)), workers)
}

// FromRows completes a row table into a WD for the goal, building the column table only
// when it differs from the row table.
func FromRows(ctx context.Context, goal board.Goal, rows *Table, workers int) (*WD, error) {
	size := goal.Size()
	if rows.Lines != size.H || rows.LineLen != size.W || rows.BlankHome != size.Row(goal.Home(0)) {
		return nil, fmt.Errorf("wd: the row table (%d lines of %d, blank home %d) does not fit goal %s on %s",
			rows.Lines, rows.LineLen, rows.BlankHome, goal.Name(), size)
	}
	cols := rows
	if size.W != size.H || size.Col(goal.Home(0)) != rows.BlankHome {
		var err error
		if cols, err = Build(ctx, size.W, size.H, size.Col(goal.Home(0)), workers); err != nil {
			return nil, err
		}
	}
	return FromTables(goal, rows, cols)
}

// FromTables makes a WD for the goal from a row table and a column table (which may be
// the same table), checking that each has the shape and blank home the goal needs.
func FromTables(goal board.Goal, rows, cols *Table) (*WD, error) {
	size := goal.Size()
	for _, c := range []struct {
		axis                 string
		t                    *Table
		lines, lineLen, home int
	}{
		{"row", rows, size.H, size.W, size.Row(goal.Home(0))},
		{"column", cols, size.W, size.H, size.Col(goal.Home(0))},
	} {
		if c.t.Lines != c.lines || c.t.LineLen != c.lineLen || c.t.BlankHome != c.home {
			return nil, fmt.Errorf("wd: the %s table (%d lines of %d, blank home %d) does not fit goal %s on %s",
				c.axis, c.t.Lines, c.t.LineLen, c.t.BlankHome, goal.Name(), size)
		}
	}
	return &WD{goal: goal, Rows: rows, Cols: cols}, nil
}

// Goal returns the goal the tables were built for.
func (w *WD) Goal() board.Goal { return w.goal }

// RowPattern returns the row-axis pattern of s: tiles grouped by row and goal row.
func RowPattern(goal board.Goal, s board.State) Pattern { return pattern(goal, s, goal.Size().Row) }

// ColPattern returns the column-axis pattern of s: tiles grouped by column and goal column.
func ColPattern(goal board.Goal, s board.State) Pattern { return pattern(goal, s, goal.Size().Col) }

// pattern groups the tiles of s by their line and their goal line.
func pattern(goal board.Goal, s board.State, line func(cell int) int) Pattern {
	var p Pattern
	for c, t := range s {
		if t == 0 {
			p.Blank = line(c)
			continue
		}
		p.M[line(c)][line(goal.Home(int(t)))]++
	}
	return p
}

// IDs returns the ids of the row and column patterns of s, a valid state of the board.
func (w *WD) IDs(s board.State) (row, col uint32) {
	rp, cp := RowPattern(w.goal, s), ColPattern(w.goal, s)
	row, _ = w.Rows.ID(&rp)
	col, _ = w.Cols.ID(&cp)
	return row, col
}

// Eval returns the row and column walking distances of s, a valid state of the board;
// WD is their sum.
func (w *WD) Eval(s board.State) (rows, cols int) {
	r, c := w.IDs(s)
	return w.Rows.Dist(r), w.Cols.Dist(c)
}

// File returns the row table as a table file for the goal.
func (t *Table) File(goal board.Goal) (*tablefile.Table, error) {
	size := goal.Size()
	if t.Lines != size.H || t.LineLen != size.W || t.BlankHome != size.Row(goal.Home(0)) {
		return nil, fmt.Errorf("wd: table does not hold the rows of goal %s on %s", goal.Name(), size)
	}
	return tablefile.New(tablefile.KindWD, goal, nil, false, t.dist)
}

// Load turns a WD table file into the table of its goal's row axis. The distances are
// taken as they are; package verify proves them.
func Load(f *tablefile.Table) (*Table, board.Goal, error) {
	if f.Kind != tablefile.KindWD {
		return nil, board.Goal{}, fmt.Errorf("wd: the file holds a %s table, not wd", f.Kind)
	}
	goal, err := f.GoalOf()
	if err != nil {
		return nil, board.Goal{}, err
	}
	size := goal.Size()
	t, err := Enumerate(size.H, size.W, size.Row(goal.Home(0)))
	if err != nil {
		return nil, board.Goal{}, err
	}
	t, err = t.WithDists(f.Entries)
	return t, goal, err
}
