package console

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
)

// Charts are inline SVG drawn on the server: nothing to fetch, no script.
// Each is an image with a text alternative (role="img", a <title> and a
// <desc>), and every page that shows one shows its figures in a table too.
// Colours and fonts come from the stylesheet through class names.

// thousands formats n with comma separators: 1234567 -> "1,234,567".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// niceMax returns the smallest of 1, 2, 2.5, 5 times a power of ten that
// is at least v (and at least 1), for a chart's scale.
func niceMax(v float64) float64 {
	if v <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

type svg struct{ b strings.Builder }

func (s *svg) f(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// open starts an SVG image of w × h user units that scales to its box.
func (s *svg) open(id string, w, h int, title, desc string) {
	s.f(`<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-t %s-d" preserveAspectRatio="xMinYMin meet">`, w, h, id, id)
	s.f(`<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`, id, html.EscapeString(title), id, html.EscapeString(desc))
}

func (s *svg) html() template.HTML {
	s.b.WriteString("</svg>")
	return template.HTML(s.b.String()) // every text in it went through html.EscapeString
}

// meterChart draws used against total as a horizontal bar; the page says
// the figures in words beside it.
func meterChart(id, title string, used, total int64) template.HTML {
	const w, h = 560, 26
	share := 0.0
	if total > 0 {
		share = math.Min(1, float64(used)/float64(total))
	}
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(used) / float64(total)
	}
	text := fmt.Sprintf("%s of %s (%.0f%%)", thousands(used), thousands(total), pct)
	var s svg
	s.open(id, w, h, title, title+": "+text)
	s.f(`<rect class="track" x="0" y="4" width="%d" height="22" rx="4"/>`, w)
	cls := "fill"
	if used >= total {
		cls = "fill full"
	}
	if share > 0 {
		s.f(`<rect class="%s" x="0" y="4" width="%s" height="22" rx="4"/>`, cls, num(math.Max(4, share*w)))
	}
	return s.html()
}

// columnChart draws one column per value with its label under it (every
// few labels when there are many).
func columnChart(id, title, unit string, labels []string, values []int64) template.HTML {
	const w, h, left, right, top, bottom = 560, 230, 48, 8, 14, 30
	var max int64
	for _, v := range values {
		max = int64(math.Max(float64(max), float64(v)))
	}
	scale := niceMax(float64(max))
	var s svg
	s.open(id, w, h, title, fmt.Sprintf("%s: %d columns, highest %s %s.", title, len(values), thousands(max), unit))
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	for _, t := range ticks(scale) {
		y := float64(top) + ph*(1-t)
		s.f(`<line class="grid" x1="%d" y1="%s" x2="%d" y2="%s"/>`, left, num(y), w-right, num(y))
		s.f(`<text class="tick" x="%d" y="%s" text-anchor="end">%s</text>`, left-6, num(y+5), html.EscapeString(tickText(scale*t)))
	}
	n := len(values)
	if n == 0 {
		return s.html()
	}
	step := pw / float64(n)
	every := (n + 9) / 10
	for i, v := range values {
		bh := ph * float64(v) / scale
		x := float64(left) + step*float64(i) + step*0.15
		s.f(`<rect class="bar" x="%s" y="%s" width="%s" height="%s"><title>%s: %s %s</title></rect>`,
			num(x), num(float64(top)+ph-bh), num(step*0.7), num(math.Max(bh, 0)),
			html.EscapeString(labels[i]), thousands(v), html.EscapeString(unit))
		if i%every == 0 || i == n-1 && n <= 12 {
			s.f(`<text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>`, num(x+step*0.35), h-8, html.EscapeString(labels[i]))
		}
	}
	return s.html()
}

// ticks are the fractions of the scale at which a chart draws grid lines:
// the bottom, the top and the middle when it is a whole number (counts
// have no halves).
func ticks(scale float64) []float64 {
	if mid := scale / 2; mid == math.Trunc(mid) {
		return []float64{0, 0.5, 1}
	}
	return []float64{0, 1}
}

// tickText formats an axis value: whole numbers with separators.
func tickText(v float64) string {
	if v == math.Trunc(v) {
		return thousands(int64(v))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// barChart draws one horizontal bar per value, labelled on its left and
// valued on its right.
func barChart(id, title, unit string, labels []string, values []int64) template.HTML {
	const w, left, right, row = 560, 150, 90, 30
	h := row*len(labels) + 8
	var max int64
	for _, v := range values {
		max = int64(math.Max(float64(max), float64(v)))
	}
	scale := niceMax(float64(max))
	var s svg
	s.open(id, w, h, title, fmt.Sprintf("%s, %d bars.", title, len(values)))
	pw := float64(w - left - right)
	for i, v := range values {
		y := 4 + row*i
		label := labels[i]
		if len(label) > 20 {
			label = clip(label, 19) + "…"
		}
		s.f(`<text class="label" x="%d" y="%d" text-anchor="end">%s</text>`, left-8, y+17, html.EscapeString(label))
		bw := pw * float64(v) / scale
		s.f(`<rect class="bar" x="%d" y="%d" width="%s" height="20"><title>%s: %s %s</title></rect>`,
			left, y+2, num(math.Max(bw, 1)), html.EscapeString(labels[i]), thousands(v), html.EscapeString(unit))
		s.f(`<text class="value" x="%s" y="%d">%s</text>`, num(float64(left)+math.Max(bw, 1)+6), y+17, thousands(v))
	}
	return s.html()
}

// stepChart draws values over time as a step line (a balance holds until
// the next change), with a dot at each change.
func stepChart(id, title string, times []time.Time, values []int64) template.HTML {
	const w, h, left, right, top, bottom = 560, 230, 56, 16, 14, 30
	var max int64
	for _, v := range values {
		max = int64(math.Max(float64(max), float64(v)))
	}
	scale := niceMax(float64(max))
	var s svg
	desc := title
	if n := len(values); n > 0 {
		desc = fmt.Sprintf("%s: %d changes from %s to %s; now %s.", title, n, times[0].Format("2 Jan 2006"),
			times[n-1].Format("2 Jan 2006"), thousands(values[n-1]))
	}
	s.open(id, w, h, title, desc)
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	for _, t := range ticks(scale) {
		y := float64(top) + ph*(1-t)
		s.f(`<line class="grid" x1="%d" y1="%s" x2="%d" y2="%s"/>`, left, num(y), w-right, num(y))
		s.f(`<text class="tick" x="%d" y="%s" text-anchor="end">%s</text>`, left-6, num(y+5), html.EscapeString(tickText(scale*t)))
	}
	n := len(values)
	if n == 0 {
		return s.html()
	}
	t0, t1 := times[0], times[n-1]
	span := t1.Sub(t0)
	xOf := func(t time.Time) float64 {
		if span <= 0 {
			return float64(left) + pw/2
		}
		return float64(left) + pw*float64(t.Sub(t0))/float64(span)
	}
	yOf := func(v int64) float64 { return float64(top) + ph*(1-float64(v)/scale) }
	var d strings.Builder
	for i := range values {
		x, y := xOf(times[i]), yOf(values[i])
		if i == 0 {
			fmt.Fprintf(&d, "M%s,%s", num(x), num(y))
		} else {
			fmt.Fprintf(&d, " H%s V%s", num(x), num(y))
		}
	}
	fmt.Fprintf(&d, " H%d", w-right)
	s.f(`<path class="line" d="%s"/>`, d.String())
	for i := range values {
		s.f(`<circle class="dot" cx="%s" cy="%s" r="3.5"><title>%s: %s</title></circle>`, num(xOf(times[i])), num(yOf(values[i])),
			times[i].Format("2006-01-02 15:04"), thousands(values[i]))
	}
	layout := "2 Jan 2006"
	if t0.Year() == t1.Year() {
		layout = "2 Jan"
	}
	if span < 48*time.Hour {
		layout = "2 Jan 15:04"
	}
	s.f(`<text class="tick" x="%d" y="%d">%s</text>`, left, h-8, t0.Format(layout))
	if span > 0 {
		s.f(`<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>`, w-right, h-8, t1.Format(layout))
	}
	return s.html()
}
