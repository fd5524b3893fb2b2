package insight

import (
	"sort"
	"strconv"
	"strings"
)

// Intents, confidences, orders, retrievals, area units, condition
// operators and share bases as the contract (§4) and the spec's Insight
// spell them.
const (
	IntentFrames      = "frames"
	IntentAttribute   = "frames_attribute"
	IntentRank        = "frames_rank"
	IntentCompare     = "frames_compare"
	IntentDensity     = "frames_density"
	IntentRatio       = "frames_ratio"
	IntentThreshold   = "frames_threshold"
	IntentShare       = "frames_share"
	IntentNearest     = "frames_nearest"
	IntentUnsupported = "unsupported"

	ConfidenceExact   = "exact"
	ConfidencePartial = "partial"
	ConfidenceUnknown = "unknown"

	RegisterPlain = "plain"
	RegisterGIS   = "gis"

	OrderHighest = "highest"
	OrderLowest  = "lowest"

	RetrievalNone    = "none"
	RetrievalLexical = "lexical"
	RetrievalHybrid  = "hybrid"

	PerKm2     = "km2" // square kilometres (the plain register's density)
	PerHectare = "ha"  // hectares (the GIS register's density)

	OpGT      = ">"
	OpGE      = ">="
	OpLT      = "<"
	OpLE      = "<="
	OpEq      = "="
	OpBetween = "between" // Value <= x <= Value2
	OpNone    = "none"    // no record, or 0
	OpSome    = "some"    // a record above 0
	OpIs      = "is"      // a category's value is Category
	OpIsNot   = "is not"

	BaseFrames = "frames"
)

// Intents lists every intent an answer may carry, in the order the
// contract documents them.
var Intents = []string{IntentFrames, IntentAttribute, IntentRank, IntentCompare, IntentDensity, IntentRatio,
	IntentThreshold, IntentShare, IntentNearest, IntentUnsupported}

// defaultTop is how many frames a ranking lists unless the question says.
const defaultTop = 3

// maxNearest is the most nearest features a question may ask for.
const maxNearest = 10

