package plan

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Roles a word may have (Word.Role).
const (
	RoleMeasure  = "measure"
	RoleAgg      = "agg"
	RoleFilter   = "filter"
	RoleDistance = "distance"
	RoleGroup    = "group"
	RoleOrder    = "order"
	RolePlace    = "place"
	RoleFormat   = "format"
	RoleRegister = "register"
	RoleFunction = "function"
	RoleUnread   = "unread"
)

// DefaultK is how many frames (or groups) a ranking lists unless the
// question says.
const DefaultK = 3

// maxK bounds the K of a ranking.
const maxK = 100

// Parse reads question against cat into a Plan. It never fails: a
// question it cannot place is AggUnsupported, and every word is given a
// role (Plan.Words), so that Confidence can tell a plan that read the
// whole question from one that did not. A nil cat reads against an empty
// catalogue.
//
// Parse is safe for concurrent use; it keeps nothing of question and
// never changes cat's exported fields.
func Parse(question string, cat *Catalogue) *Plan {
	return ParseWith(question, cat, nil)
}

// mention is a measure, category value or features dataset the question
// names over words [start, end).
type mention struct {
	start, end int
	m          int    // measure index, -1 for a feature set alone
	f          int    // feature set, -1 when none
	value      string // a category value named
	via        string
	role       string // "" until a part of the plan takes it
	extra      []int  // further words read with it (a match by meaning)
}

// cmp is a comparison with a number found in the words.
type cmp struct {
	op         Op
	v1, v2     float64
	start, end int
}

// reader holds one parse.
type reader struct {
	cat  *Catalogue
	ix   *index
	emb  *Embeddings // nil: lexical reading only
	q    string      // the question
	ts   []tok
	role []string
	at   []int // mention index per word, -1 when none
	ms   []*mention
	op   []bool // words of a comparison, bound or not: never ranking words
	p    *Plan

	fixed       []bool // a misspelt grammar word read as its correction
	per         string // density unit named
	perAt       []int
	dense       []int // density words
	sparse      bool
	ratio       *ratioRead
	aggWords    map[Agg][]int
	extreme     []int // "most", "highest"...: the first decides
	high        bool
	k           int
	kAt         []int
	rank        bool
	which       int // index of "which"/"what" when it asks for frames or groups, -1
	plural      bool
	compare     []int
	profile     []int
	nearFar     Agg
	nearAt      []int
	howMany     []int // "how many", "number of": a total or a count
	countAt     []int // "how many frames": a count of frames
	perFrame    []int // "per frame"
	stemExtreme bool  // a measure read from an extreme ("brightest")
	fromWhich   bool  // the group was read from "which state"
	denseSup    bool  // "densest", "sparsest": an extreme of density
}

// ratioRead is "X per (scale) Y" as read.
type ratioRead struct {
	x, y   *mention
	scale  float64
	words  []int
	yRole  bool // y was read from "per capita" wording, not a mention
	ym     int
	yWords []int
	yMatch string // how y was read: "capita" when no word names it
}

func (r *reader) read() {
	n := len(r.ts)
	r.p = &Plan{Words: make([]Word, n), Register: "plain", Format: "answer", Join: "and"}
	r.role = make([]string, n)
	r.at = make([]int, n)
	r.op = make([]bool, n)
	r.fixed = make([]bool, n)
	r.which = -1
	r.aggWords = map[Agg][]int{}
	for i, t := range r.ts {
		r.p.Words[i] = Word{Text: t.text, Start: t.start}
		r.at[i] = -1
	}
	r.mentions()
	r.spellings()
	r.places()
	r.comparisons()
	r.negations()
	r.presence()
	r.values()
	r.groups()
	r.perWords()
	r.aggregations()
	r.nearestOfConcept()
	r.byMeaning()
	r.decide()
	r.years()
	r.registerAndFormat()
	if n >= maxTokens && r.q != "" && r.ts[n-1].start+len(r.ts[n-1].text) < len(strings.TrimRight(r.q, " ?.!")) {
		r.p.Notes = append(r.p.Notes, "Only the first "+strconv.Itoa(maxTokens)+" words were read.")
	}
	r.finish()
}

// free reports a word no part of the plan and no mention took.
func (r *reader) free(i int) bool {
	return i >= 0 && i < len(r.ts) && r.role[i] == "" && r.at[i] < 0
}

// low is the word at i, "" out of range.
func (r *reader) low(i int) string {
	if i < 0 || i >= len(r.ts) {
		return ""
	}
	return r.ts[i].low
}

func (r *reader) sing(i int) string {
	if i < 0 || i >= len(r.ts) {
		return ""
	}
	return r.ts[i].sing
}

// claim gives the free words of [i, j) role and returns their indexes.
func (r *reader) claim(i, j int, role string) []int {
	var out []int
	for k := max(i, 0); k < j && k < len(r.ts); k++ {
		if r.role[k] == "" && r.at[k] < 0 {
			r.role[k] = role
			out = append(out, k)
		}
	}
	return out
}

// take gives a mention's words role and returns the plan's Measure.
func (r *reader) take(m *mention, role string) Measure {
	m.role = role
	var ws []int
	for k := m.start; k < m.end; k++ {
		r.role[k] = role
		ws = append(ws, k)
	}
	for _, k := range m.extra {
		if r.free(k) {
			r.role[k] = role
			ws = append(ws, k)
		}
	}
	if m.m < 0 {
		return Measure{Match: m.via, Words: ws}
	}
	mi := r.cat.Measures[m.m]
	return Measure{Dataset: mi.Dataset, Attribute: mi.Attribute, Match: m.via, Words: ws}
}

// mentionEndingAt is the untaken mention ending just before word i.
func (r *reader) mentionEndingAt(i int) *mention {
	if i <= 0 || i > len(r.ts) || r.at[i-1] < 0 {
		return nil
	}
	m := r.ms[r.at[i-1]]
	if m.end != i || m.role != "" {
		return nil
	}
	return m
}

// mentionAt is the untaken mention starting at word i.
func (r *reader) mentionAt(i int) *mention {
	if i < 0 || i >= len(r.ts) || r.at[i] < 0 {
		return nil
	}
	m := r.ms[r.at[i]]
	if m.start != i || m.role != "" {
		return nil
	}
	return m
}

// skip returns the first index from i whose word is not in ws (and is
// free).
func (r *reader) skip(i int, ws map[string]bool) int {
	for i < len(r.ts) && r.free(i) && ws[r.low(i)] {
		i++
	}
	return i
}

var articles = set("a", "an", "the", "any", "single", "one", "some")

