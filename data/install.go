package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/sysmem"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// BuildOptions tune InstallDefaults and InstallSet.
type BuildOptions struct {
	Workers int // goroutines for each build (0: all cores); the bytes are the same for any number
	// Progress hears of each table's build: its file name and the breadth-first layers.
	Progress func(file string, l bfs.Layer)
	// Step, if set, hears of the steps after a set's table is built, which take a minute or
	// two for the 7-8 set: "packing", then "compressing, writing and reading back".
	Step func(file, step string)
	// Wrote is told of each file once the whole install is written, read back and in place,
	// with its description (tablefile.Describe; the tables themselves are not kept).
	Wrote func(path string, info tablefile.Info) error
	// Bits stores a zero-aware set's tables in the bit encoding (pdb.ZeroAwareBits): a
	// quarter of the half-excess size, under the same file names.
	Bits bool
}

// Write writes t to path atomically (the old file, if any, is replaced only by a complete
// new one) and reads it back: the file must decode, within tablefile's bounds, to the
// table's checksum.
func Write(ctx context.Context, path string, t *tablefile.Table) error {
	if err := CheckTargets(path); err != nil { // before the compression
		return err
	}
	s, err := stage(ctx, path, t, 0)
	if err != nil {
		return err
	}
	return s.Commit()
}

// stage writes t beside path, reads it back and checks it, without putting it in place.
// Its callers have checked the target (CheckTargets) before their work.
func stage(ctx context.Context, path string, t *tablefile.Table, workers int) (*atomicfile.Staged, error) {
	b, err := t.MarshalOn(ctx, workers)
	if err != nil {
		return nil, err
	}
	s, err := atomicfile.Stage(ctx, path, b)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	// Checked frame by frame, without a second copy of the entries in memory.
	back, err := tablefile.Check(s.Path())
	if err == nil && back.DecodedSHA != t.DecodedSHA {
		err = errors.New("its entries differ from those written")
	}
	if err != nil {
		s.Abort()
		return nil, fmt.Errorf("reading back %s: %w", path, err)
	}
	return s, nil
}

// CheckTargets reports a path that a build could not write (a directory, a special
// file), before the build spends its time.
func CheckTargets(paths ...string) error {
	for _, p := range paths {
		if _, err := atomicfile.Target(p); err != nil {
			return err
		}
	}
	return nil
}

// CheckOutputs is CheckTargets for files written from the file src: none may be src
// itself (by another name, a link), which writing would replace while it is read.
func CheckOutputs(src string, paths ...string) error {
	if err := CheckTargets(paths...); err != nil {
		return err
	}
	in, err := os.Stat(src)
	if err != nil {
		return nil // the reader says what is wrong with src
	}
	for _, p := range paths {
		if out, err := os.Stat(p); err == nil && os.SameFile(in, out) {
			return fmt.Errorf("%s is the input %s itself: writing it would destroy what is read", p, src)
		}
	}
	return nil
}

// InstallDefaults builds the default tables (Specs) into dir ("" for InstallDir()),
// created if missing: the files this package embeds, byte for byte. It returns the
// directory, and installs all or nothing, as InstallSet does.
func InstallDefaults(ctx context.Context, dir string, opt BuildOptions) (string, error) {
	dir, err := installDir(dir)
	if err != nil {
		return "", err
	}
	var paths []string
	for _, s := range Specs {
		paths = append(paths, filepath.Join(dir, s.File))
	}
	if opt.Bits {
		return "", fmt.Errorf("the default tables are not zero-aware: the bit encoding needs tables whose neighbours differ by exactly one")
	}
	if err := prepare(dir, paths); err != nil {
		return "", err
	}
	g := &group{opt: opt}
	for i, s := range Specs {
		t, err := s.Build(ctx, bfs.Options{Workers: opt.Workers, Progress: progress(opt, s.File)})
		if err != nil {
			return dir, g.finish(ctx, fmt.Errorf("building %s: %w", s.File, err))
		}
		if err := g.add(ctx, paths[i], t); err != nil {
			return dir, g.finish(ctx, err)
		}
	}
	return dir, g.finish(ctx, nil)
}

