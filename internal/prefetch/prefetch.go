// Package prefetch asks the processor to bring memory into its caches ahead of a read,
// without waiting for it: a table read that misses every cache costs about 180 ns when it
// waits for the previous one, and about 13 ns when many are in flight. A search that knows
// its next reads early (package ida: the automaton's rows of a node's children) issues them
// here, does other work, and finds them in cache.
//
// Addrs is one assembly call for a batch of addresses (a call costs about as much as a
// few instructions and is never inlined): PREFETCHT0 on amd64, PRFM PLDL1KEEP on arm64,
// and nothing at all elsewhere (WebAssembly has no prefetch). A prefetch is a hint, not a
// load: it never faults, whatever the address, and may be dropped.
package prefetch

import "unsafe"

// Addr returns the address of p, for Addrs.
func Addr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }
