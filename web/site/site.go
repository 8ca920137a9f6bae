// Package site is the page as static files: the HTML, JavaScript and styles, and the
// toolkit compiled to WebAssembly (web/wasm), which solves in the browser in a Web Worker,
// so that any static host can serve it. It writes the site into a directory (WriteSite,
// `solve15 site`) with the installed sets the page may download on demand (WriteSets,
// with their manifest). Package web serves the same files with its JSON API.
package site

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tilekit/tilekit/internal/atomicfile"
)

//go:embed static
var static embed.FS

// FS returns the page's files: everything a static host needs to serve the page, which
// solves in the browser (index.html, app.js, style.css, tilekit.js, worker.js,
// wasm_exec.js, tilekit.wasm).
func FS() fs.FS {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has it
	}
	return files
}

// WriteSite writes the page's files into dir (created if need be), each atomically, and
// returns their names.
func WriteSite(ctx context.Context, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	err := fs.WalkDir(FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(FS(), name)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(ctx, filepath.Join(dir, name), b); err != nil {
			return err
		}
		names = append(names, name)
		if name == WasmFile { // for hosts that serve precompressed files
			gz, err := GzippedWasm()
			if err != nil {
				return err
			}
			if err := atomicfile.Write(ctx, filepath.Join(dir, name+".gz"), gz); err != nil {
				return err
			}
			names = append(names, name+".gz")
		}
		return nil
	})
	return names, err
}

// WasmFile is the page's WebAssembly solver, the one large file of the site.
const WasmFile = "tilekit.wasm"

var (
	gzOnce  sync.Once
	gzBytes []byte
	gzErr   error
)

// GzippedWasm returns the WebAssembly solver gzip-compressed, made once (a third of its
// size), for the servers and hosts that send it compressed.
func GzippedWasm() ([]byte, error) {
	gzOnce.Do(func() {
		raw, err := fs.ReadFile(FS(), WasmFile)
		if err != nil {
			gzErr = err
			return
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(raw)
		if gzErr = zw.Close(); gzErr == nil {
			gzBytes = b.Bytes()
		}
	})
	return gzBytes, gzErr
}
