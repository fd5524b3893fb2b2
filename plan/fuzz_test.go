package plan

import (
	"strings"
	"testing"
)

// checkPlan checks what every plan must hold: each word has one known
// role and its text at its offset; each word a part of the plan reads
// belongs to that part alone, with that part's role; an exact plan
// leaves no meaning-bearing word unread.
func checkPlan(t *testing.T, q string, p *Plan) {
	t.Helper()
	roles := map[string]bool{RoleMeasure: true, RoleAgg: true, RoleFilter: true, RoleDistance: true, RoleGroup: true,
		RoleOrder: true, RolePlace: true, RoleFormat: true, RoleRegister: true, RoleFunction: true, RoleUnread: true}
	for i, w := range p.Words {
		if !roles[w.Role] {
			t.Fatalf("%q: word %d %q has role %q", q, i, w.Text, w.Role)
		}
		if w.Start < 0 || w.Start > len(q) || !strings.HasPrefix(q[w.Start:], w.Text) {
			t.Fatalf("%q: word %d %q is not at %d", q, i, w.Text, w.Start)
		}
	}
	owner := map[int]string{}
	read := func(part string, ws []int, want ...string) {
		for _, k := range ws {
			if k < 0 || k >= len(p.Words) {
				t.Fatalf("%q: %s reads word %d of %d", q, part, k, len(p.Words))
			}
			if o, ok := owner[k]; ok {
				t.Fatalf("%q: word %d %q read twice, by %s and %s", q, k, p.Words[k].Text, o, part)
			}
			owner[k] = part
			ok := false
			for _, r := range want {
				ok = ok || p.Words[k].Role == r
			}
			if !ok {
				t.Fatalf("%q: word %d %q read by %s has role %q", q, k, p.Words[k].Text, part, p.Words[k].Role)
			}
		}
	}
	for i, m := range p.Measures {
		read("measure "+string(rune('0'+i)), m.Words, RoleMeasure)
	}
	for i, f := range p.Filters {
		read("filter "+string(rune('0'+i)), append(append([]int(nil), f.Words...), f.Measure.Words...), RoleFilter)
	}
	if p.Group != nil {
		read("group", append(append([]int(nil), p.Group.Words...), p.Group.Measure.Words...), RoleGroup)
	}
	if p.Order != nil {
		read("order", p.Order.Words, RoleOrder, RoleDistance)
	}
	if p.Distance != nil {
		read("distance", p.Distance.Words, RoleDistance, RoleMeasure)
	}
	if p.Confidence() == Exact && (len(p.Unread()) > 0 || p.Agg == AggUnsupported) {
		t.Fatalf("%q: exact with unread %q, agg %s", q, p.Unread(), p.Agg)
	}
	switch p.Agg {
	case AggProfile, AggTotal, AggMean, AggMedian, AggMin, AggMax, AggCount, AggShare, AggRatio, AggDensity,
		AggRank, AggCompare, AggNearest, AggFarthest, AggCoverage, AggFeatureCount, AggUnsupported:
	default:
		t.Fatalf("%q: agg %q", q, p.Agg)
	}
	if (p.Agg == AggRatio || p.Agg == AggCompare) && len(p.Measures) != 2 {
		t.Fatalf("%q: %s of %d measures", q, p.Agg, len(p.Measures))
	}
	if (p.Agg == AggNearest || p.Agg == AggFarthest || p.Agg == AggCoverage || p.Agg == AggFeatureCount) && p.Distance == nil {
		t.Fatalf("%q: %s without a features dataset", q, p.Agg)
	}
	_ = p.Describe(49)
	_ = p.Detail()
}

// TestParse_WordsOnce checks every plan of the examples, the corpus and
// spoilt questions.
func TestParse_WordsOnce(t *testing.T) {
	cat := demoCatalogue()
	qs := append([]string(nil), answerable...)
	for _, q := range answerable {
		for _, w := range unknownWords {
			qs = append(qs, q+" "+w, w+" "+q)
		}
	}
	for _, name := range []string{"tuning", "heldout"} {
		for _, l := range readCorpus(t, "testdata/corpus/"+name+".jsonl") {
			qs = append(qs, l.Q)
		}
	}
	for _, q := range qs {
		checkPlan(t, q, Parse(q, cat))
	}
}

// FuzzParse: Parse never panics, and every plan holds checkPlan.
func FuzzParse(f *testing.F) {
	for _, q := range answerable {
		f.Add(q)
	}
	for _, q := range []string{"", "   ", "between and 5", "> > 10k++ %% //", "km² ² ³ 5km", "5,000,000.5.5 people",
		"no no no not without", "top top 5 5 bottom", "per per capita per km", "1e309 people", "-5 km from - clinic",
		"Kano Kano State state of Kano", "which which state state has the the most most",
		// Bands, derived conditions, K frames by distance, unknown places.
		"between 5 and 2 km from between 1 and 3 km of a clinic", "people per km² per clinic over 5 per hectare",
		"density density above per", "3 5 frames nearest farthest 7 cells", "in Dala LGA of Garki Ward in AOI State"} {
		f.Add(q)
	}
	cat := demoCatalogue()
	f.Fuzz(func(t *testing.T, q string) {
		checkPlan(t, q, Parse(q, cat))
	})
}

// TestParse_EmptyCatalogue: without a catalogue nothing is a measure; an
// overview still reads, a question of figures is unsupported.
func TestParse_EmptyCatalogue(t *testing.T) {
	for q, want := range map[string]Agg{
		"":                              AggProfile,
		"tell me about these frames":    AggProfile,
		"average population":            AggUnsupported,
		"frames within 5 km of clinics": AggUnsupported,
		"top 3 frames":                  AggUnsupported,
	} {
		for _, cat := range []*Catalogue{nil, {}} {
			p := Parse(q, cat)
			checkPlan(t, q, p)
			if p.Agg != want {
				t.Errorf("%q: %s, want %s", q, p.Agg, want)
			}
		}
	}
}

// TestParse_Long: words past the first maxTokens make the plan partial.
func TestParse_Long(t *testing.T) {
	q := strings.Repeat("people ", maxTokens) + "average"
	p := Parse(q, demoCatalogue())
	checkPlan(t, q, p)
	if len(p.Words) != maxTokens || p.Confidence() != Partial {
		t.Errorf("%d words, %s (%s)", len(p.Words), p.Confidence(), p.Detail())
	}
}
