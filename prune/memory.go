package prune

import (
	"errors"
	"fmt"
	"math"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/internal/sysmem"
)

// ErrMemory is matched by the error of Build for a depth whose search for duplicates would
// not fit the memory the machine has available: it is refused before it starts.
var ErrMemory = errors.New("prune: not enough memory for the automaton's build")

// BuildBytes estimates the peak memory of Build for the board and depth, in bytes. The
// strings kept per level grow about 2.0x a move on 4x4 and 2.35x on 5x5; measured peaks
// (pdbgen build --pruning, resident set size): 4x4 depth 18 334 MB, 19 713 MB, 20 1.28 GB,
// 21 2.53 GB; 5x5 depth 14 116 MB, 16 509 MB, 18 2.8 GB. Boards of 16 cells or fewer take
// the 4x4 figures (an overestimate), larger ones the 5x5 figures.
func BuildBytes(size board.Size, depth int) int64 {
	ref, grow := 334e6, 2.0 // 4x4 at depth 18
	if size.Cells() > 16 {
		ref, grow = 2.8e9, 2.35 // 5x5 at depth 18
	}
	return int64(max(ref*math.Pow(grow, float64(depth-18)), 64e6))
}

// checkMemory refuses a build that would not fit three quarters of the memory available
// now (when the system says): better a refusal with the figures than death half-way.
func checkMemory(size board.Size, depth int) error {
	need, avail := BuildBytes(size, depth), sysmem.Available()
	if avail > 0 && need > avail/4*3 {
		return fmt.Errorf("%w: the automaton of depth %d on %s needs about %s to build, and %s is available: choose a smaller depth (the searches' default is 12 on 4x4 and 14 on 5x5)",
			ErrMemory, depth, size, sysmem.Format(need), sysmem.Format(avail))
	}
	return nil
}
