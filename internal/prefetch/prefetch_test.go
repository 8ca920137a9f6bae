package prefetch

import (
	"math/rand/v2"
	"testing"
)

// TestNeverFaults prefetches addresses no program may read: a prefetch is a hint, and a
// load in its place would crash the test.
func TestNeverFaults(t *testing.T) {
	x := 7
	for _, addrs := range [][]uintptr{
		nil,
		{},
		{Addr(&x)},
		{0, 8, 4095},                             // the zero page
		{1 << 47, 1<<63 + 64, ^uintptr(0) &^ 63}, // not mapped, not canonical
		{Addr(&x), 0, Addr(&x)},
	} {
		Addrs(addrs)
	}
	if x != 7 {
		t.Fatalf("a prefetch changed memory: %d", x)
	}
}

// The benchmarks read random entries of a table far larger than the caches, each read
// waiting for the last (as a search's reads do), with and without prefetching the next
// batch first (here, 277 against 10 ns a read with batches of 16).
const tableSize = 256 << 20

func readRandom(b *testing.B, batch int, fetch bool) {
	table := make([]byte, tableSize)
	for i := range table {
		table[i] = byte(i)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	idx := make([]uint32, 1<<16)
	for i := range idx {
		idx[i] = rng.Uint32N(tableSize)
	}
	addrs := make([]uintptr, batch)
	sum := byte(0)
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		base := i & (len(idx) - 1) &^ (batch - 1)
		if fetch {
			for j := range addrs {
				addrs[j] = Addr(&table[idx[base+j]])
			}
			Addrs(addrs)
		}
		for j := range batch {
			// Each read's address depends on the last value read, as a search's next
			// index depends on what it read.
			sum += table[(idx[base+j]+uint32(sum&1))%tableSize]
		}
	}
	if sum == 255 {
		b.Log(sum)
	}
}

func BenchmarkRead(b *testing.B)           { readRandom(b, 16, false) }
func BenchmarkReadPrefetched(b *testing.B) { readRandom(b, 16, true) }
