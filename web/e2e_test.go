package web

import (
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/pdb"
	"github.com/tilekit/tilekit/web/site"
)

// browser returns a Chromium to drive, or skips the test. Set TILEKIT_E2E=require (as
// .ci/run does) to make a missing browser a failure instead.
func browser(t *testing.T) string {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("TILEKIT_E2E") == "require" {
		t.Fatal("no Chromium found (install Debian's chromium package, or set CHROMIUM)")
	}
	t.Skip("no Chromium found: install Debian's chromium package to run the browser test (.ci/run does)")
	return ""
}

// chrome starts a headless Chromium of the given window size.
func chrome(t *testing.T, width, height int) (context.Context, func()) {
	path := browser(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	return bctx, func() { bcancel(); acancel(); cancel() }
}

// staticSite serves the page's files and nothing else, as any static host would: no API.
func staticSite(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.FileServerFS(site.FS()))
	t.Cleanup(ts.Close)
	return ts
}

// choose sets the select id to value and tells the page, as a person's choice does.
func choose(t *testing.T, bctx context.Context, id, value string) {
	t.Helper()
	_, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => { const e = document.getElementById('`+id+`'); e.value = '`+value+`'; e.dispatchEvent(new Event('change')); return true; })()`))
	require.NoError(t, err)
}

// TestPageEndToEnd loads the static page in a real headless Chromium, shuffles, solves in
// the browser (WebAssembly in a Web Worker), plays the solution to the end and checks the
// board shows the goal; then runs a long search, sees its bound and stops it. It leaves
// screenshots for a person to look at.
func TestPageEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	ts := staticSite(t)
	bctx, done := chrome(t, 1280, 900)
	defer done()

	solved := `document.getElementById('board').dataset.solved === 'true'`
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#board .tile")),
	))
	initial, err := chromedp.Run(bctx, chromedp.Evaluate[bool](solved))
	require.NoError(t, err)
	require.True(t, initial, "the page starts at the goal")

	// At 1280 px the shuffle row fits on one line.
	sameLine, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.getElementById('reset').offsetTop === document.getElementById('shuffle').offsetTop`))
	require.NoError(t, err)
	require.True(t, sameLine, "Reset is on the line of Shuffle at 1280 px")

	// A typed position that is not valid gets a clear message.
	require.NoError(t, chromedp.Do(bctx,
		chromedp.SendKeys(chromedp.CSS("#position"), "1 2 3"),
		chromedp.Click(chromedp.CSS("#set")),
	))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('message').textContent.includes('wrong number of tiles')`))
	require.NoError(t, err, "invalid position message")

	// Shuffle by 10 moves (never back to the goal: the shortest cycle has 12 moves).
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#shuffle"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('board').dataset.solved === 'false'`))
	require.NoError(t, err, "shuffled")
	shuffled, err := chromedp.Run(bctx, chromedp.AttributeValue(chromedp.CSS("#board"), "data-state"))
	require.NoError(t, err)

	// Solve in the browser, then play the solution to the end.
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#solve"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('result').hidden === false`))
	require.NoError(t, err, "solution shown")
	length, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#length")))
	require.NoError(t, err)
	require.Regexp(t, `^\d+ moves$`, length)
	moves, _ := strconv.Atoi(length[:len(length)-len(" moves")])
	require.LessOrEqual(t, moves, 10, "an optimal solution of a 10-move shuffle (%s)", shuffled.Value)
	optimal, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#optimal")))
	require.NoError(t, err)
	require.Equal(t, "(optimal)", optimal)
	statusText, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#status")))
	require.NoError(t, err)
	require.Contains(t, statusText, "Found a shortest solution")

	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#play"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](solved))
	require.NoError(t, err, "the board shows the goal after playing")
	progress, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#progress")))
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(moves)+" / "+strconv.Itoa(moves), progress)

	dir := screenshotDir(t)
	screenshot := func(ctx context.Context, name string) {
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives PNG
		require.NoError(t, err)
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, shot, 0o644))
		t.Logf("screenshot: %s", file)
	}
	screenshot(bctx, "solved.png")

	// A changed position clears what was said about the previous one.
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#shuffle"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent === '' && document.getElementById('result').hidden`))
	require.NoError(t, err, "the old status is cleared")

	// A long search shows its current bound and nodes, and Stop ends it. Korf's instance
	// 88, turned onto the blank-last goal, takes minutes with Manhattan distance.
	require.NoError(t, chromedp.Do(bctx,
		chromedp.SetValue(chromedp.CSS("#position"), "12 10 6 0 9 8 13 15 11 7 3 2 5 4 14 1"),
		chromedp.Click(chromedp.CSS("#set")),
	))
	// Setting a position is checked by the worker: wait for the board to show it before
	// solving, or the search could start on the shuffled board.
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('board').dataset.state === '12,10,6,0,9,8,13,15,11,7,3,2,5,4,14,1'`))
	require.NoError(t, err, "the typed position is on the board")
	require.NoError(t, chromedp.Do(bctx,
		chromedp.SetValue(chromedp.CSS("#heuristic"), "md"),
		chromedp.Click(chromedp.CSS("#solve")),
	))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`/bound \d+, [\d,]+ nodes/.test(document.getElementById('status').textContent)`))
	require.NoError(t, err, "the running search shows its bound and nodes")
	running, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.getElementById('stop').disabled === false`))
	require.NoError(t, err)
	require.True(t, running, "Stop is enabled while the search runs")
	screenshot(bctx, "searching.png")
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#stop"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Stopped after')`))
	require.NoError(t, err, "Stop ends the search")
	statusText, err = chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#status")))
	require.NoError(t, err)
	require.Contains(t, statusText, "the shortest solution has at least")
	screenshot(bctx, "stopped.png")

	// The solver works again after a stop (a fresh worker).
	require.NoError(t, chromedp.Do(bctx,
		chromedp.SetValue(chromedp.CSS("#heuristic"), "auto"),
		chromedp.Click(chromedp.CSS("#solve")),
	))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Found a shortest solution')`))
	require.NoError(t, err, "solved after the stop")

	// On a phone the Solve button is in view without scrolling.
	pctx, pdone := chrome(t, 390, 844)
	defer pdone()
	require.NoError(t, chromedp.Do(pctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#board .tile")),
	))
	width, err := chromedp.Run(pctx, chromedp.Evaluate[int](`window.innerWidth`))
	require.NoError(t, err)
	require.Equal(t, 390, width)
	visible, err := chromedp.Run(pctx, chromedp.Evaluate[bool](`document.getElementById('solve').getBoundingClientRect().bottom <= window.innerHeight`))
	require.NoError(t, err)
	require.True(t, visible, "Solve is in view at 390 px")
	lead, err := chromedp.Run(pctx, chromedp.Evaluate[bool](`(() => { const r = document.querySelector('.lead').getBoundingClientRect(); return r.height > 0 && r.bottom <= window.innerHeight })()`))
	require.NoError(t, err)
	require.True(t, lead, "the instructions show at 390 px")
	for _, h := range []string{"max", "md", "6-6-3"} { // the widest choices of the menu
		choose(t, pctx, "heuristic", h)
		sideways, err := chromedp.Run(pctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
		require.NoError(t, err)
		assert.LessOrEqual(t, sideways, 0, "the page does not scroll sideways at 390 px with %s", h)
	}
	screenshot(pctx, "phone.png")
}