// installDir is dir, or InstallDir() for "".
func installDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return InstallDir()
}

// InstallSet builds the tables of a set into dir ("" for InstallDir(), where solvers find
// them), created if missing, one table after the other, and returns the directory. The
// set's files take their places together at the end: a failed or interrupted install
// leaves no part of the set.
func InstallSet(ctx context.Context, spec pdb.SetSpec, dir string, opt BuildOptions) (string, error) {
	dir, err := installDir(dir)
	if err != nil {
		return "", err
	}
	var paths []string
	for t := range spec.Tables {
		paths = append(paths, filepath.Join(dir, SetFile(spec, t)))
	}
	if err := spec.Check(); err != nil {
		return "", err
	}
	if err := CheckMemory("the "+spec.Name+" set", SetBytes(spec, opt.Bits, opt.Workers)); err != nil {
		return "", err
	}
	if err := prepare(dir, paths); err != nil {
		return "", err
	}
	build := spec.BuildTable
	if opt.Bits {
		build = spec.BuildTableBits
	}
	g := &group{opt: opt, set: &spec, dir: dir}
	converted := map[string]string{} // path: the digest of a table converted from a proven one
	for t := range spec.Tables {
		packed, err := convertible(ctx, paths[t], opt)
		wasConverted := packed != nil
		if err == nil && packed == nil {
			packed, err = build(ctx, t, pdb.Options{Workers: opt.Workers, Progress: progress(opt, SetFile(spec, t))})
		}
		var f *tablefile.Table
		if err == nil {
			step(opt, SetFile(spec, t), "packing")
			f, err = packed.File()
		}
		if err == nil {
			step(opt, SetFile(spec, t), "compressing, writing and reading back")
			err = g.add(ctx, paths[t], f)
		}
		if err != nil {
			return dir, g.finish(ctx, fmt.Errorf("building the %s set: %w", spec.Name, err))
		}
		if wasConverted {
			converted[paths[t]] = fmt.Sprintf("%x", f.DecodedSHA)
		}
	}
	if err := g.finish(ctx, nil); err != nil {
		return dir, err
	}
	// A table converted from one whose values were proven has known values too: its record
	// follows it (the tables of named sets have known digests and need none).
	for path, digest := range converted {
		if !IsStandard(filepath.Base(path), digest) {
			if err := RecordVerified(ctx, path, digest); err != nil {
				return dir, err
			}
		}
	}
	return dir, nil
}

// convertible returns, for an install in the bit encoding, the zero-aware table already
// at path in the half-excess encoding, converted, when its values are known (trusted):
// converting it takes seconds where building it takes a minute. Otherwise nil: the table
// is built.
func convertible(ctx context.Context, path string, opt BuildOptions) (*pdb.Packed, error) {
	if !opt.Bits {
		return nil, nil
	}
	f, err := tablefile.Read(path)
	if err != nil || f.Encoding != tablefile.EncodingHalfExcess || f.Index != tablefile.IndexZero ||
		trusted(path, filepath.Base(path), f) != nil {
		return nil, nil // absent, unreadable or unknown: built afresh
	}
	packed, err := pdb.LoadPacked(f)
	if err != nil {
		return nil, err
	}
	return packed.ToBits(ctx, opt.Workers)
}

// prepare creates dir and checks every target before a build,
// and removes what builds killed mid-write left there.
func prepare(dir string, paths []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	atomicfile.RemoveStale(dir)
	return CheckTargets(paths...)
}

// step tells opt.Step, if set, that the file's build has reached a step.
func step(opt BuildOptions, file, what string) {
	if opt.Step != nil {
		opt.Step(file, what)
	}
}

func progress(opt BuildOptions, file string) func(bfs.Layer) {
	if opt.Progress == nil {
		return nil
	}
	return func(l bfs.Layer) { opt.Progress(file, l) }
}

