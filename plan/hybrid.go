package plan

import (
	"math"
	"strings"
)

// Hybrid reading: when the caller has an embedding model, the lexical
// reading is joined by vectors.
//
//   - A measure read from everyday wording or a stem is taken, among the
//     measures carrying the same concept, as the one whose vector lies
//     nearest the question's content words: two population estimates
//     are told apart by meaning.
//   - Words no catalogue term reaches may name the measure whose vector
//     lies nearest them, when the cosine is at least semanticMin and
//     leads the next measure's by semanticMargin, and that measure was
//     not named otherwise (if it was, the words qualify it, as "growth"
//     in "population growth", and nothing is read).
//
// A measure read by meaning has Match "embedding": the plan is partial.

// Embeddings are the vectors of one embedding model: Texts maps each text
// EmbedTexts named for the question to its vector, Measures maps
// "dataset.attribute" to the vector of the measure's description
// (insight.MeasureText). Missing entries are allowed: that text or
// measure is then read lexically only; vectors of other lengths never
// match.
type Embeddings struct {
	Texts    map[string][]float32
	Measures map[string][]float32
}

// Thresholds of a match by meaning. Models differ in how similar related
// texts score; these suit nomic-embed-text, where related short texts
// score 0.6-0.8 and unrelated ones 0.3-0.5.
const (
	semanticMin    = 0.6
	semanticMargin = 0.04
)

// QueryPrefix is the task prefix nomic-embed-text reads for queries.
const QueryPrefix = "search_query: "

// EmbedTexts returns the texts of question to embed for ParseWith: its
// content words (function and grammar words and numbers other than
// years left out), and the words no catalogue term reaches, when there
// are any, each with QueryPrefix. Only content words leave the parser,
// never the question as asked.
func EmbedTexts(question string, cat *Catalogue) []string {
	if cat == nil {
		cat = &Catalogue{}
	}
	r := &reader{cat: cat, ix: cat.index(), ts: tokenize(question), q: question}
	r.read()
	var out []string
	if c := r.contentText(); c != "" {
		out = append(out, c)
	}
	if u := r.unknownText(); u != "" && (len(out) == 0 || u != out[0]) {
		out = append(out, u)
	}
	return out
}

// ParseWith is Parse with the vectors of an embedding model (nil reads
// lexically, as Parse).
func ParseWith(question string, cat *Catalogue, emb *Embeddings) *Plan {
	if cat == nil {
		cat = &Catalogue{}
	}
	r := &reader{cat: cat, ix: cat.index(), ts: tokenize(question), q: question, emb: emb}
	r.read()
	return r.p
}

// contentText is the question's content words with the query prefix, ""
// when it has none.
func (r *reader) contentText() string {
	var ws []string
	for i, t := range r.ts {
		_, year := isYear(t.low)
		if !year && (t.sym || t.isNum || functionWords[t.low] || r.at[i] < 0 && known(t.low)) {
			continue
		}
		ws = append(ws, t.low)
	}
	if len(ws) == 0 {
		return ""
	}
	return QueryPrefix + strings.Join(ws, " ")
}

// unknownText is the words no catalogue term or grammar word reaches,
// with the query prefix; "" when there are none.
func (r *reader) unknownText() string {
	var ws []string
	for _, i := range r.unknowns() {
		ws = append(ws, r.ts[i].low)
	}
	if len(ws) == 0 {
		return ""
	}
	return QueryPrefix + strings.Join(ws, " ")
}

// nearestOfConcept re-reads the measures matched from wording (synonym,
// stem) as the measure of their concept nearest the question's content
// words, when the concept has several.
func (r *reader) nearestOfConcept() {
	if r.emb == nil {
		return
	}
	qv := r.emb.Texts[r.contentText()]
	if qv == nil {
		return
	}
	for _, m := range r.ms {
		if m.m < 0 || m.via != "synonym" && m.via != "stem" {
			continue
		}
		all := r.ix.conceptAll[r.ix.conceptOf[m.m]]
		if len(all) < 2 {
			continue
		}
		best := -2.0
		for _, mi := range all {
			if s := Cosine(qv, r.emb.Measures[r.measureID(mi)]); s > best {
				best, m.m = s, mi
				m.f = r.ix.featOf[mi]
			}
		}
	}
}

// byMeaning reads the words no term reaches as the measure nearest them
// (see the top of this file).
func (r *reader) byMeaning() {
	if r.emb == nil {
		return
	}
	unknown := r.unknowns()
	if len(unknown) == 0 {
		return
	}
	qv := r.emb.Texts[r.unknownText()]
	if qv == nil {
		return
	}
	best, second, bestM := -2.0, -2.0, -1
	for mi := range r.cat.Measures {
		s := Cosine(qv, r.emb.Measures[r.measureID(mi)])
		switch {
		case s > best:
			second, best, bestM = best, s, mi
		case s > second:
			second = s
		}
	}
	if bestM < 0 || best < semanticMin || best-second < semanticMargin {
		return
	}
	for _, m := range r.ms {
		if m.m == bestM {
			return // the words qualify a measure named already
		}
	}
	m := &mention{start: unknown[0], end: unknown[0] + 1, m: bestM, f: r.ix.featOf[bestM], via: "embedding"}
	r.addMention(m)
	m.extra = unknown[1:]
}

// measureID is "dataset.attribute" of measure mi.
func (r *reader) measureID(mi int) string {
	m := r.cat.Measures[mi]
	return m.Dataset + "." + m.Attribute
}

// Cosine is the cosine similarity of a and b; -1 when either is empty,
// zero or of another length.
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return -1
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 || math.IsNaN(dot) || math.IsInf(dot, 0) {
		return -1
	}
	return dot / math.Sqrt(na*nb)
}
