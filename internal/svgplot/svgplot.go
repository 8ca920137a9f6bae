// Package svgplot draws the few charts the reproductions need (lines with points, on a
// linear or a logarithmic scale, and bars) as small, self-contained SVG files. It replaces
// a general plotting library whose fonts, LaTeX and PDF code made every solve15 binary
// 20 MB larger: an SVG names its font and lets the viewer draw the text.
package svgplot

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// XY is a point of a series.
type XY struct{ X, Y float64 }

// A Series is a named line of points, drawn in the order given.
type Series struct {
	Name    string
	Points  []XY
	Markers bool // points only, no line between them
}

// A Bar is one bar of a bar chart, with its label below it.
type Bar struct {
	Label string
	Value float64
}

// A Chart is either lines (Series) or bars (Bars).
type Chart struct {
	Title, XLabel, YLabel string
	LogY                  bool     // a logarithmic y axis (values must be above 0)
	YMin, YMax            *float64 // fixed y range ends; nil to fit the data
	Series                []Series
	Bars                  []Bar
	LegendTop             bool // the legend in the top left corner, else the bottom right
}

// Size of the drawing, in pixels, and of its margins.
const (
	width, height            = 640, 400
	left, right, top, bottom = 70, 20, 40, 50
)

// palette holds the colours of the series, in order.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// SVG returns the chart as an SVG document.
func (c *Chart) SVG() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	text(&b, width/2, 22, "middle", 14, c.Title)
	text(&b, (left+width-right)/2, height-10, "middle", 12, c.XLabel)
	fmt.Fprintf(&b, `<text transform="translate(16,%d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (top+height-bottom)/2, html.EscapeString(c.YLabel))
	var err error
	if len(c.Bars) > 0 {
		err = c.bars(&b)
	} else {
		err = c.lines(&b)
	}
	if err != nil {
		return nil, err
	}
	b.WriteString("</svg>\n")
	return []byte(b.String()), nil
}

// axis maps values onto pixels between lo and hi.
type axis struct {
	min, max float64
	log      bool
	whole    bool    // ticks on whole numbers only (counts)
	lo, hi   float64 // pixels of min and max
}

func (a axis) at(v float64) float64 {
	f := func(x float64) float64 { return x }
	if a.log {
		f = math.Log10
	}
	return a.lo + (f(v)-f(a.min))/(f(a.max)-f(a.min))*(a.hi-a.lo)
}

// ticks returns the values to mark: decades on a log axis, else about six round steps.
func (a axis) ticks() []float64 {
	var out []float64
	if a.log {
		for e := math.Floor(math.Log10(a.min)); e <= math.Ceil(math.Log10(a.max)); e++ {
			if v := math.Pow(10, e); v >= a.min*(1-1e-9) && v <= a.max*(1+1e-9) {
				out = append(out, v)
			}
		}
		return out
	}
	step := niceStep((a.max - a.min) / 6)
	if a.whole {
		step = math.Max(step, 1)
	}
	for v := math.Ceil(a.min/step) * step; v <= a.max+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// niceStep rounds a step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// label writes a tick's value: 10^k on a log axis past 10^4, else plainly.
func label(v float64, log bool) string {
	if log && v >= 1e4 {
		return fmt.Sprintf("1e%d", int(math.Round(math.Log10(v))))
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

func (c *Chart) lines(b *strings.Builder) error {
	if len(c.Series) == 0 {
		return fmt.Errorf("svgplot: %q has no series", c.Title)
	}
	x := axis{min: math.Inf(1), max: math.Inf(-1), lo: left, hi: width - right}
	y := axis{min: math.Inf(1), max: math.Inf(-1), log: c.LogY, lo: height - bottom, hi: top}
	for _, s := range c.Series {
		for _, p := range s.Points {
			if c.LogY && p.Y <= 0 {
				return fmt.Errorf("svgplot: %q: %s has y %g on a log scale", c.Title, s.Name, p.Y)
			}
			x.min, x.max = math.Min(x.min, p.X), math.Max(x.max, p.X)
			y.min, y.max = math.Min(y.min, p.Y), math.Max(y.max, p.Y)
		}
	}
	if math.IsInf(x.min, 0) {
		return fmt.Errorf("svgplot: %q has no points", c.Title)
	}
	if c.YMin != nil {
		y.min = *c.YMin
	}
	if c.YMax != nil {
		y.max = *c.YMax
	}
	if c.LogY { // whole decades
		y.min, y.max = math.Pow(10, math.Floor(math.Log10(y.min))), math.Pow(10, math.Ceil(math.Log10(y.max)))
	}
	if x.max == x.min {
		x.min, x.max = x.min-1, x.max+1
	}
	if y.max == y.min {
		y.min, y.max = y.min-1, y.max+1
	}
	frame(b, x, y, c.LogY)
	for i, s := range c.Series {
		colour := palette[i%len(palette)]
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x.at(p.X), y.at(p.Y)))
		}
		if !s.Markers {
			fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", colour, strings.Join(pts, " "))
		}
		for _, p := range s.Points {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`+"\n", x.at(p.X), y.at(p.Y), colour)
		}
	}
	// The legend.
	lx, ly := float64(left+12), float64(top+14)
	if !c.LegendTop {
		lx, ly = float64(width-right-170), float64(height-bottom-10-16*(len(c.Series)-1))
	}
	for i, s := range c.Series {
		colour := palette[i%len(palette)]
		yy := ly + float64(16*i)
		if !s.Markers {
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`+"\n", lx, yy-4, lx+20, yy-4, colour)
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`+"\n", lx+10, yy-4, colour)
		text(b, int(lx+26), int(yy), "start", 12, s.Name)
	}
	return nil
}