// The page also works from a host that serves tilekit.wasm with a generic type, where the
// browser refuses to compile it while it streams: the worker then compiles it from bytes.
func TestPageWithoutWasmType(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	files := http.FileServerFS(site.FS())
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	bctx, done := chrome(t, 1280, 900)
	defer done()
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#board .tile")),
		chromedp.Click(chromedp.CSS("#shuffle")),
		chromedp.Click(chromedp.CSS("#solve")),
	))
	_, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Found')`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "solved in the browser")
}

// TestBrowserTimes measures the page's solver in headless Chromium on Korf's instance 1
// and an 80-move position (set TILEKIT_BROWSER_BENCH=1; the 80-move one takes minutes).
// docs/RESULTS.md has the figures.
func TestBrowserTimes(t *testing.T) {
	if os.Getenv("TILEKIT_BROWSER_BENCH") == "" {
		t.Skip("set TILEKIT_BROWSER_BENCH=1 to measure")
	}
	ts := staticSite(t)
	bctx, done := chrome(t, 1280, 900)
	defer done()
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#board .tile"))))
	for _, tc := range []struct{ name, goal, state string }{
		{"korf1", "blank-first", "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"},
		{"h14", "blank-last", "0 12 10 13 15 11 14 9 7 8 6 2 4 3 5 1"},
	} {
		require.NoError(t, chromedp.Do(bctx,
			chromedp.SetValue(chromedp.CSS("#goal"), tc.goal),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('goal').dispatchEvent(new Event('change')); undefined`),
			chromedp.Sleep(500*time.Millisecond),
			chromedp.SetValue(chromedp.CSS("#timeout"), "3600"),
			chromedp.SetValue(chromedp.CSS("#position"), tc.state),
			chromedp.Click(chromedp.CSS("#set")),
			chromedp.Sleep(200*time.Millisecond),
		))
		begin := time.Now()
		require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#solve"))))
		_, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Found')`, chromedp.WithPollingTimeout(30*time.Minute)))
		require.NoError(t, err)
		wall := time.Since(begin)
		stats, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#stats")))
		require.NoError(t, err)
		t.Logf("%s: %s (wall %.2f s)", tc.name, stats, wall.Seconds())
	}
}

