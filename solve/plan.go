package solve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/heuristic"
	"github.com/tilekit/tilekit/ida"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/search"
)

// Opening a solver, in one direction: the options' names resolved (resolveNames), the
// tables found and loaded (sources), and the engine built from them (planFast,
// planGeneral, planPruning).

// names are the options resolved without tables: the algorithm, the lookups, the
// heuristic's name (auto still unresolved) and the engine.
type names struct {
	algo, heuristic string
	lookups         ida.Lookups
	fast            bool // package ida's IDA*, else package search
}

func resolveNames(goal board.Goal, opt Options) (names, error) {
	n := names{algo: strings.ToLower(opt.Algorithm), heuristic: strings.ToLower(strings.TrimSpace(opt.Heuristic))}
	if n.algo == "" {
		n.algo = "idastar"
	}
	if !slices.Contains(search.Algorithms, n.algo) {
		return n, badOptions("unknown algorithm %q (choose from %s)", n.algo, strings.Join(search.Algorithms, ", "))
	}
	var err error
	if n.lookups, err = ida.ParseLookups(opt.Lookups); err != nil {
		return n, badOptions("%v", err)
	}
	size := goal.Size()
	if n.heuristic == "" {
		n.heuristic = heuristic.Auto
	}
	var info heuristic.Info
	if n.heuristic != heuristic.Auto {
		if info, err = heuristic.Lookup(n.heuristic); err != nil {
			return n, badOptions("%v", err)
		}
	}
	fastBoard := size == board.Size4x4 || size == board.Size5x5
	n.fast = n.algo == "idastar" && fastBoard && (n.heuristic == heuristic.Auto || info.FastOn(size))
	switch strings.ToLower(opt.Pruning) {
	case "", PruneAutomaton, PruneParent:
	default:
		return n, badOptions("unknown pruning %q (choose from %s, %s)", opt.Pruning, PruneAutomaton, PruneParent)
	}
	if err := prune.CheckDepth(opt.PruningDepth); err != nil {
		return n, badOptions("pruning %v", strings.TrimPrefix(err.Error(), "prune: "))
	}
	switch {
	case n.algo == "bastar" && n.heuristic != heuristic.Auto && n.heuristic != heuristic.HH:
		return n, badOptions("bastar searches with its own heuristic, %s (Hasan et al.), not %s: give no heuristic", heuristic.HH, n.heuristic)
	case opt.hasCatalogue() && n.heuristic != heuristic.Auto:
		return n, badOptions("a catalogue is the heuristic: give no other (%s)", n.heuristic)
	case opt.hasCatalogue() && (!n.fast || !ida.Serves(goal)):
		return n, badOptions("a catalogue serves IDA* on 4x4 and 5x5 with the blank's goal in a corner")
	case n.fast:
		if (info.Set || n.heuristic == heuristic.PDB || n.heuristic == heuristic.Max) && !ida.Serves(goal) {
			return n, badOptions("%s needs a goal with the blank in a corner (blank-last, blank-first or their images); use md, lc or wd for this goal", n.heuristic)
		}
	case info.Set && n.algo == "idastar" && fastBoard:
		return n, badOptions("set %s is for the %s board, not %s", n.heuristic, info.FastBoards[0], size)
	case info.Set:
		return n, badOptions("the %s set serves IDA* on its own board (%s), not %s on %s", n.heuristic, info.FastBoards[0], n.algo, size)
	}
	return n, nil
}

// strongest lists, strongest first, the sets auto looks for on a board: pdb.Sets lists
// each board's weakest first.
func strongest(size board.Size) []pdb.SetSpec {
	var out []pdb.SetSpec
	for _, spec := range slices.Backward(pdb.Sets) {
		if spec.Size() == size {
			out = append(out, spec)
		}
	}
	return out
}