// mentions finds the measures, values and features datasets the
// question names: longest first, a value before the measure it belongs
// to, a name before an alias before a synonym.
func (r *reader) mentions() {
	type cand struct {
		start int
		t     *term
	}
	var cands []cand
	for i := range r.ts {
		for _, t := range r.ix.byFirst[r.ts[i].sing] {
			if r.phrase(i, t.words) {
				cands = append(cands, cand{i, t})
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		x, y := cands[a], cands[b]
		if lx, ly := len(x.t.words), len(y.t.words); lx != ly {
			return lx > ly
		}
		if x.t.rank != y.t.rank {
			return x.t.rank < y.t.rank
		}
		return x.start < y.start
	})
	for _, c := range cands {
		end := c.start + len(c.t.words)
		ok := true
		for k := c.start; k < end; k++ {
			if r.at[k] >= 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		r.addMention(&mention{start: c.start, end: end, m: c.t.m, f: c.t.f, value: c.t.value, via: c.t.via})
	}
	// Inflections and stems: "populated", "brightest", "urbanised".
	for i, t := range r.ts {
		if r.at[i] >= 0 || functionWords[t.low] {
			continue
		}
		if c, ok := inflections[t.low]; ok {
			if mi, ok := r.ix.concept[c]; ok {
				r.addMention(&mention{start: i, end: i + 1, m: mi, f: r.ix.featOf[mi], via: "inflection"})
			}
			continue
		}
		for _, s := range stems {
			if strings.HasPrefix(t.low, s.prefix) {
				if mi, ok := r.ix.concept[s.concept]; ok {
					r.addMention(&mention{start: i, end: i + 1, m: mi, f: r.ix.featOf[mi], via: "stem"})
				}
				break
			}
		}
	}
}

func (r *reader) addMention(m *mention) {
	r.ms = append(r.ms, m)
	for k := m.start; k < m.end; k++ {
		r.at[k] = len(r.ms) - 1
	}
}

// phrase reports whether the singular words from i are ws.
func (r *reader) phrase(i int, ws []string) bool {
	if i+len(ws) > len(r.ts) {
		return false
	}
	for k, w := range ws {
		if r.ts[i+k].sing != w {
			return false
		}
	}
	return true
}

// grammarVocab holds the words of the grammar's phrases.
var grammarVocab = func() map[string]bool {
	out := set("per", "each", "every", "by", "from", "than", "between", "within", "beyond", "away", "capita",
		"square", "sq", "nobody", "noone", "remote", "distant", "isolated", "far", "further", "farther",
		"closer", "nearer", "outside", "inside", "equal", "excess", "upward", "upwards", "plus", "or",
		"where", "whose", "having", "among", "free", "devoid", "many", "how", "number", "count")
	for _, cs := range [][]comparison{prefixOps, postfixOps} {
		for _, c := range cs {
			for _, w := range c.words {
				out[w] = true
			}
		}
	}
	for _, m := range []map[string]bool{liveWords, perPerson, frameNouns, featureNouns, statWords, groupWords} {
		for w := range m {
			out[w] = true
		}
	}
	for w := range areaUnit {
		out[w] = true
	}
	for w := range inflections {
		out[w] = true
	}
	return out
}()

// known reports a word the grammar reads without a catalogue.
func known(w string) bool {
	if grammarVocab[w] {
		return true
	}
	if functionWords[w] || meanWords[w] || medianWords[w] || totalWords[w] || shareWords[w] || ratioWords[w] ||
		densWords[w] || compareWords[w] || profileWords[w] || highWords[w] || lowWords[w] || rankWords[w] ||
		reportWords[w] || nearWords[w] || farWords[w] || kmWords[w] || negWords[w] || negHave[w] || gisWords[w] {
		return true
	}
	_, num := numberWords[w]
	_, mult := multipliers[w]
	return num || mult || featureNouns[w]
}

// spellings reads the words of five letters or more that nothing knows
// as the measure or grammar word they misspell (same first letter,
// optimal-string-alignment distance 1 for 5 to 7 letters, 2 from 8).
func (r *reader) spellings() {
	for i, t := range r.ts {
		w := t.low
		if r.at[i] >= 0 || len(w) < 5 || !isASCIILetters(w) || known(w) || known(t.sing) || grammarWord(t.sing) || statWords[w] {
			continue
		}
		best, bestD := -1, 3
		budget := TypoBudget(len(w))
		for k, f := range r.ix.fuzzy {
			if f.word[0] != w[0] {
				continue
			}
			if d := EditDistance(w, f.word, budget); d <= budget && d < bestD {
				best, bestD = k, d
			}
		}
		if best < 0 {
			continue
		}
		f := r.ix.fuzzy[best]
		if f.t == nil {
			if f.word != w {
				r.ts[i].low, r.ts[i].sing = f.word, Singular(f.word)
				r.fixed[i] = true
			}
			continue
		}
		r.addMention(&mention{start: i, end: i + 1, m: f.t.m, f: f.t.f, value: f.t.value, via: "spelling"})
	}
	sort.SliceStable(r.ms, func(a, b int) bool { return r.ms[a].start < r.ms[b].start })
	for k, m := range r.ms {
		for i := m.start; i < m.end; i++ {
			r.at[i] = k
		}
	}
}

// grammarWord reports a word the grammar reads that known does not
// list (phrases' words).
func grammarWord(w string) bool {
	switch w {
	case "between", "within", "than", "above", "below", "under", "over", "exceeding", "beyond", "without",
		"capita", "hectare", "square", "frames", "remote", "distant", "isolated", "away", "further", "farther",
		"closer", "nearer", "outside", "inside", "plus", "equal", "excess", "upward", "upwards":
		return true
	}
	return false
}

// places reads place names: the caller's lookup, and values of the
// administrative categories (state, LGA, ward). A kind word after a
// place ("Dala LGA", "Kano State") is read with it.
func (r *reader) places() {
	n := len(r.ts)
	texts := make([]string, n)
	for i, t := range r.ts {
		texts[i] = t.text
	}
	for i := 0; i < n; i++ {
		end := 0
		if set("a", "an", "any", "some", "every", "each", "no")[r.low(i-1)] {
			continue // "near a river": a common noun, not a place named
		}
		if r.cat.Place != nil && (r.free(i) || r.at[i] >= 0 && r.ms[r.at[i]].value != "") && !r.ts[i].sym && !r.ts[i].isNum &&
			!known(r.ts[i].low) && !grammarWord(r.ts[i].low) {
			if k, ok := r.cat.Place(texts[i:]); ok && k > 0 {
				end = min(i+k, n)
			}
		}
		if m := r.mentionAt(i); end == 0 && m != nil && m.value != "" && adminConcepts[r.ix.conceptOf[m.m]] && sameWords(r.ts[m.start:m.end], m.value) &&
			!(r.cased() && lowerFirst(r.ts[m.start].text)) {
			end = m.end
		}
		if end == 0 {
			continue
		}
		for j := i; j < end; j++ {
			if r.at[j] >= 0 {
				m := r.ms[r.at[j]]
				m.role = RolePlace
				for x := m.start; x < m.end; x++ {
					r.at[x] = -1
				}
			}
		}
		name := strings.TrimSpace(joinText(r.ts[i:end]))
		r.claim(i, end, RolePlace)
		// The kind after the name: "LGA", "State", "local government area".
		if m := r.mentionAt(end); m != nil && m.value == "" && m.m >= 0 && adminConcepts[r.ix.conceptOf[m.m]] {
			r.take(m, RolePlace)
			end = m.end
		}
		r.p.Places = append(r.p.Places, name)
		i = end - 1
	}
	r.unknownPlaces()
}

// placeLead are the words before a place's name: "in Dala", "population
// of Garki", "for Fagge".
var placeLead = set("in", "of", "for", "inside", "around", "across")

// unknownPlaces reads a capitalised name that no catalogue knows as a
// place all the same, when the question puts it where a place goes:
// after "in", "of", "for" ("How many people live in Fagge?"), or before
// a place's kind ("Dala LGA"). The caller's check then finds it is not
// a place of the readable data, and the answer says so instead of
// answering about the selection. Consecutive capitalised words are one
// name ("Port Harcourt"); a word in capitals only (AOI, GIS) is a name
// only before a kind word.
func (r *reader) unknownPlaces() {
	n := len(r.ts)
	name := func(i int) bool {
		t := r.ts[i]
		return r.free(i) && !t.sym && !t.isNum && !lowerFirst(t.text) && !known(t.low) && !known(t.sing) &&
			!grammarWord(t.low) && !r.fixed[i]
	}
	kindAt := func(i int) *mention {
		if m := r.mentionAt(i); m != nil && m.value == "" && m.m >= 0 && m.role == "" && adminConcepts[r.ix.conceptOf[m.m]] {
			return m
		}
		return nil
	}
	for i := 0; i < n; i++ {
		if !name(i) || i == 0 && !(i+1 < n && kindAt(i+1) != nil) {
			continue
		}
		end := i + 1
		for end < n && name(end) {
			end++
		}
		kind := kindAt(end)
		lead := i > 0 && placeLead[r.low(i-1)]
		caps := strings.ToUpper(joinText(r.ts[i:end])) == joinText(r.ts[i:end])
		if kind == nil && (!lead || caps) {
			i = end - 1
			continue
		}
		r.p.Places = append(r.p.Places, joinText(r.ts[i:end]))
		r.claim(i, end, RolePlace)
		if kind != nil {
			r.take(kind, RolePlace)
			end = kind.end
		}
		i = end - 1
	}
}

// cased reports a question that capitalises some word after its first:
// its writer capitalises names, so a place name written in lower case
// there ("the central frames") is a common word.
func (r *reader) cased() bool {
	for _, t := range r.ts[min(1, len(r.ts)):] {
		if !lowerFirst(t.text) && !t.sym && !t.isNum {
			return true
		}
	}
	return false
}

// lowerFirst reports a word that does not begin with a capital letter.
func lowerFirst(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return !unicode.IsUpper(r)
}

// sameWords reports whether ts are the words of value as written, not
// only their singular forms ("Rivers" is a state, "river" is not).
func sameWords(ts []tok, value string) bool {
	vs := tokenize(value)
	if len(vs) != len(ts) {
		return false
	}
	for k := range vs {
		if vs[k].low != ts[k].low {
			return false
		}
	}
	return true
}

// joinText joins words as written.
func joinText(ts []tok) string {
	var b strings.Builder
	for k, t := range ts {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// comparatorAt reads a comparison with a number from word i: "between
// 500 and 2,000", "from 5 to 10", "at least 5,000", "> 5000", "10k+",
// "5,000 or more", "500-2,000", "5 to 10".
func (r *reader) comparatorAt(i int) (cmp, bool) {
	freeRun := func(i int, ws []string) bool {
		if i+len(ws) > len(r.ts) {
			return false
		}
		for k, w := range ws {
			if !r.free(i+k) || r.ts[i+k].sing != w && r.ts[i+k].low != w {
				return false
			}
		}
		return true
	}
	w := r.low(i)
	if w == "between" || w == "from" {
		j := r.skip(i+1, set("the"))
		if a, k, ok := numberAt(r.ts, j); ok {
			link := k
			if kmWords[r.low(link)] {
				link++
			}
			if l := r.low(link); l == "and" || l == "to" || l == "-" || l == "through" {
				if b, e, ok := numberAt(r.ts, link+1); ok && (w == "between" || l != "and") {
					if b < a {
						a, b = b, a
					}
					return cmp{op: OpBetween, v1: a, v2: b, start: i, end: e}, true
				}
			}
		}
	}
	for _, c := range prefixOps {
		if !freeRun(i, c.words) {
			continue
		}
		j := i + len(c.words)
		if r.low(j) == "of" {
			j++
		}
		v, e, ok := numberAt(r.ts, j)
		if !ok {
			continue
		}
		out := cmp{op: c.op, v1: v, start: i, end: e}
		if l := r.low(e); (l == "to" || l == "and" || l == "-") && c.op != OpEq {
			if b, e2, ok := numberAt(r.ts, e+1); ok && b > v {
				out = cmp{op: OpBetween, v1: v, v2: b, start: i, end: e2}
			}
		}
		return out, true
	}
	if !r.free(i) {
		return cmp{}, false
	}
	v, e, ok := numberAt(r.ts, i)
	if !ok || !r.ts[i].isNum && r.low(i) != "a" && r.low(i) != "an" {
		return cmp{}, false
	}
	for _, c := range postfixOps {
		if freeRun(e, c.words) {
			return cmp{op: c.op, v1: v, start: i, end: e + len(c.words)}, true
		}
	}
	if l := r.low(e); l == "-" || l == "to" {
		if b, e2, ok := numberAt(r.ts, e+1); ok && b > v {
			return cmp{op: OpBetween, v1: v, v2: b, start: i, end: e2}, true
		}
	}
	return cmp{}, false
}

// comparisons reads filters ("more than 1,000 people", "population of
// at least 5,000") and distance conditions ("within 5 km of a clinic",
// "more than 5 km from a health facility").
func (r *reader) comparisons() {
	n := len(r.ts)
	for i := 0; i < n; i++ {
		if !r.free(i) {
			continue
		}
		c, ok := r.comparatorAt(i)
		if !ok {
			// "5 km from a clinic": a distance without a comparison.
			v, e, isNum := numberAt(r.ts, i)
			if !isNum || !r.ts[i].isNum || !r.distanceUnit(e) {
				continue
			}
			c = cmp{v1: v, start: i, end: e}
		}
		for k := c.start; k < c.end; k++ {
			r.op[k] = true
		}
		if r.distanceUnit(c.end) && r.free(c.end) {
			if mWords[r.low(c.end)] {
				c.v1, c.v2 = c.v1/1000, c.v2/1000
			}
			r.distance(c)
			i = c.end // read or not, its numbers are not read again
			continue
		}
		if c.op == "" {
			continue
		}
		if f, ok := r.derivedFilter(c); ok {
			r.p.Filters = append(r.p.Filters, f)
			i = c.end - 1
			continue
		}
		if m := r.subjectOf(c); m != nil {
			f := Filter{Op: c.op, Value: c.v1, Value2: c.v2}
			f.Words = r.claim(c.start, c.end, RoleFilter)
			f.Measure = r.take(m, RoleFilter)
			r.p.Filters = append(r.p.Filters, f)
			i = c.end - 1
		}
	}
}

// derivedFilter reads a comparison of a density or a ratio on each frame:
// "more than 500 people per km²", "where people per facility exceed
// 10,000", "population density above 500". The derived measure is named
// right after the comparison or right before it (function words
// between).
func (r *reader) derivedFilter(c cmp) (Filter, bool) {
	numeric := func(m *mention) bool { return m != nil && m.role == "" && m.m >= 0 && isNumeric(r.cat.Measures[m.m]) }
	// per reads "X per <area unit>" or "X per Y" from word i (X's end):
	// the filter and the index past its words.
	per := func(x *mention) (Filter, *mention, int, bool) {
		i := x.end
		if l := r.low(i); (l == "per" || l == "/") && r.free(i) {
			j := i + 1
			if l := r.low(j); (l == "square" || l == "sq") && r.free(j) {
				j++
			}
			u, ok := areaUnit[r.sing(j)]
			if !ok && kmWords[r.low(j)] {
				u, ok = "km2", true
				if r.low(j+1) == "2" {
					j++
				}
			}
			if ok && r.free(j) {
				return Filter{Per: u}, nil, j + 1, true
			}
			if y := r.mentionAt(j); numeric(y) && y.m != x.m {
				return Filter{}, y, y.end, true
			}
			return Filter{}, nil, 0, false
		}
		// "population density": the measure's density per km².
		if densWords[r.low(i)] && r.low(i) != "sparse" && r.free(i) {
			return Filter{Per: "km2"}, nil, i + 1, true
		}
		return Filter{}, nil, 0, false
	}
	build := func(x *mention, f Filter, y *mention, from, to int) Filter {
		f.Op, f.Value, f.Value2 = c.op, c.v1, c.v2
		if y != nil {
			ym := r.take(y, RoleFilter)
			f.Of = &ym
		}
		f.Words = r.claim(from, to, RoleFilter)
		f.Measure = r.take(x, RoleFilter)
		return f
	}
	// After: "more than 500 people per km²".
	if x := r.mentionAt(c.end); numeric(x) {
		if f, y, end, ok := per(x); ok {
			return build(x, f, y, c.start, end), true
		}
	}
	// Before: "people per facility exceed 10,000", "where the population
	// density is above 500".
	j := c.start - 1
	for j >= 0 && r.free(j) && functionWords[r.low(j)] && j > c.start-4 {
		j--
	}
	for _, x := range r.ms {
		if !numeric(x) || x.end > j {
			continue
		}
		if f, y, end, ok := per(x); ok && end == j+1 {
			return build(x, f, y, x.end, c.end), true
		}
	}
	return Filter{}, false
}

// distanceUnit reports km or metres at word i ("m" only after a
// number: "500 m").
func (r *reader) distanceUnit(i int) bool {
	return kmWords[r.low(i)] || mWords[r.low(i)] && i > 0 && r.ts[i-1].isNum
}

// subjectOf is the numeric measure a comparison is about: named right
// after it ("more than 1,000 people"), else right before it
// ("population of at least 5,000", "radiance is above 20").
func (r *reader) subjectOf(c cmp) *mention {
	// "more than 10 people per building" compares a ratio, "1,000 people
	// per km²" a density: no filter reads those, so the words stay unread.
	numeric := func(m *mention) bool {
		return m != nil && m.m >= 0 && isNumeric(r.cat.Measures[m.m]) && r.low(m.end) != "per" && r.low(m.end) != "/"
	}
	if m := r.mentionAt(c.end); numeric(m) {
		return m
	}
	j := c.start - 1
	for j >= 0 && r.free(j) && functionWords[r.low(j)] && j > c.start-4 {
		j--
	}
	if j >= 0 && r.at[j] >= 0 {
		if m := r.ms[r.at[j]]; m.role == "" && m.end == j+1 && numeric(m) {
			return m
		}
	}
	j = c.end
	for j < len(r.ts) && r.free(j) && functionWords[r.low(j)] && j < c.end+3 {
		j++
	}
	if m := r.mentionAt(j); numeric(m) {
		return m
	}
	return nil
}

// distance reads a reach condition from a comparison followed by a km
// word; it reports false (reading nothing) when no features dataset is
// named.
func (r *reader) distance(c cmp) bool {
	end := c.end + 1
	op := ""
	switch c.op {
	case OpLT, OpLE:
		op = "within"
	case OpGT, OpGE:
		op = "beyond"
	case OpBetween:
		op = "between" // a band: "between 2 and 5 km from a clinic"
	case OpEq, OpNe:
		return false // "exactly 5 km from": no band of frames, left unread
	}
	if r.p.Distance != nil {
		return false // one reach a plan: a second is left unread
	}
	for _, pf := range postfixOps {
		if op == "" && r.phrase(end, pf.words) {
			if pf.op == OpGE {
				op = "beyond"
			} else {
				op = "within"
			}
			end += len(pf.words)
		}
	}
	j := r.skip(end, set("away", "from", "of", "to", "the", "a", "an", "any", "nearest", "closest", "its", "their"))
	feat := r.mentionAt(j)
	if feat == nil || feat.f < 0 {
		feat = nil
		for _, m := range r.ms {
			if m.role == "" && m.f >= 0 && (m.start >= c.end || feat == nil) {
				feat = m
				if m.start >= c.end {
					break
				}
			}
		}
	}
	if feat == nil {
		return false
	}
	if op == "" {
		op = "within"
		r.p.Notes = append(r.p.Notes, "No comparison was given with "+strconv.FormatFloat(c.v1, 'f', -1, 64)+" km: read as within it.")
	}
	// "no clinic within 5 km", "lacks a health facility within 10 km":
	// beyond it.
	var neg []int
	if feat.end <= c.start {
		k := feat.start - 1
		for k >= 0 && r.free(k) && articles[r.low(k)] {
			k--
		}
		if l := r.low(k); r.free(k) && op != "between" && (l == "no" || l == "without" || l == "lacks" || l == "lack" || l == "lacking") {
			neg = r.claim(k, feat.start, RoleDistance)
			if op == "within" {
				op = "beyond"
			} else {
				op = "within"
			}
		}
	}
	ws := append(neg, r.claim(c.start, j, RoleDistance)...)
	fm := r.take(feat, RoleDistance)
	if featureNouns[r.sing(feat.end)] {
		fm.Words = append(fm.Words, r.claim(feat.end, feat.end+1, RoleDistance)...)
	}
	r.p.Distance = &Distance{Feature: r.cat.Features[feat.f].ID, Km: c.v1, Op: op, Match: feat.via, Words: append(ws, fm.Words...)}
	if op == "between" {
		r.p.Distance.Km2 = c.v2
	}
	return true
}

// negations reads "without a clinic", "no health facility", "not
// urban", "non-urban", "frames that do not have a hospital", "zero
// clinics".
func (r *reader) negations() {
	for i := 0; i < len(r.ts); i++ {
		if !r.free(i) {
			continue
		}
		// "nobody", "no one": no population.
		if w := r.low(i); w == "nobody" || w == "noone" || w == "unpopulated" || w == "uninhabited" && r.mentionAt(i) == nil ||
			w == "no" && r.low(i+1) == "one" && r.free(i+1) {
			if mi, ok := r.ix.concept[cPopulation]; ok {
				end := i + 1
				if w == "no" {
					end++
				}
				m := r.cat.Measures[mi]
				ws := r.claim(i, end, RoleFilter)
				r.p.Filters = append(r.p.Filters, Filter{Measure: Measure{Dataset: m.Dataset, Attribute: m.Attribute, Match: "synonym"},
					Op: OpEq, Words: ws})
				i = end - 1
				continue
			}
		}
		w, j := r.low(i), -1
		switch {
		case negHave[w] && set("have", "has", "had", "contain", "hold", "record")[r.sing(i+1)] && r.free(i+1):
			j = i + 2
		case w == "none" && r.low(i+1) == "of":
			j = i + 2
		case w == "free" && r.low(i+1) == "of":
			j = i + 2
		case w == "devoid" && r.low(i+1) == "of":
			j = i + 2
		case negWords[w]:
			j = i + 1
		}
		if j < 0 {
			continue
		}
		k := r.skip(j, articles)
		m := r.mentionAt(k)
		if m == nil || m.m < 0 {
			continue
		}
		mi := r.cat.Measures[m.m]
		f := Filter{}
		switch {
		case m.value != "":
			f.Op, f.Text = OpNe, strings.ToLower(m.value)
		case isNumeric(mi):
			f.Op, f.Value = OpEq, 0
		default:
			continue
		}
		f.Words = r.claim(i, k, RoleFilter)
		f.Measure = r.take(m, RoleFilter)
		r.p.Filters = append(r.p.Filters, f)
		i = m.end - 1
	}
}

// presence reads "frames with a clinic", "frames that have buildings": a
// numeric measure above zero, when the words before it say "with" or
// "have".
func (r *reader) presence() {
	if r.anyWord(compareWords) {
		return
	}
	for _, m := range r.ms {
		if m.role != "" || m.m < 0 || m.value != "" || !isNumeric(r.cat.Measures[m.m]) {
			continue
		}
		j := m.start - 1
		for j >= 0 && r.free(j) && articles[r.low(j)] {
			j--
		}
		if !r.free(j) || !set("with", "have", "has", "having", "contain", "contains", "containing")[r.low(j)] {
			continue
		}
		// "with people" is a presence; "with a population density above",
		// "with people per house" are not.
		if r.sing(m.end) == "per" || r.low(m.end) == "/" || densWords[r.low(m.end)] || ratioWords[r.sing(m.end)] {
			continue
		}
		// A count is present from one ("a clinic"), a mean from above zero
		// ("night lights").
		// "have a population of 0": the value itself, when no comparison
		// took the number.
		if k := m.end + 1; r.low(m.end) == "of" && r.free(m.end) && r.free(k) {
			if v, e, ok := numberAt(r.ts, k); ok && e == k+1 {
				f := Filter{Op: OpEq, Value: v}
				f.Words = append(r.claim(j, m.start, RoleFilter), r.claim(m.end, e, RoleFilter)...)
				f.Measure = r.take(m, RoleFilter)
				r.p.Filters = append(r.p.Filters, f)
				continue
			}
		}
		f := Filter{Op: OpGE, Value: 1}
		if r.cat.Measures[m.m].Aggregation == "mean" {
			f = Filter{Op: OpGT, Value: 0}
		}
		f.Words = r.claim(j, m.start, RoleFilter)
		f.Measure = r.take(m, RoleFilter)
		r.p.Filters = append(r.p.Filters, f)
	}
}

// values reads category values as filters ("urban frames", "frames that
// are rural"), and the joining "or" between filters.
func (r *reader) values() {
	for _, m := range r.ms {
		if m.role != "" || m.value == "" || m.m < 0 || adminConcepts[r.ix.conceptOf[m.m]] {
			continue // a place not read as one ("near a river") stays unread
		}
		f := Filter{Op: OpEq, Text: strings.ToLower(m.value)}
		// A value is read whole with the words hyphenated to it:
		// "peri-urban" is not "urban" when the selection holds no
		// peri-urban frame (the catalogue then knows only "urban").
		var ws []int
		if a, b := r.hyphenated(m.start, m.end); a < m.start || b > m.end {
			f.Text = strings.ToLower(r.q[r.ts[a].start : r.ts[b-1].start+len(r.ts[b-1].text)])
			ws = append(r.claim(a, m.start, RoleFilter), r.claim(m.end, b, RoleFilter)...)
		}
		// "settlement_class = peri-urban", "settlement_class != rural".
		if k := m.start - 1; r.free(k) && (r.low(k) == "=" || r.low(k) == "!=") {
			if r.low(k) == "!=" {
				f.Op = OpNe
			}
			ws = r.claim(k, k+1, RoleFilter)
			if name := r.mentionEndingAt(k); name != nil && name.m == m.m {
				ws = append(ws, r.take(name, RoleFilter).Words...)
			}
		}
		f.Measure = r.take(m, RoleFilter)
		f.Words = ws
		r.p.Filters = append(r.p.Filters, f)
	}
	if len(r.p.Filters) < 2 {
		return
	}
	sort.SliceStable(r.p.Filters, func(a, b int) bool { return firstWord(r.p.Filters[a]) < firstWord(r.p.Filters[b]) })
	for k := 1; k < len(r.p.Filters); k++ {
		from, to := lastWord(r.p.Filters[k-1])+1, firstWord(r.p.Filters[k])
		for i := from; i < to; i++ {
			if !r.free(i) {
				continue
			}
			switch r.low(i) {
			case "or", "either":
				r.p.Join = "or"
				r.p.Filters[k].Words = append(r.p.Filters[k].Words, r.claim(i, i+1, RoleFilter)...)
			case "and", "but", "nor":
				r.p.Filters[k].Words = append(r.p.Filters[k].Words, r.claim(i, i+1, RoleFilter)...)
			}
		}
	}
}

// hyphenated widens the words [i, j) to the free words joined to them
// by a single hyphen ("peri-urban"); numbers are not joined.
func (r *reader) hyphenated(i, j int) (int, int) {
	joined := func(a, b int) bool {
		if a < 0 || b >= len(r.ts) || r.ts[a].sym || r.ts[b].sym {
			return false
		}
		end := r.ts[a].start + len(r.ts[a].text)
		return end < len(r.q) && r.q[end] == '-' && r.ts[b].start == end+1
	}
	for i > 0 && r.free(i-1) && !r.ts[i-1].isNum && joined(i-1, i) {
		i--
	}
	for j < len(r.ts) && r.free(j) && !r.ts[j].isNum && joined(j-1, j) {
		j++
	}
	return i, j
}

func firstWord(f Filter) int {
	x := 1 << 30
	for _, w := range append(f.Words, f.Measure.Words...) {
		x = min(x, w)
	}
	return x
}

func lastWord(f Filter) int {
	x := -1
	for _, w := range append(f.Words, f.Measure.Words...) {
		x = max(x, w)
	}
	return x
}

// groups reads a breakdown by a category measure: "by state", "for
// each LGA", "per ward", "in each state", "ward by ward", "broken down
// by settlement class".
func (r *reader) groups() {
	for _, m := range r.ms {
		if m.role != "" || m.m < 0 || m.value != "" || isNumeric(r.cat.Measures[m.m]) || r.p.Group != nil {
			continue
		}
		start := -1
		switch b := r.low(m.start - 1); {
		case b == "by" || b == "per" || b == "each" || b == "every":
			start = m.start - 1
			for l := r.low(start - 1); (l == "for" || l == "in" || groupWords[l]) && r.free(start-1) && start > m.start-4; l = r.low(start - 1) {
				start--
			}
		case b == "the" && r.low(m.start-2) == "by":
			start = m.start - 2
		}
		end := m.end
		if start < 0 && r.low(m.end) == "by" && r.sing(m.end+1) == r.sing(m.start) {
			start, end = m.start, m.end+2
		}
		if start < 0 {
			continue
		}
		for k := start; k < m.start; k++ {
			if !r.free(k) {
				start = -1
			}
		}
		if start < 0 {
			continue
		}
		g := &Group{}
		ws := r.claim(start, m.start, RoleGroup)
		g.Measure = r.take(m, RoleGroup)
		if end > m.end {
			ws = append(ws, r.claim(m.end, m.end+1, RoleGroup)...)
			if again := r.mentionAt(m.end + 1); again != nil {
				ws = append(ws, r.take(again, RoleGroup).Words...)
			}
		}
		g.Words = ws
		r.p.Group = g
	}
	// "breakdown of the population by state": a word of grouping away
	// from its "by" is read with the group.
	if r.p.Group != nil {
		for i := range r.ts {
			if r.free(i) && groupWords[r.low(i)] && r.low(i) != "down" {
				r.p.Group.Words = append(r.p.Group.Words, r.claim(i, i+1, RoleGroup)...)
			}
		}
	}
}

// perWords reads densities ("per km²", "per square kilometre", "per
// hectare", "density"), ratios ("people per building", "ratio of
// buildings to people", "clinics per 10,000 people", "per capita") and
// "per frame" (a mean per frame).
func (r *reader) perWords() {
	n := len(r.ts)
	for i := 0; i < n; i++ {
		if !r.free(i) {
			continue
		}
		j := i
		per := r.low(j) == "per" || r.low(j) == "/" || r.low(j) == "a" || r.low(j) == "each" || r.low(j) == "every"
		if per {
			j++
		}
		sq := r.low(j) == "square" || r.low(j) == "sq"
		if sq {
			j++
		}
		if !r.free(j) {
			continue
		}
		u, ok := areaUnit[r.sing(j)]
		if !ok && kmWords[r.low(j)] && (sq || per && r.low(i) != "a") {
			u, ok = "km2", true
			if r.low(j+1) == "2" {
				j++
			}
		}
		// A unit is an area after "per", "/", "square", or "in" beside
		// density words ("density in hectares"); one unit is read.
		if !ok || r.low(i) == "a" && !sq || !per && !sq && !(r.low(i-1) == "in" && r.anyWord(densWords)) || r.per != "" {
			continue
		}
		r.per = u
		r.perAt = append(r.perAt, r.claim(i, j+1, RoleAgg)...)
		i = j
	}
	for i := 0; i < n; i++ {
		if r.free(i) && densWords[r.low(i)] {
			r.dense = append(r.dense, i)
			r.role[i] = RoleAgg
			switch r.low(i) {
			case "sparse", "sparsely", "sparser", "sparsest":
				r.sparse = true
			}
			// "densest frame", "sparsest frames": the frames ranked by
			// their density, not the density of them all.
			if l := r.low(i); l == "densest" || l == "sparsest" {
				r.denseSup, r.high = true, l == "densest"
			}
		}
	}
	// X per (N) Y; per capita.
	for i := 0; i < n; i++ {
		w := r.low(i)
		if !r.free(i) || !(w == "per" || w == "/" || (w == "for" || w == "to") && (r.low(i+1) == "each" || r.low(i+1) == "every")) {
			continue
		}
		j := i + 1
		if w == "for" || w == "to" {
			j++
		}
		// A ratio's scale is round: "per 10,000 people", "per 1k".
		scale := 1.0
		if v, e, ok := numberAt(r.ts, j); ok && r.free(j) && (v == 10 || v >= 100 && math.Mod(v, 100) == 0) {
			scale, j = v, e
		}
		var x *mention
		for _, m := range r.ms {
			if m.role == "" && m.m >= 0 && m.end <= i && isNumeric(r.cat.Measures[m.m]) {
				x = m
			}
		}
		if x == nil {
			continue
		}
		if perPerson[r.sing(j)] && (r.free(j) || r.mentionAt(j) != nil) {
			if mi, ok := r.ix.concept[cPopulation]; ok && mi != x.m {
				ws := r.claim(i, j, RoleAgg)
				var yw []int
				match := "capita"
				if y := r.mentionAt(j); y != nil {
					ym := r.take(y, RoleMeasure)
					yw, match = ym.Words, ym.Match
				} else {
					yw = r.claim(j, j+1, RoleMeasure)
				}
				r.ratio = &ratioRead{x: x, scale: scale, words: ws, yRole: true, ym: mi, yWords: yw, yMatch: match}
				break
			}
		}
		if y := r.mentionAt(j); y != nil && y.m >= 0 && y.m != x.m && isNumeric(r.cat.Measures[y.m]) {
			ws := r.claim(i, j, RoleAgg)
			if ratioWords[r.sing(y.end)] { // "people per building ratio"
				ws = append(ws, r.claim(y.end, y.end+1, RoleAgg)...)
			}
			r.ratio = &ratioRead{x: x, y: y, scale: scale, words: ws}
			break
		}
	}
	// "how many people does each clinic serve": X per Y, read from
	// "each/every Y serve(s)" after X.
	for i := 0; r.ratio == nil && i+2 < n; i++ {
		if !r.free(i) || r.low(i) != "each" && r.low(i) != "every" {
			continue
		}
		y := r.mentionAt(i + 1)
		if y == nil || y.role != "" || y.m < 0 || !isNumeric(r.cat.Measures[y.m]) || !serveWords[r.low(y.end)] || !r.free(y.end) {
			continue
		}
		var x *mention
		for _, m := range r.ms {
			if m.role == "" && m.m >= 0 && m.m != y.m && m.end <= i && isNumeric(r.cat.Measures[m.m]) {
				x = m
			}
		}
		if x != nil {
			ws := append(r.claim(i, i+1, RoleAgg), r.claim(y.end, y.end+1, RoleAgg)...)
			r.ratio = &ratioRead{x: x, y: y, scale: 1, words: ws}
		}
	}
	// ratio of X to Y, X to Y ratio.
	if r.ratio == nil {
		for i := 0; i < n; i++ {
			if !r.free(i) || !ratioWords[r.sing(i)] {
				continue
			}
			var pair []*mention
			for _, m := range r.ms {
				if m.role == "" && m.m >= 0 && isNumeric(r.cat.Measures[m.m]) {
					pair = append(pair, m)
				}
			}
			if len(pair) >= 2 && pair[0].m != pair[1].m {
				ws := r.claim(i, i+1, RoleAgg)
				for k := pair[0].end; k < pair[1].start; k++ {
					if l := r.low(k); l == "to" || l == "and" || l == "/" || l == "per" || l == "vs" {
						ws = append(ws, r.claim(k, k+1, RoleAgg)...)
					}
				}
				r.ratio = &ratioRead{x: pair[0], y: pair[1], scale: 1, words: ws}
			}
			break
		}
	}
	// per frame: a figure per frame (a mean, a median, an extreme).
	for i := 0; i+1 < n; i++ {
		if r.free(i) && r.low(i) == "per" && r.free(i+1) && frameNouns[r.sing(i+1)] {
			r.perFrame = append(r.perFrame, r.claim(i, i+2, RoleAgg)...)
		}
	}
}

// serveWords end "each clinic serves": a ratio of the measure before.
var serveWords = set("serve", "serves", "served", "cover", "covers", "hold", "holds", "contain", "contains", "house",
	"houses", "accommodate", "accommodates")

// anyWord reports a free word of ws.
func (r *reader) anyWord(ws map[string]bool) bool {
	for i := range r.ts {
		if r.free(i) && (ws[r.low(i)] || ws[r.sing(i)]) {
			return true
		}
	}
	return false
}

// aggregations reads the words that say what to compute.
func (r *reader) aggregations() {
	n := len(r.ts)
	add := func(a Agg, i, j int) { r.aggWords[a] = append(r.aggWords[a], r.claim(i, j, RoleAgg)...) }
	// Nearest and farthest.
	for i := 0; i < n; i++ {
		if !r.free(i) {
			continue
		}
		w := r.low(i)
		switch {
		case farWords[w]:
			r.nearFar, r.nearAt = AggFarthest, append(r.nearAt, r.claim(i, i+1, RoleDistance)...)
		case (w == "most" || w == "more") && set("remote", "distant", "isolated", "far")[r.low(i+1)] && r.free(i+1):
			r.nearFar, r.nearAt = AggFarthest, append(r.nearAt, r.claim(i, i+2, RoleDistance)...)
		case w == "far" && r.low(i+1) == "away" && r.low(i-1) != "how":
			r.nearFar, r.nearAt = AggFarthest, append(r.nearAt, r.claim(i, i+2, RoleDistance)...)
		case nearWords[w]:
			if r.nearFar == "" {
				r.nearFar = AggNearest
			}
			r.nearAt = append(r.nearAt, r.claim(i, i+1, RoleDistance)...)
		case w == "how" && r.low(i+1) == "far" && r.nearFar == "":
			r.nearFar, r.nearAt = AggNearest, append(r.nearAt, r.claim(i, i+2, RoleDistance)...)
		case (w == "distance" || w == "distances") && r.nearFar == "":
			r.nearFar, r.nearAt = AggNearest, append(r.nearAt, r.claim(i, i+1, RoleDistance)...)
		}
	}
	for i := 0; i < n; i++ {
		if !r.free(i) || r.op[i] {
			continue
		}
		w, s := r.low(i), r.sing(i)
		switch {
		case (w == "how" && r.low(i+1) == "many") || ((w == "number" || w == "count") && r.low(i+1) == "of"):
			j := r.skip(i+2, set("the", "these", "those", "selected", "my", "of", "chosen", "this"))
			if r.free(j) && frameNouns[r.sing(j)] {
				r.countAt = append(r.countAt, r.claim(i, j+1, RoleAgg)...)
				i = j
				continue
			}
			r.howMany = append(r.howMany, r.claim(i, i+2, RoleAgg)...)
			i++
		case w == "count" && r.free(i+1):
			j := r.skip(i+1, set("the", "these", "those", "selected", "my"))
			if r.free(j) && frameNouns[r.sing(j)] {
				r.countAt = append(r.countAt, r.claim(i, j+1, RoleAgg)...)
				i = j
			}
		case meanWords[w] || w == "on" && r.low(i+1) == "average":
			add(AggMean, i, i+1)
		case medianWords[w]:
			add(AggMedian, i, i+1)
		case totalWords[w] || w == "in" && r.low(i+1) == "total":
			add(AggTotal, i, i+1)
		case shareWords[w] || shareWords[s] || (w == "what" || w == "which") && r.low(i+1) == "part" && r.low(i+2) == "of":
			if w == "what" || w == "which" {
				add(AggShare, i+1, i+2)
			} else {
				add(AggShare, i, i+1)
			}
		case w == "how" && r.low(i+1) == "much" && r.low(i+2) == "of":
			add(AggShare, i, i+2)
			i++
		case compareWords[w]:
			r.compare = append(r.compare, r.claim(i, i+1, RoleAgg)...)
		case profileWords[w] || profileWords[s]:
			r.profile = append(r.profile, r.claim(i, i+1, RoleAgg)...)
		case rankWords[w]:
			r.rank = true
			if w == "bottom" || w == "ascending" {
				r.high = false
				r.extreme = append(r.extreme, r.claim(i, i+1, RoleOrder)...)
				continue
			}
			if (w == "top" || w == "descending") && len(r.extreme) == 0 {
				r.high = true
			}
			r.kAt = append(r.kAt, r.claim(i, i+1, RoleOrder)...)
		case highWords[w] || lowWords[w]:
			// comparatives are extremes only in "which ... more".
			if set("more", "less", "fewer", "higher", "lower", "larger", "smaller", "bigger", "greater")[w] && r.which < 0 && !r.whichWord() {
				continue
			}
			if len(r.extreme) == 0 || (len(r.extreme) > 0 && r.low(r.extreme[0]) == "top") {
				r.high = highWords[w]
			}
			r.extreme = append(r.extreme, i)
			r.role[i] = RoleOrder
		}
	}
	if r.sparse && len(r.extreme) == 0 && len(r.dense) > 0 {
		r.high = false
	}
	if r.denseSup && len(r.extreme) == 0 {
		r.high = !r.sparse
	}
	// Overview phrases: "tell me about", "what is here".
	for i := 0; i+1 < n; i++ {
		if r.low(i) == "tell" && r.free(i+1) && r.low(i+2) == "about" {
			r.profile = append(r.profile, i)
		}
	}
	for _, m := range r.ms {
		if w := r.low(m.start); m.via == "stem" && m.end == m.start+1 && (highWords[w] || lowWords[w]) && !r.hasExtreme() {
			r.stemExtreme, r.high = true, highWords[w]
		}
	}
	r.rankCount()
	for i := 0; i < n; i++ {
		if l := r.low(i); (l == "which" || l == "what") && r.free(i) {
			r.which = i
			break
		}
	}
	// Several frames are asked for when a plural frame noun comes before
	// the extreme word ("which frames have the most..."), not after it
	// ("the largest population among urban frames").
	firstExtreme := n
	if len(r.extreme) > 0 {
		firstExtreme = r.extreme[0]
	}
	for i := 0; i < firstExtreme; i++ {
		if frameNouns[r.sing(i)] && r.low(i) != r.sing(i) && r.free(i) {
			r.plural = true
		}
	}
}

// whichWord reports "which" or "what" among the words.
func (r *reader) whichWord() bool {
	for i := range r.ts {
		if l := r.low(i); l == "which" || l == "whichever" {
			return true
		}
	}
	return false
}

// rankCount reads K: a number next to a ranking word ("top 5", "5
// highest", "bottom three") or before a frame noun ("the 10 frames with
// the most people").
func (r *reader) rankCount() {
	if !r.hasExtreme() && !r.rank {
		return
	}
	near := func(i int) bool {
		if i < 0 || i >= len(r.ts) {
			return false
		}
		if r.at[i] >= 0 && r.stemExtreme {
			m := r.ms[r.at[i]]
			return m.via == "stem" && (highWords[r.low(i)] || lowWords[r.low(i)])
		}
		return r.role[i] == RoleOrder
	}
	for i := range r.ts {
		if !r.free(i) || r.op[i] {
			continue
		}
		v, e, ok := numberAt(r.ts, i)
		if !ok || v < 1 || v > maxK || v != float64(int(v)) || e != i+1 {
			continue
		}
		if v == 1 && !near(i-1) && !near(i+1) {
			continue // "in one frame": the extreme of a frame
		}
		if near(i-1) || near(i+1) || frameNouns[r.sing(i+1)] || i+1 < len(r.ts) && r.at[i+1] >= 0 && r.low(i-1) == "top" {
			r.k = min(int(v), maxK)
			r.kAt = append(r.kAt, r.claim(i, i+1, RoleOrder)...)
			r.rank = true
			return
		}
	}
}

// asksFrame reports "which frame", "what cells": a question about the
// frames of the selection, not about the features near them.
func (r *reader) asksFrame() bool {
	for i := range r.ts {
		if l := r.low(i); l == "which" || l == "what" {
			if frameNouns[r.sing(i+1)] || r.low(i+1) == "of" && frameNouns[r.sing(i+3)] {
				return true
			}
		}
	}
	return false
}

// framesK reads how many frames a nearest or farthest question asks for:
// "the 3 frames farthest from a clinic", "5 nearest frames to a
// clinic", "which 4 cells are farthest": a whole number beside the
// nearest word or before a frame noun, in a question that names frames.
// It returns 0 when none is asked for (the one nearest or farthest
// frame, or the features listed).
func (r *reader) framesK() (int, []int) {
	framed := false
	for i := range r.ts {
		framed = framed || frameNouns[r.sing(i)] && r.low(i) != "area" && r.low(i) != "place"
	}
	if !framed {
		return 0, nil
	}
	if r.k > 0 && len(r.kAt) > 0 {
		return r.k, r.kAt
	}
	cands := []int{r.nearAt[0] - 1, r.nearAt[len(r.nearAt)-1] + 1}
	for i := range r.ts {
		if frameNouns[r.sing(i+1)] {
			cands = append(cands, i)
		}
	}
	for _, k := range cands {
		if k < 0 || k >= len(r.ts) || !r.free(k) || !r.ts[k].isNum {
			continue
		}
		if v := r.ts[k].num; v >= 1 && v <= maxK && v == math.Trunc(v) {
			return int(v), r.claim(k, k+1, RoleOrder)
		}
	}
	return 0, nil
}

// listNearest reads "where is the nearest clinic", "the 3 closest
// hospitals", "nearest 2 hospitals": the features nearest the selection
// are listed (Distance.List of them, at most MaxList). The count is a
// whole number beside the nearest word or the feature's words.
func (r *reader) listNearest(feat *mention) {
	p := r.p
	p.Distance.List = 1
	for _, k := range []int{r.nearAt[0] - 1, r.nearAt[len(r.nearAt)-1] + 1, feat.start - 1} {
		if k < 0 || k >= len(r.ts) || !r.free(k) || !r.ts[k].isNum {
			continue
		}
		if v := r.ts[k].num; v >= 1 && v <= MaxList && v == math.Trunc(v) {
			p.Distance.List = int(v)
			p.Distance.Words = append(p.Distance.Words, r.claim(k, k+1, RoleDistance)...)
			return
		}
	}
}

// rankFilter is the index of the first filter on a numeric measure, -1
// when there is none.
func rankFilter(r *reader, fs []Filter) int {
	for i, f := range fs {
		if f.Text == "" && isNumeric(r.measureInfo(f.Measure)) {
			return i
		}
	}
	return -1
}

// subjects are the measures no filter, group, place or distance took.
func (r *reader) subjects() []*mention {
	var out []*mention
	for _, m := range r.ms {
		if m.role == "" && m.m >= 0 && m.value == "" {
			out = append(out, m)
		}
	}
	return out
}

// decide settles the aggregation and the measures.
func (r *reader) decide() {
	p := r.p
	var subj, num []*mention
	refresh := func() {
		subj, num = r.subjects(), nil
		for _, m := range subj {
			if isNumeric(r.cat.Measures[m.m]) {
				num = append(num, m)
			}
		}
	}
	refresh()
	first := func(ms []*mention) *mention {
		if len(ms) == 0 {
			return nil
		}
		return ms[0]
	}
	claimAll := func(ws []int, role string) {
		for _, k := range ws {
			r.role[k] = role
		}
	}
	measure := func(m *mention) { p.Measures = append(p.Measures, r.take(m, RoleMeasure)) }
	// "Which state has the most people": the groups of the state, ranked.
	if r.which >= 0 && p.Group == nil && (r.hasExtreme() || r.rank) {
		k := r.which + 1
		if r.low(r.which) == "in" || r.low(k) == "the" {
			k++
		}
		if m := r.mentionAt(k); m != nil && m.m >= 0 && m.value == "" && !isNumeric(r.cat.Measures[m.m]) {
			p.Group = &Group{Measure: r.take(m, RoleGroup)}
			r.fromWhich = true
			if r.low(m.end-1) != r.sing(m.end-1) {
				r.plural = true
			}
			refresh()
		}
	}
	// "Rank LGAs by population", "the most common settlement class": a
	// category named beside a ranking ranks its groups.
	if p.Group == nil && (r.hasExtreme() || r.rank) {
		for _, m := range subj {
			if m.value != "" || isNumeric(r.cat.Measures[m.m]) {
				continue
			}
			p.Group = &Group{Measure: r.take(m, RoleGroup)}
			if r.low(m.end-1) != r.sing(m.end-1) {
				r.plural = true
			}
			if commonWords[r.low(m.start-1)] {
				p.Group.Words = r.claim(m.start-1, m.start, RoleGroup)
			}
			refresh()
			break
		}
	}
	// A measure qualified by a word no dataset records ("population
	// growth", "literacy rate") is not what was asked.
	for _, m := range num {
		if k := m.end; m.via != "embedding" && k < len(r.ts) && r.free(k) && r.unknown(k) && !r.ts[k].isNum {
			m.role = RoleUnread
		}
	}
	refresh()
	// "How many women live here": people, read from "how many ... live".
	if len(subj) == 0 && len(r.howMany) > 0 && r.p.Distance == nil {
		for i := range r.ts {
			if r.free(i) && liveWords[r.low(i)] {
				if mi, ok := r.ix.concept[cPopulation]; ok {
					m := &mention{start: i, end: i + 1, m: mi, f: r.ix.featOf[mi], via: "synonym"}
					r.addMention(m)
					refresh()
				}
				break
			}
		}
	}
	usedRatio := false
	// Words of an aggregation this plan does not read go back to unread.
	defer func() {
		release := func(ws []int) {
			for _, k := range ws {
				if r.role[k] == RoleAgg || r.role[k] == RoleOrder || r.role[k] == RoleDistance {
					r.role[k] = ""
				}
			}
		}
		for a, ws := range r.aggWords {
			if a != p.Agg && !(a == AggTotal && (p.Agg == AggCoverage || p.Agg == AggFeatureCount || p.Group != nil && p.Order != nil)) {
				release(ws)
			}
		}
		switch p.Agg {
		case AggTotal, AggCoverage, AggFeatureCount, AggCount, AggShare:
		default:
			release(r.howMany)
		}
		switch p.Agg {
		case AggCount, AggCoverage, AggShare:
		default:
			release(r.countAt)
		}
		if p.Agg != AggCompare {
			release(r.compare)
		}
		switch p.Agg {
		case AggMean, AggMedian, AggMax, AggMin, AggRank, AggCount:
		default:
			if p.Group == nil {
				release(r.perFrame)
			}
		}
		if p.Agg != AggProfile {
			release(r.profile)
		}
		if p.Order == nil {
			release(r.extreme)
			release(r.kAt)
		}
		if p.Agg != AggNearest && p.Agg != AggFarthest {
			release(r.nearAt)
		}
		if p.Per == "" {
			release(r.perAt)
			release(r.dense)
		}
		if !usedRatio && r.ratio != nil {
			release(r.ratio.words)
		}
		// The same measure named twice ("population density (persons/km²)").
		for _, m := range r.ms {
			if m.role != "" || m.m < 0 {
				continue
			}
			for _, pm := range p.AllMeasures() {
				mi := r.cat.Measures[m.m]
				if pm.Dataset == mi.Dataset && pm.Attribute == mi.Attribute && m.value == "" {
					r.take(m, RoleMeasure)
					break
				}
			}
		}
	}()

	if r.distanceUnbound() || r.anyWord(statWords) {
		p.Agg = AggUnsupported
		return
	}
	switch {
	case len(r.aggWords[AggShare]) > 0:
		p.Agg = AggShare
		if m := first(num); m != nil && r.isSum(m) {
			measure(m)
		}
		if len(p.Filters) == 0 && p.Group == nil && p.Distance == nil {
			for _, m := range subj {
				if m.role == "" && !isNumeric(r.cat.Measures[m.m]) {
					p.Group = &Group{Measure: r.take(m, RoleGroup)}
					break
				}
			}
		}
		claimAll(r.countAt, RoleAgg)
		return
	case p.Distance != nil:
		p.Agg = AggCoverage
		if m := first(num); m != nil {
			measure(m)
		}
		claimAll(r.howMany, RoleAgg)
		claimAll(r.countAt, RoleAgg)
		return
	case r.nearFar != "" || r.distanceMax():
		feat := r.featureNear(r.nearAt)
		if feat == nil {
			p.Agg = AggUnsupported
			return
		}
		fm := r.take(feat, RoleDistance)
		p.Agg = AggNearest
		if r.nearFar == AggFarthest || r.distanceMax() {
			p.Agg = AggFarthest
			claimAll(r.extreme, RoleDistance)
			r.nearAt = append(r.nearAt, r.extreme...)
			r.extreme = nil
		}
		if featureNouns[r.sing(feat.end)] {
			fm.Words = append(fm.Words, r.claim(feat.end, feat.end+1, RoleDistance)...)
		}
		p.Distance = &Distance{Feature: r.cat.Features[feat.f].ID, Match: feat.via,
			Words: append(append([]int(nil), r.nearAt...), fm.Words...)}
		// "from", "to" beside the feature.
		for _, k := range []int{feat.start - 1, feat.start - 2} {
			if r.free(k) && set("from", "to", "of", "away")[r.low(k)] {
				p.Distance.Words = append(p.Distance.Words, r.claim(k, k+1, RoleDistance)...)
			}
		}
		if k, ws := r.framesK(); k > 0 {
			p.Order = &Order{Desc: p.Agg == AggFarthest, K: k, Words: ws}
			return
		}
		if p.Agg == AggNearest && !r.asksFrame() {
			r.listNearest(feat)
		}
		return
	case r.featureCount() != nil:
		feat := r.featureCount()
		p.Agg = AggFeatureCount
		fm := r.take(feat, RoleMeasure)
		p.Distance = &Distance{Feature: r.cat.Features[feat.f].ID, Match: feat.via,
			Words: append(fm.Words, r.claim(feat.end, feat.end+1, RoleMeasure)...)}
		claimAll(r.howMany, RoleAgg)
		claimAll(r.countAt, RoleAgg)
		return
	case r.ratio != nil:
		p.Agg = AggRatio
		usedRatio = true
		measure(r.ratio.x)
		if r.ratio.yRole {
			mi := r.cat.Measures[r.ratio.ym]
			p.Measures = append(p.Measures, Measure{Dataset: mi.Dataset, Attribute: mi.Attribute, Match: r.ratio.yMatch, Words: r.ratio.yWords})
		} else {
			measure(r.ratio.y)
		}
		if r.ratio.scale != 1 {
			p.Scale = r.ratio.scale
		}
		claimAll(r.howMany, RoleAgg)
		r.order()
		return
	case len(r.dense) > 0 || r.per != "":
		p.Agg = AggDensity
		p.Per = r.per
		if p.Per == "" {
			p.Per = "km2"
		}
		switch m := first(num); {
		case m != nil:
			measure(m)
		case len(subj) == 0 && len(r.unknowns()) == 0:
			// "how dense is it": the population's density.
			if mi, ok := r.ix.concept[cPopulation]; ok {
				m := r.cat.Measures[mi]
				p.Measures = []Measure{{Dataset: m.Dataset, Attribute: m.Attribute, Match: "synonym"}}
			}
		}
		if len(p.Measures) == 0 {
			p.Agg, p.Per = AggUnsupported, ""
			return
		}
		claimAll(r.howMany, RoleAgg)
		r.order()
		return
	case len(r.compare) > 0 && len(subj) >= 2:
		p.Agg = AggCompare
		measure(subj[0])
		measure(subj[1])
		return
	case p.Group != nil && len(num) == 0 && (r.hasExtreme() || r.rank):
		// "the most common settlement class": frames counted by group.
		p.Agg = AggCount
		k := r.k
		if k == 0 {
			k = 1
			if r.plural {
				k = DefaultK
			}
		}
		p.Order = &Order{Desc: r.high || !r.hasExtreme(), K: k, Words: append(append([]int(nil), r.extreme...), r.kAt...)}
		return
	case (r.hasExtreme() || r.rank) && len(num) > 0:
		measure(num[0])
		r.order()
		return
	case r.rank && r.k > 0 && len(num) == 0 && p.Group == nil && rankFilter(r, p.Filters) >= 0:
		// "top 2 frames with at least 5,000 people": the frames the
		// filters keep, ranked by the filter's measure (its words are the
		// filter's; the measure is not read twice).
		f := p.Filters[rankFilter(r, p.Filters)].Measure
		p.Measures = append(p.Measures, Measure{Dataset: f.Dataset, Attribute: f.Attribute, Match: f.Match})
		r.order()
		return
	case len(r.aggWords[AggMedian]) > 0 && len(num) > 0:
		p.Agg = AggMedian
		measure(num[0])
		return
	case (len(r.aggWords[AggMean]) > 0 || len(r.perFrame) > 0) && len(num) > 0:
		p.Agg = AggMean
		measure(num[0])
		return
	case len(r.countAt) > 0 || len(p.Filters) > 0 && len(num) == 0 && (len(subj) == 0 || p.Group != nil):
		p.Agg = AggCount
		if len(num) > 0 {
			p.Agg = AggTotal
			measure(num[0])
		}
		return
	case len(num) >= 2 && len(r.aggWords[AggTotal]) == 0 && len(r.howMany) == 0:
		p.Agg = AggCompare
		measure(num[0])
		measure(num[1])
		return
	case len(num) > 0:
		m := num[0]
		p.Agg = AggTotal
		if r.cat.Measures[m.m].Aggregation == "mean" && len(r.aggWords[AggTotal]) == 0 {
			p.Agg = AggMean
		}
		measure(m)
		claimAll(r.howMany, RoleAgg)
		return
	case len(subj) > 0 && len(r.unknowns()) == 0:
		// A category alone: the frames by its values.
		p.Agg = AggCount
		if p.Group == nil {
			p.Group = &Group{Measure: r.take(subj[0], RoleGroup)}
		}
		return
	case len(p.Filters) > 0 || p.Group != nil && len(r.unknowns()) == 0:
		p.Agg = AggCount
		return
	}
	// An overview, asked for or with nothing else asked; a question of
	// figures with nothing to compute them from is unsupported.
	p.Agg = AggProfile
	for _, m := range r.ms {
		if m.role == "" {
			p.Agg = AggUnsupported
		}
	}
	if len(r.profile) > 0 {
		return
	}
	for i, t := range r.ts {
		switch {
		case t.sym || functionWords[t.low] || functionWords[t.sing] || gisWords[t.sing] || reportWords[t.low]:
		case r.role[i] == "" || r.role[i] == RoleAgg || r.role[i] == RoleOrder || r.role[i] == RoleDistance:
			p.Agg = AggUnsupported
		}
	}
}

// unknown reports a free word the grammar does not know: not a function
// word, not a word of the grammar, not a number or symbol.
func (r *reader) unknown(i int) bool {
	t := r.ts[i]
	return r.free(i) && !t.sym && !t.isNum && !known(t.low) && !known(t.sing) && !grammarWord(t.low)
}

// unknowns lists the free words the grammar does not know.
func (r *reader) unknowns() []int {
	var out []int
	for i := range r.ts {
		if r.unknown(i) {
			out = append(out, i)
		}
	}
	return out
}

// distanceUnbound reports a distance in km ("within 5 km of a market")
// that no features dataset took: the question is about something no
// readable dataset holds.
func (r *reader) distanceUnbound() bool {
	if r.p.Distance != nil {
		return false
	}
	for i := range r.ts {
		if r.free(i) && r.distanceUnit(i) {
			if _, _, ok := numberAt(r.ts, i-1); ok || r.op[max(i-1, 0)] {
				return true
			}
		}
	}
	return false
}

// distanceMax reports "the greatest distance", "the maximum distance":
// the farthest frame.
func (r *reader) distanceMax() bool {
	if len(r.nearAt) == 0 || len(r.extreme) == 0 || !r.high {
		return false
	}
	for _, k := range r.nearAt {
		if l := r.low(k); l == "distance" || l == "distances" || l == "far" {
			return true
		}
	}
	return false
}

// featureCount is a features dataset named with a word for its features
// ("building footprints", "health facility points"), or a features
// dataset with no measure named alone with "how many".
func (r *reader) featureCount() *mention {
	for _, m := range r.ms {
		if m.role != "" || m.f < 0 || m.value != "" {
			continue
		}
		if featureNouns[r.sing(m.end)] && r.free(m.end) {
			return m
		}
		if m.m < 0 && (len(r.howMany) > 0 || len(r.countAt) > 0 || len(r.aggWords[AggTotal]) > 0) {
			return m
		}
	}
	return nil
}

// featureNouns name the features of a dataset rather than a count.
var featureNouns = set("feature", "point", "polygon", "footprint", "location", "geometry", "shape", "record", "site")

// isSum reports a summed numeric measure.
func (r *reader) isSum(m *mention) bool {
	mi := r.cat.Measures[m.m]
	return isNumeric(mi) && mi.Aggregation != "mean"
}

// order settles a ranking or an extreme. Over groups ("which state has
// the most people", "top 3 LGAs by population") the groups' figures are
// ordered (Order with the group's aggregation: a density or ratio keeps
// its own), but "max population by settlement class" is each group's
// largest frame. Over frames it is AggRank when a count, a ranking word
// or plural frames ask for several, else AggMax or AggMin; the frames'
// metric is then their density when Per is set, or their ratio when
// there are two measures.
func (r *reader) order() {
	p := r.p
	if !r.hasExtreme() && !r.rank {
		return
	}
	high := r.high
	if !r.hasExtreme() {
		high = !r.sparse
	}
	ws := append(append([]int(nil), r.extreme...), r.kAt...)
	metric := p.Agg == AggRatio || p.Agg == AggDensity
	if p.Group != nil {
		if !r.fromWhich && r.k == 0 && !r.rank && r.maxMinWord() && !metric {
			p.Agg = AggMax
			if !high {
				p.Agg = AggMin
			}
			p.Order = &Order{Desc: high, K: 1, Words: ws}
			return
		}
		k := r.k
		if k == 0 {
			k = 1
			if r.plural {
				k = DefaultK
			}
		}
		if !metric {
			p.Agg = AggTotal
			switch {
			case len(r.aggWords[AggMean]) > 0:
				p.Agg = AggMean
			case len(r.aggWords[AggMedian]) > 0:
				p.Agg = AggMedian
			case len(p.Measures) > 0 && r.measureInfo(p.Measures[0]).Aggregation == "mean":
				p.Agg = AggMean
			}
		}
		p.Order = &Order{Desc: high, K: k, Words: ws}
		return
	}
	if r.rank || r.k > 0 || r.plural {
		k := r.k
		if k == 0 {
			k = DefaultK
		}
		p.Agg = AggRank
		p.Order = &Order{Desc: high, K: k, Words: ws}
		return
	}
	p.Agg = AggMax
	if !high {
		p.Agg = AggMin
	}
	p.Order = &Order{Desc: high, K: 1, Words: ws}
}

// hasExtreme reports an extreme word ("most", "lowest") or a measure
// read from one ("brightest").
func (r *reader) hasExtreme() bool { return len(r.extreme) > 0 || r.stemExtreme || r.denseSup }

// maxMinWord reports "max", "maximum", "min" or "minimum" among the
// extreme words.
func (r *reader) maxMinWord() bool {
	for _, k := range r.extreme {
		switch r.low(k) {
		case "max", "maximum", "min", "minimum":
			return true
		}
	}
	return false
}

// measureInfo is the catalogue's entry of a plan measure.
func (r *reader) measureInfo(m Measure) MeasureInfo {
	for _, mi := range r.cat.Measures {
		if mi.Dataset == m.Dataset && mi.Attribute == m.Attribute {
			return mi
		}
	}
	return MeasureInfo{}
}

// featureNear is the features dataset a nearest or farthest question is
// about: named after its word, else anywhere.
func (r *reader) featureNear(at []int) *mention {
	var best *mention
	for _, m := range r.ms {
		if m.role != "" || m.f < 0 {
			continue
		}
		if best == nil || len(at) > 0 && m.start > at[0] && best.start < at[0] {
			best = m
		}
	}
	return best
}

func (r *reader) wordsText(ws []int) string {
	var out []string
	for _, k := range ws {
		out = append(out, r.ts[k].text)
	}
	return strings.Join(out, " ")
}

// years reads a year: a measure of that year consumes it; another year
// is unread, with a note.
func (r *reader) years() {
	for i, t := range r.ts {
		if !r.free(i) || r.op[i] {
			continue
		}
		y, ok := isYear(t.low)
		if !ok {
			continue
		}
		var of []string
		match := false
		for _, m := range r.planMeasures() {
			for _, mi := range r.cat.Measures {
				if mi.Dataset == m.Dataset && mi.Attribute == m.Attribute {
					if mi.Year == y {
						match = true
					} else if mi.Year > 0 {
						of = append(of, mi.Attribute+" is of "+strconv.Itoa(mi.Year))
					} else {
						of = append(of, mi.Attribute+" has no year")
					}
				}
			}
		}
		if match {
			r.role[i] = RoleMeasure
			continue
		}
		note := "The year " + t.text + " was not read"
		if len(of) > 0 {
			note += ": " + strings.Join(of, ", ")
		}
		r.p.Notes = append(r.p.Notes, note+".")
	}
}

// planMeasures lists every measure the plan reads.
func (r *reader) planMeasures() []Measure {
	return r.p.AllMeasures()
}

// registerAndFormat reads GIS vocabulary (the register) and report
// wording (the format).
func (r *reader) registerAndFormat() {
	for i := range r.ts {
		if !r.free(i) {
			continue
		}
		w, s := r.low(i), r.sing(i)
		switch {
		case gisWords[w] || gisWords[s]:
			r.p.Register = "gis"
			r.role[i] = RoleRegister
		case reportWords[w] || reportWords[s]:
			r.p.Format = "report"
			r.role[i] = RoleFormat
		}
	}
	// The notation of the GIS register, read without taking words:
	// attribute names as identifiers ("population_2020"), calls
	// ("SUM(...)"), "=" and "/", and the nouns of cells, points and
	// polygons.
	for _, t := range r.ts {
		next := len(t.text) + t.start
		switch {
		case t.sym && (t.low == "=" || t.low == "!=" || t.low == "/"),
			gisNouns[t.sing],
			next < len(r.q) && (r.q[next] == '_' || r.q[next] == '(') && !t.sym,
			t.start > 0 && r.q[t.start-1] == '_':
			r.p.Register = "gis"
		}
	}
	for i := 0; i+1 < len(r.ts); i++ {
		for _, ph := range gisPhrases {
			if r.sing(i) == ph[0] && r.sing(i+1) == ph[1] && (r.role[i] == "" || r.role[i] == RoleRegister) && r.free(i+1) {
				if ph[0] == "area" {
					continue
				}
				r.p.Register = "gis"
				r.role[i], r.role[i+1] = RoleRegister, RoleRegister
			}
		}
	}
	// A density no unit names is per hectare in the GIS register (the
	// raster convention) and per km² in plain words.
	if r.p.Register == "gis" && r.per == "" && r.p.Per == "km2" {
		r.p.Per = "ha"
	}
}

// finish gives every word left a role: function or unread.
func (r *reader) finish() {
	for i := range r.ts {
		w := &r.p.Words[i]
		t := r.ts[i]
		fn := functionWords[t.low] || functionWords[t.sing] || t.sym && (t.low == "/" || t.low == "-")
		w.Meaning = !fn
		switch {
		case r.role[i] != "":
			w.Role = r.role[i]
		case r.at[i] >= 0 && r.ms[r.at[i]].role != "" && r.ms[r.at[i]].role != RolePlace:
			w.Role = r.ms[r.at[i]].role
		case fn && r.at[i] < 0:
			w.Role = RoleFunction
		default:
			w.Role = RoleUnread
			w.Meaning = true
		}
	}
	for i, t := range r.ts {
		if r.fixed[i] && r.p.Words[i].Role != RoleUnread && r.p.Words[i].Role != RoleFunction {
			r.p.Notes = append(r.p.Notes, strconv.Quote(t.text)+" was read as "+strconv.Quote(t.low)+" (a misspelling).")
		}
	}
	if r.p.Agg == "" {
		r.p.Agg = AggUnsupported
	}
	if r.p.Agg == AggUnsupported {
		r.p.Measures = nil
	}
}
