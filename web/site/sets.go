package site

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
	"github.com/tilekit/tilekit/tablefile"
)

// Manifest lists the sets a site offers for download (DIR/sets/manifest.json): for each,
// its name, board, description and files, each with its size and SHA-256.
type Manifest struct {
	Sets []ManifestSet `json:"sets"`
}

// A ManifestSet is one set of a Manifest.
type ManifestSet struct {
	Name  string         `json:"name"`
	Board string         `json:"board"`
	About string         `json:"about"`
	Files []ManifestFile `json:"files"`
}

// A ManifestFile is one file of a set, at sets/NAME/FILE beside the page.
type ManifestFile struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// WriteSets copies the installed sets named (found as data.LoadSet finds them, and checked
// as it checks them) into dir/sets/NAME/ with the manifest dir/sets/manifest.json, for the
// page to download on demand. It returns the paths written, relative to dir.
func WriteSets(ctx context.Context, dir string, names []string) ([]string, error) {
	files, err := SetFiles(names)
	if err != nil {
		return nil, err
	}
	written := make([]string, 0, len(files))
	for rel := range files {
		if rel != manifestFile {
			written = append(written, rel)
		}
	}
	slices.Sort(written)
	written = append(written, manifestFile) // last: a site holds no manifest of files not there
	for _, rel := range written {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(filepath.FromSlash(rel))), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(ctx, filepath.Join(dir, filepath.FromSlash(rel)), files[rel]); err != nil {
			return nil, err
		}
	}
	return written, nil
}

// manifestFile is the sets' manifest beside the page.
const manifestFile = "sets/manifest.json"

// SetFiles returns the files of the installed sets named, as a page's site holds them, by
// their paths beside the page: sets/NAME/FILE, and sets/manifest.json. A set that is not
// installed, fails its checks, or takes more than a tab holds (MaxPageSet) is an error.
func SetFiles(names []string) (map[string][]byte, error) {
	var m Manifest
	out := map[string][]byte{}
	for _, name := range names {
		spec, err := pdb.SetByName(name)
		if err != nil {
			return nil, err
		}
		files, _, err := data.SetFiles(name, nil)
		if err != nil {
			return nil, err
		}
		if err := fitsPage(name, files, MaxPageSet); err != nil {
			return nil, err
		}
		ms := ManifestSet{Name: name, Board: spec.Size().String(), About: spec.About}
		names := make([]string, 0, len(files))
		for t := range spec.Tables {
			names = append(names, data.SetFile(spec, t))
		}
		// The board's automaton, when SetFiles found it installed, goes with the set.
		if fsm := data.AutomatonFile(spec.Size(), prune.DefaultDepth(spec.Size())); files[fsm] != nil {
			names = append(names, fsm)
		}
		for _, file := range names {
			b := files[file]
			out[path.Join("sets", name, file)] = b
			ms.Files = append(ms.Files, ManifestFile{Name: file, Bytes: len(b), SHA256: fmt.Sprintf("%x", sha256.Sum256(b))})
		}
		m.Sets = append(m.Sets, ms)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	out[manifestFile] = append(b, '\n')
	return out, nil
}

// PageSets are the installed sets a page may offer: those whose tables fit a tab
// (MaxPageSet), in the order of pdb.Sets.
func PageSets() []string {
	installed := data.Installed(nil)
	var names []string
	for _, spec := range pdb.Sets {
		if _, ok := installed[spec.Name]; !ok {
			continue
		}
		if files, _, err := data.SetFiles(spec.Name, nil); err == nil && fitsPage(spec.Name, files, MaxPageSet) == nil {
			names = append(names, spec.Name)
		}
	}
	return names
}

// MaxPageSet bounds the decoded size of a set the page is offered: the page's solver holds
// its tables in WebAssembly's memory (7-8 takes 288 MB, small-t in bits 250 MB; small-t in
// nibbles, 1.0 GB, would exhaust a tab).
const MaxPageSet = 512 << 20

// fitsPage refuses a set whose tables take more than limit bytes decoded.
func fitsPage(name string, files map[string][]byte, limit int64) error {
	var total int64
	for file, b := range files {
		h, err := tablefile.DecodeHeader(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		total += h.DecodedBytes()
	}
	if total > limit {
		hint := ""
		if spec, err := pdb.SetByName(name); err == nil && spec.ZeroAware {
			hint = fmt.Sprintf("; in the bit encoding it takes a quarter of that: pdbgen build --set %s --bits", name)
		}
		return fmt.Errorf("the %s set's tables take %s decoded, more than a browser tab holds (%s)%s",
			name, format.Bytes(total), format.Bytes(limit), hint)
	}
	return nil
}
