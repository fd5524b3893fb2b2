package insight

import (
	"math"
	"strconv"
	"strings"
)

// FormatFigure writes a computed figure at its precision: as
// FormatNumber from 1 up (integers whole, at most two decimals: three
// significant figures at least), and to three significant figures below
// 1 ("0.185", where FormatNumber's two would say 0.18 and lose 2.7 %), so
// that the number shown is never more than 0.5 % from the value.
// Thousands are grouped; NaN and infinities are "n/a".
func FormatFigure(v float64) string {
	a := math.Abs(v)
	if math.IsNaN(v) || math.IsInf(v, 0) || a >= 1 || v == 0 {
		return FormatNumber(v)
	}
	decimals := min(2-int(math.Floor(math.Log10(a))), 12)
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', decimals, 64), "0"), ".")
	if s == "-0" || s == "" {
		s = "0"
	}
	return s
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
