package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/repro"
	"github.com/tilekit/tilekit/solve"
)

// jsonKeys returns the JSON keys of a struct type's fields, and of the structs it holds.
func jsonKeys(t reflect.Type, into map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name != "" {
			into[name] = true
		}
		jsonKeys(f.Type, into)
	}
}

// Every key of the records --json prints, and every term -v prints, is in
// docs/GLOSSARY.md, so that no word of the output goes unexplained.
func TestGlossary(t *testing.T) {
	b, err := os.ReadFile("../../docs/GLOSSARY.md")
	require.NoError(t, err)
	glossary := string(b)
	keys := map[string]bool{"default": true} // eval's
	for _, v := range []any{report.Record{}, report.BadLine{}, report.UnitRecord{}, solve.DeviceUse{}, passes.Pass{},
		repro.BenchRun{}, repro.BenchTotal{}} {
		jsonKeys(reflect.TypeOf(v), keys)
	}
	require.Greater(t, len(keys), 40)
	for k := range keys {
		assert.Contains(t, glossary, "`"+k+"`", "the --json key %s", k)
	}
	// What -v says of a search (solve.Solver.About, a pass's line) and the words the docs
	// lean on.
	for _, term := range []string{"pass with bound", "nodes so far", "automaton", "move back", "states", "lookups",
		"tables", "pruning", "BPMX", "IDA15", "HH", "zero-aware", "k24-NN", "h0", "serial counts", "catalogue",
		"small-t", "frontier", "subtree", "reflection", "dual lookup", "half excess"} {
		assert.Contains(t, glossary, term, "the term %q", term)
	}
	// Every word of the summary line, as the summary writes it, and of a record's text.
	sum := report.Summary{Solved: 3, NotOptimal: 1, Unsolved: 2, NotStarted: 1, Mismatched: 1, Invalid: 1, Reported: 2, Disputed: 1, Nodes: 10, Search: time.Second}
	line := strings.TrimPrefix(sum.Text(2*time.Second, time.Second), "summary: ")
	var words []string
	for _, part := range regexp.MustCompile(`[,;()]`).Split(line, -1) {
		if w := strings.TrimSpace(regexp.MustCompile(`[0-9.]+s?|M nodes/s`).ReplaceAllString(part, "")); w != "" {
			words = append(words, w)
		}
	}
	require.Greater(t, len(words), 10, "%q", words)
	flat := strings.Join(strings.Fields(glossary), " ") // a phrase may break across lines
	for _, w := range append(words, "stored at most") {
		assert.Contains(t, flat, w, "the summary's words %q", w)
	}
}
