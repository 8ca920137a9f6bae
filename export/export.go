// Package export writes the toolkit's tables for other languages: plain bytes, one a
// value, in the table's documented index order, with a small JSON sidecar that says how to
// index them (docs/FORMAT.md, "Raw export"). A reader needs no zstd, no half-excess
// decoding and no mirror: examples/c and examples/python read the result in a page each.
package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// Format names this export format in its sidecars.
const Format = "tilekit-raw-v1"

// Unreachable is the value of placements that no solvable state has (pattern databases
// that leave fewer than two tiles out).
const Unreachable = 255

// Sidecar describes an exported table.
type Sidecar struct {
	Format        string `json:"format"`
	Kind          string `json:"kind"` // "pdb" or "wd"
	Width         int    `json:"width"`
	Height        int    `json:"height"`
	Goal          []int  `json:"goal"` // the goal arrangement, row-major, 0 for the blank
	GoalName      string `json:"goal_name,omitempty"`
	Tiles         []int  `json:"tiles,omitempty"` // pattern tiles, in index order
	BlankInIndex  bool   `json:"blank_in_index"`
	ZeroAware     bool   `json:"zero_aware"` // an entry per region of the blank (index zperm-v1)
	Index         string `json:"index"`      // "kperm-v1", "zperm-v1" or "wd-lex-v1"
	IndexFormula  string `json:"index_formula"`
	Entries       int64  `json:"entries"`
	BytesPerEntry int    `json:"bytes_per_entry"`
	Unreachable   int    `json:"unreachable"` // the value of placements no solvable state has
	SHA256        string `json:"sha256"`      // of the raw bytes
	Source        string `json:"source"`      // the decoded sha256 of the table file exported
}

// Values returns a table's entries as their exact values, one byte each, in index order:
// a raw table's entries as they are, a packed one's decoded through its mirror.
func Values(ctx context.Context, t *tablefile.Table, workers int) ([]uint8, error) {
	if t.Encoding == tablefile.EncodingBit {
		return nil, fmt.Errorf("export: the table is in the bit encoding, whose bits are not values (a search reads them through their neighbours'); export the same table built without --bits")
	}
	if t.Encoding != tablefile.EncodingHalfExcess {
		return t.Entries, nil
	}
	packed, err := pdb.LoadPacked(t)
	if err != nil {
		return nil, err
	}
	return packed.Values(ctx, workers)
}

// Raw writes t's values to path and the sidecar to path+".json", both atomically, and
// returns the sidecar.
func Raw(ctx context.Context, t *tablefile.Table, path string, workers int) (*Sidecar, error) {
	scheme, ok := tablefile.SchemeOf(t.Index)
	if !ok || !scheme.Values {
		return nil, fmt.Errorf("export: a table of index %s (kind %s) has no raw form: it is not a table of values", t.Index, t.Kind)
	}
	values, err := Values(ctx, t, workers)
	if err != nil {
		return nil, err
	}
	s := &Sidecar{Format: Format, Kind: t.Kind, Width: t.Size.W, Height: t.Size.H, Tiles: t.Tiles,
		BlankInIndex: t.BlankInIndex, ZeroAware: scheme.ZeroAware, Index: t.Index, IndexFormula: scheme.Formula, Entries: int64(len(values)),
		BytesPerEntry: 1, Unreachable: Unreachable, SHA256: fmt.Sprintf("%x", sha256.Sum256(values)),
		Source: fmt.Sprintf("%x", t.DecodedSHA)}
	for _, v := range t.Goal {
		s.Goal = append(s.Goal, int(v))
	}
	if g, err := t.GoalOf(); err == nil {
		s.GoalName = g.Name()
	}
	var side bytes.Buffer
	enc := json.NewEncoder(&side)
	enc.SetEscapeHTML(false) // the formula's "<" as it is
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(ctx, path, values); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(ctx, path+".json", side.Bytes()); err != nil {
		return nil, err
	}
	return s, nil
}
