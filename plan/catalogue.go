package plan

import (
	"slices"
	"sort"
	"strings"
	"sync"
)

// MeasureInfo is one readable measure: an attribute of a dataset the
// asking key may read.
type MeasureInfo struct {
	Dataset     string
	Attribute   string
	Label       string
	Aliases     []string
	Unit        string
	Type        string // number | category | text
	Aggregation string // sum | mean | mode
	Year        int
	// Values are the category values known for a category measure
	// ("urban", "Kano"), so that a question may name one.
	Values []string
}

// FeatureSet is a readable dataset that holds features (points or
// shapes): what "nearest", "farthest", "within 5 km of" and a count of
// features are about. ID is the dataset id; a measure of the same
// dataset ("clinics" for facility_count) names it too.
type FeatureSet struct {
	ID      string
	Name    string
	Aliases []string
}

// Catalogue is what a question is read against. Fill it and then share
// it: the parser builds its word index on first use (safe for concurrent
// Parse calls) and never changes the exported fields. Do not copy a
// Catalogue after its first use.
type Catalogue struct {
	Measures []MeasureInfo
	Features []FeatureSet
	// Place, when set, reports whether words (as written, from a word of
	// the question to the end) begin with the name of a place the caller
	// knows ("Dala", "Kano State"), and how many words it takes. It is
	// called only at words no measure, value or operator took; it must
	// be safe for concurrent use.
	Place func(words []string) (n int, ok bool)

	once sync.Once
	ix   *index
}

// Term kinds.
const (
	kMeasure = iota // a measure named (by name, label, alias, synonym...)
	kValue          // a category value of a measure
	kFeature        // a features dataset named
)

// term is wording the catalogue knows.
type term struct {
	words []string
	kind  int
	m     int    // measure index, -1 for a feature set
	f     int    // feature set index, -1 when none
	value string // kValue: the value as the catalogue holds it
	via   string // how it names: name, label, alias, synonym, dataset, value
	rank  int    // lower wins between terms of the same span
}

// fuzzyTarget is a word a misspelling may be read as: a measure's term,
// or a word of the grammar (word != "", m < 0).
type fuzzyTarget struct {
	word string
	t    *term
}

// index is a Catalogue compiled for matching.
type index struct {
	byFirst   map[string][]*term // longest first
	fuzzy     []fuzzyTarget
	concept   map[string]int // concept -> its measure
	conceptOf []string       // per measure
	featOf    []int          // per measure: its dataset's feature set, -1
}

func (c *Catalogue) index() *index {
	c.once.Do(func() { c.ix = buildIndex(c) })
	return c.ix
}

// via ranks: a value is more specific than the measure it belongs to.
var viaRank = map[string]int{"value": 0, "name": 1, "label": 2, "alias": 3, "feature": 4, "dataset": 5, "synonym": 6}

