// Command peercheck compares a zero-aware table built by pdbgen with the same table built
// by clausecker/24puzzle's genpdb (a file of one byte an entry in its own index), without
// linking any of that project's code: it checks that both hold as many entries, that
// their histograms of values are equal, and that states drawn at random have the same
// value in both. bench/peer.sh runs it after each build.
//
// genpdb's index, as that project's index.h describes it, is map-major like zperm-v1: the
// rank of the set of occupied cells (the same combinatorial number), then the blank's
// region among the map's regions, then the tiles' order, so only the order's rank
// differs: genpdb's gives the first tile the least significant digit (the number of the
// map's remaining cells below its cell, radix k), each later tile the next; zperm-v1 the
// first tile the most significant.
//
// Usage:
//
//	peercheck -genpdb FILE -table FILE.tbl [-samples N]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/zindex"
)

func main() {
	genpdb := flag.String("genpdb", "", "the table genpdb wrote (-f FILE)")
	table := flag.String("table", "", "the zero-aware table pdbgen wrote")
	samples := flag.Int("samples", 100000, "random states looked up in both")
	flag.Parse()
	if *genpdb == "" || *table == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: peercheck -genpdb FILE -table FILE.tbl [-samples N]")
		os.Exit(2)
	}
	if err := run(*genpdb, *table, *samples, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peercheck:", err)
		os.Exit(1)
	}
}

func run(genpdbPath, tablePath string, samples int, out io.Writer) error {
	f, err := tablefile.Read(tablePath)
	if err != nil {
		return err
	}
	t, err := pdb.LoadPacked(f)
	if err != nil {
		return err
	}
	if t.Zero == nil {
		return fmt.Errorf("%s: not a zero-aware table", tablePath)
	}
	z := t.Zero
	st, err := os.Stat(genpdbPath)
	if err != nil {
		return err
	}
	if st.Size() != z.Entries() {
		return fmt.Errorf("%s holds %d bytes, %s %d entries: not the same table", genpdbPath, st.Size(), tablePath, z.Entries())
	}
	peer, err := readAll(genpdbPath, st.Size())
	if err != nil {
		return err
	}
	ours, err := t.Values(context.Background(), 0)
	if err != nil {
		return err
	}
	// The histograms: the same count of entries at each distance.
	var hp, ho [256]int64
	for i := range peer {
		hp[peer[i]]++
		ho[ours[i]]++
	}
	if hp != ho {
		for d := range hp {
			if hp[d] != ho[d] {
				return fmt.Errorf("distance %d: genpdb has %d entries, pdbgen %d", d, hp[d], ho[d])
			}
		}
	}
	// Random states: their value in both.
	size := t.Goal().Size()
	k := z.Tiles()
	rng := rand.New(rand.NewPCG(1, uint64(k)))
	cells := make([]uint8, k)
	for range samples {
		perm := rng.Perm(size.Cells())
		for i := range cells {
			cells[i] = uint8(perm[i])
		}
		blank := perm[k+rng.IntN(size.Cells()-k)]
		mine := t.Value(z.IndexBlank(cells, blank), cells)
		theirs := int(peer[peerIndex(z, cells, blank)])
		if mine != theirs {
			return fmt.Errorf("tiles %v on cells %v, blank on %d: pdbgen %d, genpdb %d", t.Tiles(), cells, blank, mine, theirs)
		}
	}
	top := 0
	for d, n := range ho {
		if n > 0 {
			top = d
		}
	}
	fmt.Fprintf(out, "%s and %s agree: %d entries, the same histogram (distances 0 to %d), %d random states equal\n",
		tablePath, genpdbPath, z.Entries(), top, samples)
	return nil
}

// peerIndex is genpdb's index of the state with tile i on cells[i] and the blank on cell
// blank: zperm-v1's slot, then the order's rank with the first tile least significant.
func peerIndex(z *zindex.Scheme, cells []uint8, blank int) int64 {
	k := len(cells)
	var mask uint32
	for _, c := range cells {
		mask |= 1 << c
	}
	m := z.Map(mask)
	slot := int64(z.FirstSlot(m)) + int64(z.Region(m, blank))
	var order, weight int64 = 0, 1
	left := mask
	for i, c := range cells {
		below := int64(popcount(left & (1<<c - 1)))
		order += below * weight
		weight *= int64(k - i)
		left &^= 1 << c
	}
	return slot*int64(z.Fact()) + order
}

func popcount(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func readAll(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := io.ReadFull(bufio.NewReader(f), b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
