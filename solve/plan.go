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

// Opening a solver goes one way, each name resolved once:
//  1. the plan: the options' names, without reading a table (resolveNames: the
//     algorithm, the engine, the lookups, the heuristic's name, the pruning; Options.Check
//     stops here), then auto decided by what is installed and a catalogue read (choose);
//  2. the plan's tables found and read (load: the set or catalogue, the default tables,
//     the automaton);
//  3. the engine built from them (buildFast, buildGeneral).
// The general search's heuristics build their own tables (heuristic.NewContext), before
// its automaton.

// A plan is the options resolved.
type plan struct {
	algo, heuristic string // heuristic: auto until choose decides it
	lookups         ida.Lookups
	fast            bool          // package ida's IDA*, else package search
	named           bool          // the heuristic names a set (heuristic.Info.Set)
	serves          bool          // the goal is one ida's sets serve (ida.Serves)
	set             *pdb.SetSpec  // the fast engine's set or catalogue (choose), or nil
	kind            ida.Heuristic // the fast engine's heuristic when it reads no set
	defaults        bool          // it reads the default tables (walking distance, IDA15)
	prunes          bool          // it prunes duplicate paths: IDA* and RBFS
	parent          bool          // only the move back, not with an automaton
	dirs            []string      // where sets are looked for (nil: data.TableDirs)
}

// resolveNames resolves the options' names for goal without reading a table.
func resolveNames(goal board.Goal, opt Options) (plan, error) {
	n := plan{algo: strings.ToLower(opt.Algorithm), heuristic: strings.ToLower(strings.TrimSpace(opt.Heuristic))}
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
	n.named, n.serves = info.Set, ida.Serves(goal)
	switch strings.ToLower(opt.Pruning) {
	case "", PruneAutomaton, PruneParent:
	default:
		return n, badOptions("unknown pruning %q (choose from %s, %s)", opt.Pruning, PruneAutomaton, PruneParent)
	}
	n.prunes, n.parent = n.algo == "idastar" || n.algo == "rbfs", strings.EqualFold(opt.Pruning, PruneParent)
	if err := prune.CheckDepth(opt.PruningDepth); err != nil {
		return n, badOptions("pruning %v", strings.TrimPrefix(err.Error(), "prune: "))
	}
	if opt.Tables != "" {
		n.dirs = []string{opt.Tables}
	}
	switch {
	case n.algo == "bastar" && n.heuristic != heuristic.Auto && n.heuristic != heuristic.HH:
		return n, badOptions("bastar searches with its own heuristic, %s (Hasan et al.), not %s: give no heuristic", heuristic.HH, n.heuristic)
	case opt.hasCatalogue() && n.heuristic != heuristic.Auto:
		return n, badOptions("a catalogue is the heuristic: give no other (%s)", n.heuristic)
	case opt.hasCatalogue() && (!n.fast || !n.serves):
		return n, badOptions("a catalogue serves IDA* on 4x4 and 5x5 with the blank's goal in a corner")
	case n.fast:
		if (info.Set || n.heuristic == heuristic.PDB || n.heuristic == heuristic.Max) && !n.serves {
			return n, badOptions("%s needs a goal with the blank in a corner (blank-last, blank-first or their images); use md, lc or wd for this goal", n.heuristic)
		}
	case info.Set && n.algo == "idastar" && fastBoard:
		return n, badOptions("set %s is for the %s board, not %s", n.heuristic, info.FastBoards[0], size)
	case info.Set:
		return n, badOptions("the %s set serves IDA* on its own board (%s), not %s on %s", n.heuristic, info.FastBoards[0], n.algo, size)
	}
	return n, nil
}

