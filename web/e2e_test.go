package web

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
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

// TestPageEndToEnd loads the page in a real headless Chromium, shuffles, solves, plays the
// solution to the end and checks the board shows the goal; it leaves a screenshot for a
// person to look at.
func TestPageEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	path := browser(t)
	s := New(Options{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 800),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	solved := `document.getElementById('board').dataset.solved === 'true'`
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#board .tile")),
	))
	initial, err := chromedp.Run(bctx, chromedp.Evaluate[bool](solved))
	require.NoError(t, err)
	require.True(t, initial, "the page starts at the goal")

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

	// Solve on the server, then play the solution to the end.
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

	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#play"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](solved))
	require.NoError(t, err, "the board shows the goal after playing")
	progress, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("#progress")))
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(moves)+" / "+strconv.Itoa(moves), progress)

	dir, err := os.MkdirTemp("", "tilekit-e2e-")
	require.NoError(t, err)
	screenshot := func(name string) {
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)) // quality 100 gives PNG
		require.NoError(t, err)
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, shot, 0o644))
		t.Logf("screenshot: %s", file)
	}
	screenshot("solved.png")

	// A long search shows its current bound, and Stop cancels it on the server. Korf's
	// instance 88, turned onto the blank-last goal, takes minutes with Manhattan distance.
	require.NoError(t, chromedp.Do(bctx,
		chromedp.SetValue(chromedp.CSS("#position"), "12 10 6 0 9 8 13 15 11 7 3 2 5 4 14 1"),
		chromedp.Click(chromedp.CSS("#set")),
		chromedp.SetValue(chromedp.CSS("#heuristic"), "md"),
		chromedp.Click(chromedp.CSS("#solve")),
	))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.includes('bound')`))
	require.NoError(t, err, "the running search shows its bound")
	running, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.getElementById('stop').disabled === false`))
	require.NoError(t, err)
	require.True(t, running, "Stop is enabled while the search runs")
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#stop"))))
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](`document.getElementById('status').textContent.startsWith('Stopped')`))
	require.NoError(t, err, "Stop cancels the search")
	s.mu.Lock()
	for _, j := range s.jobs {
		if v := j.view(); v.Status == "running" {
			t.Errorf("job %s still running on the server after Stop", v.ID)
		}
	}
	s.mu.Unlock()

	screenshot("stopped.png")
}
