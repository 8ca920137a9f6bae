package data

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

// A Request is what one install builds (pdbgen build): the default tables; a named set; a
// catalogue's tables; a board's recommended set with its automata; or a board's automata
// alone. A set installed where no automaton of its board is found comes with the automaton
// its searches use, which they would otherwise build first.
type Request struct {
	Set       string     // a named set (pdb.Sets)
	Catalogue string     // a catalogue's file, of Board
	Board     board.Size // of Catalogue and Automata; alone, its recommended set and automata (zero: none)
	Bits      bool       // a zero-aware set's tables in the bit encoding
	Automata  bool       // only Board's duplicate-path automata
	Depth     int        // with Automata: of this depth only (0: prune.InstallDepths)
}

// ErrRequest is matched by the errors of a Request that asks for what cannot be built
// together.
var ErrRequest = errors.New("data: a request that cannot be built")

// requestError is an error of a Request: it says what is wrong, and matches ErrRequest.
type requestError struct{ msg string }

func (e requestError) Error() string        { return e.msg }
func (e requestError) Is(target error) bool { return target == ErrRequest }

func badRequest(format string, args ...any) error {
	return requestError{fmt.Sprintf(format, args...)}
}

// Check reports what is wrong with r's choices, reading nothing: ErrRequest for choices
// that exclude each other. (Install may still refuse a set or catalogue that cannot be
// read or is for another board, with ErrRequest too.)
func (r Request) Check() error {
	switch {
	case r.Set != "" && r.Catalogue != "":
		return badRequest("give --set or --catalogue, not both")
	case r.Automata && (r.Set != "" || r.Catalogue != "" || r.Bits):
		return badRequest("--pruning builds the automaton alone: give no --set, --catalogue or --bits")
	case r.Automata && r.Board == (board.Size{}):
		return badRequest("the automata of which board? give --board")
	case r.Bits && r.Set == "" && r.Catalogue == "" && r.Board == (board.Size{}):
		return badRequest("--bits: the default tables are not zero-aware; give --set, --board or --catalogue")
	}
	return nil
}

// spec is the set r builds: its Set, its Catalogue (read), or Board's recommended one;
// none for the default tables or automata alone.
func (r Request) spec() (*pdb.SetSpec, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if r.Automata || r.Set == "" && r.Catalogue == "" && r.Board == (board.Size{}) {
		return nil, nil
	}
	var spec pdb.SetSpec
	var err error
	switch {
	case r.Catalogue != "":
		spec, err = ReadCatalogue(r.Catalogue, r.Board)
	case r.Set != "":
		spec, err = pdb.SetByName(r.Set)
	default:
		spec, err = pdb.Recommended(r.Board)
	}
	if err != nil {
		return nil, badRequest("%v", err)
	}
	if r.Board != (board.Size{}) && spec.Size() != r.Board {
		return nil, badRequest("--board %s: the %s set is for %s", r.Board, spec.Name, spec.Size())
	}
	if r.Bits && !spec.ZeroAware {
		return nil, badRequest("--bits: the %s set's tables are not zero-aware (the bit encoding needs those whose names end in z, small-t, or a catalogue of 0-groups)", spec.Name)
	}
	return &spec, nil
}

// Install builds what r asks and installs it into dir ("": InstallDir), each file told to
// opt.Wrote; it returns what it built, for people ("the small-t set and its automaton"),
// and the directory. The automata's building is told to automaton (nil: not at all).
func Install(ctx context.Context, r Request, dir string, opt BuildOptions, automaton func(file string, done, total int)) (what, into string, err error) {
	spec, err := r.spec()
	if err != nil {
		return "", "", err
	}
	opt.Bits = r.Bits
	automata := func(size board.Size, depths []int) error {
		for _, depth := range depths {
			file := AutomatonFile(size, depth)
			path, t, err := InstallAutomaton(ctx, size, depth, into, func(done, total int) {
				if automaton != nil {
					automaton(file, done, total)
				}
			})
			if err != nil {
				return err
			}
			if opt.Wrote != nil {
				if err := opt.Wrote(path, tablefile.Describe(path, t)); err != nil {
					return err
				}
			}
			into = filepath.Dir(path)
		}
		return nil
	}
	switch {
	case r.Automata:
		into = dir
		depths := prune.InstallDepths(r.Board)
		if r.Depth != 0 {
			depths = []int{r.Depth}
		}
		return fmt.Sprintf("the %s automaton", r.Board), into, automata(r.Board, depths)
	case spec == nil:
		into, err = InstallDefaults(ctx, dir, opt)
		return fmt.Sprintf("%d default tables", len(Specs)), into, err
	}
	what = "the " + spec.Name + " set"
	if into, err = InstallSet(ctx, *spec, dir, opt); err != nil {
		return what, into, err
	}
	switch size := spec.Size(); {
	case r.Set == "" && r.Catalogue == "":
		if err = automata(size, prune.InstallDepths(size)); err == nil {
			what += " and its automaton"
		}
	case NeedsAutomaton(size, append([]string{into}, TableDirs()...)):
		depth := prune.DefaultDepth(size)
		if err = automata(size, []int{depth}); err == nil {
			what += fmt.Sprintf(" and the depth-%d automaton its searches use", depth)
		}
	}
	return what, into, err
}
