package data

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tilekit/tilekit/bfs"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
)

// BuildOptions tune InstallDefaults and InstallSet.
type BuildOptions struct {
	Workers int // goroutines for each build (0: all cores); the bytes are the same for any number
	// Progress hears of each table's build: its file name and the breadth-first layers.
	Progress func(file string, l bfs.Layer)
	// Wrote is told of each file once it is written and read back.
	Wrote func(path string, t *tablefile.Table) error
}

// Write writes t to path atomically (the old file, if any, is replaced only by a complete
// new one) and reads it back: the file must decode, within tablefile's bounds, to the
// table's checksum.
func Write(ctx context.Context, path string, t *tablefile.Table) error {
	if err := tablefile.Write(ctx, path, t); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	back, err := tablefile.Read(path)
	if err != nil {
		return fmt.Errorf("reading back %s: %w", path, err)
	}
	if back.DecodedSHA != t.DecodedSHA {
		return fmt.Errorf("reading back %s: its entries differ from those written", path)
	}
	return nil
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

// InstallDefaults builds the default tables (Specs) into dir, created if missing: the
// files this package embeds, byte for byte.
func InstallDefaults(ctx context.Context, dir string, opt BuildOptions) error {
	var paths []string
	for _, s := range Specs {
		paths = append(paths, filepath.Join(dir, s.File))
	}
	if err := prepare(dir, paths); err != nil {
		return err
	}
	for i, s := range Specs {
		t, err := s.Build(ctx, bfs.Options{Workers: opt.Workers, Progress: progress(opt, s.File)})
		if err != nil {
			return fmt.Errorf("building %s: %w", s.File, err)
		}
		if err := opt.write(ctx, paths[i], t); err != nil {
			return err
		}
	}
	return nil
}

// InstallSet builds the tables of a set into dir ("" for InstallDir(), where solvers find
// them), created if missing, one table after the other, and returns the directory.
func InstallSet(ctx context.Context, spec pdb.SetSpec, dir string, opt BuildOptions) (string, error) {
	if dir == "" {
		var err error
		if dir, err = InstallDir(); err != nil {
			return "", err
		}
	}
	var paths []string
	for t := range spec.Tables {
		paths = append(paths, filepath.Join(dir, SetFile(spec, t)))
	}
	if err := prepare(dir, paths); err != nil {
		return "", err
	}
	err := pdb.BuildSet(ctx, spec, opt.Workers, func(t int, l bfs.Layer) {
		if opt.Progress != nil {
			opt.Progress(SetFile(spec, t), l)
		}
	}, func(t int, packed *pdb.Packed) error {
		f, err := packed.File()
		if err != nil {
			return err
		}
		return opt.write(ctx, paths[t], f)
	})
	if err != nil {
		return "", fmt.Errorf("building the %s set: %w", spec.Name, err)
	}
	return dir, nil
}

// prepare creates dir and checks every target before a build.
func prepare(dir string, paths []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return CheckTargets(paths...)
}

func progress(opt BuildOptions, file string) func(bfs.Layer) {
	if opt.Progress == nil {
		return nil
	}
	return func(l bfs.Layer) { opt.Progress(file, l) }
}

func (opt BuildOptions) write(ctx context.Context, path string, t *tablefile.Table) error {
	if err := Write(ctx, path, t); err != nil {
		return err
	}
	if opt.Wrote != nil {
		return opt.Wrote(path, t)
	}
	return nil
}
