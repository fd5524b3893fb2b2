package narrate

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Number is one figure read from a text.
type Number struct {
	// Text is the figure as written, s[Start:End]: "-1,234.5", "45%",
	// "45 per cent", "1.2 million", "12k", "twenty-one".
	Text string
	// Value is what Text says, before any percent sign: 45 for "45%",
	// 1200000 for "1.2 million", 21 for "twenty-one". Digits too long for a
	// float64 read as ±Inf.
	Value float64
	// Decimals is the place Text is shown to, as a power of ten: the number
	// of decimals written (1 for "12.5", 2 for "12.50", 0 for "12,345"),
	// and negative when the figure is shown rounded: -3 for "12,000",
	// "12k" and "twelve thousand", -5 for "1.2 million", -4 for "1.20
	// million". Trailing zeros of a whole number say it is rounded only when
	// it is 1,000 or more or follows a hedge word (Approx): "300" is 0 but
	// "about 300" is -2, "100%" is 0 but "about 70%" is -1. Five digits or
	// more without separators ("433102010", "40000") are exact unless
	// hedged: ids and exact counts. A year as written (see Verify) is 0.
	Decimals int
	// Start and End are the byte offsets of Text in the text read.
	Start, End int
	// Percent is set for "45%", "45 %", "45 per cent", "45 percent" and
	// "45 percentage points".
	Percent bool
	// Approx is set when a hedge word comes just before the figure: about,
	// around, roughly, approximately, nearly, almost, some, over, under,
	// circa, "~", more/less/fewer than, close to, up to, at least, at most.
	Approx bool
}

// Numbers finds every figure in s, in order of Start. It never fails and
// never panics, whatever s holds (invalid UTF-8 included). It is safe for
// concurrent use.
//
// Figures are:
//   - digits with comma thousands separators or none ("1,234,567",
//     "1234567"), a no-break, narrow no-break or thin space also separating
//     groups of three ("1 234 567" with U+00A0); a decimal point ("12.5");
//     a minus sign ("-" or U+2212) when it starts a word ("-3.5", but the
//     "15" of "12-15" is a second figure, not a negative one);
//   - percentages: a number, in digits or spelled out, followed by "%",
//     " %", " per cent", " percent" or " percentage point(s)";
//   - scaled numbers: "12k", "1.2m", "3.4bn", "5mn", "2tn" (the suffix glued
//     to the digits) and "1.2 million", "12 thousand", "3 hundred",
//     "3.4 bn", "3 hundred thousand" (the scale as the next word);
//   - spelled-out whole numbers: "zero" to "nineteen", the tens, compounds
//     ("twenty-one", "one hundred and five", "twelve thousand", "two
//     million three hundred thousand"), "a hundred", "a thousand", "a
//     million", "a dozen", "two dozen".
//
// Not figures (skipped):
//   - ordinals: "3rd", "21st", "#3", "third", "twenty-first";
//   - fractions: "half", "a quarter", "two-thirds", "three quarters";
//   - vague plurals: "hundreds", "thousands of", "dozens";
//   - the pronoun "one": after the, this, that, each, any, every, which or
//     no; before "another", "of the", "of its", "of their"; and in
//     compounds such as "one-off";
//   - digits glued to a preceding letter ("A1", "H3", "ISO3166") and dotted
//     runs of three or more parts ("1.2.3", "10.0.0.1");
//   - a list marker at the start of a line ("1. ", "2) ") and a section
//     number at the start of a heading ("## 2. Findings"): one or two
//     digits, optionally dotted ("2.1."), ending in "." or ")". Other
//     numbers in a heading ("## Population in 2020") are figures.
//
// Digits followed by other letters are figures with a unit ("12km",
// "1990s"): the letters are not part of Text.
func Numbers(s string) []Number {
	var out []Number
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isDigit(c):
			n, next, ok := readDigits(s, i)
			if ok {
				out = append(out, n)
			}
			i = next
		case isASCIILetter(c):
			n, next, ok := readWords(s, i)
			if ok {
				out = append(out, n)
			}
			i = next
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				i = skipWord(s, i) // a word of another script, with any digits glued to it
				continue
			}
			i += size
		}
	}
	return out
}

func isDigit(c byte) bool       { return '0' <= c && c <= '9' }
func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isWordRune reports a letter or digit of any script, or '_'.
func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// skipWord returns the end of the run of letters, digits and '_' at i.
func skipWord(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			break
		}
		i += size
	}
	return i
}

