package insight

import (
	"math"
	"strconv"
	"strings"
)

// FormatFigure writes a computed figure at its precision: integers whole,
// values of 100 or more to the unit, smaller ones to three significant
// figures ("0.185", "12.3", "9,812"), so that the shown number is never
// more than 0.5 % from the value. Thousands are grouped; NaN and
// infinities are "n/a".
func FormatFigure(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	a := math.Abs(v)
	if v == math.Trunc(v) || a >= 100 {
		s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
		if s == "-0" {
			s = "0"
		}
		return group(s)
	}
	decimals := 2 - int(math.Floor(math.Log10(a)))
	decimals = min(max(decimals, 0), 12)
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" || s == "" {
		s = "0"
	}
	return group(s)
}

// formatPercent is a share (0..1) as a percentage to three significant
// figures, at most one decimal past the unit when under 100 ("34.2%",
// "0.85%", "100%").
func formatPercent(share float64) string {
	if math.IsNaN(share) || math.IsInf(share, 0) {
		return "n/a"
	}
	p := share * 100
	switch {
	case p == 0:
		return "0%"
	case p >= 10:
		return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
	}
	return FormatFigure(p) + "%"
}
