// Package ptxsrc says how the GPU's kernel is made: the nvcc command and the hash of its
// sources that the generated kernel_hash.go records (go generate in package gpu), so that
// a test can tell a stale kernel without nvcc.
package ptxsrc

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Main is the kernel's main source, relative to package gpu's directory.
const Main = "kernel/ida.cu"

// include is a #include of a file of the kernel's own.
var include = regexp.MustCompile(`(?m)^#include "([^"]+)"`)

// Sources returns the kernel's source files under dir, relative to it: Main and the files
// it includes, and those they include, each once, in the order they are met. A new kernel
// header is a source as soon as it is included; the host's files (emulate.h, host.cpp)
// never are.
func Sources(dir string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	var walk func(name string) error
	walk = func(name string) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		out = append(out, name)
		for _, m := range include.FindAllSubmatch(b, -1) {
			if err := walk(filepath.ToSlash(filepath.Join(filepath.Dir(name), string(m[1])))); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(Main)
}

// Args returns nvcc's arguments that compile in (a .cu file) to PTX in out: compute_75
// (Turing and later; CUDA 13 dropped Volta), optimised, beside g++ 12 (Debian's nvcc 11.8
// does not know it).
func Args(out, in string) []string {
	return []string{"-allow-unsupported-compiler", "-ptx", "-arch=compute_75", "-O3", "-std=c++17", "-o", out, in}
}

// Hash returns the SHA-256 of nvcc's arguments and of each source file under dir.
func Hash(dir string) (string, error) {
	sources, err := Sources(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(strings.Join(Args("kernel/ida.ptx", Main), " ")))
	for _, name := range sources {
		h.Write([]byte(name))
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		h.Write([]byte{0})
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