// lettersEnd returns the end of the run of ASCII letters at i.
func lettersEnd(s string, i int) int {
	for i < len(s) && isASCIILetter(s[i]) {
		i++
	}
	return i
}

// letterAt reports whether a letter of any script starts at i.
func letterAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	if s[i] < utf8.RuneSelf {
		return isASCIILetter(s[i])
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// groupSep returns the byte length of a thousands separator at i (a comma
// or a no-break, narrow no-break or thin space), or 0.
func groupSep(s string, i int) int {
	switch {
	case i >= len(s):
		return 0
	case s[i] == ',':
		return 1
	case strings.HasPrefix(s[i:], "\u00a0"):
		return 2
	case strings.HasPrefix(s[i:], "\u202f"), strings.HasPrefix(s[i:], "\u2009"):
		return 3
	}
	return 0
}

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// readDigits reads a figure starting with the digit at i. It returns the
// figure, where to go on, and whether it is a figure at all.
func readDigits(s string, i int) (Number, int, bool) {
	if i > 0 {
		if s[i-1] == '#' { // "#3": a rank
			return Number{}, skipWord(s, i), false
		}
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); isWordRune(r) {
			return Number{}, skipWord(s, i), false // "A1", "ISO3166"
		}
	}
	start := i
	if i > 0 && s[i-1] == '-' && (i == 1 || opensWord(s[:i-1])) {
		start = i - 1
	} else if strings.HasSuffix(s[:i], "\u2212") && (i == 3 || opensWord(s[:i-3])) {
		start = i - 3
	}

	// Whole part, with thousands separators between groups of three.
	var mant strings.Builder
	j := digitsEnd(s, i)
	mant.WriteString(s[i:j])
	if j-i <= 3 {
		for {
			n := groupSep(s, j)
			if n == 0 || digitsEnd(s, j+n) != j+n+3 {
				break
			}
			mant.WriteString(s[j+n : j+n+3])
			j += n + 3
		}
	}
	whole := mant.String()
	frac := ""
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		k := digitsEnd(s, j+1)
		if k+1 < len(s) && s[k] == '.' && isDigit(s[k+1]) {
			// "1.2.3", "10.0.0.1": a version or an address.
			k = j
			for k < len(s) && (isDigit(s[k]) || (s[k] == '.' && k+1 < len(s) && isDigit(s[k+1]))) {
				k++
			}
			return Number{}, k, false
		}
		frac = s[j+1 : k]
		j = k
	}

	if listMarker(s, start, j) {
		return Number{}, j + 1, false
	}

	// Suffixes: ordinal, percent, scale.
	end := j
	exp := 0
	pct := false
	if le := lettersEnd(s, j); le > j && !letterAt(s, le) && !(le < len(s) && isDigit(s[le])) {
		switch strings.ToLower(s[j:le]) {
		case "st", "nd", "rd", "th":
			return Number{}, le, false // "3rd"
		case "k":
			exp, end = 3, le
		case "m", "mn":
			exp, end = 6, le
		case "b", "bn":
			exp, end = 9, le
		case "tn":
			exp, end = 12, le
		}
	}
	if end == j {
		if pe, ok := percentSuffix(s, j); ok {
			pct, end = true, pe
		} else if w, we := nextSpacedWord(s, j); w != "" {
			switch strings.ToLower(w) {
			case "hundred":
				if frac == "" {
					exp, end = 2, we
					// "3 hundred thousand"
					if w2, we2 := nextSpacedWord(s, we); w2 != "" {
						if k := numWords[strings.ToLower(w2)]; k.kind == wScale {
							exp, end = 2+int(math.Log10(float64(k.val))+0.5), we2
						}
					}
				}
			case "thousand":
				exp, end = 3, we
			case "million", "mn":
				exp, end = 6, we
			case "billion", "bn":
				exp, end = 9, we
			case "trillion":
				exp, end = 12, we
			}
		}
	}

	n := Number{Text: s[start:end], Start: start, End: end, Percent: pct, Approx: hedged(s[:start])}
	lit := whole
	if frac != "" {
		lit += "." + frac
	}
	if exp != 0 {
		lit += "e" + strconv.Itoa(exp)
	}
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil && v == 0 { // cannot happen for digits; be safe
		return Number{}, end, false
	}
	if start < i {
		v = -v
	}
	n.Value = v
	switch {
	case frac != "":
		n.Decimals = len(frac) - exp
	case exp == 0 && isYearText(n.Text):
		n.Decimals = 0
	default:
		tz := 0
		if strings.Trim(whole, "0") != "" {
			tz = len(whole) - len(strings.TrimRight(whole, "0"))
		}
		switch {
		case n.Approx || exp > 0:
		case abs(v) < 1000:
			tz = 0 // "300 frames" is exact
		case len(whole) > 4 && j-i == len(whole):
			tz = 0 // "433102010" without separators: an id or an exact count
		}
		n.Decimals = -tz - exp
	}
	return n, end, true
}

