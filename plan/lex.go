package plan

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokens bounds the words of a question the parser reads: the handler
// caps questions at 1,000 code points, and the bound keeps Parse linear
// on any text handed to it directly. Words past it are listed unread.
const maxTokens = 400

// tok is one word or symbol of a question.
type tok struct {
	text  string // as written
	start int    // byte offset in the question
	// low is the word lower-cased with apostrophes dropped, the
	// separators of "5,000" dropped and "²" read as "2"; a symbol is one
	// of ">", ">=", "<", "<=", "=", "!=", "+", "%", "/", "-".
	low  string
	sing string // low folded to its singular (see Singular)
	sym  bool
	// num is the value of a number word ("5000", "2.5", "10k"); isNum
	// says whether there is one.
	num   float64
	isNum bool
}

// tokenize splits q into words of letters and digits and the symbols
// that carry meaning; every other character separates words. Hyphens,
// underscores and dots split words ("peri-urban", "population_2020"),
// but a hyphen between two numbers is a range ("500-2,000").
func tokenize(q string) []tok {
	var out []tok
	var b strings.Builder
	start := -1
	digits := true // b holds digits (and at most one point) only
	flush := func(end int) {
		if start >= 0 && b.Len() > 0 && len(out) < maxTokens {
			w := b.String()
			t := tok{text: q[start:end], start: start, low: w, sing: Singular(w)}
			t.num, t.isNum = parseNumber(w)
			out = append(out, t)
		}
		b.Reset()
		start, digits = -1, true
	}
	isDigit := func(i int) bool { return i >= 0 && i < len(q) && q[i] >= '0' && q[i] <= '9' }
	symbol := func(i, size int, s string) {
		if len(out) < maxTokens {
			out = append(out, tok{text: q[i : i+size], start: i, low: s, sing: s, sym: true})
		}
	}
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case r == '\'' || r == '’' || r == '‘':
			// dropped inside a word: "what's" -> "whats"
		case r >= '0' && r <= '9':
			if start < 0 {
				start = i
			}
			b.WriteRune(r)
		case r == '²' || r == '³':
			if start < 0 {
				start = i
			}
			if r == '²' {
				b.WriteByte('2')
			} else {
				b.WriteByte('3')
			}
			digits = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// "10km" is two words, "10k" one.
			if start >= 0 && digits && !(r == 'k' || r == 'K') || start >= 0 && digits && i+size < len(q) && isLetterAt(q, i+size) {
				flush(i)
			}
			if start < 0 {
				start = i
			}
			b.WriteString(strings.ToLower(string(r)))
			digits = false
		case r == ',' && start >= 0 && digits && !strings.Contains(b.String(), ".") &&
			isDigit(i+1) && isDigit(i+2) && isDigit(i+3) && !isDigit(i+4):
			// a thousands separator: "5,000"
		case r == '.' && start >= 0 && digits && !strings.Contains(b.String(), ".") && isDigit(i+1):
			b.WriteByte('.')
		default:
			flush(i)
			switch {
			case (r == '>' || r == '<' || r == '!') && i+1 < len(q) && q[i+1] == '=':
				symbol(i, 2, string(r)+"=")
				size = 2
			case r == '>' || r == '<' || r == '=' || r == '+' || r == '%' || r == '/':
				symbol(i, size, string(r))
			case r == '≥':
				symbol(i, size, ">=")
			case r == '≤':
				symbol(i, size, "<=")
			case r == '≠':
				symbol(i, size, "!=")
			case (r == '-' || r == '–') && len(out) > 0 && out[len(out)-1].isNum && nextDigit(q, i+size):
				symbol(i, size, "-")
			}
			if len(out) >= maxTokens {
				return out
			}
		}
		i += size
	}
	flush(len(q))
	return out
}

// isLetterAt reports whether q holds a letter at byte i.
func isLetterAt(q string, i int) bool {
	r, _ := utf8.DecodeRuneInString(q[i:])
	return unicode.IsLetter(r)
}

// nextDigit reports whether the first non-space character from i is a
// digit.
func nextDigit(q string, i int) bool {
	for i < len(q) && q[i] == ' ' {
		i++
	}
	return i < len(q) && q[i] >= '0' && q[i] <= '9'
}

// words returns the singular forms of s's words: how catalogue terms are
// compared with a question's words.
func words(s string) []string {
	ts := tokenize(s)
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		if !t.sym {
			out = append(out, t.sing)
		}
	}
	return out
}

// Singular folds an English plural onto its singular well enough for
// matching: both sides of every comparison go through it, so it needs to
// be consistent rather than right ("does" -> "doe" is harmless).
func Singular(w string) string {
	n := len(w)
	if n <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:n-1]
	}
	return w
}

// parseNumber reads a word that is a number: ASCII digits with at most
// one decimal point ("5000", "2.5"; tokenize has dropped the separators
// of "5,000"), or digits with a "k" suffix ("10k"). It refuses
// infinities and anything else.
func parseNumber(w string) (float64, bool) {
	mult := 1.0
	if strings.HasSuffix(w, "k") && len(w) > 1 {
		w, mult = w[:len(w)-1], 1e3
	}
	if w == "" || len(w) > 30 || w[0] < '0' || w[0] > '9' {
		return 0, false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < '0' || c > '9') && c != '.' {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(w, 64)
	if err != nil {
		return 0, false
	}
	return v * mult, true
}

// multipliers scale the number before them: "10 thousand", "1.5
// million".
var multipliers = map[string]float64{"hundred": 100, "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6}

// numberWords are spelled-out numbers.
var numberWords = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "hundred": 100,
}

// numberAt reads a number starting at token i: digits ("5000", "2.5",
// "10k"), a spelled number ("five"), or "a"/"an" before a multiplier ("a
// thousand"), each followed by any multipliers ("10 thousand", "1.5
// million"). It returns the value and the index after the number.
func numberAt(ts []tok, i int) (v float64, next int, ok bool) {
	if i < 0 || i >= len(ts) {
		return 0, i, false
	}
	w := ts[i].low
	switch n, isWord := numberWords[w]; {
	case ts[i].isNum:
		v, ok = ts[i].num, true
	case isWord:
		v, ok = n, true
	case (w == "a" || w == "an") && i+1 < len(ts) && multipliers[ts[i+1].low] > 0 && ts[i+1].low != "k":
		v, ok = 1, true
	}
	if !ok {
		return 0, i, false
	}
	j := i + 1
	for j < len(ts) && multipliers[ts[j].low] > 0 && v < 1e12 {
		v *= multipliers[ts[j].low]
		j++
	}
	return v, j, true
}

// isYear reports a four-digit word from 1900 to 2100.
func isYear(w string) (int, bool) {
	if len(w) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(w)
	return y, err == nil && y >= 1900 && y <= 2100
}

// isASCIILetters reports a word of ASCII letters only: misspellings are
// looked for among those.
func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// TypoBudget is how many edits a misspelling of a word of n letters may
// have: none under 5 letters, 1 for 5 to 7, 2 from 8.
func TypoBudget(n int) int {
	switch {
	case n < 5:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// EditDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions), or
// max+1 when it exceeds max. a and b are ASCII.
func EditDistance(a, b string, max int) int {
	la, lb := len(a), len(b)
	if d := la - lb; d > max || -d > max {
		return max + 1
	}
	if la > 32 || lb > 32 {
		return max + 1
	}
	var rows [3][33]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= lb; j++ {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[lb] > max {
		return max + 1
	}
	return prev[lb]
}

// set builds a lookup set of words.
func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
