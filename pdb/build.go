package pdb

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/zindex"
)

// A Table is a pattern database: Entries[i] is the value of the abstract state of index i.
type Table struct {
	*Pattern
	Entries []uint8
}

// Options tune a build. The zero value uses all cores and reports nothing.
type Options = bfs.Options

// Unreachable is the entry of abstract states that no solvable state maps to. They exist
// only when almost every tile is in the pattern (on a 2x2 board, or a pattern that leaves
// fewer than two tiles out): then the abstraction keeps the permutation's parity.
const Unreachable = bfs.Unknown

// Build computes the pattern database of p by a breadth-first search from the goal. With
// the blank in the index it is a 0-1 search over the abstract states (package bfs); without
// it, the Korf-Felner search over (placement, blank region) states (additive.go), whose
// entry for a placement is the least over the blank's whereabouts.
func Build(ctx context.Context, p *Pattern, opt Options) (*Table, error) {
	if !p.blank {
		entries, err := buildAdditive(ctx, p, opt)
		if err != nil {
			return nil, err
		}
		return &Table{Pattern: p, Entries: entries}, nil
	}
	entries, err := bfs.Run(ctx, graph{p}, []uint32{p.goalIndex()}, opt)
	if err != nil {
		return nil, err
	}
	return &Table{Pattern: p, Entries: entries}, nil
}

// Lookup returns the entry for the board state s.
func (t *Table) Lookup(s board.State) int { return int(t.Entries[t.Index(s)]) }

// File returns the table as a table file.
func (t *Table) File() (*tablefile.Table, error) {
	return tablefile.New(tablefile.KindPDB, t.goal, t.tiles, t.blank, t.Entries)
}

// Load turns a PDB table file into a table. The entries are taken as they are; package
// verify proves them.
func Load(f *tablefile.Table) (*Table, error) {
	if f.Kind != tablefile.KindPDB {
		return nil, fmt.Errorf("pdb: the file holds a %s table, not pdb", f.Kind)
	}
	if f.Index != tablefile.IndexPDB {
		return nil, fmt.Errorf("pdb: the file's index is %s; a table of whole entries is %s (zero-aware tables are half-excess: LoadPacked)", f.Index, tablefile.IndexPDB)
	}
	goal, err := f.GoalOf()
	if err != nil {
		return nil, err
	}
	p, err := NewPattern(goal, f.Tiles, f.BlankInIndex)
	if err != nil {
		return nil, err
	}
	if len(f.Entries) != p.Len() {
		return nil, fmt.Errorf("pdb: %d entries for pattern %s, want %d", len(f.Entries), p.Name(), p.Len())
	}
	return &Table{Pattern: p, Entries: f.Entries}, nil
}

// graph presents the abstract state space of a pattern with the blank in its index to the
// bfs engine. Every move is reversible with the same cost, so the search from the goal
// gives distances to it.
type graph struct{ p *Pattern }

func (g graph) Len() int { return g.p.Len() }

func (g graph) Expand(zero, one, src []uint32) ([]uint32, []uint32) {
	p := g.p
	var cells [board.MaxCells]uint8
	last := p.m - 1
	for _, s := range src {
		p.Unrank(s, cells[:])
		var owner [board.MaxCells]int8 // 1 + index of the pattern tile on each cell
		var occupied uint32
		for i := 0; i < last; i++ {
			owner[cells[i]] = int8(i + 1)
			occupied |= 1 << cells[i]
		}
		b := cells[last]
		// The blank is ranked last, so moving it alone changes only the last digit:
		// its cell minus the pattern tiles below it.
		base := s - (uint32(b) - uint32(bits.OnesCount32(occupied&(1<<b-1))))
		for _, q := range p.nbr[b] {
			if q < 0 {
				continue
			}
			if i := owner[q] - 1; i >= 0 { // a pattern tile slides into the blank
				cells[i], cells[last] = b, uint8(q)
				one = append(one, p.Rank(cells[:]))
				cells[i], cells[last] = uint8(q), b
			} else { // the blank moves through a free cell
				zero = append(zero, base+uint32(q)-uint32(bits.OnesCount32(occupied&(1<<q-1))))
			}
		}
	}
	return zero, one
}

