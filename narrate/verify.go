package narrate

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Figures are what a wording may state: the numbers and place names of one
// computed answer, each number with what it is (List). Build them with
// FiguresFrom (texts read as sentences) and Add (figures the engine
// typed); the zero Figures allow no number and, knowing no places, check
// none.
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
	// List is every figure with what it is: unit, subject, label, kind.
	// Verify checks claims against it (Numbers and Percents alone, when it
	// is empty, as figures of unknown unit).
	List []Figure
	// Frames is the number of selected frames and Rows the number of table
	// rows: ordinals may not exceed them. 0 leaves ordinals unchecked.
	Frames, Rows int
	// Values are category values and places the answer names ("rural",
	// "Gaya"), besides Places and the subjects of List: a number said of
	// one of them must not be another's.
	Values []string
}

// Figure is one computed figure and what it is (see insight.Figure, whose
// fields it mirrors once read).
type Figure struct {
	// Value is the figure as shown, before any percent sign; Decimals the
	// place it is shown to (Number.Decimals); Percent set for a
	// percentage; Text as shown.
	Value    float64
	Decimals int
	Percent  bool
	Text     string
	// Unit is the canonical unit (CanonicalUnit): "people", "km2",
	// "people/km2", "%frames", "lgas"; "" when unknown (a claim in any
	// unit may state it).
	Unit string
	// Subject is what it is of: "" the selection, "frame ID", "value
	// NAME" (the frames holding a category value or place), "subset" (the
	// frames meeting a condition), "dataset" (a whole dataset).
	Subject string
	// Label is the facet label or table column it is shown under.
	Label string
	// Kind is how it may be stated: "" a measure, "count", "names",
	// "condition", "scale", "rank", "id", "coordinate", "name", "year".
	Kind string
}

// Figure kinds, as insight names them, and "year".
const (
	KindMeasure    = ""
	KindCount      = "count"
	KindPart       = "part"
	KindNames      = "names"
	KindCondition  = "condition"
	KindScale      = "scale"
	KindRank       = "rank"
	KindID         = "id"
	KindCoordinate = "coordinate"
	KindName       = "name"
	KindYear       = "year"
)

// NewFigure reads a figure shown as text ("86,556", "67%", "0.85") with
// what it is: unit in words (read with CanonicalUnit), subject, label and
// kind as insight.Figure gives them. ok is false when text holds no
// number; a text of several numbers gives the first. Safe for concurrent
// use.
func NewFigure(text, unit, subject, label, kind string) (Figure, bool) {
	ns := Numbers(text)
	if len(ns) == 0 {
		return Figure{}, false
	}
	n := ns[0]
	u := CanonicalUnit(unit)
	switch {
	case n.Percent && !strings.HasPrefix(u, "%"):
		u = "%"
	case !n.Percent && strings.HasPrefix(u, "%"):
		n.Percent = true // a measure whose unit is a percentage
	}
	return Figure{Value: n.Value, Decimals: n.Decimals, Percent: n.Percent, Text: n.Text, Unit: u,
		Subject: subject, Label: label, Kind: kind}, true
}

// Add adds a figure to f, to List and to Numbers or Percents (once each).
func (f *Figures) Add(g Figure) {
	f.List = append(f.List, g)
	if g.Percent {
		if !containsFloat(f.Percents, g.Value) {
			f.Percents = append(f.Percents, g.Value)
		}
		return
	}
	if !containsFloat(f.Numbers, g.Value) {
		f.Numbers = append(f.Numbers, g.Value)
	}
}

// AddShown reads texts an answer shows (facet values, table cells) whose
// numbers Add should have covered: a number no figure of List holds is
// added as a name's digit ("Ward 6"), which a wording may write only
// without a unit.
func (f *Figures) AddShown(texts ...string) {
	for _, t := range texts {
		for _, n := range Numbers(t) {
			held := false
			for _, g := range f.List {
				if g.Percent == n.Percent && g.Value == n.Value && (g.Kind == KindName || !nameDigitAt(t, n)) {
					held = true
					break
				}
			}
			if !held {
				f.Add(Figure{Value: n.Value, Decimals: n.Decimals, Percent: n.Percent, Text: n.Text, Kind: KindName, Label: t})
			}
		}
	}
}

// nameDigitAt reports a number of t that ends a name: right after a
// capitalised word and a space ("Ward 6", "Clinic 20").
func nameDigitAt(t string, n Number) bool {
	if n.Start < 2 || t[n.Start-1] != ' ' || len(n.Text) > 3 {
		return false
	}
	w := strings.LastIndexByte(t[:n.Start-1], ' ')
	return firstRuneUpper(t[w+1 : n.Start-1])
}

func containsFloat(xs []float64, v float64) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// FiguresFrom collects Figures from the texts of a computed answer
// (headline, facet labels and values, table columns and cells), reading
// every number in them with Numbers: a percentage goes to Percents,
// anything else to Numbers, each value once. Each text is also read as a
// wording is (ReadClaims), so List holds every number with the unit,
// hedge and subject the text gives it: "21,500 people (frame 1)" is a
// figure of people of frame 1; a hedged number ("at least 5,000 people")
// is a condition. places and knownPlaces are kept as given (not copied).
// FiguresFrom keeps no reference to texts.
func FiguresFrom(texts []string, places, knownPlaces []string) Figures {
	f := Figures{Places: places, KnownPlaces: knownPlaces}
	f.AddTexts(texts...)
	return f
}

