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

// packages are the toolkit's package names, which begin the messages of its errors as Go
// convention has them ("board: not solvable ...").
var packages = []string{"audit", "bfs", "board", "data", "heuristic", "ida", "instance", "pdb", "repro",
	"search", "solve", "tablefile", "verify", "wd", "atomicfile", "api"}

// Message is err's message for people: without the Go package names that begin the
// messages of wrapped errors ("state 1: board: wrong number" reads "state 1: wrong
// number"), and with the context package's words said plainly.
func Message(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for _, p := range packages {
		msg = strings.ReplaceAll(msg, ": "+p+": ", ": ")
		msg = strings.TrimPrefix(msg, p+": ")
	}
	msg = strings.ReplaceAll(msg, "context canceled", "interrupted")
	return strings.ReplaceAll(msg, "context deadline exceeded", "timed out")
}

// Count writes n and the noun, singular or plural: "1 state", "3 states". plural is the
// noun's plural when it is not noun+"s".
func Count(n int, noun string, plural ...string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case len(plural) > 0:
		return fmt.Sprintf("%d %s", n, plural[0])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Closest returns the name of names nearest to word (at most two edits, or a prefix), or
// "" when none is near: the suggestion for a mistyped command.
func Closest(word string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := distance(word, n)
		if strings.HasPrefix(n, word) && len(word) >= 2 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Bytes writes a size in bytes for people, in decimal units to two or three figures:
// "900 B", "1.5 MB", "147 MB", "2.3 GB".
func Bytes(n int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	v, u := float64(n), 0
	for v >= 1000 && u < len(units)-1 {
		v, u = v/1000, u+1
	}
	if u == 0 || v >= 10 {
		return fmt.Sprintf("%.0f %s", v, units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// Outside is text that came from outside (a worker's record, an environment variable) as
// it may be printed: each control character, and each byte that is not UTF-8, a "?" (no
// escape sequence reaches a terminal), and at most most bytes of it, with its length when
// it is cut.
func Outside(s string, most int) string {
	var b strings.Builder
	for _, c := range strings.ToValidUTF8(s, "?") {
		if c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 {
			c = '?'
		}
		b.WriteRune(c)
	}
	t := b.String()
	if len(t) <= most {
		return t
	}
	return fmt.Sprintf("%s... (%d bytes)", strings.ToValidUTF8(t[:most], ""), len(s))
}
