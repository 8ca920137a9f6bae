// Command testsum reads the events of go test -json on standard input and prints what
// go test prints (a line a package, the output of every test that failed), then a last
// line that lists every test skipped and why: .ci/run ends with it, so that a run shows
// what it did not test. It exits 1 when a test or a package failed, or when the input
// holds no result at all.
//
//	go test -json ./... | go run ./internal/testsum
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// skip is a test skipped, and the last thing it said: why.
type skip struct{ pkg, test, why string }

func main() {
	failed, err := summarise(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// summarise reads the events from r and writes the summary to w; it reports whether
// anything failed (or nothing ran).
func summarise(r io.Reader, w io.Writer) (failed bool, err error) {
	output := map[string][]string{} // by package and test: what it printed
	var skips []skip
	results := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			fmt.Fprintf(w, "%s\n", line) // the go command's own messages (a build failure)
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return true, fmt.Errorf("line %d is not an event of go test -json: %v", n, err)
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			output[key] = append(output[key], e.Output)
		case "skip":
			if e.Test != "" {
				skips = append(skips, skip{e.Package, e.Test, reason(output[key])})
			} else {
				fmt.Fprintf(w, "?   \t%s\t[no test files]\n", e.Package)
			}
			delete(output, key)
		case "pass":
			if e.Test == "" {
				results++
				fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
			delete(output, key)
		case "fail":
			failed = true
			results++
			// A test's output, or a package's own (its FAIL line, a panic, a build failure).
			fmt.Fprint(w, strings.Join(output[key], ""))
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	if results == 0 {
		return true, fmt.Errorf("no test result in the input")
	}
	if len(skips) == 0 {
		fmt.Fprintln(w, "skipped: none")
		return failed, nil
	}
	parts := make([]string, len(skips))
	for i, s := range skips {
		parts[i] = fmt.Sprintf("%s %s (%s)", strings.TrimPrefix(s.pkg, "github.com/tilekit/tilekit/"), s.test, s.why)
	}
	fmt.Fprintf(w, "skipped %d: %s\n", len(skips), strings.Join(parts, "; "))
	return failed, nil
}

// reason is what a skipped test said last, its t.Skip message without the file and line.
func reason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		line := strings.TrimSpace(out[i])
		if line == "" || strings.HasPrefix(line, "---") || strings.HasPrefix(line, "===") {
			continue
		}
		if _, msg, ok := strings.Cut(line, ": "); ok && strings.Contains(line[:len(line)-len(msg)], ".go:") {
			return msg
		}
		return line
	}
	return "no reason given"
}
