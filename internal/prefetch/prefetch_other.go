//go:build !amd64 && !arm64

package prefetch

// Addrs does nothing on this architecture.
func Addrs(addrs []uintptr) {}

// Supported reports whether Addrs prefetches on this architecture.
const Supported = false
