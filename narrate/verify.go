package narrate

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Figures are what a wording may state: the numbers and place names of one
// computed answer. Build them with FiguresFrom; the zero Figures allow no
// number and, knowing no places, check none.
type Figures struct {
	// Numbers are the plain figures (not percentages): every facet value,
	// table cell, the headline's numbers, the frame count, a year shown in
	// a label.
	Numbers []float64
	// Percents are the figures shown as percentages (67 for "urban (67%)").
	Percents []float64
	// Places are the state, LGA and ward names the figures hold.
	Places []string
	// KnownPlaces are every state, LGA and ward name the service knows,
	// used to spot invented places; may be empty (no place check).
	KnownPlaces []string
	// Units are the units of length and area each plain figure is shown
	// with, by value (see UnitAfter): "km2" for "2.58 km²", "" for a figure
	// shown without one. A figure missing here is taken as shown without a
	// unit.
	Units map[float64][]string
}

// FiguresFrom collects Figures from the texts of a computed answer
// (headline, facet labels and values, table columns and cells), reading
// every number in them with Numbers: a percentage goes to Percents,
// anything else to Numbers, each value once. places and knownPlaces are
// kept as given (not copied). FiguresFrom keeps no reference to texts.
func FiguresFrom(texts []string, places, knownPlaces []string) Figures {
	f := Figures{Places: places, KnownPlaces: knownPlaces}
	seen := map[float64]bool{}
	seenPct := map[float64]bool{}
	for _, t := range texts {
		for _, n := range Numbers(t) {
			switch {
			case n.Percent && !seenPct[n.Value]:
				seenPct[n.Value] = true
				f.Percents = append(f.Percents, n.Value)
			case !n.Percent && !seen[n.Value]:
				seen[n.Value] = true
				f.Numbers = append(f.Numbers, n.Value)
			}
			if !n.Percent {
				f.addUnit(math.Abs(n.Value), UnitAfter(t, n.End))
			}
		}
	}
	return f
}

// addUnit records that figure v is shown with unit u, once.
func (f *Figures) addUnit(v float64, u string) {
	if f.Units == nil {
		f.Units = map[float64][]string{}
	}
	for _, x := range f.Units[v] {
		if x == u {
			return
		}
	}
	f.Units[v] = append(f.Units[v], u)
}

// unitWords are the units of length and area UnitAfter reads, longest
// first, with the unit each stands for.
var unitWords = []struct{ text, unit string }{
	{"square kilometres", "km2"}, {"square kilometers", "km2"}, {"square kilometre", "km2"}, {"square kilometer", "km2"},
	{"square km", "km2"}, {"sq. km", "km2"}, {"sq km", "km2"}, {"km²", "km2"}, {"km^2", "km2"}, {"km2", "km2"},
	{"square miles", "mi2"}, {"square mile", "mi2"}, {"sq mi", "mi2"}, {"mi²", "mi2"},
	{"square metres", "m2"}, {"square meters", "m2"}, {"m²", "m2"}, {"m2", "m2"},
	{"hectares", "ha"}, {"hectare", "ha"}, {"ha", "ha"},
	{"kilometres", "km"}, {"kilometers", "km"}, {"kilometre", "km"}, {"kilometer", "km"}, {"kms", "km"}, {"km", "km"},
	{"metres", "m"}, {"meters", "m"}, {"metre", "m"}, {"meter", "m"}, {"m", "m"},
	{"miles", "mi"}, {"mile", "mi"}, {"mi", "mi"},
}

// UnitAfter reads the unit of length or area written right after a
// number ending at byte end of s, after spaces: "km2" for "km²", "km2",
// "sq km" or "square kilometres"; "km", "ha", "m", "m2", "mi", "mi2"; ""
// when none follows (a unit must end at a word boundary: "kms" is km,
// "kmh" is none).
func UnitAfter(s string, end int) string {
	if end < 0 || end > len(s) {
		return ""
	}
	rest := strings.TrimLeft(s[end:], " \u00a0")
	for _, u := range unitWords {
		if len(rest) < len(u.text) || !strings.EqualFold(rest[:len(u.text)], u.text) {
			continue
		}
		after := rest[len(u.text):]
		if r, _ := utf8.DecodeRuneInString(after); after == "" || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return u.unit
		}
	}
	return ""
}

// Verdict is the outcome of Verify.
type Verdict struct {
	// OK is true when the wording may be kept.
	OK bool
	// Reason says what failed, for the log: the number or place as the
	// wording wrote it, or the missing report structure. It never holds the
	// question and is empty when OK.
	Reason string
}