func buildIndex(c *Catalogue) *index {
	ix := &index{byFirst: map[string][]*term{}, concept: map[string]int{}}
	seenFuzzy := map[string]bool{}
	addFuzzy := func(w string, t *term) {
		if len(w) < 5 || !isASCIILetters(w) || seenFuzzy[w] {
			return
		}
		seenFuzzy[w] = true
		ix.fuzzy = append(ix.fuzzy, fuzzyTarget{word: w, t: t})
	}
	add := func(s string, t term) {
		ws := words(strings.ReplaceAll(s, "_", " "))
		if len(ws) == 0 || len(ws) > 8 {
			return
		}
		t.words = ws
		t.rank = viaRank[t.via]
		tp := &t
		ix.byFirst[ws[0]] = append(ix.byFirst[ws[0]], tp)
		if len(ws) == 1 && t.kind != kValue {
			addFuzzy(ws[0], tp)
		}
	}
	featByID := map[string]int{}
	for fi, f := range c.Features {
		featByID[f.ID] = fi
	}
	ix.conceptOf = make([]string, len(c.Measures))
	ix.featOf = make([]int, len(c.Measures))
	perDataset := map[string]int{}
	for _, m := range c.Measures {
		perDataset[m.Dataset]++
	}
	for mi, m := range c.Measures {
		f, ok := featByID[m.Dataset]
		if !ok {
			f = -1
		}
		ix.featOf[mi] = f
		base := term{kind: kMeasure, m: mi, f: f}
		for _, s := range []struct{ text, via string }{{m.Attribute, "name"}, {m.Label, "label"}} {
			t := base
			t.via = s.via
			add(s.text, t)
		}
		for _, a := range m.Aliases {
			t := base
			t.via = "alias"
			add(a, t)
		}
		if perDataset[m.Dataset] == 1 && f < 0 {
			t := base
			t.via = "dataset"
			add(m.Dataset, t)
		}
		if m.Type == "category" || m.Type == "text" {
			for _, v := range m.Values {
				t := base
				t.kind, t.via, t.value = kValue, "value", v
				add(v, t)
			}
		}
		cpt := Concept(m)
		ix.conceptOf[mi] = cpt
		if prev, ok := ix.concept[cpt]; cpt != "" && (!ok || wantsNumber(cpt) && !isNumeric(c.Measures[prev]) && isNumeric(m)) {
			ix.concept[cpt] = mi
		}
	}
	for _, cpt := range ConceptOrder {
		mi, ok := ix.concept[cpt]
		if !ok {
			continue
		}
		for _, s := range synonyms[cpt] {
			add(s, term{kind: kMeasure, m: mi, f: ix.featOf[mi], via: "synonym"})
		}
	}
	for fi, f := range c.Features {
		t := term{kind: kFeature, m: -1, f: fi, via: "feature"}
		add(f.ID, t)
		add(f.Name, t)
		for _, a := range f.Aliases {
			add(a, t)
		}
	}
	for _, w := range grammarWords {
		addFuzzy(w, nil)
	}
	for k, ts := range ix.byFirst {
		sort.SliceStable(ts, func(i, j int) bool {
			if len(ts[i].words) != len(ts[j].words) {
				return len(ts[i].words) > len(ts[j].words)
			}
			return ts[i].rank < ts[j].rank
		})
		ix.byFirst[k] = ts
	}
	return ix
}

// grammarWords are words of the grammar a misspelling may be read as.
var grammarWords = []string{"average", "median", "total", "highest", "lowest", "largest", "smallest",
	"fewest", "biggest", "maximum", "minimum", "ranking", "density", "densely", "nearest", "closest",
	"farthest", "furthest", "distance", "percentage", "proportion", "between", "without", "hectare",
	"kilometre", "kilometer", "kilometres", "kilometers", "within", "compare", "comparison", "versus",
	"overview", "summary", "describe", "profile", "greater", "fewer", "above", "below", "under", "exceeding",
	"least", "frames", "share"}

// Concept returns the concept a measure carries (ConceptPopulation...),
// from the words of its attribute name, then its label, then its
// aliases; "" when none. Synonyms reach a measure through its concept
// ("folks" reaches whichever measure carries the population).
func Concept(m MeasureInfo) string {
	for _, s := range append([]string{m.Attribute, m.Label}, m.Aliases...) {
		ws := words(strings.ReplaceAll(s, "_", " "))
		for _, ci := range conceptIdentity {
			for _, p := range ci.phrases {
				if containsPhrase(ws, words(p)) {
					return ci.concept
				}
			}
		}
	}
	return ""
}

// wantsNumber reports whether a concept is a count or a measurement
// rather than a name or class.
func wantsNumber(c string) bool {
	switch c {
	case cPopulation, cBuildings, cHealth, cRadiance:
		return true
	}
	return false
}

// isNumeric reports a numeric measure (type number, or no type and a sum
// or mean aggregation).
func isNumeric(m MeasureInfo) bool {
	return m.Type == "number" || m.Type == "" && (m.Aggregation == "sum" || m.Aggregation == "mean")
}

// containsPhrase reports whether p occurs in ws.
func containsPhrase(ws, p []string) bool {
	for i := range ws {
		if phraseAt(ws, i, p) {
			return true
		}
	}
	return false
}

// phraseAt reports whether ws holds p from i.
func phraseAt(ws []string, i int, p []string) bool {
	return len(p) > 0 && i+len(p) <= len(ws) && slices.Equal(ws[i:i+len(p)], p)
}
