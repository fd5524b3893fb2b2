package insight

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: Parse never panics and returns a well-formed plan; Answer on
// frames built from the same input never panics and returns a well-formed
// answer.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",                                   // the profile
		"how many people live here",          // a named measure
		"popluation",                         // a misspelling
		"which frame has the most buildings", // a ranking
		"top 50 by radiance",                 // the largest count asked
		"top 0 by radiance",                  // a count out of range
		"compare population vs health facilities vs lights", // three measures
		"what is the GDP",    // nothing to compute
		"population growth",  // a measure qualified by an unknown word
		"population density", // a density
		"frames with at least 5,000 residents and over 2.5k buildings", // thresholds
		"between 1,000 and 10k people per km²",                         // a range of densities
		"hospitals per 100,000 inhabitants",                            // a ratio with a scale
		"what share of the population lives in urban frames",           // a share
		"frames without a hospital",                                    // a gap
		"nearest 3 clinics",                                            // nearest
		">= 5000 people <= 9 % / 4+",                                   // symbols
		"1,2,3,4,5.6.7 1e99 99999999999999999999999999999999k",         // number edge cases
		"zonal statistics per grid cell",                               // GIS vocabulary
		"’’'''---___",                                                  // separators only
		"Ünïcödé ЖЖЖ 人口 ١٢٣",                                           // letters and digits of other scripts
		"\x00\xff\xfe invalid utf-8",                                   // invalid UTF-8
		strings.Repeat("population ", 600),                             // more words than the parser reads
		"999999999999999999999 frames",                                 // a huge number
	} {
		f.Add(seed, uint64(1))
	}
	ds := demoDatasets()
	intents := set(Intents...)
	confs := set(ConfidenceExact, ConfidencePartial, ConfidenceUnknown)
	f.Fuzz(func(t *testing.T, q string, seed uint64) {
		p := Parse(q, ds)
		if !intents[p.Intent] || !confs[p.Confidence] || (p.Register != RegisterPlain && p.Register != RegisterGIS) {
			t.Fatalf("Parse(%q) = %+v", q, p)
		}
		if !wellFormed(p) {
			t.Fatalf("Parse(%q) = %+v", q, p)
		}
		// Odd datasets: the question as an attribute name, label and alias.
		odd := append(demoDatasets(), Dataset{ID: "odd", Name: q, Attributes: []Attribute{
			{Name: q, Label: q, Aliases: []string{q, ""}, Type: "number", Aggregation: "mean"}, {}}})
		_ = Parse(q, odd)

		frames := fuzzFrames(q, seed)
		near := &Nearest{Dataset: "health", LimitKm: 50, Searched: float64(seed % 60), Hidden: seed%2 == 0, Unread: int(seed % 3),
			Features: []NearFeature{{Frame: q, From: "1", DistanceKm: float64(seed%5000) / 100, Name: q,
				Properties: []Property{{Key: q, Value: str(q)}, {Key: "n", Value: num(math.NaN())}}}}}
		emb := &Embeddings{Texts: map[string][]float32{}, Measures: map[string][]float32{}}
		for _, t := range EmbedTexts(Request{Question: q, Datasets: ds, Frames: frames}) {
			emb.Texts[t] = []float32{float32(len(t) % 3), 1, float32(seed % 2)}
		}
		for _, d := range ds {
			for i, a := range d.Attributes {
				emb.Measures[d.ID+"."+a.Name] = []float32{float32(i), float32(len(a.Name) % 2), 1}
			}
		}
		if p2 := PlanOf(Request{Question: q, Datasets: ds, Frames: frames, Embeddings: emb}); !intents[p2.Intent] || !wellFormed(p2) {
			t.Fatalf("PlanOf(%q) = %+v", q, p2)
		}
		for k, d := range [][]Dataset{ds, odd, nil} {
			req := Request{Question: q, Datasets: d, Frames: frames, Register: "gis", Format: "report", AreaBasis: "WGS84 ellipsoid"}
			if k == 0 {
				req.Nearest, req.Embeddings = near, emb
			}
			a := AnswerRequest(req)
			if !intents[a.Intent] || !confs[a.Confidence] || a.Headline == "" || !strings.HasSuffix(a.Headline, ".") {
				t.Fatalf("Answer(%q) = %+v", q, a)
			}
			if !utf8.ValidString(a.Headline) && utf8.ValidString(q) {
				t.Fatalf("Answer(%q): headline not UTF-8: %q", q, a.Headline)
			}
			if len(a.FollowUps) > 4 {
				t.Fatalf("Answer(%q): %d follow-ups", q, len(a.FollowUps))
			}
		}
	})
}

// fuzzFrames builds up to 50 frames, known and unknown, with values of
// every kind (NaN, infinities, text where numbers belong, the question
// itself as text) from seed.
func fuzzFrames(q string, seed uint64) []Frame {
	r := rand.New(rand.NewPCG(seed, seed>>7))
	values := []Value{num(0), num(1), num(-3.5), num(1e300), num(math.NaN()), num(math.Inf(1)), num(12345.678),
		str(""), str("urban"), str(q), str("12"), str("  "), {Str: "x", Num: 5, IsNum: true}}
	attrs := map[string][]string{
		"admin": {"state", "lga", "ward"}, "population": {"population_2020"}, "buildings": {"building_count"},
		"settlement": {"settlement_class"}, "health": {"facility_count"}, "nightlights": {"radiance"}, "odd": {q, "x"},
	}
	n := r.IntN(51)
	out := make([]Frame, n)
	for i := range out {
		f := Frame{ID: []string{"1", "2", "3", q, ""}[r.IntN(5)] + string(rune('a'+i%26)), Known: r.IntN(5) > 0,
			AreaKm2: []float64{0, 0.85, 1e-300, math.NaN(), math.Inf(1), -1, 84}[r.IntN(7)]}
		if r.IntN(10) > 0 {
			f.Data = map[string]DatasetFrame{}
			for d, names := range attrs {
				if r.IntN(3) == 0 {
					continue
				}
				df := DatasetFrame{Attrs: map[string]Value{}, FeatureCount: r.IntN(4) - 1}
				for _, name := range names {
					if r.IntN(4) > 0 {
						df.Attrs[name] = values[r.IntN(len(values))]
					}
				}
				f.Data[d] = df
			}
		}
		out[i] = f
	}
	return out
}

// wellFormed checks a plan's shape: the measures and fields each intent
// must have, and nothing else.
func wellFormed(p Plan) bool {
	n := len(p.Measures)
	switch p.Intent {
	case IntentFrames, IntentUnsupported:
		return n == 0 && p.Order == "" && p.Condition == nil && p.Dataset == ""
	case IntentAttribute:
		return n == 1 && p.Order == ""
	case IntentCompare:
		return n == 2 && p.Order == ""
	case IntentRank:
		return p.Order != "" && ((p.Scale > 0 && n == 2) || (p.Scale == 0 && n == 1))
	case IntentDensity:
		return n == 1 && (p.Per == PerKm2 || p.Per == PerHectare)
	case IntentRatio:
		return n == 2 && p.Scale > 0
	case IntentThreshold:
		return n >= 1 && p.Condition != nil && p.Condition.Measure == p.Measures[0]
	case IntentShare:
		return n >= 1 && (p.Base == BaseFrames || p.Base == p.Measures[0])
	case IntentNearest:
		return n == 0 && p.Dataset != "" && p.Count >= 1 && p.Count <= maxNearest
	}
	return false
}
