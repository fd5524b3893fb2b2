package plan

import (
	"slices"
	"testing"
)

// TestParseWith_ByMeaning: words no term reaches name the measure nearest
// them by meaning (partial); a synonym chooses among a concept's measures
// by the question's vector.
func TestParseWith_ByMeaning(t *testing.T) {
	cat := demoCatalogue()
	cat.Measures = append(cat.Measures, MeasureInfo{Dataset: "census", Attribute: "population_2006",
		Label: "Census population", Type: "number", Aggregation: "sum", Year: 2006})
	vec := func(x, y, z float32) []float32 { return []float32{x, y, z} }
	emb := &Embeddings{Texts: map[string][]float32{}, Measures: map[string][]float32{
		"nightlights.radiance":       vec(1, 0, 0),
		"population.population_2020": vec(0, 1, 0),
		"census.population_2006":     vec(0, 0.2, 1),
		"buildings.building_count":   vec(0.3, 0.3, 0.3),
	}}
	q := "What is the average nocturnal brilliance?"
	texts := EmbedTexts(q, cat)
	if !slices.Contains(texts, QueryPrefix+"nocturnal brilliance") {
		t.Fatalf("EmbedTexts %q", texts)
	}
	emb.Texts[QueryPrefix+"nocturnal brilliance"] = vec(0.9, 0.1, 0)
	p := ParseWith(q, cat, emb)
	if got := summary(p); got != "mean radiance | partial" || p.Measures[0].Match != "embedding" {
		t.Errorf("%q: %s (%s)", q, got, p.Detail())
	}
	if p := Parse(q, cat); p.Agg != AggUnsupported {
		t.Errorf("%q without vectors: %s", q, summary(p))
	}
	q = "how many folks were counted by the census"
	texts = EmbedTexts(q, cat)
	if len(texts) == 0 {
		t.Fatalf("EmbedTexts %q: none", q)
	}
	emb.Texts[texts[0]] = vec(0, 0.1, 1)
	if p := ParseWith(q, cat, emb); len(p.Measures) == 0 || p.Measures[0].Attribute != "population_2006" {
		t.Errorf("%q: %s", q, summary(p))
	}
}
