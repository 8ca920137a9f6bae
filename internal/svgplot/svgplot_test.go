package svgplot

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wellFormed parses the SVG as XML and counts its elements by name.
func wellFormed(t *testing.T, b []byte) map[string]int {
	t.Helper()
	count := map[string]int{}
	d := xml.NewDecoder(strings.NewReader(string(b)))
	for {
		tok, err := d.Token()
		if err != nil {
			require.Equal(t, "EOF", err.Error())
			return count
		}
		if se, ok := tok.(xml.StartElement); ok {
			count[se.Name.Local]++
		}
	}
}

func TestLines(t *testing.T) {
	c := Chart{Title: "A & B <test>", XLabel: "x", YLabel: "y", LogY: true, Series: []Series{
		{Name: "one", Points: []XY{{1, 10}, {2, 100}, {3, 5000}}},
		{Name: "two", Points: []XY{{1, 20}, {3, 30}}},
	}}
	b, err := c.SVG()
	require.NoError(t, err)
	n := wellFormed(t, b)
	assert.Equal(t, 2, n["polyline"])
	assert.Equal(t, 5+2, n["circle"], "a marker per point and per legend entry")
	assert.Contains(t, string(b), "A &amp; B &lt;test&gt;")
	assert.Contains(t, string(b), ">1e4<", "decades from 10 to 10,000")

	c.Series[0].Points[0].Y = 0
	_, err = c.SVG()
	assert.ErrorContains(t, err, "log scale")
	_, err = (&Chart{Title: "empty"}).SVG()
	assert.ErrorContains(t, err, "no series")
}

func TestBars(t *testing.T) {
	c := Chart{Title: "bars", Bars: []Bar{{"0", 3}, {"1", 0}, {"2", 1}}}
	b, err := c.SVG()
	require.NoError(t, err)
	n := wellFormed(t, b)
	assert.Equal(t, 1+3, n["rect"], "the background and a bar each")
	assert.NotContains(t, string(b), ">0.5<", "counts are ticked on whole numbers")
	c.Bars[1].Value = -1
	_, err = c.SVG()
	assert.ErrorContains(t, err, "negative")
}

func TestTicks(t *testing.T) {
	assert.Equal(t, []float64{0, 2, 4, 6, 8, 10}, axis{min: 0, max: 10}.ticks())
	assert.Equal(t, []float64{1, 10, 100}, axis{min: 1, max: 100, log: true}.ticks())
	assert.Equal(t, 5.0, niceStep(3.2))
	assert.Equal(t, "1e5", label(1e5, true))
	assert.Equal(t, "0.25", label(0.25, false))
}
