package format

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestThousands(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 12345678: "12,345,678"} {
		assert.Equal(t, want, Thousands(n))
	}
	assert.Equal(t, "1,2,3", Ints([]int{1, 2, 3}, ","))
	assert.Equal(t, "", Ints(nil, " "))
}

func TestMessage(t *testing.T) {
	for in, want := range map[string]string{
		"state 1: board: wrong number of tiles":                 "state 1: wrong number of tiles",
		"board: not solvable for this goal":                     "not solvable for this goal",
		"x.tbl: tablefile: bad header: y":                       "x.tbl: bad header: y",
		"reading: context canceled":                             "reading: interrupted",
		"search: context deadline exceeded":                     "timed out",
		"the boards: a 4x4 board: fine":                         "the boards: a 4x4 board: fine",
		"solve: unknown heuristic \"x\" (choose from auto, md)": "unknown heuristic \"x\" (choose from auto, md)",
	} {
		assert.Equal(t, want, Message(errors.New(in)), in)
	}
	assert.Equal(t, "", Message(nil))
	assert.Equal(t, "1 state", Count(1, "state"))
	assert.Equal(t, "0 states", Count(0, "state"))
	assert.Equal(t, "2 instances were", Count(2, "instance was", "instances were"))
	assert.Equal(t, "eval", Closest("evl", []string{"eval", "bench", "repro"}))
	assert.Equal(t, "bench", Closest("ben", []string{"eval", "bench", "repro"}))
	assert.Equal(t, "", Closest("banana", []string{"eval", "bench", "repro"}))
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1500: "1.5 kB", 1_524_096: "1.5 MB", 147_000_000: "147 MB", 2_260_000_000: "2.3 GB"} {
		assert.Equal(t, want, Bytes(n), "%d", n)
	}
}

// Outside text is printable: control characters and C1 controls become "?", invalid
// UTF-8 too, and a long text is cut at the bytes given, saying its length.
func TestOutside(t *testing.T) {
	assert.Equal(t, "ok ?[2J??]0;x?", Outside("ok \x1b[2J\u009b\x9b]0;x\x07", 300))
	assert.Equal(t, "é?", Outside("é\xff", 300))
	long := Outside(strings.Repeat("a", 3000), 300)
	assert.Equal(t, strings.Repeat("a", 300)+"... (3000 bytes)", long)
	assert.Equal(t, "é... (3 bytes)", Outside("éa", 2), "cut on a character's boundary")
}
