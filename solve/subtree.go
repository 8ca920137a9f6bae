package solve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
)

// Fingerprint identifies what the solver computes: the algorithm, heuristic, lookups and
// the SHA-256 of every table's values. Two solvers with the same fingerprint, on any
// machines, find the same solutions with the same node counts; a process that searches
// for another (package cluster) checks it before it starts.
func (s *Solver) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%s|%s|%v|%v\n", s.goal.Name(), s.algo, s.heuristic, s.lookups, s.opt.WithWD, s.fast != nil)
	for _, d := range s.digests {
		h.Write(d[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// addDigests adds the digests of the default tables, in the order of their names.
func (s *Solver) addDigests(def *data.Tables) {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range def.Digests {
			if !yield(name) {
				return
			}
		}
	}) {
		s.digests = append(s.digests, def.Digests[name])
	}
}

// Work counts the nodes of a part of a search.
type Work struct {
	Nodes    uint64 `json:"nodes"`    // generated
	Expanded uint64 `json:"expanded"` // whose children were generated
}

// Splits reports whether the solver can share one search out as subtrees (Frontier,
// SearchBelow): the fast IDA* can, the general search cannot.
func (s *Solver) Splits() bool { return s.fast != nil }

// H0 returns the heuristic value of start: the bound of IDA*'s first pass.
func (s *Solver) H0(start board.State) (int, error) {
	if s.fast != nil {
		return s.fast.H0(start)
	}
	if err := s.goal.Check(start); err != nil {
		return 0, err
	}
	return s.h.Eval(start), nil
}

// Frontier returns the subtrees of IDA*'s pass with the given bound, at least want of them
// when the tree has that many below the bound, as paths from start in the order of the
// serial search, and the work of finding them. Searched in that order with SearchBelow,
// they make up the pass: the same nodes and the same first solution.
func (s *Solver) Frontier(ctx context.Context, start board.State, bound, want int) ([][]board.Dir, Work, error) {
	if s.fast == nil {
		return nil, Work{}, badOptions("%s with %s cannot be split into subtrees", s.algo, s.heuristic)
	}
	paths, w, err := s.fast.Frontier(ctx, start, bound, want)
	return paths, Work(w), err
}

// SearchBelow searches IDA*'s pass with the given bound below path (nil: the whole pass)
// and returns the first solution there (from start), or nil, and the work. The solver's
// progress report and node limit apply.
func (s *Solver) SearchBelow(ctx context.Context, start board.State, path []board.Dir, bound int) ([]board.Dir, Work, error) {
	if s.fast == nil {
		return nil, Work{}, badOptions("%s with %s cannot be split into subtrees", s.algo, s.heuristic)
	}
	moves, w, err := s.fast.SearchBelow(ctx, start, path, bound)
	return moves, Work(w), err
}
