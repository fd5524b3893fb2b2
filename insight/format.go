package insight

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FormatNumber writes v for display: integers without decimals, other
// values with at most two decimals (two significant digits below 1),
// thousands separators always, the full digits of large numbers (never
// "1.2 million"). NaN and infinities are "n/a". The handler and the
// wording check may use it to show a figure exactly as the engine does.
func FormatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	if v == math.Trunc(v) {
		if v == 0 {
			return "0" // also -0
		}
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	}
	a := math.Abs(v)
	decimals := 2
	if a < 1 {
		decimals = 1 - int(math.Floor(math.Log10(a)))
		if decimals > 12 {
			decimals = 12
		}
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		s = "0"
	}
	return group(s)
}

// group puts thousands separators into a decimal number ("-1234567.5" ->
// "-1,234,567.5").
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 3 {
		return sign + intPart + frac
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/3 + 1)
	b.WriteString(sign)
	head := len(intPart) % 3
	if head > 0 {
		b.WriteString(intPart[:head])
	}
	for i := head; i < len(intPart); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}

// fmtInt formats a count with thousands separators.
func fmtInt(n int) string { return group(strconv.Itoa(n)) }

// percent is count/total as a whole percentage, with one decimal when
// rounding would say 0% or 100% of a part ("67%", "99.5%").
func percent(count, total int) string {
	if total <= 0 {
		return "0%"
	}
	p := 100 * float64(count) / float64(total)
	r := math.Round(p)
	if (r == 0 && count > 0) || (r == 100 && count < total) {
		s := strconv.FormatFloat(p, 'f', 1, 64)
		if s == "0.0" {
			s = "0.1"
		} else if s == "100.0" {
			s = "99.9"
		}
		return s + "%"
	}
	return strconv.FormatFloat(r, 'f', 0, 64) + "%"
}

// summarizeNames shows distinct names for a facet: "Kano", "Kano, Jigawa
// (2 states)", "Kano, Jigawa, Katsina and 4 more (7 states)".
func summarizeNames(names []string, plural string) string {
	switch n := len(names); {
	case n == 0:
		return ""
	case n == 1:
		return names[0]
	case n <= 3:
		return strings.Join(names, ", ") + " (" + strconv.Itoa(n) + " " + plural + ")"
	default:
		return strings.Join(names[:3], ", ") + " and " + strconv.Itoa(n-3) + " more (" + strconv.Itoa(n) + " " + plural + ")"
	}
}

// joinAnd joins phrases in prose: "a", "a and b", "a, b and c".
func joinAnd(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// namesInProse joins names for a headline, naming at most three: "Kano,
// Jigawa, Katsina and 4 other states".
func namesInProse(names []string, pluralNoun string) string {
	if len(names) <= 3 {
		return joinAnd(names, "and")
	}
	k := len(names) - 3
	return strings.Join(names[:3], ", ") + " and " + strconv.Itoa(k) + " other " + plural(k, singularPhrase(pluralNoun), pluralNoun)
}

// lowerLabel is a label inside a sentence: "Estimated population" ->
// "estimated population"; acronyms ("LGA count") keep their case.
func lowerLabel(label string) string {
	r, n := utf8.DecodeRuneInString(label)
	if n == 0 || !unicode.IsUpper(r) {
		return label
	}
	if r2, _ := utf8.DecodeRuneInString(label[n:]); unicode.IsUpper(r2) {
		return label
	}
	return string(unicode.ToLower(r)) + label[n:]
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// lastWord splits a phrase before its last word.
func lastWord(p string) (head, last string) {
	i := strings.LastIndexAny(p, " -")
	return p[:i+1], p[i+1:]
}

// pluralPhrase makes the last word of a noun phrase plural: "settlement
// class" -> "settlement classes", "ward" -> "wards".
func pluralPhrase(p string) string {
	head, w := lastWord(p)
	if w == "" || isPluralWord(w) {
		return p
	}
	lw := strings.ToLower(w)
	switch {
	case strings.HasSuffix(lw, "y") && len(lw) > 1 && !strings.ContainsRune("aeiou", rune(lw[len(lw)-2])):
		return head + w[:len(w)-1] + "ies"
	case strings.HasSuffix(lw, "s"), strings.HasSuffix(lw, "x"), strings.HasSuffix(lw, "ch"), strings.HasSuffix(lw, "sh"):
		return head + w + "es"
	}
	return head + w + "s"
}

// singularPhrase makes the last word of a plural noun phrase singular:
// "health facilities" -> "health facility".
func singularPhrase(p string) string {
	head, w := lastWord(p)
	if !isPluralWord(w) {
		return p
	}
	s := singular(strings.ToLower(w))
	if s == "people" {
		s = "person"
	}
	if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
		s = capitalize(s)
	}
	return head + s
}

// isPluralWord reports an English plural noun as labels use them:
// "buildings", "facilities" (not "class", "status", "analysis").
func isPluralWord(w string) bool {
	w = strings.ToLower(w)
	if len(w) < 4 || !strings.HasSuffix(w, "s") {
		return w == "people"
	}
	return !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

// isCountLabel reports a label that names countable things ("Buildings",
// "Health facilities"): its figures read "4,591 buildings".
func isCountLabel(label string) bool {
	_, w := lastWord(label)
	return w != "people" && isPluralWord(w)
}

// plural picks the singular or plural form by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
