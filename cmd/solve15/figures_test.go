package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/board"
	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/internal/hermetic"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/prune"
)

// The documents whose figures TestDocFigures holds to their sources.
var figureDocs = []string{"../../README.md", "../../docs/GUIDE.md", "../../docs/GLOSSARY.md"}

var (
	// A figure: a number with a unit of time, size or ratio, or a count of a million or more.
	figureRE = regexp.MustCompile(`(\d[\d,]*(?:\.\d+)?(?:ms|s|MB|GB|KB|kB|TB|min|minutes|minute|hours|hour|x|%)|\d{1,3}(?:,\d{3}){2,})(?:[^\w]|$)`)
	// A figure's source: a section of docs/RESULTS.md, or a command's help.
	resultsRefRE = regexp.MustCompile(`RESULTS\.md((?:(?:,|;| and)? ?"[^"]+")+)`)
	quotedRE     = regexp.MustCompile(`"([^"]+)"`)
	helpRefRE    = regexp.MustCompile("`(solve15|pdbgen) (?:help ([a-z]+)|--help)`")
	spacedUnitRE = regexp.MustCompile(`(\d) (ms|s|MB|GB|KB|kB|TB|min|minutes|minute|hours|hour|x|%)([^\w]|$)`)
	inlineCodeRE = regexp.MustCompile("`[^`]*`")
	// "1.37 / 1.40 / 1.48 s": each of the numbers has the unit.
	slashListRE = regexp.MustCompile(`\d+(?:\.\d+)?(?: / \d+(?:\.\d+)?)+ ?(?:ms|s|MB|GB|min)(?:[^\w]|$)`)
	numberRE    = regexp.MustCompile(`\d+(?:\.\d+)?`)
)

// normFigures writes figures one way: no space before the unit, no emphasis, one line.
func normFigures(s string) string {
	s = strings.NewReplacer("**", "", "\n", " ", "\u00a0", " ").Replace(s)
	s = slashListRE.ReplaceAllStringFunc(s, func(list string) string {
		last := numberRE.FindAllStringIndex(list, -1)
		end := last[len(last)-1][1]
		rest := strings.TrimLeft(list[end:], " ")
		unit := strings.TrimRight(rest, " ,.;:)|*")
		return numberRE.ReplaceAllString(list[:end], "${0}"+unit) + rest[len(unit):]
	})
	for {
		t := spacedUnitRE.ReplaceAllString(s, "$1$2$3")
		if t == s {
			return s
		}
		s = t
	}
}

// docBlock is a paragraph of prose with the code blocks that follow it.
type docBlock struct {
	line  int    // where it starts
	text  string // all of it, for the references
	claim string // where figures are claimed: prose outside inline code, code's comments
	code  bool   // it ends in a code block, whose sources may follow it
}

// docBlocks cuts a markdown file into paragraphs. Fenced blocks marked `text` are transcripts
// of one run, not claims, and are skipped; in other fenced blocks only the comments claim.
func docBlocks(doc string) []docBlock {
	var blocks []docBlock
	var cur *docBlock
	fence := ""
	for i, line := range strings.Split(doc, "\n") {
		trim := strings.TrimSpace(line)
		if fence == "" && strings.HasPrefix(trim, "```") {
			fence = strings.TrimPrefix(trim, "```")
			if len(blocks) == 0 {
				blocks = append(blocks, docBlock{line: i + 1})
			}
			cur = &blocks[len(blocks)-1] // a code block belongs to the paragraph before it
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trim, "```") {
				fence = ""
				cur.code = true
				continue
			}
			if fence == "text" {
				continue
			}
			cur.text += line + "\n"
			if _, comment, ok := strings.Cut(line, "# "); ok {
				cur.claim += comment + "\n"
			}
			continue
		}
		if trim == "" {
			cur = nil
			continue
		}
		if cur == nil {
			blocks = append(blocks, docBlock{line: i + 1})
			cur = &blocks[len(blocks)-1]
		}
		cur.text += line + "\n"
		cur.claim += inlineCodeRE.ReplaceAllString(line, "") + "\n"
		cur.code = false
	}
	return blocks
}

