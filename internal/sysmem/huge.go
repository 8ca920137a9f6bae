package sysmem

// HugeFrom is the size from which Table asks for huge pages.
const HugeFrom = 4 << 20

// Table returns a zeroed buffer of n bytes for a table that a search reads at random. On
// Linux, a buffer of at least HugeFrom bytes is advised to the kernel for transparent huge
// pages (2 MB) before it is first written, where the system leaves that to the program
// (the "madvise" setting, the default of most distributions): a random read then needs
// one translation entry for 2 MB instead of 4 kB, and misses the TLB far less.
func Table(n int) []byte {
	b := make([]byte, n)
	if n >= HugeFrom {
		adviseHuge(b)
	}
	return b
}
