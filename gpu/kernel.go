package gpu

import _ "embed"

//go:generate go run ./internal/genptx

// kernelPTX is the kernel (kernel/ida.cu) as PTX for compute_75, made by go generate
// (internal/genptx); kernel_hash.go records the hash of its sources.
//
//go:embed kernel/ida.ptx
var kernelPTX []byte