// sections returns the text of every section of a markdown document whose heading
// contains title, subsections included.
func sections(doc, title string) string {
	var out strings.Builder
	level := 0
	for _, line := range strings.Split(doc, "\n") {
		if h := strings.TrimLeft(line, "#"); len(h) < len(line) && strings.HasPrefix(h, " ") {
			n := len(line) - len(h)
			switch {
			case strings.Contains(h, title):
				if level == 0 || n <= level {
					level = n
				}
			case level > 0 && n <= level:
				level = 0
			}
		}
		if level > 0 {
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}

// Every figure of the README and the guide (a time, a size, a ratio, a count) names where
// it comes from, a section of docs/RESULTS.md or a command's help, and is found there as
// written: the documents cannot drift from the measurements.
func TestDocFigures(t *testing.T) {
	b, err := os.ReadFile("../../docs/RESULTS.md")
	require.NoError(t, err)
	results := string(b)
	pdbgenSource := ""
	files, err := filepath.Glob("../pdbgen/*.go")
	require.NoError(t, err)
	texts, err := filepath.Glob("../pdbgen/help/*.txt") // its help
	require.NoError(t, err)
	for _, f := range append(files, texts...) {
		if !strings.HasSuffix(f, "_test.go") {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			pdbgenSource += string(b)
		}
	}
	// The figures quoted from docs/figures.tsv are TestFiguresTable's to check.
	quoted := map[string][]*regexp.Regexp{}
	for _, r := range readFigureTable(t) {
		for _, q := range r.quotes {
			quoted["../../"+q[0]] = append(quoted["../../"+q[0]], quoteRE(q[1]))
		}
	}
	claimed := 0
	for _, doc := range figureDocs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		blocks := docBlocks(string(b))
		for i, blk := range blocks {
			text := normFigures(blk.claim)
			claim := []byte(text)
			for _, re := range quoted[doc] {
				for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
					copy(claim[m[2]:m[3]], strings.Repeat(" ", m[3]-m[2])) // its figure, blanked
					claimed++
				}
			}
			figures := figureRE.FindAllStringSubmatch(string(claim), -1)
			if len(figures) == 0 {
				continue
			}
			refs := blk.text
			if (blk.code || strings.HasPrefix(blk.text, "|")) && i+1 < len(blocks) {
				refs += blocks[i+1].text // the paragraph after a code block or a table names its sources
			}
			var sources []string
			for _, m := range resultsRefRE.FindAllStringSubmatch(strings.ReplaceAll(refs, "\n", " "), -1) {
				for _, q := range quotedRE.FindAllStringSubmatch(m[1], -1) {
					s := sections(results, q[1])
					if s == "" {
						t.Errorf("%s:%d names the section %q, which docs/RESULTS.md lacks", doc, blk.line, q[1])
						continue
					}
					sources = append(sources, normFigures(s))
				}
			}
			for _, m := range helpRefRE.FindAllStringSubmatch(refs, -1) {
				if m[1] == "pdbgen" {
					sources = append(sources, normFigures(pdbgenSource))
					continue
				}
				args := []string{"help", m[2]}
				if m[2] == "" {
					args = []string{"--help"}
				}
				out, _, code := run(t, "", args...)
				require.Equal(t, 0, code, "solve15 %v", args)
				sources = append(sources, normFigures(out))
			}
			var names []string
			for _, f := range figures {
				if timeOrSizeRE.MatchString(f[1]) {
					t.Errorf("%s:%d: %s is a time or a size that docs/figures.tsv does not quote", doc, blk.line, f[1])
					continue
				}
				names = append(names, f[1])
			}
			if len(names) == 0 {
				continue
			}
			if len(sources) == 0 {
				t.Errorf("%s:%d claims %s and names no source (docs/RESULTS.md, \"SECTION\", or `solve15 help CMD`)",
					doc, blk.line, strings.Join(names, " "))
				continue
			}
			all := strings.Join(sources, "\n")
			for _, f := range names {
				claimed++
				if !strings.Contains(all, f) {
					t.Errorf("%s:%d: the figure %s is not in the sources it names", doc, blk.line, f)
				}
			}
		}
	}
	assert.Greater(t, claimed, 20, "the documents' figures")
}

