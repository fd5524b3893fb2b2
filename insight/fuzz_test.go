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
		"what is the GDP",                  // nothing to compute
		"population density",               // a measure qualified by an unknown word
		"zonal statistics per grid cell",   // GIS vocabulary
		"’’'''---___",                      // separators only
		"Ünïcödé ЖЖЖ 人口 ١٢٣",               // letters and digits of other scripts
		"\x00\xff\xfe invalid utf-8",       // invalid UTF-8
		strings.Repeat("population ", 600), // more words than the parser reads
		"999999999999999999999 frames",     // a huge number
	} {
		f.Add(seed, uint64(1))
	}
	ds := demoDatasets()
	intents := set(IntentFrames, IntentAttribute, IntentRank, IntentCompare, IntentUnsupported)
	confs := set(ConfidenceExact, ConfidencePartial, ConfidenceUnknown)
	f.Fuzz(func(t *testing.T, q string, seed uint64) {
		p := Parse(q, ds)
		if !intents[p.Intent] || !confs[p.Confidence] || (p.Register != RegisterPlain && p.Register != RegisterGIS) {
			t.Fatalf("Parse(%q) = %+v", q, p)
		}
		wantMeasures := map[string]int{IntentFrames: 0, IntentUnsupported: 0, IntentAttribute: 1, IntentRank: 1, IntentCompare: 2}[p.Intent]
		if len(p.Measures) != wantMeasures || (p.Intent == IntentRank) != (p.Order != "") {
			t.Fatalf("Parse(%q) = %+v", q, p)
		}
		// Odd datasets: the question as an attribute name, label and alias.
		odd := append(demoDatasets(), Dataset{ID: "odd", Name: q, Attributes: []Attribute{
			{Name: q, Label: q, Aliases: []string{q, ""}, Type: "number", Aggregation: "mean"}, {}}})
		_ = Parse(q, odd)

		frames := fuzzFrames(q, seed)
		for _, d := range [][]Dataset{ds, odd, nil} {
			a := Answer(Request{Question: q, Datasets: d, Frames: frames, Register: "gis", Format: "report"})
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
		f := Frame{ID: []string{"1", "2", "3", q, ""}[r.IntN(5)] + string(rune('a'+i%26)), Known: r.IntN(5) > 0}
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
