package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run's summary: a line a package, a failed test's output, and the skips with their
// reasons on the last line.
func TestSummarise(t *testing.T) {
	in := `{"Action":"run","Package":"p/web","Test":"TestBrowser"}
{"Action":"output","Package":"p/web","Test":"TestBrowser","Output":"=== RUN   TestBrowser\n"}
{"Action":"output","Package":"p/web","Test":"TestBrowser","Output":"    e2e_test.go:40: no Chromium found: install it\n"}
{"Action":"output","Package":"p/web","Test":"TestBrowser","Output":"--- SKIP: TestBrowser (0.00s)\n"}
{"Action":"skip","Package":"p/web","Test":"TestBrowser"}
{"Action":"pass","Package":"p/web","Elapsed":1.5}
{"Action":"output","Package":"p/ida","Test":"TestX","Output":"    x_test.go:9: wrong\n"}
{"Action":"fail","Package":"p/ida","Test":"TestX"}
{"Action":"output","Package":"p/ida","Output":"FAIL\tp/ida\t0.2s\n"}
{"Action":"fail","Package":"p/ida","Elapsed":0.2}
`
	var out strings.Builder
	failed, err := summarise(strings.NewReader(in), &out)
	require.NoError(t, err)
	assert.True(t, failed)
	assert.Equal(t, "ok  \tp/web\t1.500s\n    x_test.go:9: wrong\nFAIL\tp/ida\t0.2s\nskipped 1: p/web TestBrowser (no Chromium found: install it)\n", out.String())

	out.Reset()
	failed, err = summarise(strings.NewReader(`{"Action":"pass","Package":"p/a"}`+"\n"), &out)
	require.NoError(t, err)
	assert.False(t, failed)
	assert.Contains(t, out.String(), "skipped: none")

	_, err = summarise(strings.NewReader(""), &out)
	assert.ErrorContains(t, err, "no test result")
	_, err = summarise(strings.NewReader("{not json\n"), &out)
	assert.ErrorContains(t, err, "line 1 is not an event")
}