// opensWord reports whether the text before a minus sign ends where a word
// may start: nothing, a space, or an opening bracket or quote.
func opensWord(before string) bool {
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return unicode.IsSpace(r) || strings.ContainsRune("([{\"'“‘/:=", r)
}

// percentSuffix reports whether a percent sign or word follows at i ("%",
// " %", " per cent", " percent", " percentage point(s)"), and where it ends.
func percentSuffix(s string, i int) (int, bool) {
	switch {
	case i < len(s) && s[i] == '%':
		return i + 1, true
	case strings.HasPrefix(s[i:], " %"):
		return i + 2, true
	}
	w, we := nextSpacedWord(s, i)
	switch strings.ToLower(w) {
	case "percent":
		return we, true
	case "per":
		if w2, we2 := nextSpacedWord(s, we); strings.EqualFold(w2, "cent") {
			return we2, true
		}
	case "percentage":
		if w2, we2 := nextSpacedWord(s, we); strings.EqualFold(w2, "point") || strings.EqualFold(w2, "points") {
			return we2, true
		}
	}
	return i, false
}

// nextSpacedWord returns the ASCII word after a single space at i, and its
// end.
func nextSpacedWord(s string, i int) (string, int) {
	if i >= len(s) || s[i] != ' ' {
		return "", i
	}
	e := lettersEnd(s, i+1)
	if e == i+1 || letterAt(s, e) || (e < len(s) && isDigit(s[e])) {
		return "", i
	}
	return s[i+1 : e], e
}

// listMarker reports whether the digits s[start:end] are a list marker at
// the start of a line or a section number at the start of a heading: one or
// two digits, optionally dotted ("2.1"), followed by "." or ")" and a space
// or the end of the line.
func listMarker(s string, start, end int) bool {
	if end >= len(s) || (s[end] != '.' && s[end] != ')') {
		return false
	}
	if end+1 < len(s) && s[end+1] != ' ' && s[end+1] != '\t' && s[end+1] != '\n' && s[end+1] != '\r' {
		return false
	}
	for _, part := range strings.Split(s[start:end], ".") {
		if len(part) == 0 || len(part) > 2 || digitsEnd(part, 0) != len(part) {
			return false
		}
	}
	// Only spaces, or a heading's "#"s and a space, before it on its line.
	k := start
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	if k == 0 || s[k-1] == '\n' || s[k-1] == '\r' {
		return true
	}
	if k == start { // "#" glued to the digits is a rank, handled before
		return false
	}
	h := k
	for h > 0 && s[h-1] == '#' {
		h--
	}
	if h == k {
		return false
	}
	for h > 0 && (s[h-1] == ' ' || s[h-1] == '\t') {
		h--
	}
	return h == 0 || s[h-1] == '\n' || s[h-1] == '\r'
}

