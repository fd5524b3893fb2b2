package plan

import (
	"strconv"
	"strings"
)

// Confidences, as the spec's Insight spells them.
const (
	Exact   = "exact"
	Partial = "partial"
	Unknown = "unknown"
)

// Confidence is how fully the plan reads its question: "unknown" when
// nothing computable was read (AggUnsupported), "partial" when a
// meaning-bearing word is unread (Unread), a measure was read from other
// wording than its name, label, alias or value (a synonym, stem,
// misspelling...), or a note says something was read loosely, else
// "exact". Every answer's confidence starts here: the engine may lower
// it (a place outside the selection, a measure no frame records), never
// raise it.
func (p *Plan) Confidence() string {
	if p.Agg == AggUnsupported || p.Agg == "" {
		return Unknown
	}
	if len(p.Unread()) > 0 || len(p.Notes) > 0 {
		return Partial
	}
	for _, m := range p.AllMeasures() {
		if !m.Exact() {
			return Partial
		}
	}
	if d := p.Distance; d != nil && d.Match != "" && d.Match != "feature" && !(Measure{Match: d.Match}).Exact() {
		return Partial
	}
	return Exact
}

// AllMeasures lists every measure the plan reads: its measures, its
// filters' and its group's.
func (p *Plan) AllMeasures() []Measure {
	out := append([]Measure(nil), p.Measures...)
	for _, f := range p.Filters {
		out = append(out, f.Measure)
		if f.Of != nil {
			out = append(out, *f.Of)
		}
	}
	if p.Group != nil {
		out = append(out, p.Group.Measure)
	}
	return out
}

// Detail says in a sentence or two why the plan is not exact: the words
// it did not read, the measures read from other wording, its notes; ""
// for an exact plan.
func (p *Plan) Detail() string {
	var parts []string
	if u := p.Unread(); len(u) > 0 {
		parts = append(parts, "Not read: "+quoteAll(u)+".")
	}
	for _, m := range p.AllMeasures() {
		if m.Exact() || m.Attribute == "" {
			continue
		}
		var ws []string
		for _, k := range m.Words {
			if k >= 0 && k < len(p.Words) {
				ws = append(ws, p.Words[k].Text)
			}
		}
		how := matchWords[m.Match]
		if how == "" {
			how = m.Match
		}
		if len(ws) == 0 {
			parts = append(parts, m.Attribute+" was inferred ("+how+").")
		} else {
			parts = append(parts, strconv.Quote(strings.Join(ws, " "))+" was read as "+m.Attribute+" ("+how+").")
		}
	}
	parts = append(parts, p.Notes...)
	return strings.Join(parts, " ")
}

var matchWords = map[string]string{"synonym": "a synonym", "stem": "a word stem", "spelling": "a misspelling",
	"dataset": "the dataset's name", "embedding": "meaning", "capita": "per capita wording"}

func quoteAll(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, ", ")
}

