package sysmem

import "syscall"

const adviseHugeWorks = true

// adviseHuge advises b, whole 2 MB pages, for transparent huge pages. Failure (a kernel
// without them) changes nothing but speed.
func adviseHuge(b []byte) {
	syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
