package insight

import (
	"frameindex/plan"
	"strconv"
	"strings"
)

// Hybrid retrieval: when the request carries Embeddings, the lexical
// matcher is joined by vectors of an embedding model.
//
//   - A measure matched from wording (synonym, stem, spelling) is taken,
//     among the readable attributes carrying the same concept, as the one
//     whose MeasureText lies nearest the question's content words (cosine
//     similarity): two population estimates are told apart by meaning.
//   - Content words no readable dataset records lexically name the measure
//     whose MeasureText lies nearest them, when the similarity is at least
//     semanticMin and leads the next measure's by semanticMargin, and that
//     measure was not named otherwise (if it was, the words qualify it, as
//     "growth" in "population growth", and nothing is matched).
//
// Every such match is partial, and the answer says retrieval "hybrid".

// Thresholds of a match by meaning. Models differ in how similar related
// texts score; these suit nomic-embed-text, where related short texts
// score 0.6-0.8 and unrelated ones 0.3-0.5.
const (
	semanticMin    = 0.6
	semanticMargin = 0.04
)

// MeasureText is the text embedded for an attribute: its label, name,
// aliases, unit, and its dataset's name and description, with the task
// prefix nomic-embed-text reads for documents. The handler embeds it once
// per dataset version.
func MeasureText(d Dataset, a Attribute) string {
	var b strings.Builder
	b.WriteString("search_document: ")
	b.WriteString(labelOf(&a))
	if n := strings.ReplaceAll(a.Name, "_", " "); !strings.EqualFold(n, labelOf(&a)) {
		b.WriteString(" (" + n + ")")
	}
	if len(a.Aliases) > 0 {
		b.WriteString("; also called " + strings.Join(a.Aliases, ", "))
	}
	if a.Unit != "" {
		b.WriteString("; unit " + a.Unit)
	}
	if a.Year > 0 {
		b.WriteString("; year " + strconv.Itoa(a.Year))
	}
	b.WriteString(". Dataset: " + datasetName(&d))
	if d.Description != "" {
		desc := d.Description
		if len(desc) > 600 {
			desc = desc[:600]
		}
		b.WriteString(". " + desc)
	}
	return b.String()
}

// queryPrefix is the task prefix nomic-embed-text reads for queries.
const queryPrefix = "search_query: "

// EmbedTexts returns the texts of req's question to embed for hybrid
// retrieval: its content words (function, intent and operator words and
// numbers other than years left out), and the content words no readable dataset records,
// when there are any, each with the query task prefix. The handler embeds
// them and passes the vectors back in Request.Embeddings.Texts, keyed by
// these very texts. Only content words leave the engine, never the
// question as asked.
func EmbedTexts(req Request) []string {
	m := requestMatcher(req)
	m.emb = nil
	var out []string
	toks := tokenize(normalizeSymbols(req.Question))
	if c := contentText(toks); c != "" {
		out = append(out, c)
	}
	if p := m.parse(req.Question); len(p.unknown) > 0 {
		if u := queryPrefix + strings.Join(p.unknown, " "); len(out) == 0 || u != out[0] {
			out = append(out, u)
		}
	}
	return out
}

// contentText is the question's content words with the query prefix, ""
// when it has none.
func contentText(toks []token) string {
	var ws []string
	for _, t := range toks {
		_, year := isYear(t.raw)
		if known(t) && !year && !synonymWord[t.sing] && !stemmed(t.sing) {
			continue
		}
		ws = append(ws, t.raw)
	}
	if len(ws) == 0 {
		return ""
	}
	return queryPrefix + strings.Join(ws, " ")
}

// synonymWord holds the single words of the synonym table: they are
// content even where the stop list has them.
var synonymWord = func() map[string]bool {
	out := map[string]bool{}
	for _, s := range synonyms {
		if len(s.words) == 1 {
			out[s.words[0]] = true
		}
	}
	return out
}()

func stemmed(w string) bool {
	for _, s := range stems {
		if strings.HasPrefix(w, s.prefix) {
			return true
		}
	}
	return false
}

// questionVector is the vector of the question's content words, nil
// without embeddings.
func (m *matcher) questionVector(toks []token) []float32 {
	if m.emb == nil || len(m.emb.Texts) == 0 {
		return nil
	}
	return m.emb.Texts[contentText(toks)]
}

// measureVector is the vector of an attribute's MeasureText, nil when none.
func (m *matcher) measureVector(r attrRef) []float32 {
	if m.emb == nil {
		return nil
	}
	return m.emb.Measures[m.measureID(r)]
}

// conceptRef is the attribute a concept's wording reaches: the first
// carrying it, or, with embeddings and several candidates, the one nearest
// the question's content words.
func (m *matcher) conceptRef(concept string, qv []float32) (attrRef, bool) {
	ref, ok := m.byConcept[concept]
	if !ok || qv == nil {
		return ref, ok
	}
	all := m.conceptAll[concept]
	if len(all) < 2 {
		return ref, ok
	}
	best := -2.0
	for _, r := range all {
		if s := cosine(qv, m.measureVector(r)); s > best {
			best, ref = s, r
		}
	}
	return ref, true
}

// byMeaning matches the unknown words to a measure by meaning (see the
// comment at the top of this file).
func (m *matcher) byMeaning(toks []token, unknownAt []bool, chosen []match, unknown []string) (match, bool) {
	if m.emb == nil || len(unknown) == 0 {
		return match{}, false
	}
	qv := m.emb.Texts[queryPrefix+strings.Join(unknown, " ")]
	if qv == nil {
		return match{}, false
	}
	best, second := -2.0, -2.0
	var ref attrRef
	for di := range m.ds {
		for ai := range m.ds[di].Attributes {
			if m.ds[di].Attributes[ai].Name == "" {
				continue
			}
			r := attrRef{di, ai}
			s := cosine(qv, m.measureVector(r))
			switch {
			case s > best:
				second, best, ref = best, s, r
			case s > second:
				second = s
			}
		}
	}
	if best < semanticMin || best-second < semanticMargin {
		return match{}, false
	}
	for _, c := range chosen {
		if c.ref == ref {
			return match{}, false // the words qualify a measure named already
		}
	}
	at := -1
	for i, u := range unknownAt {
		if u {
			at = i
			break
		}
	}
	if at < 0 {
		return match{}, false
	}
	return match{start: at, end: at + 1, ref: ref, prio: prioDatasetName + 4, via: viaMeaning,
		words: strings.Join(unknown, " ")}, true
}

// cosine is plan.Cosine.
func cosine(a, b []float32) float64 { return plan.Cosine(a, b) }