// group is the tables of one install: each staged as it is built, all put in place at the
// end, so that an install that fails or is interrupted leaves the old files (or none), never
// part of a set.
type group struct {
	opt    BuildOptions
	paths  []string
	staged []*atomicfile.Staged
	infos  []tablefile.Info
	// set, for a set's install: its files commit with its manifest (manifest.go), in dir.
	set     *pdb.SetSpec
	dir     string
	digests manifest
}

func (g *group) add(ctx context.Context, path string, t *tablefile.Table) error {
	s, err := stage(ctx, path, t, g.opt.Workers)
	if err != nil {
		return err
	}
	// Described now, so that the table's entries need not be kept until the end.
	g.paths, g.staged, g.infos = append(g.paths, path), append(g.staged, s), append(g.infos, tablefile.Describe(path, t))
	if g.digests == nil {
		g.digests = manifest{}
	}
	g.digests[filepath.Base(path)] = t.DecodedSHA
	return nil
}

// finish commits every staged table when err is nil (and ctx not done), else removes them.
func (g *group) finish(ctx context.Context, err error) error {
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && g.set != nil {
		staged := map[string]*atomicfile.Staged{}
		for i, s := range g.staged {
			staged[filepath.Base(g.paths[i])] = s
		}
		if err = commitSet(g.dir, *g.set, staged, g.digests); err != nil {
			if !errors.Is(err, errCrashed) { // (a crash leaves what it leaves)
				for _, s := range g.staged {
					s.Abort() // those not in place yet
				}
			}
			err = fmt.Errorf("installing the %s set in %s: %w", g.set.Name, g.dir, err)
		}
		g.staged = nil
	}
	for i, s := range g.staged {
		if err != nil {
			s.Abort()
		} else if err = s.Commit(); err != nil {
			err = fmt.Errorf("installing %s: %w", g.paths[i], err)
			for _, rest := range g.staged[i+1:] {
				rest.Abort()
			}
			break
		}
	}
	if err != nil {
		return err
	}
	for i, path := range g.paths {
		if g.opt.Wrote != nil {
			info := g.infos[i]
			if st, err := os.Stat(path); err == nil {
				info.FileBytes = st.Size()
			}
			if err := g.opt.Wrote(path, info); err != nil {
				return err
			}
		}
	}
	return nil
}

// ErrMemory is matched by the error of a build refused because it would not fit the memory
// available: it is refused before it starts, with its estimate.
var ErrMemory = errors.New("not enough memory")

// BuildBytes estimates the most memory building p's table in form f (zeroAware: its
// zero-aware table) and writing it on workers goroutines takes: the search with the table,
// or the table with the file's compression, whichever is more.
func BuildBytes(p *pdb.Pattern, f pdb.Form, zeroAware bool, workers int) int64 {
	table := p.TableBytes(f, zeroAware)
	return max(p.BuildBytes(f, zeroAware), table+tablefile.MarshalBytes(table, workers))
}

// SetBytes estimates the most memory InstallSet takes for spec (bits: in the bit
// encoding): its tables are built one after the other, so its largest table's.
func SetBytes(spec pdb.SetSpec, bits bool, workers int) int64 {
	f := pdb.HalfExcess
	if bits {
		f = pdb.Bit
	}
	var need int64
	for t := range spec.Tables {
		if p, err := spec.Pattern(t); err == nil {
			need = max(need, BuildBytes(p, f, spec.ZeroAware, workers))
		}
	}
	return need
}

// CheckMemory refuses, with ErrMemory, to build what when it needs about need bytes and
// less is available now (sysmem.Available: the least of the machine's available memory,
// the cgroup's limit and ulimit -v's): better a refusal with the figures at once than
// death from the system half-way.
func CheckMemory(what string, need int64) error {
	if avail := sysmem.Available(); avail > 0 && need > avail {
		return fmt.Errorf("%w: building %s needs about %s, and %s is available (the least of the machine's free memory, the cgroup's limit and ulimit -v)",
			ErrMemory, what, sysmem.Format(need), sysmem.Format(avail))
	}
	return nil
}