// Verify checks wording against the figures it was written from. It is
// safe for concurrent use, never panics and keeps nothing of its inputs.
// One failure fails the whole wording; the Reason names the first.
//
// Every number Numbers finds in the wording must be one of the figures:
//   - a percentage matches only Percents, any other number only Numbers:
//     "45%" never passes for 45 people and "45 people" never for 45%;
//   - it passes when it equals a figure (its sign aside: "fell by 3.5" for
//     -3.5), or when a figure rounded half away from zero to the place the
//     wording shows (Number.Decimals) gives it: "about 12,000", "12k" and
//     "twelve thousand" for 12,345; "12.3" for 12.345; "1.2 million" for
//     1,234,567; "67%" for 66.67%. "13,500", "12.4" or "12,354" for those
//     figures fail, as do sums, differences and averages that are not
//     figures themselves;
//   - a year as written (four digits, 1900 to 2100, no separator: "2020")
//     passes only when the figures hold that very number; it is never
//     rounded;
//   - a range ("between 1,000 and 2,000") is two numbers, each checked;
//   - a number written with a unit of length or area (UnitAfter: "2.6
//     km²", "3 hectares", "4.1 km") fails when every figure it matches is
//     shown with another such unit ("2.58 km²" written as "2.6
//     hectares"); a figure shown without one (a table cell) does not
//     object.
//
// Every name of KnownPlaces found in the wording must lie within a name of
// Places found there. Names match as whole words, ignoring case and
// punctuation between words ("Ado-Ekiti" and "Ado Ekiti" are one name),
// but only where the wording starts the name with a capital letter, since
// place names are proper nouns ("central" is no ward; "Central" may be).
// "Kano" inside an allowed "Kano Municipal" passes.
//
// With report set, the wording must have at least one line starting "## "
// (a section title) and at least one line starting "- " (an item), leading
// spaces aside. Empty wording fails.
func Verify(wording string, f Figures, report bool) Verdict {
	if strings.TrimSpace(wording) == "" {
		return Verdict{Reason: "wording is empty"}
	}
	if report {
		title, item := false, false
		for line := range strings.Lines(wording) {
			line = strings.TrimLeft(line, " \t")
			title = title || strings.HasPrefix(line, "## ")
			item = item || strings.HasPrefix(line, "- ")
		}
		if !title {
			return Verdict{Reason: `report has no "## " section title`}
		}
		if !item {
			return Verdict{Reason: `report has no "- " list item`}
		}
	}
	for _, n := range Numbers(wording) {
		if !f.allows(n) {
			return Verdict{Reason: reasonFor(n)}
		}
		if u := UnitAfter(wording, n.End); u != "" && !n.Percent && !f.allowsUnit(n, u) {
			return Verdict{Reason: "number " + strconv.Quote(n.Text) + " is written in " + u + "; its figure is in " +
				strings.Join(f.Units[f.match(n)], ", ")}
		}
	}
	if name := f.strayPlace(wording); name != "" {
		return Verdict{Reason: "place " + strconv.Quote(name) + " is not in the figures"}
	}
	return Verdict{OK: true}
}

// reasonFor says why n failed.
func reasonFor(n Number) string {
	q := strconv.Quote(n.Text)
	switch {
	case n.Percent:
		return "percentage " + q + " matches no percentage figure"
	case isYearText(n.Text):
		return "year " + q + " is not in the figures"
	}
	return "number " + q + " matches no figure"
}

// allowsUnit reports whether some figure n states is shown with unit u or
// without a unit.
func (f Figures) allowsUnit(n Number, u string) bool {
	any := false
	for _, c := range f.Numbers {
		if !f.states(n, c) {
			continue
		}
		any = true
		us, ok := f.Units[math.Abs(c)]
		if !ok {
			return true
		}
		for _, x := range us {
			if x == u || x == "" {
				return true
			}
		}
	}
	return !any
}

// match is the first figure n states (for a reason), 0 when none.
func (f Figures) match(n Number) float64 {
	for _, c := range f.Numbers {
		if f.states(n, c) {
			return math.Abs(c)
		}
	}
	return 0
}

// states reports whether n states the single figure c.
func (f Figures) states(n Number, c float64) bool {
	g := Figures{Numbers: []float64{c}}
	return g.allows(n)
}

// allows reports whether n states one of the figures.
func (f Figures) allows(n Number) bool {
	cands := f.Numbers
	if n.Percent {
		cands = f.Percents
	}
	v := math.Abs(n.Value)
	for _, c := range cands {
		if math.Abs(c) == v {
			return true
		}
	}
	if isYearText(n.Text) || math.IsInf(v, 0) || math.IsNaN(v) {
		return false
	}
	p := n.Decimals
	if p > 340 || p < -340 {
		return false
	}
	scale := math.Pow10(p)
	want := v * scale
	if math.IsInf(want, 0) || want > 1<<53 || (v != 0 && want == 0) {
		return false
	}
	want = math.Round(want)
	for _, c := range cands {
		x := math.Abs(c) * scale
		if math.IsInf(x, 0) || math.IsNaN(x) {
			continue
		}
		// Half away from zero, forgiving the binary error of figures such
		// as 12.345 (stored as 12.34499…).
		if math.Floor(x+0.5+1e-9*math.Max(1, x)) == want {
			return true
		}
	}
	return false
}

