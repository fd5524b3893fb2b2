package insight

import (
	"sort"
	"strings"
)

// Intents, confidences, orders and retrievals as the contract (§4) and the
// spec's Insight spell them.
const (
	IntentFrames      = "frames"
	IntentAttribute   = "frames_attribute"
	IntentRank        = "frames_rank"
	IntentCompare     = "frames_compare"
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
)

// defaultTop is how many frames a ranking lists unless the question says.
const defaultTop = 3

// attrRef points at datasets[d].Attributes[a].
type attrRef struct{ d, a int }

// Term priorities: what part of a dataset's description a term came from.
const (
	prioName = iota
	prioLabel
	prioAlias
	prioDatasetName // a single-attribute dataset's name: a partial match
)

// term is wording that names an attribute.
type term struct {
	words []string
	ref   attrRef
	prio  int
}

// fuzzyTarget is a word a misspelling may be read as: an attribute's
// (ref) or an intent word (intent != "").
type fuzzyTarget struct {
	word   string
	ref    attrRef
	intent string
}

// matcher holds what questions are matched against, built once per list of
// readable datasets: Answer reuses it for the question and every follow-up.
type matcher struct {
	ds        []Dataset
	terms     []term
	byConcept map[string]attrRef // the first attribute carrying each concept
	conceptOf map[attrRef]string
	fuzzy     []fuzzyTarget
}

// Match kinds, for the detail of a partial answer.
const (
	viaName     = "name"
	viaSynonym  = "synonym"
	viaStem     = "stem"
	viaSpelling = "spelling"
	viaDataset  = "dataset"
)

// match is a measure found in a question: tokens [start, end) name ref.
type match struct {
	start, end int
	ref        attrRef
	exact      bool
	prio       int
	via        string
	words      string // the question's words, as asked (lower case)
	modifier   string // "population density": the words no dataset records
}

// parsed is everything the parser found: the plan and what the answer's
// detail explains.
type parsed struct {
	plan     Plan
	used     []match  // the plan's measures, in plan order
	ignored  []match  // matched but left out of the plan
	modified []match  // dropped: asked about something no dataset records
	unknown  []string // content words no readable dataset records, unique
	top      int      // frames a ranking lists
}

func newMatcher(ds []Dataset) *matcher {
	m := &matcher{ds: ds, byConcept: map[string]attrRef{}, conceptOf: map[attrRef]string{}}
	seen := map[string]bool{}
	addFuzzy := func(w string, t fuzzyTarget) {
		if len(w) < 5 || !isASCIILetters(w) || seen[w] {
			return
		}
		seen[w] = true
		t.word = w
		m.fuzzy = append(m.fuzzy, t)
	}
	prefer := map[string]bool{} // concept -> the chosen attribute has the preferred type
	for di, d := range ds {
		for ai, a := range d.Attributes {
			if a.Name == "" {
				continue
			}
			ref := attrRef{di, ai}
			add := func(s string, prio int) {
				if ws := words(s); len(ws) > 0 {
					m.terms = append(m.terms, term{words: ws, ref: ref, prio: prio})
					if len(ws) == 1 && prio <= prioAlias {
						addFuzzy(ws[0], fuzzyTarget{ref: ref})
					}
				}
			}
			add(a.Name, prioName)
			add(a.Label, prioLabel)
			for _, al := range a.Aliases {
				add(al, prioAlias)
			}
			if len(d.Attributes) == 1 {
				add(d.Name, prioDatasetName)
			}
			c := identify(a)
			if c == "" {
				continue
			}
			m.conceptOf[ref] = c
			good := wantsNumber(c) == isNumeric(a)
			if old, ok := m.byConcept[c]; !ok || (good && !prefer[c]) {
				_ = old
				m.byConcept[c] = ref
				prefer[c] = good
			}
		}
	}
	for _, s := range synonyms {
		if ref, ok := m.byConcept[s.concept]; ok && len(s.words) == 1 {
			addFuzzy(s.words[0], fuzzyTarget{ref: ref})
		}
	}
	for _, w := range intentVocabulary {
		addFuzzy(w, fuzzyTarget{intent: w})
	}
	return m
}

// identify returns the concept an attribute carries, from its name, then
// its label, then its aliases; "" when none.
func identify(a Attribute) string {
	sources := append([]string{a.Name, a.Label}, a.Aliases...)
	for _, s := range sources {
		ws := words(s)
		for _, ci := range conceptIdentity {
			for _, id := range ci.phrases {
				if containsPhrase(ws, id) {
					return ci.concept
				}
			}
		}
	}
	return ""
}

// wantsNumber reports whether a concept is a count or measurement (rather
// than a name or class).
func wantsNumber(c string) bool {
	switch c {
	case cPopulation, cBuildings, cHealth, cRadiance:
		return true
	}
	return false
}

// isNumeric reports a numeric attribute (type number, or no type and a sum
// or mean aggregation).
func isNumeric(a Attribute) bool {
	switch a.Type {
	case "number":
		return true
	case "":
		return a.Aggregation == "sum" || a.Aggregation == "mean"
	}
	return false
}

func containsPhrase(ws, p []string) bool {
	for i := 0; i+len(p) <= len(ws); i++ {
		if phraseAt(ws, i, p) {
			return true
		}
	}
	return false
}

