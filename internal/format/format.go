// Package format writes numbers for people, the same way in every command and report.
package format

import (
	"fmt"
	"strings"
)

// Thousands writes n with commas: 12,345,678.
func Thousands(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// Ints joins numbers with sep: Ints([]int{1, 2}, ",") is "1,2".
func Ints(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}