// The checker itself: a figure found in its section passes, one from another section or
// with no source fails.
func TestDocFiguresChecker(t *testing.T) {
	results := "# R\n\n## Alpha (issue 1)\n\nKorf's 100 in 0.38 s.\n\n### Sub\n\n1,234,567 nodes\n\n## Beta\n\n2.1x faster\n"
	assert.Contains(t, normFigures(sections(results, "Alpha")), "0.38s")
	assert.Contains(t, sections(results, "Alpha"), "1,234,567")
	assert.NotContains(t, sections(results, "Alpha"), "2.1x")
	assert.Equal(t, "took 1.37s / 1.40s / 1.48s, then", normFigures("took 1.37 / 1.40 / 1.48 s, then"))
	doc := "Fast: 0.38 s (docs/RESULTS.md, \"Alpha\").\n\n```sh\nsolve15 --timeout 5s  # 2.1 x\n```\n\n```text\n9.9 s\n```\n\nlate `3 s`\n"
	blocks := docBlocks(doc)
	require.Len(t, blocks, 2)
	var got [][]string
	for _, b := range blocks {
		var fs []string
		for _, m := range figureRE.FindAllStringSubmatch(normFigures(b.claim), -1) {
			fs = append(fs, m[1])
		}
		got = append(got, fs)
	}
	assert.Equal(t, [][]string{{"0.38s", "2.1x"}, nil}, got)
}

// The documents' comments on solve15 eval say what it prints: a line of the form
// `solve15 eval "STATE"  # line 1: ...` begins as the command's output does.
func TestDocEvalComments(t *testing.T) {
	evalRE := regexp.MustCompile(`^solve15 eval "([^"]+)"\s+# (line 1: .*?)(?: \.\.\.)?$`)
	found := 0
	for _, doc := range figureDocs {
		raw, err := os.ReadFile(doc)
		require.NoError(t, err)
		for i, line := range strings.Split(string(raw), "\n") {
			m := evalRE.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil {
				continue
			}
			found++
			out, _, code := run(t, "", "eval", m[1])
			require.Equal(t, 0, code, "%s:%d", doc, i+1)
			want := strings.Join(strings.Fields(m[2]), " ")
			assert.True(t, strings.HasPrefix(strings.Join(strings.Fields(out), " "), want), "%s:%d: the comment says %q, solve15 eval prints %q", doc, i+1, m[2], out)
		}
	}
	assert.Positive(t, found, "the GUIDE shows solve15 eval")
}

// The docs' file sizes are the files': 6-6-3's embedded files (the README's table), the
// embedded 4x4 automaton (the GUIDE).
func TestDocFileSizes(t *testing.T) {
	size := func(names ...string) int64 {
		var n int64
		for _, name := range names {
			b, err := data.Embedded(name)
			require.NoError(t, err, name)
			n += int64(len(b))
		}
		return n
	}
	var set663 []string
	for i := range pdb.Set663.Tables {
		set663 = append(set663, data.SetFile(pdb.Set663, i))
	}
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	want := fmt.Sprintf("| `6-6-3` (embedded) | %.2f MB of files |", float64(size(set663...))/1e6)
	assert.True(t, strings.Contains(string(readme), want), "the README should say %q", want)
	guide, err := os.ReadFile("../../docs/GUIDE.md")
	require.NoError(t, err)
	automaton := data.AutomatonFile(board.Size4x4, prune.DefaultDepth(board.Size4x4))
	want = fmt.Sprintf("is embedded (a %s file", format.Bytes(size(automaton)))
	assert.True(t, strings.Contains(string(guide), want), "the GUIDE should say %q", want)
}

