package gpu

import _ "embed"

//go:generate go test -run ^(TestKernelIsCurrent|TestLayout)$ -update

// kernelPTX is the kernel (kernel/ida.cu) as PTX for compute_75, made by go generate
// (TestKernelIsCurrent -update); kernel_hash.go records the hash of its sources.
//
//go:embed kernel/ida.ptx
var kernelPTX []byte

// PTX returns the kernel's PTX as embedded in the binary (for the device check's report
// of registers, spills and local memory).
func PTX() []byte { return append([]byte(nil), kernelPTX...) }