// choose completes the plan: the heuristic that auto stands for, the set or catalogue the
// fast engine reads (a catalogue's file read), and whether the default tables are read.
// The fast engine's auto is the strongest set installed for a corner goal, else max on
// 4x4 corner goals, wd on other 4x4 goals, md on 5x5; the general search's is max, or pdb
// on 5x5 (which has no walking-distance table), and BA*'s its own.
func (p *plan) choose(goal board.Goal, opt Options) error {
	size := goal.Size()
	if p.algo == "bastar" {
		p.heuristic = heuristic.HH // resolveNames refuses another
	}
	if !p.fast {
		if p.heuristic == heuristic.Auto {
			p.heuristic = heuristic.Max
			if size == board.Size5x5 {
				p.heuristic = heuristic.PDB
			}
		}
		p.defaults = (p.heuristic == heuristic.PDB || p.heuristic == heuristic.Max) && size == board.Size4x4
		return nil
	}
	switch {
	case opt.hasCatalogue():
		spec, err := readCatalogue(opt, size)
		if err != nil {
			return err
		}
		p.set, p.heuristic = &spec, "catalogue "+opt.catalogueName()
	case p.heuristic == heuristic.Auto:
		p.heuristic = heuristic.MD
		if size == board.Size4x4 {
			p.heuristic = heuristic.WD
			if p.serves {
				p.heuristic = heuristic.Max
			}
		}
		for _, spec := range strongest(size) {
			if p.serves && data.Available(spec, p.dirs) {
				p.heuristic, p.set = spec.Name, &spec
				break
			}
		}
	case p.named:
		spec, err := pdb.SetByName(p.heuristic)
		if err != nil {
			return err
		}
		p.set = &spec
	}
	if p.set == nil {
		var err error
		if p.kind, err = ida.ParseHeuristic(p.heuristic); err != nil {
			return optionsError{err.Error()}
		}
	}
	k := p.kind.Kind()
	p.defaults = k.WD || k.IDA15 || p.set != nil && opt.WithWD && size == board.Size4x4
	return nil
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

// loaded are a plan's tables, read.
type loaded struct {
	src     *sources
	set     *pdb.Set // the plan's set or catalogue
	setFrom string
	def     *data.Tables     // the default tables, when the plan reads them
	fsm     *prune.Automaton // nil: the move back
}

// load finds and reads the plan's tables: its set or catalogue, the default tables, and
// the automaton (loadAutomaton).
func (s *Solver) load(ctx context.Context, p plan) (*loaded, error) {
	src, err := newSources(s.opt.Tables)
	if err != nil {
		return nil, err
	}
	l := &loaded{src: src}
	if p.set != nil {
		if l.set, l.setFrom, err = data.LoadSpec(*p.set, src.dirs); errors.Is(err, data.ErrNotInstalled) {
			return nil, optionsError{err.Error()}
		} else if err != nil { // installed but unreadable: say so rather than fall back
			return nil, err
		}
	}
	if p.defaults {
		if l.def, err = src.defaults(); err != nil {
			return nil, err
		}
	}
	if p.fast { // the general search's heuristic is built first (buildGeneral)
		if l.fsm, err = s.loadAutomaton(ctx, p, src); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// buildFast builds the fast IDA* from the plan and its tables, and says what it uses.
func (s *Solver) buildFast(p plan, l *loaded) error {
	s.heuristic, s.tables = p.heuristic, "embedded"
	opt := ida.Options{Heuristic: p.kind, Lookups: p.lookups, WithWD: s.opt.WithWD, MaxNodes: s.opt.MaxNodes,
		Workers: s.opt.Workers, Split: workersRule(s.opt.Workers), Set: l.set, Pruning: l.fsm}
	if set := l.set; set != nil {
		for _, t := range set.Tables {
			s.digests = append(s.digests, t.Digest)
		}
		// Records name the set by its values (digest), not by a directory of the machine
		// that made them; the text for people says where too.
		s.tables = "set " + p.heuristic
		if set.InBits() {
			s.tables += " in bits"
		}
		switch d := set.Digest(); {
		case l.setFrom == "embedded" || l.setFrom == data.FromMemory || d == "":
			s.tables += " (" + l.setFrom + ")"
		default:
			s.tables += " (sha256:" + d + ")"
			s.tablesFrom = l.setFrom
		}
	}
	if l.def != nil {
		opt.WD, opt.IDA15 = l.def.WDLast, l.def.IDA15
		s.addDigests(l.def)
	}
	if l.src.def != nil {
		s.tables = l.src.def.Source
	}
	fast, err := ida.New(s.goal, opt)
	if errors.Is(err, ida.ErrOptions) || errors.Is(err, ida.ErrGoal) {
		return optionsError{err.Error()}
	}
	s.fast = fast
	if err == nil && l.set != nil {
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

// buildGeneral builds the general search's heuristic (and the tables it builds itself)
// from the plan and the default tables, then reads or builds its automaton.
func (s *Solver) buildGeneral(ctx context.Context, p plan, l *loaded) error {
	s.tables = "embedded"
	if l.src.def != nil {
		s.tables = l.src.def.Source
	}
	var ida15 *pdb.IDA15
	if l.def != nil {
		ida15 = l.def.IDA15
		s.addDigests(l.def)
	}
	h, err := heuristic.NewContext(ctx, p.heuristic, s.goal, ida15)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.algo == "bastar" {
			return badOptions("bastar serves no %s board: its heuristic, %s, needs walking distance (%v)", s.goal.Size(), p.heuristic, err)
		}
		return badOptions("%v", err)
	}
	s.h, s.heuristic = h, h.Name
	if p.prunes {
		s.fsm, err = s.loadAutomaton(ctx, p, l.src)
	}
	return err
}

// loadAutomaton reads the automaton that prunes duplicate paths, unless the plan asks for
// the move-back rule (nil): the options' depth; by default the deepest installed if it is
// deeper than the board's default (prune.DefaultDepth: an installed automaton was built to
// be used), else the default, read or built (data.Automaton). It records the automaton for
// people and fingerprints (pruning, pruningDepth, pruningFrom).
func (s *Solver) loadAutomaton(ctx context.Context, p plan, src *sources) (*prune.Automaton, error) {
	s.pruning = "move back"
	if p.parent {
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
				// A damaged file is said, not only in -v's line: a search goes on with a
				// shallower automaton, and prunes less.
				s.warning = fmt.Sprintf("%v: pruning with the automaton of depth %d instead; rebuild the file with: pdbgen build --pruning --board %s --pruning-depth %d --out %s",
					err, depth, size, d, cmp.Or(dir, "DIR"))
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
