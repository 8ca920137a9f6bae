package sysmem

import "unsafe"

// HugeFrom is the size from which Table asks for huge pages.
const HugeFrom = 2 << 20

// hugePage is the size of a transparent huge page on the systems that have them.
const hugePage = 2 << 20

// Table returns a zeroed buffer of n bytes for a table that a search reads at random. On
// Linux, a buffer of at least HugeFrom bytes starts on a 2 MB boundary and is advised to
// the kernel for transparent huge pages before it is first written, where the system
// leaves that to the program (the "madvise" setting, the default of most distributions):
// a random read then needs one translation entry for 2 MB instead of 4 kB, and misses the
// TLB far less. The alignment costs up to 4 MB of address space, not of memory: pages
// never written are never given.
func Table(n int) []byte {
	if n < HugeFrom || !adviseHugeWorks {
		return make([]byte, n)
	}
	span := (n + hugePage - 1) &^ (hugePage - 1)
	buf := make([]byte, span+hugePage)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (hugePage - 1))
	adviseHuge(buf[off : off+span])
	return buf[off : off+n : off+n]
}

// Words is Table for n 64-bit words.
func Words(n int) []uint64 {
	if n == 0 {
		return nil
	}
	b := Table(8 * n)
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