// AddTexts reads texts as FiguresFrom does and adds their numbers.
func (f *Figures) AddTexts(texts ...string) {
	seen := map[float64]bool{}
	for _, v := range f.Numbers {
		seen[v] = true
	}
	seenPct := map[float64]bool{}
	for _, v := range f.Percents {
		seenPct[v] = true
	}
	// Frame ids first: an id anywhere in the texts marks it wherever it
	// is named.
	cx := f.context()
	for _, t := range texts {
		for _, n := range Numbers(t) {
			if isIDText(n.Text) {
				cx.ids[n.Text] = true
			}
		}
	}
	for _, t := range texts {
		claims, _ := readClaims(t, cx)
		for _, c := range claims {
			f.List = append(f.List, figureOf(c))
		}
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
}

// AddSentences reads sentences of an answer whose facets and table are in
// List already (headline, detail, labels): as AddTexts, but a number read
// without a unit (or a percentage of nothing named) is added only when no
// figure of List holds it, so that what the typed figure says of it
// stands.
func (f *Figures) AddSentences(texts ...string) {
	typed := len(f.List)
	var g Figures
	g.Places, g.Values, g.List = f.Places, f.Values, f.List
	g.AddTexts(texts...)
	for _, x := range g.List[typed:] {
		if x.Unit == "" || x.Unit == "%" {
			held := false
			for _, y := range f.List[:typed] {
				if y.Percent == x.Percent && y.Value == x.Value {
					held = true
					break
				}
			}
			if held {
				continue
			}
		}
		f.Add(x)
	}
}

// figureOf is a claim of an answer's own text as a figure.
func figureOf(c Claim) Figure {
	g := Figure{Value: c.Value, Decimals: c.Decimals, Percent: c.Percent, Text: c.Text, Unit: strings.TrimPrefix(c.Unit, "~")}
	switch {
	case c.InName && c.Unit == "":
		g.Kind = KindName
	case c.Role == RoleID:
		g.Kind = KindID
	case c.Role == RoleYear:
		g.Kind = KindYear
	case c.Role == RoleScale:
		g.Kind = KindScale
	case c.Hedge != HedgeNone && c.Hedge != HedgeExactly:
		g.Kind = KindCondition
	case c.Part && (g.Unit == uFrames || g.Unit == uID || g.Unit == ""):
		g.Kind = KindPart
	case g.Unit == uFrames || g.Unit == uID:
		g.Kind = KindCount
	}
	switch {
	case len(c.Frames) == 1:
		g.Subject = "frame " + c.Frames[0]
	case len(c.Frames) == 0 && len(c.Names) == 1:
		g.Subject = "value " + c.Names[0]
	}
	if c.Role == RoleID && len(c.Frames) == 0 {
		g.Subject = "frame " + digitsOf(c.Text)
	}
	return g
}

// context is what reading a wording needs of the figures: frame ids, the
// names of places and category values, the words of their units.
func (f Figures) context() *readContext {
	cx := &readContext{ids: map[string]bool{}, names: map[string]string{}, nameFirst: map[string]bool{}, units: map[string]string{}}
	var buf []byte
	addName := func(name string) {
		buf = appendKey(buf[:0], name, 0)
		if len(buf) == 0 {
			return
		}
		k := string(buf)
		if _, ok := cx.names[k]; !ok {
			cx.names[k] = name
		}
		first, _, _ := strings.Cut(k, " ")
		cx.nameFirst[first] = true
	}
	for _, p := range f.Places {
		addName(p)
	}
	for _, p := range f.Values {
		addName(p)
	}
	for _, g := range f.List {
		switch {
		case g.Kind == KindID || isIDText(g.Text):
			if d := digitsOf(g.Text); d != "" {
				cx.ids[d] = true
			}
		case strings.HasPrefix(g.Subject, "value "):
			addName(g.Subject[len("value "):])
		}
		if g.Unit != "" && !strings.ContainsAny(g.Unit, "/%") && lexicon[g.Unit] == "" && !knownUnit[g.Unit] {
			cx.units[g.Unit] = g.Unit
			if w := singularWord(g.Unit); w != g.Unit {
				cx.units[w] = g.Unit
			}
		}
	}
	return cx
}

// isIDText reports a frame id as written: five digits or more and
// nothing else. The engine groups every other number of that size
// ("86,556").
func isIDText(t string) bool {
	if len(t) < 5 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isDigit(t[i]) {
			return false
		}
	}
	return true
}

// knownUnit are the canonical units and classes.
var knownUnit = map[string]bool{uPeople: true, uBuildings: true, uFacilities: true, uFeatures: true, uFrames: true,
	uStates: true, uLGAs: true, uWards: true, uDatasets: true, uID: true, uRank: true, uDegrees: true, uRadiance: true,
	uYear: true, "km2": true, "ha": true, "m2": true, "mi2": true, "km": true, "m": true, "mi": true}

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