// The GUIDE's automaton depths are the sources': what a search builds when none is
// installed (prune.DefaultDepth), what pdbgen installs (prune.InstallDepth).
func TestDocAutomatonDepths(t *testing.T) {
	guide, err := os.ReadFile("../../docs/GUIDE.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(guide)), " ")
	for _, want := range []string{
		fmt.Sprintf("builds one in memory (depth %d, or %d on 5x5", prune.DefaultDepth(board.Size4x4), prune.DefaultDepth(board.Size5x5)),
		fmt.Sprintf("installs depth %d (69 MB in memory)", prune.InstallDepth(board.Size5x5)),
		fmt.Sprintf("(depth %d: a 28 MB file", prune.InstallDepth(board.Size5x5)),
		fmt.Sprintf("The 4x4 automaton of depth %d is embedded", prune.DefaultDepth(board.Size4x4)),
		fmt.Sprintf("installs depth %d when no 5x5 automaton is", prune.DefaultDepth(board.Size5x5)),
	} {
		assert.True(t, strings.Contains(text, want), "the GUIDE should say %q", want)
	}
}

// figureRow is a row of docs/figures.tsv: a measured figure (or one the program computes:
// unit "-") and the patterns that quote it.
type figureRow struct {
	name, unit string
	value      float64
	quotes     [][2]string // source, pattern
}

// readFigureTable reads docs/figures.tsv.
func readFigureTable(t *testing.T) []figureRow {
	raw, err := os.ReadFile("../../docs/figures.tsv")
	require.NoError(t, err)
	var rows []figureRow
	for i, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "figure\t") {
			continue
		}
		f := strings.Split(line, "\t")
		require.Len(t, f, 5, "docs/figures.tsv:%d: five columns", i+1)
		r := figureRow{name: f[0], unit: f[2]}
		if r.unit != "-" {
			r.value, err = strconv.ParseFloat(f[1], 64)
			require.NoError(t, err, "docs/figures.tsv:%d", i+1)
			require.Contains(t, []string{"s", "kB", "MB", "GB"}, r.unit, "docs/figures.tsv:%d", i+1)
		}
		for _, q := range strings.Split(f[4], " ; ") {
			src, pat, ok := strings.Cut(q, ": ")
			require.True(t, ok && strings.Count(pat, "%") == 1, "docs/figures.tsv:%d: %q is not SOURCE: PATTERN with one %%", i+1, q)
			r.quotes = append(r.quotes, [2]string{src, pat})
		}
		rows = append(rows, r)
	}
	require.NotEmpty(t, rows)
	return rows
}

// A time or a size as the documents write one: a number and its unit.
const figureText = `\d+(?:,\d{3})*(?:\.\d+)?\s?(?:ms|s|seconds|second|min|minutes|minute|hours|hour|kB|KB|MB|GB)\b`

var timeOrSizeRE = regexp.MustCompile(figureText)