// Describe says the plan in plain words for an answer's detail: "read
// as: mean per frame of population_2020 over 49 frames". frames is how
// many frames the answer is over (0 leaves the count out).
func (p *Plan) Describe(frames int) string {
	var b strings.Builder
	b.WriteString("read as: ")
	m := func(i int) string {
		if i < len(p.Measures) {
			return p.Measures[i].Attribute
		}
		return "?"
	}
	switch p.Agg {
	case AggTotal:
		b.WriteString("total of " + m(0))
	case AggMean:
		b.WriteString("mean per frame of " + m(0))
	case AggMedian:
		b.WriteString("median per frame of " + m(0))
	case AggMin:
		b.WriteString("smallest per-frame " + p.metric())
	case AggMax:
		b.WriteString("largest per-frame " + p.metric())
	case AggCount:
		b.WriteString("count of frames")
	case AggShare:
		if len(p.Measures) > 0 {
			b.WriteString("share of the total of " + m(0))
		} else {
			b.WriteString("share of frames")
		}
	case AggRatio:
		b.WriteString("total of " + m(0) + " per ")
		if p.Scale > 0 && p.Scale != 1 {
			b.WriteString(formatNum(p.Scale) + " ")
		}
		b.WriteString(m(1))
	case AggDensity:
		unit := "km²"
		if p.Per == "ha" {
			unit = "hectare"
		}
		b.WriteString("total of " + m(0) + " per " + unit)
	case AggRank:
		end := "highest"
		if p.Order != nil && !p.Order.Desc {
			end = "lowest"
		}
		k := DefaultK
		if p.Order != nil && p.Order.K > 0 {
			k = p.Order.K
		}
		what := "frames"
		if p.Group != nil {
			what = p.Group.Measure.Attribute + " groups"
		}
		b.WriteString("the " + strconv.Itoa(k) + " " + what + " with the " + end + " " + p.metric())
	case AggCompare:
		b.WriteString(m(0) + " compared with " + m(1))
	case AggNearest, AggFarthest:
		if p.Distance != nil && p.Distance.List > 0 && p.Agg == AggNearest {
			b.WriteString("the " + strconv.Itoa(p.Distance.List) + " nearest features of " + p.feature() + " to the frames")
			break
		}
		end := "nearest to"
		if p.Agg == AggFarthest {
			end = "farthest from"
		}
		if p.Order != nil && p.Order.K > 1 {
			b.WriteString("the " + strconv.Itoa(p.Order.K) + " frames " + end + " any feature of " + p.feature())
			break
		}
		b.WriteString("the frame " + end + " any feature of " + p.feature())
	case AggCoverage:
		what := "count of frames"
		if len(p.Measures) > 0 {
			what = "total of " + m(0) + " over frames"
		}
		b.WriteString(what + " whose centre is " + p.Distance.words() + " the nearest feature of " + p.feature())
	case AggFeatureCount:
		b.WriteString("count of features of " + p.feature())
	case AggProfile:
		b.WriteString("an overview")
	default:
		b.WriteString("nothing computable")
	}
	if len(p.Filters) > 0 {
		b.WriteString(", where ")
		for i, f := range p.Filters {
			if i > 0 {
				b.WriteString(" " + p.join() + " ")
			}
			b.WriteString(f.String())
		}
	}
	if p.Group != nil && p.Agg != AggRank {
		b.WriteString(", by " + p.Group.Measure.Attribute)
	}
	if len(p.Places) > 0 {
		b.WriteString(", in " + strings.Join(p.Places, ", "))
	}
	if frames > 0 && p.Agg != AggUnsupported {
		b.WriteString(" over " + strconv.Itoa(frames) + " frame")
		if frames != 1 {
			b.WriteString("s")
		}
	}
	if u := p.Unread(); len(u) > 0 {
		b.WriteString("; not read: " + strings.Join(u, ", "))
	}
	return b.String()
}

// metric names what a ranking or an extreme orders: the first measure,
// its density, or its ratio to the second.
func (p *Plan) metric() string {
	switch {
	case len(p.Measures) == 0:
		return "?"
	case p.Per == "ha":
		return p.Measures[0].Attribute + " per hectare"
	case p.Per != "":
		return p.Measures[0].Attribute + " per km²"
	case len(p.Measures) > 1:
		scale := ""
		if p.Scale > 0 && p.Scale != 1 {
			scale = formatNum(p.Scale) + " "
		}
		return p.Measures[0].Attribute + " per " + scale + p.Measures[1].Attribute
	}
	return p.Measures[0].Attribute
}

func (p *Plan) join() string {
	if p.Join == "or" {
		return "or"
	}
	return "and"
}

func (p *Plan) feature() string {
	if p.Distance == nil {
		return "?"
	}
	return p.Distance.Feature
}

// String says a filter in symbols: "population_2020 > 1,000",
// "settlement_class != urban", "population_2020 between 500 and 2,000".
func (f Filter) String() string {
	a := f.Measure.Attribute
	switch {
	case f.Per == "ha":
		a += " per hectare"
	case f.Per != "":
		a += " per km²"
	case f.Of != nil:
		a += " per " + f.Of.Attribute
	}
	switch {
	case f.Text != "":
		return a + " " + string(f.Op) + " " + f.Text
	case f.Op == OpBetween:
		return a + " between " + formatNum(f.Value) + " and " + formatNum(f.Value2)
	}
	return a + " " + string(f.Op) + " " + formatNum(f.Value)
}

// words says the condition: "within 5 km of", "beyond 5 km of",
// "between 2 and 5 km of".
func (d *Distance) words() string {
	if d.Op == "between" {
		return "between " + formatNum(d.Km) + " and " + formatNum(d.Km2) + " km of"
	}
	return d.Op + " " + formatNum(d.Km) + " km of"
}

// formatNum writes a number with thousands separators and no needless
// decimals.
func formatNum(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