// planFast resolves the fast IDA*: the heuristic (auto: the strongest set installed for a
// corner goal, else max on 4x4 corner goals, wd on other 4x4 goals, md on 5x5) and its
// tables.
func (s *Solver) planFast(ctx context.Context, name string, lookups ida.Lookups, src *sources) error {
	size := s.goal.Size()
	serves := ida.Serves(s.goal)
	var set *pdb.Set
	setFrom := ""
	if name == heuristic.Auto && !s.opt.hasCatalogue() {
		name = heuristic.MD
		if size == board.Size4x4 {
			name = heuristic.WD
			if serves {
				name = heuristic.Max
			}
		}
		if serves {
			for _, spec := range strongest(size) {
				loaded, from, err := data.LoadSet(spec.Name, src.dirs)
				if errors.Is(err, data.ErrNotInstalled) {
					continue
				}
				if err != nil { // installed but unreadable: say so rather than fall back
					return err
				}
				name, set, setFrom = spec.Name, loaded, from
				break
			}
		}
	}
	if s.opt.hasCatalogue() {
		spec, err := readCatalogue(s.opt, size)
		if err != nil {
			return err
		}
		if set, setFrom, err = data.LoadSpec(spec, src.dirs); errors.Is(err, data.ErrNotInstalled) {
			return optionsError{err.Error()}
		} else if err != nil {
			return err
		}
		name = "catalogue " + s.opt.catalogueName()
	}
	info, _ := heuristic.Lookup(name)
	info.Set = info.Set || set != nil
	s.heuristic, s.tables = name, "embedded"
	opt := ida.Options{Lookups: lookups, WithWD: s.opt.WithWD, MaxNodes: s.opt.MaxNodes, Workers: s.opt.Workers}
	if !info.Set {
		var err error
		if opt.Heuristic, err = ida.ParseHeuristic(name); err != nil {
			return optionsError{err.Error()}
		}
	}
	if info.Set {
		if set == nil {
			var err error
			if set, setFrom, err = data.LoadSet(name, src.dirs); errors.Is(err, data.ErrNotInstalled) {
				return optionsError{err.Error()}
			} else if err != nil {
				return err
			}
		}
		opt.Set = set
		for _, t := range set.Tables {
			s.digests = append(s.digests, t.Digest)
		}
		// Records name the set by its values (digest), not by a directory of the machine
		// that made them; the text for people says where too.
		s.tables = "set " + name
		if set.InBits() {
			s.tables += " in bits"
		}
		switch d := set.Digest(); {
		case setFrom == "embedded" || setFrom == data.FromMemory || d == "":
			s.tables += " (" + setFrom + ")"
		default:
			s.tables += " (sha256:" + d + ")"
			s.tablesFrom = setFrom
		}
	}
	if opt.Heuristic.Needs()&(ida.NeedsWD|ida.NeedsIDA15) != 0 || info.Set && s.opt.WithWD && size == board.Size4x4 {
		def, err := src.defaults()
		if err != nil {
			return err
		}
		opt.WD, opt.IDA15 = def.WDLast, def.IDA15
		s.addDigests(def)
	}
	if src.def != nil {
		s.tables = src.def.Source
	}
	fsm, err := s.planPruning(ctx, src)
	if err != nil {
		return err
	}
	opt.Pruning = fsm
	fast, err := ida.New(s.goal, opt)
	if errors.Is(err, ida.ErrOptions) || errors.Is(err, ida.ErrGoal) {
		return optionsError{err.Error()}
	}
	s.fast = fast
	if err == nil && info.Set {
		s.lookups = fast.Lookups()
	}
	return err
}

// readCatalogue reads the options' catalogue for size, its errors those of options.
func readCatalogue(opt Options, size board.Size) (pdb.SetSpec, error) {
	opt, err := opt.Portable()
	if err != nil {
		return pdb.SetSpec{}, err
	}
	spec, err := data.ParseCatalogue(opt.CatalogueText, opt.catalogueName(), size)
	if err != nil {
		return pdb.SetSpec{}, badOptions("%v", err)
	}
	return spec, nil
}

// hasCatalogue reports whether the options name a catalogue, by its file or its text.
func (o Options) hasCatalogue() bool { return o.Catalogue != "" || o.CatalogueText != "" }

// catalogueName names the options' catalogue: its file, or "(text)".
func (o Options) catalogueName() string { return cmp.Or(o.Catalogue, "(text)") }