// quoteRE is a quote's pattern as a regular expression: its % the figure (the first
// group), its # any figure, a space any white space, the rest as written.
func quoteRE(pattern string) *regexp.Regexp {
	var b strings.Builder
	for i, word := range strings.Fields(pattern) {
		if i > 0 {
			b.WriteString(`\s+`)
		}
		for _, c := range word {
			switch c {
			case '%':
				b.WriteString("(" + figureText + ")")
			case '#':
				b.WriteString(figureText)
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
	}
	return regexp.MustCompile(b.String())
}

// figureParts is a figure's number and unit.
var figureParts = regexp.MustCompile(`^([\d,.]+)\s?(\w+)$`)

// inBase is a figure in seconds or bytes.
func inBase(t *testing.T, figure string) float64 {
	m := figureParts.FindStringSubmatch(figure)
	require.NotNil(t, m, figure)
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	require.NoError(t, err, figure)
	scale := map[string]float64{"ms": 1e-3, "s": 1, "second": 1, "seconds": 1, "min": 60, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600,
		"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9}[m[2]]
	return v * scale
}

// figureSource is the text a quote of docs/figures.tsv is found in: a file's, a document's
// claims (as TestDocFigures reads them), or a command's help (from "DESCRIPTION:" to its
// examples or options).
func figureSource(t *testing.T, source string, pdbgen func() string) string {
	words := strings.Fields(source)
	if len(words) < 2 || words[1] != "help" {
		raw, err := os.ReadFile("../../" + source)
		require.NoError(t, err, source)
		if !strings.HasSuffix(source, ".md") {
			return string(raw)
		}
		var claims []string
		for _, b := range docBlocks(string(raw)) {
			claims = append(claims, b.claim)
		}
		return strings.Join(claims, "\n")
	}
	var out string
	switch args := append(words[2:len(words):len(words)], "--help"); {
	case words[0] == "solve15":
		var code int
		out, _, code = run(t, "", args...)
		require.Equal(t, 0, code, source)
	case words[0] == "pdbgen":
		b, err := exec.Command(pdbgen(), args...).Output()
		require.NoError(t, err, source)
		out = string(b)
	default:
		t.Fatalf("docs/figures.tsv: no source %q", source)
	}
	_, desc, _ := strings.Cut(out, "DESCRIPTION:")
	for _, end := range []string{"Examples:", "OPTIONS:", "COMMANDS:"} {
		desc, _, _ = strings.Cut(desc, end)
	}
	return desc
}

// Every figure of time or size that a help, the README, the GUIDE or the GLOSSARY quotes
// from docs/figures.tsv, the table of measured figures, is within 25% of the table's
// value; every time and size in a help's description is such a quote (or one the
// program computes). The next speed-up measured into the table cannot leave a help or a
// document behind.
func TestFiguresTable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pdbgen")
	}
	var pdbgenBin string
	pdbgen := func() string {
		if pdbgenBin == "" {
			pdbgenBin = hermetic.Binary(t, "github.com/tilekit/tilekit/cmd/pdbgen")
		}
		return pdbgenBin
	}
	texts := map[string]string{}
	text := func(source string) string {
		if _, ok := texts[source]; !ok {
			texts[source] = strings.Join(strings.Fields(normFigures(figureSource(t, source, pdbgen))), " ")
		}
		return texts[source]
	}
	covered := map[string][][2]int{} // by source: the spans quoted
	for _, r := range readFigureTable(t) {
		for _, q := range r.quotes {
			doc := text(q[0])
			m := quoteRE(q[1]).FindStringSubmatchIndex(doc)
			if m == nil {
				t.Errorf("%s: %q (%s) is not there", q[0], q[1], r.name)
				continue
			}
			covered[q[0]] = append(covered[q[0]], [2]int{m[2], m[3]})
			if r.unit == "-" { // the program's own: every such place
				for _, m := range quoteRE(q[1]).FindAllStringSubmatchIndex(doc, -1) {
					covered[q[0]] = append(covered[q[0]], [2]int{m[2], m[3]})
				}
				continue
			}
			got, want := inBase(t, doc[m[2]:m[3]]), r.value*map[string]float64{"s": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}[r.unit]
			assert.InEpsilon(t, want, got, 0.25, "%s says %s for %s; docs/figures.tsv measured %v %s", q[0], doc[m[2]:m[3]], r.name, r.value, r.unit)
		}
	}
	// Every help's description: each time or size is quoted.
	helps, err := filepath.Glob("help/*.txt")
	require.NoError(t, err)
	more, err := filepath.Glob("../pdbgen/help/*.txt")
	require.NoError(t, err)
	for _, file := range append(helps, more...) {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		app := "solve15"
		if strings.HasPrefix(file, "../pdbgen/") {
			app = "pdbgen"
		}
		source := app + " help " + strings.ReplaceAll(name, "-", " ")
		if name == app {
			source = app + " help"
		}
		doc := text(source)
		for _, m := range timeOrSizeRE.FindAllStringIndex(doc, -1) {
			if !slices.ContainsFunc(covered[source], func(s [2]int) bool { return s[0] == m[0] && s[1] == m[1] }) {
				t.Errorf("%s says %q, which docs/figures.tsv does not quote: %q", source, doc[m[0]:m[1]], doc[max(m[0]-60, 0):m[1]])
			}
		}
	}
}
