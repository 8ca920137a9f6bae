package format

import (
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
