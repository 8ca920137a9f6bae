package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/report"
)

// campaign is the records a reference step keeps (Step.Keep): those of earlier runs of
// the check, read from the repository, and this run's, in the copy under Out that the
// step's runs pass over (--done).
type campaign struct {
	path   string // the copy under Out
	recs   []report.Record
	lines  []byte
	before int // records read from the repository
}

// openCampaign reads the step's kept records (none when its file is absent), checks each
// as a run's (one of the step's instances, the reference's answer, through the GPU), and
// writes the copy under Out.
func (c *checker) openCampaign(ctx context.Context, s *Step) (*campaign, error) {
	k := &campaign{path: filepath.Join(c.cfg.Out, KeptDir, filepath.Base(s.Keep))}
	raw, err := readRegular(c.path(s.Keep), maxReference)
	if errors.Is(err, fs.ErrNotExist) {
		raw, err = nil, nil
	}
	recs, rerr := report.ReadRecords(bytes.NewReader(raw), s.Keep, maxReference)
	if err = errors.Join(err, rerr, os.MkdirAll(filepath.Dir(k.path), 0o755)); err != nil {
		return nil, fmt.Errorf("keep: %w", err)
	}
	for _, rec := range recs {
		if !slices.ContainsFunc(c.in.instances[s.Name], func(in *instance.Instance) bool { return slices.Equal(in.State.Ints(), rec.Start) }) {
			return nil, fmt.Errorf("keep: %s: %s is not one of the step's instances", s.Keep, rec.Label())
		}
		if d := answer(c.in.refs[s.Name], rec, true); d != "" {
			return nil, fmt.Errorf("keep: %s: %s", s.Keep, d)
		}
		if rec.Device == nil {
			return nil, fmt.Errorf("keep: %s: %s did not go through the GPU", s.Keep, rec.Label())
		}
		k.add(rec)
	}
	k.before = len(k.recs)
	return k, k.save(ctx)
}

// add keeps rec, a record that agreed with the reference and went through the GPU.
func (k *campaign) add(rec report.Record) {
	if line, err := json.Marshal(rec); err == nil {
		k.recs = append(k.recs, rec)
		k.lines = append(append(k.lines, line...), '\n')
	}
}

// save writes the records kept, a line each, to the copy under Out, atomically.
func (k *campaign) save(ctx context.Context) error { return atomicfile.Write(ctx, k.path, k.lines) }

// seconds is the kept records' seconds summed.
func (k *campaign) seconds() (sum float64) {
	for _, r := range k.recs {
		sum += r.Seconds
	}
	return sum
}