// strayPlace returns the first name of KnownPlaces the wording holds
// outside every name of Places it holds, or "".
func (f Figures) strayPlace(wording string) string {
	if len(f.KnownPlaces) == 0 {
		return ""
	}
	words := splitWords(wording)
	if len(words) == 0 {
		return ""
	}
	// Every run of up to maxNameWords words starting with a capitalised
	// word, by its key.
	grams := map[string][]span{}
	var key []byte
	for i, w := range words {
		if !w.capital {
			continue
		}
		key = key[:0]
		for n := 1; n <= maxNameWords && i+n <= len(words); n++ {
			if n > 1 {
				key = append(key, ' ')
			}
			key = append(key, words[i+n-1].lower...)
			k := string(key)
			grams[k] = append(grams[k], span{i, i + n})
		}
	}
	var allowed []span
	var buf []byte
	for _, p := range f.Places {
		buf = appendKey(buf[:0], p, 0)
		allowed = append(allowed, grams[string(buf)]...)
	}
	for _, p := range f.KnownPlaces {
		// Most names do not start with any word of the wording: look at
		// the first word before keying the whole name.
		buf = appendKey(buf[:0], p, 1)
		if _, ok := grams[string(buf)]; !ok {
			continue
		}
		buf = appendKey(buf[:0], p, 0)
		for _, sp := range grams[string(buf)] {
			if !within(sp, allowed) {
				return p
			}
		}
	}
	return ""
}

// PlacesIn returns the names of known that texts hold as whole words,
// case and punctuation between words aside ("Kano" in "2 of the 3
// selected frames have state Kano"): places an answer's own figures name,
// which its wording may name too. Safe for concurrent use.
func PlacesIn(texts []string, known []string) []string {
	if len(known) == 0 {
		return nil
	}
	grams := map[string]bool{}
	var key []byte
	for _, t := range texts {
		words := splitWords(t)
		for i := range words {
			key = key[:0]
			for n := 1; n <= maxNameWords && i+n <= len(words); n++ {
				if n > 1 {
					key = append(key, ' ')
				}
				key = append(key, words[i+n-1].lower...)
				grams[string(key)] = true
			}
		}
	}
	var out []string
	var buf []byte
	for _, p := range known {
		buf = appendKey(buf[:0], p, 0)
		if len(buf) > 0 && grams[string(buf)] {
			out = append(out, p)
		}
	}
	return out
}

// maxNameWords is the most words a place name is matched over.
const maxNameWords = 6

type span struct{ from, to int } // word indexes, to exclusive

func within(sp span, allowed []span) bool {
	for _, a := range allowed {
		if a.from <= sp.from && sp.to <= a.to {
			return true
		}
	}
	return false
}

type word struct {
	lower   string
	capital bool
}

// splitWords splits s into its runs of letters and digits, lower-cased,
// each marked when it starts with an upper-case letter.
func splitWords(s string) []word {
	var out []word
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r2, n := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
				break
			}
			j += n
		}
		out = append(out, word{lower: strings.ToLower(s[i:j]), capital: unicode.IsUpper(r)})
		i = j
	}
	return out
}

// appendKey appends the key of a place name: its runs of letters and
// digits, lower-cased, joined by single spaces; only the first words of
// them when words > 0.
func appendKey(buf []byte, name string, words int) []byte {
	n := 0
	for i := 0; i < len(name); {
		if size := alnumAt(name, i); size == 0 {
			i += max(1, runeLen(name, i))
			continue
		}
		if n == words && words > 0 {
			break
		}
		if n > 0 {
			buf = append(buf, ' ')
		}
		n++
		for i < len(name) {
			c := name[i]
			if c < utf8.RuneSelf {
				if !isASCIIAlnum(c) {
					break
				}
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(name[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			i += size
		}
	}
	return buf
}

func isASCIIAlnum(c byte) bool { return isDigit(c) || isASCIILetter(c) }

// alnumAt returns the byte length of the letter or digit at i, or 0.
func alnumAt(s string, i int) int {
	if s[i] < utf8.RuneSelf {
		if isASCIIAlnum(s[i]) {
			return 1
		}
		return 0
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return size
	}
	return 0
}

// runeLen returns the byte length of the rune at i.
func runeLen(s string, i int) int {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size
}