// isYearText reports a year as written: four digits from 1900 to 2100,
// nothing else.
func isYearText(t string) bool {
	if len(t) != 4 || digitsEnd(t, 0) != 4 {
		return false
	}
	y, _ := strconv.Atoi(t)
	return 1900 <= y && y <= 2100
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// hedges are the words that make the figure after them approximate; the
// two-word hedges are keyed by their last word.
var (
	hedgeWords = map[string]bool{
		"about": true, "around": true, "roughly": true, "approximately": true,
		"approx": true, "nearly": true, "almost": true, "some": true,
		"over": true, "under": true, "circa": true, "ca": true,
	}
	hedgePairs = map[string][]string{
		"than":  {"more", "less", "fewer"},
		"to":    {"close", "up"},
		"least": {"at"},
		"most":  {"at"},
		"of":    {"upwards"},
	}
)

// hedged reports whether before ends with a hedge word (or "~", "≈") and
// spaces.
func hedged(before string) bool {
	if len(before) > 48 {
		before = before[len(before)-48:]
	}
	t := strings.TrimRight(before, " \t")
	if strings.HasSuffix(t, "~") || strings.HasSuffix(t, "≈") {
		return true
	}
	if len(t) == len(before) { // glued to the word before
		return false
	}
	t = strings.TrimSuffix(t, ".") // "approx.", "ca."
	w, rest := lastASCIIWord(t)
	if w == "" {
		return false
	}
	w = strings.ToLower(w)
	if hedgeWords[w] {
		return true
	}
	if firsts, ok := hedgePairs[w]; ok {
		w2, _ := lastASCIIWord(strings.TrimRight(rest, " \t"))
		for _, f := range firsts {
			if strings.EqualFold(w2, f) {
				return true
			}
		}
	}
	return false
}

// lastASCIIWord splits t before its last run of ASCII letters, which must
// end t and start a word.
func lastASCIIWord(t string) (word, rest string) {
	k := len(t)
	for k > 0 && isASCIILetter(t[k-1]) {
		k--
	}
	if k == len(t) {
		return "", t
	}
	if k > 0 {
		if r, _ := utf8.DecodeLastRuneInString(t[:k]); isWordRune(r) {
			return "", t
		}
	}
	return t[k:], t[:k]
}

// Kinds of number words.
const (
	wNone = iota
	wZero
	wUnit    // one to nine
	wTeen    // ten to nineteen
	wTen     // twenty to ninety
	wHundred // hundred
	wScale   // thousand, million, billion, trillion
	wDozen   // dozen
	wA       // "a" or "an" before hundred, a scale or dozen
)

type numWord struct {
	kind int
	val  int64
}

var (
	numWords = map[string]numWord{
		"zero": {wZero, 0}, "one": {wUnit, 1}, "two": {wUnit, 2}, "three": {wUnit, 3},
		"four": {wUnit, 4}, "five": {wUnit, 5}, "six": {wUnit, 6}, "seven": {wUnit, 7},
		"eight": {wUnit, 8}, "nine": {wUnit, 9}, "ten": {wTeen, 10}, "eleven": {wTeen, 11},
		"twelve": {wTeen, 12}, "thirteen": {wTeen, 13}, "fourteen": {wTeen, 14},
		"fifteen": {wTeen, 15}, "sixteen": {wTeen, 16}, "seventeen": {wTeen, 17},
		"eighteen": {wTeen, 18}, "nineteen": {wTeen, 19}, "twenty": {wTen, 20},
		"thirty": {wTen, 30}, "forty": {wTen, 40}, "fifty": {wTen, 50}, "sixty": {wTen, 60},
		"seventy": {wTen, 70}, "eighty": {wTen, 80}, "ninety": {wTen, 90},
		"hundred": {wHundred, 100}, "thousand": {wScale, 1e3}, "million": {wScale, 1e6},
		"billion": {wScale, 1e9}, "trillion": {wScale, 1e12}, "dozen": {wDozen, 12},
	}
	// notFigureWords end a spelled number that is an ordinal or a fraction:
	// "twenty-first", "two-thirds", "three quarters".
	notFigureWords = func() map[string]bool {
		m := map[string]bool{"half": true, "halves": true, "quarter": true, "quarters": true}
		for _, w := range []string{"first", "second", "third", "fourth", "fifth", "sixth",
			"seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth",
			"fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
			"nineteenth", "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth",
			"seventieth", "eightieth", "ninetieth", "hundredth", "thousandth",
			"millionth", "billionth"} {
			m[w], m[w+"s"] = true, true
		}
		return m
	}()
	// oneAfter are the words after which "one" is a pronoun.
	oneAfter = map[string]bool{"the": true, "this": true, "that": true, "each": true,
		"any": true, "every": true, "which": true, "no": true}
)

// wordAt returns the lower-cased ASCII word starting at i (in buf, valid
// until the next call) and its end; the word is empty when it has other
// letters or digits glued to it or is longer than any number word.
func wordAt(s string, i int, buf *[16]byte) ([]byte, int) {
	e := lettersEnd(s, i)
	if e == i || letterAt(s, e) || (e < len(s) && (isDigit(s[e]) || s[e] == '_')) {
		return nil, e
	}
	if e-i > len(buf) {
		return nil, e
	}
	for k := i; k < e; k++ {
		buf[k-i] = s[k] | 0x20
	}
	return buf[:e-i], e
}

// nextNumberWord returns the start of the word after the separator at i (one
// or more spaces or tabs, or one hyphen) and whether the separator was a
// hyphen; ok is false when no word follows.
func nextWordStart(s string, i int) (start int, hyphen, ok bool) {
	switch {
	case i < len(s) && s[i] == '-':
		i++
		hyphen = true
	case i < len(s) && (s[i] == ' ' || s[i] == '\t'):
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	default:
		return i, false, false
	}
	return i, hyphen, i < len(s) && isASCIILetter(s[i])
}

// readWords reads a spelled-out number starting at the ASCII letter at i,
// or skips the word there. It returns the figure, where to go on and
// whether there is a figure.
func readWords(s string, i int) (Number, int, bool) {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); isWordRune(r) {
			return Number{}, skipWord(s, i), false // mid-word ("a1b")
		}
	}
	var buf [16]byte
	w, e := wordAt(s, i, &buf)
	first, known := numWords[string(w)]
	if string(w) == "a" || string(w) == "an" {
		first, known = numWord{wA, 1}, true
	}
	if !known {
		return Number{}, skipWord(s, i), false
	}

	var total, current int64
	lastScale := int64(0)
	last := wNone
	end := i
	pos, word := i, first
	words := 0
	for {
		ok := false
		switch word.kind {
		case wA, wZero:
			ok = last == wNone
		case wUnit:
			ok = last == wNone || last == wTen || last == wHundred || last == wScale
		case wTeen, wTen:
			ok = last == wNone || last == wHundred || last == wScale
		case wHundred:
			ok = (last == wA || last == wUnit || last == wTeen || last == wTen) && current > 0 && current < 100
		case wScale:
			ok = last != wNone && last != wZero && last != wDozen && current > 0 &&
				(lastScale == 0 || word.val < lastScale)
		case wDozen:
			ok = last == wA || last == wUnit
		}
		if !ok {
			break
		}
		switch word.kind {
		case wA:
			current = 1
		case wUnit, wTeen, wTen:
			current += word.val
		case wHundred:
			current *= 100
		case wScale:
			total += current * word.val
			current, lastScale = 0, word.val
		case wDozen:
			current *= 12
		}
		last = word.kind
		words++
		_, end = wordAt(s, pos, &buf)
		if last == wZero || last == wDozen {
			break
		}
		// The next word: a number word, "and" and a number word, or an
		// ordinal or fraction that makes the whole phrase no figure.
		ns, hyphen, more := nextWordStart(s, end)
		if !more {
			break
		}
		nw, ne := wordAt(s, ns, &buf)
		if notFigureWords[string(nw)] {
			return Number{}, ne, false // "twenty-first", "two-thirds"
		}
		if string(nw) == "and" && !hyphen && (last == wHundred || last == wScale) {
			as, _, more := nextWordStart(s, ne)
			if !more {
				break
			}
			aw, _ := wordAt(s, as, &buf)
			if aword := numWords[string(aw)]; aword.kind == wUnit || aword.kind == wTeen || aword.kind == wTen {
				pos, word = as, aword
				continue
			}
			break
		}
		next, isNum := numWords[string(nw)]
		if !isNum {
			break
		}
		pos, word = ns, next
	}
	if last == wA || last == wNone { // "a" alone, "an"
		return Number{}, e, false
	}
	v := total + current
	if words == 1 && v == 1 && oneIsPronoun(s, i, end) {
		return Number{}, end, false
	}
	n := Number{Value: float64(v), Start: i, End: end, Approx: hedged(s[:i])}
	if pe, ok := percentSuffix(s, end); ok {
		n.Percent, n.End = true, pe
	}
	n.Text = s[n.Start:n.End]
	if v >= 1000 || n.Approx {
		for v != 0 && v%10 == 0 {
			v /= 10
			n.Decimals--
		}
	}
	return n, n.End, true
}

// oneIsPronoun reports whether the word "one" at s[i:end] is a pronoun or
// part of a compound rather than a count.
func oneIsPronoun(s string, i, end int) bool {
	if end < len(s) && s[end] == '-' {
		return true // "one-off", "one-sided"
	}
	var buf [16]byte
	if w, _ := lastASCIIWord(strings.TrimRight(s[:i], " \t")); w != "" && len(w) <= 16 {
		if oneAfter[strings.ToLower(w)] {
			return true
		}
	}
	ns, _, ok := nextWordStart(s, end)
	if !ok {
		return false
	}
	w, we := wordAt(s, ns, &buf)
	if string(w) == "another" {
		return true
	}
	if string(w) != "of" {
		return false
	}
	if ns, _, ok = nextWordStart(s, we); !ok {
		return false
	}
	w2, _ := wordAt(s, ns, &buf)
	return string(w2) == "the" || string(w2) == "its" || string(w2) == "their"
}
