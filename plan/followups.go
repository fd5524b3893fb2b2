package plan

import (
	"slices"
	"strings"
)

// followUp is a proposed question and the plan it must read to.
type followUp struct {
	q       string
	agg     Agg
	measure string // attribute of Measures[0], "" for none
	feature string // Distance.Feature, "" for none
}

// FollowUps proposes up to n questions to ask next about the same
// frames, from what p read (another aggregation of its measure, a
// ranking, a breakdown, the other end of a distance...). Each is parsed
// against cat before it is offered and kept only when it reads exactly
// (Confidence "exact") to the aggregation, measure and features dataset
// intended, and asks something other than p: every follow-up is
// answerable as written.
func FollowUps(p *Plan, cat *Catalogue, n int) []string {
	if cat == nil || n <= 0 {
		return nil
	}
	var first, rest []followUp
	mi, hasMeasure := findMeasure(cat, p)
	feature := ""
	if p.Distance != nil {
		feature = p.Distance.Feature
	}
	if hasMeasure && isNumeric(mi) {
		m := mi.Attribute
		name := phraseOf(cat, mi)
		// "the average number of buildings", "the average population".
		amount, most := name, "highest "+name
		if Singular(name) != name && mi.Aggregation != "mean" {
			amount, most = "number of "+name, "most "+name
		}
		switch {
		case p.Agg != AggMean:
			first = append(first, followUp{"What is the average " + amount + " per frame?", AggMean, m, ""})
		default:
			first = append(first, followUp{"What is the median " + amount + " per frame?", AggMedian, m, ""})
		}
		if p.Agg != AggRank {
			first = append(first, followUp{"Which 3 frames have the " + most + "?", AggRank, m, ""})
		}
		if g := groupPhrase(cat); g != "" && p.Group == nil {
			agg := AggTotal
			if mi.Aggregation == "mean" {
				agg = AggMean
			}
			rest = append(rest, followUp{name + " by " + g, agg, m, ""})
		}
		if mi.Aggregation != "mean" && p.Agg != AggTotal {
			rest = append(rest, followUp{"What is the total " + amount + "?", AggTotal, m, ""})
		}
		if mi.Aggregation != "mean" && p.Agg != AggDensity {
			rest = append(rest, followUp{name + " per km²", AggDensity, m, ""})
		}
	}
	for _, f := range cat.Features {
		fname := strings.ToLower(f.Name)
		if fname == "" || feature != "" && f.ID != feature {
			continue
		}
		pop := ""
		if i, ok := cat.index().concept[cPopulation]; ok {
			pop = cat.Measures[i].Attribute
		}
		switch {
		case p.Agg == AggFarthest:
			first = append(first, followUp{"Which frame is nearest to " + fname + "?", AggNearest, "", f.ID})
		case p.Agg == AggNearest:
			first = append(first, followUp{"Which frame is farthest from " + fname + "?", AggFarthest, "", f.ID})
		case p.Agg == AggCoverage && p.Distance != nil:
			other := "more than " + formatNum(p.Distance.Km) + " km from "
			if p.Distance.Op == "beyond" {
				other = "within " + formatNum(p.Distance.Km) + " km of "
			}
			first = append(first, followUp{"How many people live " + other + fname + "?", AggCoverage, pop, f.ID})
		default:
			first = append(first, followUp{"Which frame is farthest from " + fname + "?", AggFarthest, "", f.ID})
			if pop != "" {
				rest = append(rest, followUp{"How many people live more than 5 km from " + fname + "?", AggCoverage, pop, f.ID})
			}
		}
		if feature == "" {
			break // one features dataset is enough when the question named none
		}
	}
	cands := append(first, rest...)
	if p.Agg != AggProfile {
		cands = append(cands, followUp{"Give me an overview of these frames.", AggProfile, "", ""})
	}
	var out []string
	for _, c := range cands {
		if len(out) >= n {
			break
		}
		if c.q = strings.ToUpper(c.q[:1]) + c.q[1:]; answers(Parse(c.q, cat), c) && !slices.Contains(out, c.q) {
			out = append(out, c.q)
		}
	}
	return out
}

// answers reports whether q reads exactly as c intends.
func answers(q *Plan, c followUp) bool {
	if q.Confidence() != Exact || q.Agg != c.agg {
		return false
	}
	got := ""
	if len(q.Measures) > 0 {
		got = q.Measures[0].Attribute
	}
	feat := ""
	if q.Distance != nil {
		feat = q.Distance.Feature
	}
	return got == c.measure && feat == c.feature
}

// findMeasure is the catalogue's entry of p's first measure.
func findMeasure(cat *Catalogue, p *Plan) (MeasureInfo, bool) {
	if len(p.Measures) == 0 {
		// A plan without a measure is asked about the population.
		if i, ok := cat.index().concept[cPopulation]; ok && p.Agg != AggNearest && p.Agg != AggFarthest {
			return cat.Measures[i], true
		}
		return MeasureInfo{}, false
	}
	for _, mi := range cat.Measures {
		if mi.Dataset == p.Measures[0].Dataset && mi.Attribute == p.Measures[0].Attribute {
			return mi, true
		}
	}
	return MeasureInfo{}, false
}

// phraseOf is the wording that names a measure exactly: its first alias
// that reads back to it alone, else its label.
func phraseOf(cat *Catalogue, mi MeasureInfo) string {
	ws := append(append([]string(nil), mi.Aliases...), mi.Label, strings.ReplaceAll(mi.Attribute, "_", " "))
	if mi.Aggregation == "mean" {
		ws = append([]string{mi.Label}, ws...) // "night-time light radiance", not "lights"
	}
	for _, a := range ws {
		q := Parse(a, cat)
		if len(q.Measures) == 1 && q.Measures[0].Attribute == mi.Attribute && q.Confidence() == Exact {
			return strings.ToLower(a)
		}
	}
	return strings.ToLower(mi.Label)
}

// groupPhrase names the first administrative category to break down by
// ("state"), "" when the catalogue has none.
func groupPhrase(cat *Catalogue) string {
	for _, c := range []string{cState, cLGA, cWard} {
		if i, ok := cat.index().concept[c]; ok {
			mi := cat.Measures[i]
			for _, a := range append([]string{mi.Label}, mi.Aliases...) {
				if ws := words(a); len(ws) > 0 {
					return strings.ToLower(a)
				}
			}
		}
	}
	return ""
}
