package gpu

import _ "embed"

//go:generate go test -run ^(TestKernelIsCurrent|TestLayout)$ -update

// kernelPTX is the kernel (kernel/ida.cu) as PTX for compute_75, made by go generate
// (TestKernelIsCurrent -update); kernel_hash.go records the hash of its sources.
//
//go:embed kernel/ida.ptx
var kernelPTX []byte