func (m *matcher) parse(q string) parsed {
	toks := tokenize(normalizeSymbols(q))
	sing := make([]string, len(toks))
	for i, t := range toks {
		sing[i] = t.sing
	}
	var p parsed
	p.near = -1
	p.hybrid = m.emb != nil && len(m.emb.Measures) > 0
	qv := m.questionVector(toks)

	// Candidates: named attributes, synonyms, stems.
	var cands []match
	for i := range toks {
		for _, t := range m.terms {
			if phraseAt(sing, i, t.words) {
				via := viaName
				if t.prio == prioDatasetName {
					via = viaDataset
				}
				cands = append(cands, match{start: i, end: i + len(t.words), ref: t.ref,
					exact: t.prio != prioDatasetName, prio: t.prio, via: via})
			}
		}
		for _, s := range synonyms {
			ref, ok := m.conceptRef(s.concept, qv)
			if ok && phraseAt(sing, i, s.words) {
				cands = append(cands, match{start: i, end: i + len(s.words), ref: ref, prio: prioDatasetName + 1, via: viaSynonym})
			}
		}
		for _, s := range stems {
			ref, ok := m.conceptRef(s.concept, qv)
			if ok && strings.HasPrefix(sing[i], s.prefix) {
				cands = append(cands, match{start: i, end: i + 1, ref: ref, prio: prioDatasetName + 2, via: viaStem})
				break
			}
		}
	}
	taken := make([]bool, len(toks))
	chosen := pick(cands, taken)

	// Category values the frames hold ("Kano", "peri-urban"), among the
	// words left; read off the frames only when a word is left.
	var values []valueMatch
	if !m.valuesRead {
		for i, t := range toks {
			if !taken[i] && !known(t) {
				m.valuesRead = true
				m.addValues(m.frames)
				break
			}
		}
	}
	for i := range toks {
		for _, vi := range m.valueIdx[sing[i]] {
			v := &m.values[vi]
			if v.words == nil {
				v.words = words(v.value)
			}
			if !taken[i] && len(v.words) <= 8 && phraseAt(sing, i, v.words) && free(taken, i, i+len(v.words)) {
				values = append(values, valueMatch{start: i, end: i + len(v.words), ref: v.ref, value: v.value})
				for k := i; k < i+len(v.words); k++ {
					taken[k] = true
				}
				break
			}
		}
	}

	// Misspellings of measures and intent words, among the words left.
	for i, t := range toks {
		if taken[i] || len(t.sing) < 5 || !isASCIILetters(t.sing) || known(t) {
			continue
		}
		best, bestD := -1, 3
		for k, f := range m.fuzzy {
			if f.word[0] != t.sing[0] {
				continue
			}
			budget := typoBudget(len(t.sing))
			if d := editDistance(t.sing, f.word, budget); d <= budget && d < bestD {
				best, bestD = k, d
			}
		}
		if best < 0 {
			continue
		}
		f := m.fuzzy[best]
		if f.intent != "" {
			toks[i] = token{raw: f.intent, sing: singular(f.intent)}
			continue
		}
		taken[i] = true
		chosen = append(chosen, match{start: i, end: i + 1, ref: f.ref, prio: prioDatasetName + 3, via: viaSpelling})
	}
	sort.SliceStable(chosen, func(a, b int) bool { return chosen[a].start < chosen[b].start })
	for k := range chosen {
		chosen[k].words = wordsOf(toks, chosen[k].start, chosen[k].end)
	}

	// Operators: thresholds, gaps, densities, shares, nearest.
	sc := scanOps(toks, taken)
	p.unit = sc.unit
	if sc.nearest {
		p.near = m.featureName(sing, taken, sc.used)
	}

	// Words no readable dataset records.
	unknownAt := make([]bool, len(toks))
	seenUnknown := map[string]bool{}
	for i, t := range toks {
		if taken[i] || sc.used[i] || known(t) {
			continue
		}
		unknownAt[i] = true
		if !seenUnknown[t.raw] {
			seenUnknown[t.raw] = true
			p.unknown = append(p.unknown, t.raw)
		}
	}

	// Hybrid retrieval: words the lexical matcher could not place may name
	// a measure by meaning.
	if mt, ok := m.byMeaning(toks, unknownAt, chosen, p.unknown); ok {
		chosen = append(chosen, mt)
		sort.SliceStable(chosen, func(a, b int) bool { return chosen[a].start < chosen[b].start })
		for i := range unknownAt {
			unknownAt[i] = false
		}
		p.unknown = nil
	}

	// A measure another unknown word qualifies ("population growth",
	// "GDP per person") is not what was asked.
	var measures []match
	p.all = nil
	for _, c := range chosen {
		switch {
		case c.end < len(toks) && unknownAt[c.end]:
			c.modifier = c.words + " " + toks[c.end].raw
			p.modified = append(p.modified, c)
			continue
		case c.start >= 2 && unknownAt[c.start-2] && (toks[c.start-1].raw == "of" || toks[c.start-1].raw == "per" || toks[c.start-1].raw == "for"):
			c.modifier = toks[c.start-2].raw + " " + toks[c.start-1].raw + " " + c.words
			p.modified = append(p.modified, c)
			continue
		}
		p.all = append(p.all, c)
		dup := false
		for k := range measures {
			if measures[k].ref == c.ref {
				dup = true
				if c.exact && !measures[k].exact {
					measures[k] = c
				}
			}
		}
		if !dup {
			measures = append(measures, c)
		}
	}

	// Intent words.
	var overview, compare, which, gis bool
	order, neutralOrder := "", false
	for i, t := range toks {
		w, s := t.raw, t.sing
		if gisWords[w] || gisWords[s] {
			gis = true
		}
		if i+1 < len(toks) {
			for _, ph := range gisPhrases {
				if s == ph[0] && toks[i+1].sing == ph[1] {
					gis = true
				}
			}
		}
		if sc.used[i] && !densityWords[w] {
			continue // "at least", "more than": not rankings
		}
		switch {
		case overviewWords[w] || overviewWords[s]:
			overview = true
		case compareWords[w] || compareWords[s]:
			compare = true
		}
		// "top", "rank", "sort" ask for a ranking without saying which
		// end: a word that says ("fewest", "highest") decides, wherever it
		// stands ("top 3 frames with the fewest people").
		if rankHigh[w] && (order == "" || neutralOrder && !rankNeutral[w]) {
			order, neutralOrder = OrderHighest, rankNeutral[w]
		}
		if rankLow[w] && (order == "" || neutralOrder) {
			order, neutralOrder = OrderLowest, false
		}
		if w == "ascending" {
			order = OrderLowest
		}
		if w == "which" || w == "whichever" {
			which = true
		}
	}
	if order == "" && which {
		for i, t := range toks {
			if sc.used[i] {
				continue
			}
			switch t.raw {
			case "more", "greater", "higher", "bigger", "larger":
				order = OrderHighest
			case "less", "fewer", "lower", "smaller":
				order = OrderLowest
			}
			if order != "" {
				break
			}
		}
	}
	if sc.density && sc.sparse && order != "" {
		order = OrderLowest
	}
	p.plan.Register = RegisterPlain
	if gis {
		p.plan.Register = RegisterGIS
	}
	p.top = defaultTop
	topAt := -1
	if order != "" {
		if n, at, ok := topCount(toks, sc.used); ok {
			p.top, topAt = n, at
		}
	}
	if topAt >= 0 {
		sc.unread = dropIndex(sc.unread, topAt)
		p.topAsked = true
	}
	p.order = order

	m.decide(toks, &sc, measures, values, &p, order, overview, compare)
	return p
}

