//go:build amd64 || arm64

package prefetch

// Addrs asks for the cache line of each address to be brought into every level of cache.
//
//go:noescape
func Addrs(addrs []uintptr)

// Supported reports whether Addrs prefetches on this architecture.
const Supported = true