// BuildFile builds the pattern database of p as a table file: entry by entry, or packed
// (half the excess over the Manhattan distance, for tables without the blank in the
// index).
func BuildFile(ctx context.Context, p *Pattern, packed bool, opt Options) (*tablefile.Table, error) {
	if packed && p.BlankInIndex() {
		return nil, errors.New("pdb: packed storage is for tables without the blank in the index")
	}
	if packed {
		pk, err := additivePacked(ctx, p, opt)
		if err != nil {
			return nil, err
		}
		return pk.File()
	}
	t, err := Build(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	return t.File()
}

// BuildPacked builds Korf & Felner's table of p (without the blank in its index) packed
// into half excesses, storing one entry of each mirror pair where p is its own mirror
// image: Pack of Build's table, without the table of bytes.
func BuildPacked(ctx context.Context, p *Pattern, opt Options) (*Packed, error) {
	if p.blank {
		return nil, errors.New("pdb: packed storage is for tables without the blank in the index")
	}
	return additivePacked(ctx, p, opt)
}

// BuildZeroAwareFile builds the zero-aware table of p as a table file: in half-excess
// nibbles, or in the bit encoding.
func BuildZeroAwareFile(ctx context.Context, p *Pattern, bits bool, opt Options) (*tablefile.Table, error) {
	build := ZeroAware
	if bits {
		build = ZeroAwareBits
	}
	t, err := build(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	return t.File()
}

// A Form is what a build makes of a pattern's distances.
type Form int

const (
	// Bytes is a byte an entry: Build.
	Bytes Form = iota
	// HalfExcess is half the excess over the Manhattan distance in 4 bits: BuildTable,
	// BuildFile packed, ZeroAware (zero-aware patterns).
	HalfExcess
	// Bit is one bit an entry, (distance / 2) mod 2: ZeroAwareBits.
	Bit
)

// BuildBytes estimates the most memory building p's table in form f takes, in bytes, the
// table included, so that a caller can refuse work the machine cannot hold. With the blank
// in the index it is the 0-1 search's (a byte an entry for the table and its frontiers,
// four in all); without it, the block search's two bits a (placement, region) state, its
// graph, and the table: a byte a placement and a bit a placement that says which are
// done (Korf & Felner's, Bytes and HalfExcess alike: the nibbles are packed in place), or
// for zero-aware tables (zeroAware) half a byte or a bit a state.
func (p *Pattern) BuildBytes(f Form, zeroAware bool) int64 {
	const margin = 64 << 20
	if p.blank {
		return 4*int64(p.Len()) + margin
	}
	z, err := zindex.For(p.goal.Size(), p.m)
	if err != nil {
		return 4*int64(p.Len()) + margin
	}
	need := bfs.BlockBytes(z.Slots(), z.Fact()) + graphBytes(z) + margin
	switch {
	case !zeroAware:
		need += int64(p.Len()) + int64(z.Maps())*int64(z.Fact())/8
	case f == Bit:
		need += z.Entries() / 8
	default:
		need += z.Entries() / 2
	}
	return need
}

// TableBytes is the memory the table built in form f takes once built (zeroAware: p's
// zero-aware table); Korf & Felner's packed nibbles keep the byte a placement they were
// packed in.
func (p *Pattern) TableBytes(f Form, zeroAware bool) int64 {
	n := int64(p.Len())
	if !zeroAware && !p.blank {
		return n
	}
	if zeroAware {
		if z, err := zindex.For(p.goal.Size(), p.m); err == nil {
			n = z.Entries()
		}
	}
	switch f {
	case Bit:
		return n / 8
	case HalfExcess:
		return n / 2
	}
	return n
}
