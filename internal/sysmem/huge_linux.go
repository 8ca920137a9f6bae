package sysmem

import (
	"syscall"
	"unsafe"
)

// adviseHuge advises the whole 2 MB pages inside b for transparent huge pages. Failure
// (a kernel without them) changes nothing but speed.
func adviseHuge(b []byte) {
	const huge = 2 << 20
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + huge - 1) &^ (huge - 1)
	hi := (start + uintptr(len(b))) &^ (huge - 1)
	if hi <= lo {
		return
	}
	syscall.Madvise(b[lo-start:hi-start], syscall.MADV_HUGEPAGE)
}