func phraseAt(ws []string, i int, p []string) bool {
	if len(p) == 0 || i+len(p) > len(ws) {
		return false
	}
	for k, w := range p {
		if ws[i+k] != w {
			return false
		}
	}
	return true
}

// attr returns the attribute ref points at.
func (m *matcher) attr(r attrRef) *Attribute { return &m.ds[r.d].Attributes[r.a] }

// measureID is a plan's name for a measure: "datasetID.attribute".
func (m *matcher) measureID(r attrRef) string {
	return m.ds[r.d].ID + "." + m.attr(r).Name
}

func (m *matcher) parse(q string) parsed {
	toks := tokenize(q)
	sing := make([]string, len(toks))
	for i, t := range toks {
		sing[i] = t.sing
	}

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
			ref, ok := m.byConcept[s.concept]
			if ok && phraseAt(sing, i, s.words) {
				cands = append(cands, match{start: i, end: i + len(s.words), ref: ref, prio: prioDatasetName + 1, via: viaSynonym})
			}
		}
		for _, s := range stems {
			ref, ok := m.byConcept[s.concept]
			if ok && strings.HasPrefix(sing[i], s.prefix) {
				cands = append(cands, match{start: i, end: i + 1, ref: ref, prio: prioDatasetName + 2, via: viaStem})
				break
			}
		}
	}
	taken := make([]bool, len(toks))
	chosen := pick(cands, taken)

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
			toks[i] = token{raw: f.intent, sing: f.intent}
			continue
		}
		taken[i] = true
		chosen = append(chosen, match{start: i, end: i + 1, ref: f.ref, prio: prioDatasetName + 3, via: viaSpelling})
	}
	sort.SliceStable(chosen, func(a, b int) bool { return chosen[a].start < chosen[b].start })
	for k := range chosen {
		var ws []string
		for _, t := range toks[chosen[k].start:chosen[k].end] {
			ws = append(ws, t.raw)
		}
		chosen[k].words = strings.Join(ws, " ")
	}

	// Words no readable dataset records.
	unknownAt := make([]bool, len(toks))
	var p parsed
	seenUnknown := map[string]bool{}
	for i, t := range toks {
		if taken[i] || known(t) {
			continue
		}
		unknownAt[i] = true
		if !seenUnknown[t.raw] {
			seenUnknown[t.raw] = true
			p.unknown = append(p.unknown, t.raw)
		}
	}

	// A measure another unknown word qualifies ("population density",
	// "GDP per person") is not what was asked.
	var measures []match
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
	order := ""
	for i, t := range toks {
		w, s := t.raw, t.sing
		switch {
		case overviewWords[w] || overviewWords[s]:
			overview = true
		case compareWords[w] || compareWords[s]:
			compare = true
		}
		if rankHigh[w] && order == "" {
			order = OrderHighest
		}
		if rankLow[w] && order == "" {
			order = OrderLowest
		}
		if w == "ascending" {
			order = OrderLowest
		}
		if w == "which" || w == "whichever" {
			which = true
		}
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
	}
	if order == "" && which {
		for _, t := range toks {
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
	p.plan.Register = RegisterPlain
	if gis {
		p.plan.Register = RegisterGIS
	}
	p.top = defaultTop
	if order != "" {
		if n, ok := topCount(toks); ok {
			p.top = n
		}
	}

	// The intent.
	switch {
	case len(measures) == 0:
		if len(p.modified) > 0 || (!overview && len(p.unknown) > 0) {
			p.plan.Intent, p.plan.Confidence = IntentUnsupported, ConfidenceUnknown
			return p
		}
		p.plan.Intent, p.plan.Confidence = IntentFrames, ConfidenceExact
		return p
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
	p.plan.Confidence = ConfidenceExact
	for _, c := range p.used {
		p.plan.Measures = append(p.plan.Measures, m.measureID(c.ref))
		if !c.exact {
			p.plan.Confidence = ConfidencePartial
		}
	}
	return p
}

// pick chooses non-overlapping candidates: named before matched from
// wording, then the longest, then by priority (name, label, alias) and
// position; taken marks the words used.
func pick(cands []match, taken []bool) []match {
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
		rankLow[w] || compareWords[w] || compareWords[s] || gisNeutral[w] || gisNeutral[s] || isDigits(w) {
		return true
	}
	_, ok := numberWords[w]
	return ok || len([]rune(w)) < 2
}

// topCount finds "top 5", "5 highest", "bottom three", "the 10 frames with
// the most...": a count next to a ranking word or before a frame noun.
func topCount(toks []token) (int, bool) {
	near := func(t token) bool {
		w := t.raw
		return rankHigh[w] || rankLow[w] || w == "first" || w == "last"
	}
	frameNoun := set("frame", "area", "cell", "place", "location", "tile", "square", "one", "site", "spot", "ward", "zone")
	for i, t := range toks {
		n, ok := numberValue(t)
		if !ok {
			continue
		}
		if (i > 0 && near(toks[i-1])) || (i+1 < len(toks) && (near(toks[i+1]) || frameNoun[toks[i+1].sing])) {
			return n, true
		}
	}
	return 0, false
}
