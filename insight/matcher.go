package insight

import (
	"frameindex/plan"
	"sort"
	"strings"
	"unicode"
)

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

// featTerm is the name of a dataset holding features: what a nearest
// search may look for.
type featTerm struct {
	words []string
	d     int
}

// valueTerm is a category value the frames hold ("Kano" of state).
type valueTerm struct {
	first string   // the first of words, always set
	words []string // split when first matches a question's word
	ref   attrRef
	value string
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
	ds         []Dataset
	terms      []term
	byConcept  map[string]attrRef   // the first attribute carrying each concept
	conceptAll map[string][]attrRef // every attribute carrying it with the preferred type
	conceptOf  map[attrRef]string
	fuzzy      []fuzzyTarget
	featTerms  []featTerm
	values     []valueTerm
	valueIdx   map[string][]int // values by first word, longest first
	frames     []Frame          // whose values are learnt when a question needs them
	valuesRead bool
	emb        *Embeddings // nil: lexical retrieval only
}

// Match kinds, for the detail of a partial answer.
const (
	viaName     = "name"
	viaSynonym  = "synonym"
	viaStem     = "stem"
	viaSpelling = "spelling"
	viaDataset  = "dataset"
	viaMeaning  = "meaning"
)

// match is a measure found in a question: tokens [start, end) name ref.
type match struct {
	start, end int
	ref        attrRef
	exact      bool
	prio       int
	via        string
	words      string // the question's words, as asked (lower case)
	modifier   string // "population growth": the words no dataset records
}

// Metric kinds: a measure itself, its density, or its ratio to another.
const (
	metricPlain = iota
	metricDensity
	metricRatio
)

// metricSpec is how a measure is derived: its density, or per scale of y.
type metricSpec struct {
	kind     int
	y        match
	scale    float64
	inferred bool // y was read from "per capita" wording, not named
}

// condSpec is a condition on frames as parsed.
type condSpec struct {
	m        match
	metric   metricSpec
	op       string
	v1, v2   float64
	category string // OpIs, OpIsNot: the value's words as asked
	value    string // the value as the frames record it, when a value term matched
	words    string // the question's words of the condition, for the detail
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

	metric    metricSpec // frames_density, frames_ratio, or a ranking of either
	cond      *condSpec  // frames_threshold, frames_share
	base      *match     // frames_share: the summed measure divided (nil: frames)
	group     *match     // frames_share without a condition: the category it breaks down by
	near      int        // frames_nearest: the dataset searched, -1 when none
	nearLoose bool       // frames_nearest: the dataset was matched from wording
	order     string     // frames_threshold: the order its table is listed in, when a ranking word asks
	topAsked  bool       // a ranking count was given ("top 5")
	unit      string     // the area unit the question named, "" when none
	notes     []string   // what was read loosely or left out: the answer is partial
	hybrid    bool       // embeddings took part in matching
	all       []match    // every measure match, before duplicates are merged
}

func newMatcher(ds []Dataset) *matcher {
	m := &matcher{ds: ds, byConcept: map[string]attrRef{}, conceptAll: map[string][]attrRef{}, conceptOf: map[attrRef]string{}}
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
		if d.Features > 0 {
			if ws := words(d.Name); len(ws) > 0 {
				m.featTerms = append(m.featTerms, featTerm{words: ws, d: di})
			}
		}
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
			if _, ok := m.byConcept[c]; !ok || (good && !prefer[c]) {
				m.byConcept[c] = ref
				prefer[c] = good
				if good {
					m.conceptAll[c] = nil
				}
			}
			if good == prefer[c] {
				m.conceptAll[c] = append(m.conceptAll[c], ref)
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

// maxValues bounds the category values a matcher learns from frames.
const maxValues = 1000

// requestMatcher is the matcher of one request: its datasets, the
// category values its known frames hold and its embeddings.
func requestMatcher(req Request) *matcher {
	m := newMatcher(req.Datasets)
	m.frames = req.Frames
	m.emb = req.Embeddings
	return m
}

// addValues learns the category values the known frames hold, so that a
// question may name one ("the share of frames in Kano").
func (m *matcher) addValues(frames []Frame) {
	type catAttr struct {
		ref  attrRef
		name string
	}
	var cats []catAttr
	for di := range m.ds {
		for ai := range m.ds[di].Attributes {
			if at := &m.ds[di].Attributes[ai]; at.Name != "" && kindOf(at) == kindMode {
				cats = append(cats, catAttr{attrRef{di, ai}, at.Name})
			}
		}
	}
	if len(cats) == 0 {
		return
	}
	seenRaw := map[valueKey]bool{}
	seen := map[valueKey]bool{}
	for fi := range frames {
		f := &frames[fi]
		if !f.Known || len(f.Data) == 0 {
			continue
		}
		for _, c := range cats {
			df, ok := f.Data[m.ds[c.ref.d].ID]
			if !ok {
				continue
			}
			v, ok := df.Attrs[c.name]
			if !ok || v.IsNum || len(v.Str) > 100 || seenRaw[valueKey{c.ref, v.Str}] {
				continue
			}
			seenRaw[valueKey{c.ref, v.Str}] = true
			s := strings.TrimSpace(v.Str)
			k := valueKey{c.ref, strings.ToLower(s)}
			if s == "" || seen[k] || len(m.values) >= maxValues {
				continue
			}
			seen[k] = true
			if first := firstWord(s); first != "" {
				m.values = append(m.values, valueTerm{first: first, ref: c.ref, value: s})
			}
		}
	}
	// Longer values first: "peri-urban" before "urban".
	sort.SliceStable(m.values, func(i, j int) bool { return len(m.values[i].value) > len(m.values[j].value) })
	m.valueIdx = make(map[string][]int, len(m.values))
	for i, v := range m.values {
		m.valueIdx[v.first] = append(m.valueIdx[v.first], i)
	}
}

// firstWord is the first of words(s), found without splitting all of s:
// values are indexed by it and split only when a question's word matches.
func firstWord(s string) string {
	end := len(s)
	for i, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '‘' || r == ',' || r == '.') {
			end = i
			break
		}
	}
	if ws := words(s[:end]); len(ws) > 0 {
		return ws[0]
	}
	if ws := words(s); len(ws) > 0 {
		return ws[0]
	}
	return ""
}

type valueKey struct {
	ref   attrRef
	value string
}

// identify returns the concept an attribute carries (plan.Concept).
func identify(a Attribute) string {
	return plan.Concept(plan.MeasureInfo{Attribute: a.Name, Label: a.Label, Aliases: a.Aliases})
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

// isSum reports a numeric measure that is summed.
func (m *matcher) isSum(r attrRef) bool { return kindOf(m.attr(r)) == kindSum }
