package repro

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scale reads cluster records and simulates them; files that are not such records are
// refused with the file and line.
func TestScale(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"id":"k","start":[],"board":"5x5","goal":"blank-first","nodes":1200,"seconds":3,`+
		`"passes":[{"bound":10,"nodes":100},{"bound":12,"nodes":1100}],`+
		`"units":[{"bound":12,"seq":0,"nodes":500,"seconds":5},{"bound":12,"seq":1,"nodes":500,"seconds":5}]}`+"\n"), 0o644))
	res, err := Scale([]string{good}, 0)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	row := res.Rows[0]
	assert.Equal(t, 2, row.Units)
	assert.Equal(t, "k", row.Label)
	// 100 nodes/s: 1 + 1 s serial and 2 x 5 s of units: 12 s on one worker, 7 s on two.
	assert.InDelta(t, 12, row.Estimates[0].Seconds, 1e-9)
	assert.InDelta(t, 7, row.Estimates[1].Seconds, 1e-9)
	assert.Contains(t, res.Markdown(), "| k | 1,200 | 2 | 3.0 s |")
	require.NoError(t, res.Plot(filepath.Join(dir, "scale.svg")))

	noUnits := filepath.Join(dir, "batch.json")
	require.NoError(t, os.WriteFile(noUnits, []byte(`{"line":1,"nodes":5}`+"\n"), 0o644))
	_, err = Scale([]string{noUnits}, 0)
	assert.ErrorContains(t, err, "batch.json:1: the record has no units")
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"nodes\":1,\"units\":[{}]}\nnot json\n"), 0o644))
	_, err = Scale([]string{bad}, 0)
	assert.ErrorContains(t, err, "bad.json:2: not a record")
	_, err = Scale(nil, 0)
	assert.Error(t, err)
}