// Served by solve15 serve, the solver arrives gzip-compressed, and the heuristic menu
// offers only what the chosen board takes.
func TestPageServedCompressed(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	s := New(Options{})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	bctx, done := chrome(t, 1280, 900)
	defer done()
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#board .tile")),
	))
	// The worker fetches the solver in its own timeline; fetch it once more from the page.
	_, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`fetch('/tilekit.wasm', {cache: 'no-store'}).then(r => r.arrayBuffer()) && true`))
	require.NoError(t, err)
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](
		`performance.getEntriesByType('resource').some(e => e.name.endsWith('/tilekit.wasm') && e.encodedBodySize > 0 && e.encodedBodySize < e.decodedBodySize / 2)`,
		chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "the wasm came gzip-compressed")
	offered, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`!!document.querySelector('#heuristic option[value="6-6-3"]')`))
	require.NoError(t, err)
	assert.True(t, offered, "6-6-3 is offered on 4x4")
	choose(t, bctx, "size", "3x3")
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`!document.querySelector('#heuristic option[value="6-6-3"]') && !!document.querySelector('#heuristic option[value="md"]') && document.getElementById('board').children.length === 9`))
	require.NoError(t, err, "on 3x3 the 6-6-3 set is not offered")
}

// A set the site offers is downloaded when chosen, with its progress, and used; on the next
// visit it comes from the browser's cache with no transfer; a damaged download is refused
// with a notice, and the embedded tables are used instead.
func TestPageDownloadsSets(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	tables := t.TempDir()
	_, err := data.InstallSet(context.Background(), pdb.Set555, tables, data.BuildOptions{})
	require.NoError(t, err)
	t.Setenv(data.EnvTables, tables)
	dir := t.TempDir()
	_, err = site.WriteSite(context.Background(), dir)
	require.NoError(t, err)
	_, err = site.WriteSets(context.Background(), dir, []string{"5-5-5"})
	require.NoError(t, err)

	var setRequests atomic.Int32
	var damage atomic.Bool
	files := http.FileServer(http.Dir(dir))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/sets/5-5-5/") {
			setRequests.Add(1)
			if damage.Load() {
				b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URL.Path)))
				b[len(b)/2] ^= 0x40
				w.Write(b)
				return
			}
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	bctx, done := chrome(t, 1280, 900)
	defer done()

	open := func() {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#board .tile"))))
		_, err := chromedp.Run(bctx, chromedp.Poll[bool](`!document.getElementById('tables-row').hidden`))
		require.NoError(t, err, "the page offers the site's sets")
	}

	// First visit: downloaded, then used by a search.
	open()
	choose(t, bctx, "tables", "5-5-5")
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('message').textContent === 'The 5-5-5 set is ready.'`, chromedp.WithPollingTimeout(60*time.Second)))
	require.NoError(t, err, "downloaded and loaded")
	assert.EqualValues(t, 3, setRequests.Load(), "its three files")
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#shuffle"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('board').dataset.solved === 'false'`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#solve"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('stats').textContent.startsWith('idastar with 5-5-5')`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "the search used the downloaded set")
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	file := filepath.Join(screenshotDir(t), "sets-1280.png")
	require.NoError(t, os.WriteFile(file, shot, 0o644))
	t.Logf("screenshot: %s", file)

	// Second visit: from the cache, nothing transferred.
	open()
	choose(t, bctx, "tables", "5-5-5")
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('message').textContent.includes("from this browser's cache")`, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "loaded from the cache")
	assert.EqualValues(t, 3, setRequests.Load(), "no file fetched again")

	// A damaged download: refused, and the embedded tables are used.
	// The cache gone before the page opens again (the deletion is a promise: awaited).
	_, err = chromedp.Run(bctx, chromedp.Evaluate[bool](`caches.delete('tilekit-sets-v1')`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	damage.Store(true)
	open()
	choose(t, bctx, "tables", "5-5-5")
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('message').textContent.startsWith('Could not load the 5-5-5 set')`, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "the damaged set is refused with a notice")
	back, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.getElementById('tables').value === '' && document.getElementById('heuristic').value === 'auto'`))
	require.NoError(t, err)
	assert.True(t, back, "back to the embedded tables")
}

// TestBrowserSetTimes measures, in Chromium, the sets downloaded from the site: the 7-8
// set on an 80-move position, and 6-6-6-6 on k24-40 (docs/RESULTS.md). It needs both
// installed in DIR (the package's tests hide $TILEKIT_TABLES):
// TILEKIT_BROWSER_TABLES=DIR go test -run TestBrowserSetTimes ./web
// TILEKIT_BROWSER_SETS=small-t measures other sets instead (small-t on k24-40; it fits a
// browser in the bit encoding, pdbgen build --set small-t --bits).
func TestBrowserSetTimes(t *testing.T) {
	dir := os.Getenv("TILEKIT_BROWSER_TABLES")
	if dir == "" || dir == "1" {
		t.Skip("set TILEKIT_BROWSER_TABLES to the directory of the installed 7-8 and 6-6-6-6 sets to measure")
	}
	t.Setenv(data.EnvTables, dir)
	out := t.TempDir()
	_, err := site.WriteSite(context.Background(), out)
	require.NoError(t, err)
	positions := map[string][2]string{ // goal and state
		"7-8":     {"blank-last", "0 12 10 13 15 11 14 9 7 8 6 2 4 3 5 1"},
		"6-6-6-6": {"blank-first", "2 17 4 13 7 12 10 3 0 16 21 24 8 5 18 20 15 19 14 9 22 11 6 1 23"},
		"small-t": {"blank-first", "2 17 4 13 7 12 10 3 0 16 21 24 8 5 18 20 15 19 14 9 22 11 6 1 23"},
	}
	names := strings.Split(cmp.Or(os.Getenv("TILEKIT_BROWSER_SETS"), "7-8,6-6-6-6"), ",")
	_, err = site.WriteSets(context.Background(), out, names)
	require.NoError(t, err)
	ts := httptest.NewServer(http.FileServer(http.Dir(out)))
	t.Cleanup(ts.Close)
	bctx, done := chrome(t, 1280, 900)
	defer done()
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#board .tile"))))
	for _, name := range names {
		pos, ok := positions[name]
		require.True(t, ok, "no position to measure %s on", name)
		tc := struct{ set, goal, state string }{name, pos[0], pos[1]}
		if size := map[string]string{"7-8": "4x4"}[name]; size == "" {
			choose(t, bctx, "size", "5x5") // the Tables menu offers a board's sets
		}
		begin := time.Now()
		choose(t, bctx, "tables", tc.set)
		_, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('message').textContent.startsWith('The `+tc.set+` set is ready')`, chromedp.WithPollingTimeout(5*time.Minute)))
		require.NoError(t, err)
		t.Logf("%s: downloaded and loaded in %.2f s", tc.set, time.Since(begin).Seconds())
		require.NoError(t, chromedp.Do(bctx,
			chromedp.SetValue(chromedp.CSS("#goal"), tc.goal),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('goal').dispatchEvent(new Event('change')); undefined`),
			chromedp.Sleep(500*time.Millisecond),
			chromedp.SetValue(chromedp.CSS("#timeout"), "3600"),
			chromedp.SetValue(chromedp.CSS("#heuristic"), tc.set),
			chromedp.SetValue(chromedp.CSS("#position"), tc.state),
			chromedp.Click(chromedp.CSS("#set")),
			chromedp.Sleep(300*time.Millisecond),
		))
		begin = time.Now()
		require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#solve"))))
		_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Found')`, chromedp.WithPollingTimeout(30*time.Minute)))
		require.NoError(t, err)
		wall := time.Since(begin)
		stats, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#stats")))
		require.NoError(t, err)
		t.Logf("%s: %s (wall %.2f s from the click)", tc.set, stats, wall.Seconds())
	}
	// A second visit: the 7-8 set from the browser's cache.
	if names[0] != "7-8" {
		return
	}
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#board .tile"))))
	begin := time.Now()
	choose(t, bctx, "tables", "7-8")
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('message').textContent.includes("from this browser's cache")`, chromedp.WithPollingTimeout(time.Minute)))
	require.NoError(t, err)
	t.Logf("7-8 again: from the cache and usable in %.2f s", time.Since(begin).Seconds())
}

// The 24-puzzle on a phone's width: pick 5x5, shuffle, solve, play to the goal.
func TestPage5x5(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	ts := staticSite(t)
	bctx, done := chrome(t, 390, 844)
	defer done()
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#board .tile"))))
	choose(t, bctx, "size", "5x5")
	_, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('board').children.length === 25 && !document.getElementById('solve').disabled`))
	require.NoError(t, err, "a 5x5 board")
	fits, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.getElementById('board').getBoundingClientRect().right <= window.innerWidth`))
	require.NoError(t, err)
	assert.True(t, fits, "the board fits 390 px")
	sideways, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
	require.NoError(t, err)
	assert.LessOrEqual(t, sideways, 0, "the page does not scroll sideways at 390 px")
	noTables, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`getComputedStyle(document.getElementById('tables-row')).display === 'none'`))
	require.NoError(t, err)
	assert.True(t, noTables, "a site without sets shows no Tables row")
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#shuffle"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('board').dataset.solved === 'false'`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#solve"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Found')`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "solved")
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#play"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('board').dataset.solved === 'true'`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "played to the goal")
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	file := filepath.Join(screenshotDir(t), "5x5-390.png")
	require.NoError(t, os.WriteFile(file, shot, 0o644))
	t.Logf("screenshot: %s", file)
}

// screenshotDir is where the browser tests put their screenshots: $TILEKIT_SCREENSHOTS to
// keep them, else a directory removed after the test.
func screenshotDir(t *testing.T) string {
	if dir := os.Getenv("TILEKIT_SCREENSHOTS"); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	return t.TempDir()
}

// Solve clicked at once after Set solves the position set, not the one before it.
func TestSetThenSolveAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	ts := staticSite(t)
	bctx, done := chrome(t, 1280, 900)
	defer done()
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#board .tile"))))
	_, err := chromedp.Run(bctx, chromedp.Poll[bool](`!document.getElementById('solve').disabled`))
	require.NoError(t, err)
	// Takahashi's worked example, 29 moves from the start; the page starts at the goal.
	_, err = chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => {
		document.getElementById('position').value = '1 4 2 3 / 13 6 7 8 / 5 10 11 0 / 9 14 15 12';
		document.getElementById('set').click();
		document.getElementById('solve').click();
		return true; })()`))
	require.NoError(t, err)
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Found')`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err)
	status, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#status")))
	require.NoError(t, err)
	assert.Contains(t, status, "29 moves")
}
