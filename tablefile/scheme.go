package tablefile

import "slices"

// A Scheme declares an index scheme: which table kind uses it, whether it is zero-aware,
// which encodings its tables may have, whether its entries are values, and its formula.
// The file format's checks, export's sidecars, verify and pdbgen info read it from here,
// and a test checks docs/FORMAT.md against it, so that a scheme is described once.
type Scheme struct {
	Name      string   // as headers write it
	Kind      string   // the kind of table that uses it
	ZeroAware bool     // an entry per region of free cells the blank may be in
	Encodings []string // the encodings its tables may have
	// Values reports whether its entries are distances (what export writes out), rather
	// than an automaton's transitions.
	Values bool
	// Formula is the index in one line, for sidecars and people (docs/FORMAT.md has each
	// with an example).
	Formula string
}

// Schemes are the index schemes of table files.
var Schemes = []Scheme{
	{Name: IndexWD, Kind: KindWD, Encodings: []string{EncodingRaw}, Values: true,
		Formula: "the rank of (blank row, m[0][0], m[0][1], ..., m[H-1][H-1]) among all walking-distance patterns sorted lexicographically; " +
			"m[r][g] = the tiles in row r whose goal row is g (docs/FORMAT.md, wd-lex-v1)"},
	{Name: IndexPDB, Kind: KindPDB, Encodings: []string{EncodingRaw, EncodingHalfExcess}, Values: true,
		Formula: "N = width*height; cells row-major from 0; c[i] = the cell of tiles[i], then of the blank when blank_in_index; " +
			"d[i] = c[i] - #{j < i : c[j] < c[i]}; index = (...((d[0]*(N-1) + d[1])*(N-2) + d[2])...)*(N-m+1) + d[m-1], m = the cells listed"},
	{Name: IndexZero, Kind: KindPDB, ZeroAware: true, Encodings: []string{EncodingHalfExcess, EncodingBit}, Values: true,
		Formula: "k = the tiles; c[i] = the cell of tiles[i]; map = the sum of C(o[j], j+1) over the occupied cells o[0] < o[1] < ...; " +
			"first[map] = the regions of free cells (those of no pattern tile, joined by edges) of all maps of smaller rank; region = the number of the blank's region, " +
			"regions numbered in the order of their smallest cells; p[i] = the place of c[i] among the occupied cells; order = the lexicographic rank of p as a permutation; " +
			"index = (first[map] + region)*k! + order (docs/FORMAT.md, zperm-v1)"},
	{Name: IndexFSM, Kind: KindPrune, Encodings: []string{EncodingU32},
		Formula: "entry 4*s + d is the state after blank move d (U, D, L, R = 0, 1, 2, 3) from state s, or 4294967295 when the move is pruned or off the board; " +
			"states 0 to width*height-1 are the start states of the blank's cells (docs/FORMAT.md, fsm-v1)"},
}

// SchemeOf returns the scheme of a name, and whether there is one.
func SchemeOf(name string) (Scheme, bool) {
	i := slices.IndexFunc(Schemes, func(s Scheme) bool { return s.Name == name })
	if i < 0 {
		return Scheme{}, false
	}
	return Schemes[i], true
}

// schemesWith lists the schemes whose tables may have an encoding, for messages.
func schemesWith(encoding string) []string {
	var out []string
	for _, s := range Schemes {
		if slices.Contains(s.Encodings, encoding) {
			name := s.Name
			if s.ZeroAware {
				name += " (zero-aware)"
			}
			out = append(out, name)
		}
	}
	return out
}

// schemesOf lists the names of the schemes of a kind.
func schemesOf(kind string) []string {
	var out []string
	for _, s := range Schemes {
		if s.Kind == kind {
			out = append(out, s.Name)
		}
	}
	return out
}