// frame draws the axes, their ticks and labels.
func frame(b *strings.Builder, x, y axis, logY bool) {
	fmt.Fprintf(b, `<path d="M%d %d V%d H%d" fill="none" stroke="black"/>`+"\n", left, top, height-bottom, width-right)
	for _, v := range x.ticks() {
		px := x.at(v)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/>`+"\n", px, height-bottom, px, height-bottom+5)
		text(b, int(px), height-bottom+18, "middle", 11, label(v, false))
	}
	for _, v := range y.ticks() {
		py := y.at(v)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>`+"\n", left-5, py, left, py)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left+1, py, width-right, py)
		text(b, left-8, int(py)+4, "end", 11, label(v, logY))
	}
}

func (c *Chart) bars(b *strings.Builder) error {
	hi := 0.0
	for _, bar := range c.Bars {
		if bar.Value < 0 {
			return fmt.Errorf("svgplot: %q: bar %s is negative", c.Title, bar.Label)
		}
		hi = math.Max(hi, bar.Value)
	}
	if hi == 0 {
		hi = 1
	}
	y := axis{min: 0, max: hi * 1.05, whole: true, lo: height - bottom, hi: top}
	fmt.Fprintf(b, `<path d="M%d %d V%d H%d" fill="none" stroke="black"/>`+"\n", left, top, height-bottom, width-right)
	for _, v := range y.ticks() {
		py := y.at(v)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>`+"\n", left-5, py, left, py)
		text(b, left-8, int(py)+4, "end", 11, label(v, false))
	}
	slot := float64(width-right-left) / float64(len(c.Bars))
	for i, bar := range c.Bars {
		x0 := float64(left) + slot*float64(i) + slot*0.15
		top := y.at(bar.Value)
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x0, top, slot*0.7, float64(height-bottom)-top, palette[0])
		text(b, int(x0+slot*0.35), height-bottom+18, "middle", 11, bar.Label)
	}
	return nil
}

func text(b *strings.Builder, x, y int, anchor string, size int, s string) {
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="%s" font-size="%d">%s</text>`+"\n", x, y, anchor, size, html.EscapeString(s))
}
