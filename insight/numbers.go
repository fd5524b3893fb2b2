package insight

import (
	"strconv"
	"strings"
)

// multipliers scale the number before them: "10 thousand", "1.5 million",
// "10 k".
var multipliers = map[string]float64{"hundred": 100, "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6}

// parseNumberToken reads a token that is a number: ASCII digits with at
// most one decimal point ("5000", "2.5"; tokenize has already joined
// "5,000"), or digits with a "k" suffix ("10k"). It refuses infinities and
// anything else.
func parseNumberToken(w string) (float64, bool) {
	mult := 1.0
	if strings.HasSuffix(w, "k") && len(w) > 1 {
		w, mult = w[:len(w)-1], 1e3
	}
	if w == "" || len(w) > 30 {
		return 0, false
	}
	dot := false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > 0 && i < len(w)-1:
			dot = true
		default:
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(w, 64)
	if err != nil {
		return 0, false
	}
	return v * mult, true
}

// isNumberToken reports a token parseNumberToken reads.
func isNumberToken(w string) bool {
	_, ok := parseNumberToken(w)
	return ok
}

// numberAt reads a number starting at token i: digits ("5000", "2.5",
// "10k"), a spelled count ("five", "twenty"), or "a"/"an" before a
// multiplier ("a thousand"), each followed by any multipliers ("10
// thousand", "1.5 million"). It returns the value and the index after the
// number. "couple" and "pair" count only in rankings, never here.
func numberAt(toks []token, i int) (v float64, next int, ok bool) {
	if i < 0 || i >= len(toks) {
		return 0, i, false
	}
	w := toks[i].raw
	switch n, isWord := numberWords[w]; {
	case isWord && w != "couple" && w != "pair":
		v, ok = float64(n), true
	case (w == "a" || w == "an") && i+1 < len(toks) && multipliers[toks[i+1].raw] > 0 && toks[i+1].raw != "k":
		v, ok = 1, true
	default:
		v, ok = parseNumberToken(w)
	}
	if !ok {
		return 0, i, false
	}
	j := i + 1
	for j < len(toks) && multipliers[toks[j].raw] > 0 && v < 1e12 {
		v *= multipliers[toks[j].raw]
		j++
	}
	return v, j, true
}

// isYear reports a four-digit token from 1900 to 2100.
func isYear(w string) (int, bool) {
	if len(w) != 4 || !isDigits(w) {
		return 0, false
	}
	y, _ := strconv.Atoi(w)
	return y, y >= 1900 && y <= 2100
}