// planGeneral resolves the general search: the heuristic (auto: max, or pdb on 5x5, which
// has no walking-distance table) and the tables it uses.
func (s *Solver) planGeneral(ctx context.Context, name string, src *sources) error {
	if s.algo == "bastar" {
		name = heuristic.HH // BA* searches with its own (resolveNames refuses another)
	}
	if name == heuristic.Auto {
		name = heuristic.Max
		if s.goal.Size() == board.Size5x5 {
			name = heuristic.PDB
		}
	}
	s.tables = "embedded"
	if src.def != nil {
		s.tables = src.def.Source
	}
	var ida15 *pdb.IDA15
	if (name == heuristic.PDB || name == heuristic.Max) && s.goal.Size() == board.Size4x4 {
		def, err := src.defaults()
		if err != nil {
			return err
		}
		ida15 = def.IDA15
		s.addDigests(def)
	}
	h, err := heuristic.NewContext(ctx, name, s.goal, ida15)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.algo == "bastar" {
			return badOptions("bastar serves no %s board: its heuristic, %s, needs walking distance (%v)", s.goal.Size(), name, err)
		}
		return badOptions("%v", err)
	}
	s.h, s.heuristic = h, h.Name
	if s.algo == "idastar" || s.algo == "rbfs" {
		s.fsm, err = s.planPruning(ctx, src)
	}
	return err
}

// planPruning decides which automaton prunes duplicate paths, unless the options ask for
// the move-back rule (nil): the options' depth; by default the deepest installed if it is
// deeper than the board's default (prune.DefaultDepth: an installed automaton was built to
// be used), else the default, read or built (data.Automaton). It records the automaton in
// the plan (pruning, pruningDepth, and pruningFrom for people).
func (s *Solver) planPruning(ctx context.Context, src *sources) (*prune.Automaton, error) {
	s.pruning = "move back"
	if strings.EqualFold(s.opt.Pruning, PruneParent) {
		return nil, nil
	}
	size := s.goal.Size()
	depth := s.opt.PruningDepth
	var fsm *prune.Automaton
	var from, note string
	if depth == 0 {
		depth = prune.DefaultDepth(size)
		for _, d := range data.InstalledDepths(size, src.dirs) {
			if d <= depth {
				break
			}
			a, dir, err := data.OpenAutomaton(size, d, src.dirs)
			if err == nil {
				fsm, from = a, dir
				break
			}
			if note == "" {
				note = fmt.Sprintf("%v; depth %d instead", err, depth)
			}
		}
	}
	if fsm == nil {
		var progress func(string, int, int)
		if s.opt.Preparing != nil {
			progress = func(note string, done, total int) {
				s.opt.Preparing(fmt.Sprintf("building the %s automaton of depth %d in memory, a few seconds: %s", size, depth, note), done, total)
			}
		}
		a, f, n, err := data.Automaton(ctx, size, depth, src.dirs, progress)
		if err != nil {
			return nil, err
		}
		fsm, from, note = a, f, cmp.Or(note, n)
	}
	if fsm != nil {
		s.pruning, s.pruningDepth = fsm.Name(), fsm.Depth()
	}
	switch {
	case from == "":
		s.pruningFrom = note
	case note == "":
		s.pruningFrom = from
	default:
		s.pruningFrom = from + ": " + note
	}
	return fsm, nil
}

// sources are where a solver's tables come from: the default tables (embedded, or those
// of Options.Tables) and the directories searched for sets.
type sources struct {
	dirs []string // nil: data.TableDirs()
	def  *data.Tables
}

func newSources(dir string) (*sources, error) {
	if dir == "" {
		return &sources{}, nil
	}
	src := &sources{dirs: []string{dir}}
	if data.HasDefaults(dir) {
		var err error
		if src.def, err = data.LoadDir(dir); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// Heuristics returns the named heuristics of the general search for the goal, with the
// default tables of tables (as Options.Tables: "" for the embedded ones): what the audit
// measures and eval prints. A name that does not apply to the goal leaves a nil in its
// place and an error matching ErrOptions; the tables are read once for all of them.
func Heuristics(ctx context.Context, goal board.Goal, tables string, names ...string) ([]*heuristic.Heuristic, error) {
	src, err := newSources(tables)
	if err != nil {
		return nil, err
	}
	def, err := src.defaults()
	if err != nil {
		return nil, err
	}
	hs := make([]*heuristic.Heuristic, len(names))
	var errs []error
	for i, name := range names {
		h, err := heuristic.NewContext(ctx, name, goal, def.IDA15)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			errs = append(errs, badOptions("%v", err))
		default:
			hs[i] = h
		}
	}
	return hs, errors.Join(errs...)
}

func (src *sources) defaults() (*data.Tables, error) {
	if src.def != nil {
		return src.def, nil
	}
	return data.Default()
}