// valueMatch is a category value named in a question.
type valueMatch struct {
	start, end int
	ref        attrRef
	value      string
}

// free reports whether none of taken[i:j] is set.
func free(taken []bool, i, j int) bool {
	if j > len(taken) {
		return false
	}
	for k := i; k < j; k++ {
		if taken[k] {
			return false
		}
	}
	return true
}

// wordsOf joins the raw words toks[i:j].
func wordsOf(toks []token, i, j int) string {
	ws := make([]string, 0, j-i)
	for _, t := range toks[i:min(j, len(toks))] {
		ws = append(ws, t.raw)
	}
	return strings.Join(ws, " ")
}

// dropIndex removes x from xs.
func dropIndex(xs []int, x int) []int {
	out := xs[:0:0]
	for _, v := range xs {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// featureName finds the name of a dataset of features among the words no
// measure or operator took ("the nearest school" for a dataset "Schools"),
// marking its words taken; -1 when none.
func (m *matcher) featureName(sing []string, taken, used []bool) int {
	best, bestLen := -1, 0
	at := 0
	for i := range sing {
		for _, f := range m.featTerms {
			if len(f.words) > bestLen && phraseAt(sing, i, f.words) && free(taken, i, i+len(f.words)) && free(used, i, i+len(f.words)) {
				best, bestLen, at = f.d, len(f.words), i
			}
		}
	}
	for k := at; best >= 0 && k < at+bestLen; k++ {
		taken[k] = true
	}
	return best
}

// decide settles the plan from the measures and operators found.
func (m *matcher) decide(toks []token, sc *scan, measures []match, values []valueMatch, p *parsed, order string, overview, compare bool) {
	// Nearest: a dataset of features, by name or through a measure of it.
	if sc.nearest {
		m.decideNearest(sc, measures, p)
		return
	}
	if len(measures) == 0 && sc.density && len(p.unknown) == 0 && len(p.modified) == 0 {
		// "how dense is it": a density of the population.
		if r, ok := m.byConcept[cPopulation]; ok && m.isSum(r) {
			mt := match{start: sc.densityAt, end: sc.densityAt + 1, ref: r, via: viaSynonym,
				words: toks[sc.densityAt].raw}
			measures = []match{mt}
		}
	}
	ratios := m.ratioPairs(toks, sc, measures)

	cond := m.bindCondition(toks, sc, measures, values, ratios, p)
	if cond != nil && (cond.op == OpIs || cond.op == OpIsNot) && compare && len(measures) >= 2 {
		cond = nil // "compare the urban share and the population": a comparison
		p.notes = nil
	}
	switch {
	case sc.share && !(compare && len(measures) >= 2) && m.decideShare(toks, sc, measures, values, cond, p):
		m.finish(toks, sc, p)
		return
	case cond != nil:
		m.decideThreshold(sc, measures, cond, p)
		m.finish(toks, sc, p)
		return
	}
	if len(measures) == 0 {
		switch {
		case len(p.modified) > 0 || (!overview && len(p.unknown) > 0):
			p.plan.Intent, p.plan.Confidence = IntentUnsupported, ConfidenceUnknown
		case len(sc.comps) > 0 || len(sc.gaps) > 0 || sc.share || sc.ratio || len(sc.perPerson) > 0 || sc.density:
			p.plan.Intent, p.plan.Confidence = IntentUnsupported, ConfidenceUnknown
			p.notes = append(p.notes, "No readable measure was named for "+strconv.Quote(opWordsOf(toks, sc))+".")
		default:
			p.plan.Intent, p.plan.Confidence = IntentFrames, ConfidenceExact
		}
		return
	}

	// Densities and ratios, alone or ranked.
	if sc.density || len(ratios) > 0 {
		if m.decideMetric(toks, sc, measures, ratios, p, order) {
			m.finish(toks, sc, p)
			return
		}
		if p.plan.Intent == IntentUnsupported {
			return
		}
	}

	switch {
	case len(measures) >= 2 && (compare || order == ""):
		p.plan.Intent = IntentCompare
		p.used, p.ignored = measures[:2], measures[2:]
	case order != "":
		first := -1
		for k, c := range measures {
			if isNumeric(*m.attr(c.ref)) {
				first = k
				break
			}
		}
		if first < 0 {
			// "the most common state": a ranking of names is their mode.
			p.plan.Intent = IntentAttribute
			p.used = measures[:1]
			p.ignored = measures[1:]
			break
		}
		p.plan.Intent, p.plan.Order = IntentRank, order
		p.used = []match{measures[first]}
		p.ignored = append(append([]match(nil), measures[:first]...), measures[first+1:]...)
	default:
		p.plan.Intent = IntentAttribute
		p.used = measures[:1]
	}
	m.finish(toks, sc, p)
}

// finish fills the plan's measures and confidence, after noting numbers
// and years the plan did not read.
func (m *matcher) finish(toks []token, sc *scan, p *parsed) {
	if p.plan.Intent == IntentUnsupported || p.plan.Intent == IntentFrames {
		if p.plan.Confidence == "" {
			p.plan.Confidence = ConfidenceUnknown
		}
		return
	}
	for _, i := range sc.years {
		y, _ := isYear(toks[i].raw)
		match := false
		var of []string
		for _, c := range p.used {
			at := m.attr(c.ref)
			if at.Year == y {
				match = true
			} else if at.Year > 0 {
				of = append(of, labelOf(at)+" is of "+strconv.Itoa(at.Year))
			} else {
				of = append(of, labelOf(at)+" has no year")
			}
		}
		if !match {
			p.notes = append(p.notes, "The year "+strconv.Itoa(y)+" was not read: "+joinAnd(of, "and")+".")
		}
	}
	for _, i := range sc.unread {
		p.notes = append(p.notes, "The number "+FormatNumberText(toks[i].raw)+" was not read.")
	}
	p.plan.Measures = nil
	p.plan.Confidence = ConfidenceExact
	for _, c := range p.used {
		p.plan.Measures = append(p.plan.Measures, m.measureID(c.ref))
		if !c.exact {
			p.plan.Confidence = ConfidencePartial
		}
	}
	if len(p.notes) > 0 || p.metric.inferred || (p.cond != nil && p.cond.metric.inferred) {
		p.plan.Confidence = ConfidencePartial
	}
}

// FormatNumberText shows a number token as FormatNumber would ("5000" ->
// "5,000"); other words unchanged.
func FormatNumberText(w string) string {
	if v, ok := parseNumberToken(w); ok {
		return FormatNumber(v)
	}
	return w
}

// opWordsOf is the operator wording of a question, for a detail.
func opWordsOf(toks []token, sc *scan) string {
	var ws []string
	for i, t := range toks {
		if sc.used[i] {
			ws = append(ws, t.raw)
		}
	}
	if len(ws) == 0 {
		return ""
	}
	return strings.Join(ws, " ")
}

// pick chooses non-overlapping candidates: named before matched from
// wording, then the longest, then by priority (name, label, alias) and
// position; taken marks the words used.
func pick(cands []match, taken []bool) []match {
	// A phrase holding a shorter one that names the same attribute is the
	// better reading ("peri urban" over "urban"), and as exact as the
	// shorter.
	for i := range cands {
		for j := range cands {
			x, y := &cands[i], &cands[j]
			if i != j && x.ref == y.ref && x.start <= y.start && y.end <= x.end && x.end-x.start > y.end-y.start && y.exact {
				x.exact = true
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		x, y := cands[a], cands[b]
		if x.exact != y.exact {
			return x.exact
		}
		if lx, ly := x.end-x.start, y.end-y.start; lx != ly {
			return lx > ly
		}
		if x.prio != y.prio {
			return x.prio < y.prio
		}
		return x.start < y.start
	})
	var out []match
next:
	for _, c := range cands {
		for i := c.start; i < c.end; i++ {
			if taken[i] {
				continue next
			}
		}
		for i := c.start; i < c.end; i++ {
			taken[i] = true
		}
		out = append(out, c)
	}
	return out
}

// known reports a word the engine understands without a dataset: function
// words, intent words, GIS words that describe the computation, numbers.
func known(t token) bool {
	w, s := t.raw, t.sing
	if stopwords[w] || stopwords[s] || overviewWords[w] || overviewWords[s] || rankHigh[w] ||
		rankLow[w] || compareWords[w] || compareWords[s] || gisNeutral[w] || gisNeutral[s] || isDigits(w) ||
		opWords[w] || opWords[s] || isNumberToken(w) {
		return true
	}
	_, ok := numberWords[w]
	return ok || len([]rune(w)) < 2
}

// topCount finds "top 5", "5 highest", "bottom three", "the 10 frames with
// the most...": a count next to a ranking word or before a frame noun, and
// its index. Words an operator used are skipped.
func topCount(toks []token, used []bool) (int, int, bool) {
	near := func(i int) bool {
		if i < 0 || i >= len(toks) || used[i] {
			return false
		}
		w := toks[i].raw
		return rankHigh[w] || rankLow[w] || w == "first" || w == "last"
	}
	frameNoun := set("frame", "area", "cell", "place", "location", "tile", "square", "one", "site", "spot", "ward", "zone")
	for i, t := range toks {
		if used[i] {
			continue
		}
		n, ok := numberValue(t)
		if !ok {
			continue
		}
		if near(i-1) || near(i+1) || (i+1 < len(toks) && frameNoun[toks[i+1].sing]) {
			return n, i, true
		}
	}
	return 0, -1, false
}
