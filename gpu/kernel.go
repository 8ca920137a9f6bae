package gpu

import _ "embed"

//go:generate go run ./internal/gen ptx
//go:generate go run ./internal/gen layout

// kernelPTX is the kernel (kernel/ida.cu) as PTX for compute_75, made by go generate
// (internal/gen ptx); kernel_hash.go records the hash of its sources.
//
//go:embed kernel/ida.ptx
var kernelPTX []byte

// PTX returns the kernel's PTX as embedded in the binary (for the device check's report
// of registers, spills and local memory).
func PTX() []byte { return append([]byte(nil), kernelPTX...) }
