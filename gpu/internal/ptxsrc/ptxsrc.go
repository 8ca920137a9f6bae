// Package ptxsrc says how the GPU's kernel is made: the nvcc command and the hash of its
// sources that the generated kernel_hash.go records (go generate in package gpu), so that
// a test can tell a stale kernel without nvcc.
package ptxsrc

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// Sources are the kernel's source files, relative to package gpu's directory, in the order
// the hash takes them.
var Sources = []string{"kernel/search.h", "kernel/set.h", "kernel/cat.h", "kernel/ida.cu"}

// Args returns nvcc's arguments that compile in (a .cu file) to PTX in out: compute_75
// (Turing and later; CUDA 13 dropped Volta), optimised, beside g++ 12 (Debian's nvcc 11.8
// does not know it).
func Args(out, in string) []string {
	return []string{"-allow-unsupported-compiler", "-ptx", "-arch=compute_75", "-O3", "-std=c++17", "-o", out, in}
}

// Hash returns the SHA-256 of nvcc's arguments and of each source file under dir.
func Hash(dir string) (string, error) {
	h := sha256.New()
	h.Write([]byte(strings.Join(Args("kernel/ida.ptx", "kernel/ida.cu"), " ")))
	for _, name := range Sources {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		h.Write([]byte{0})
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
