package insight

import (
	"strconv"
	"strings"

	"frameindex/plan"
)

// readAs is the plan in plain words, for the start of the detail: "read
// as: mean per frame of population_2020 over 49 frames".
func readAs(p *plan.Plan, frames int) string {
	m := func(k int) string {
		if k < len(p.Measures) {
			return measureName(p.Measures[k])
		}
		return "?"
	}
	var s string
	switch p.Agg {
	case plan.AggProfile:
		s = "profile"
	case plan.AggTotal:
		s = "total of " + m(0)
	case plan.AggMean:
		s = "mean per frame of " + m(0)
	case plan.AggMedian:
		s = "median per frame of " + m(0)
	case plan.AggMin:
		s = "smallest per-frame " + m(0)
	case plan.AggMax:
		s = "largest per-frame " + m(0)
	case plan.AggCount:
		s = "count of frames"
	case plan.AggShare:
		s = "share of frames"
		if len(p.Measures) > 0 {
			s = "share of the total of " + m(0)
		}
	case plan.AggRatio:
		s = "ratio of " + m(0) + " per "
		if p.Scale > 1 {
			s += FormatFigure(p.Scale) + " "
		}
		s += m(1)
	case plan.AggDensity:
		per := "km²"
		if p.Per == "ha" {
			per = "ha"
		}
		s = "density of " + m(0) + " per " + per
	case plan.AggRank:
		s = "top"
		if p.Order != nil && !p.Order.Desc {
			s = "bottom"
		}
		k := 5
		if p.Order != nil && p.Order.K > 0 {
			k = p.Order.K
		}
		s += " " + strconv.Itoa(k) + " by " + m(0)
	case plan.AggCompare:
		s = "compare " + m(0) + " with " + m(1)
	case plan.AggNearest, plan.AggFarthest:
		s = "frame " + string(p.Agg) + " from " + distFeature(p)
	case plan.AggCoverage:
		what := "frames"
		if len(p.Measures) > 0 {
			what = m(0)
		}
		op, km := "within", 0.0
		if p.Distance != nil {
			km = p.Distance.Km
			if p.Distance.Op == "beyond" {
				op = "beyond"
			}
		}
		s = what + " " + op + " " + FormatFigure(km) + " km of " + distFeature(p)
	case plan.AggFeatureCount:
		id := distFeature(p)
		if len(p.Measures) > 0 {
			id = p.Measures[0].Dataset
		}
		s = "count of features of " + id
	default:
		return "read as: nothing computable"
	}
	var conds []string
	for _, f := range p.Filters {
		conds = append(conds, filterText(f))
	}
	if d := p.Distance; d != nil && d.Op != "" && p.Agg != plan.AggCoverage {
		conds = append(conds, d.Op+" "+FormatFigure(d.Km)+" km of "+d.Feature)
	}
	if len(conds) > 0 {
		join := " and "
		if p.Join == "or" {
			join = " or "
		}
		s += " where " + strings.Join(conds, join)
	}
	if p.Group != nil {
		s += " by " + measureName(p.Group.Measure)
	}
	if p.Agg == plan.AggRank && p.Group != nil {
		s = strings.Replace(s, " by "+m(0), " "+measureName(p.Group.Measure)+" by "+m(0), 1)
		s = strings.TrimSuffix(s, " by "+measureName(p.Group.Measure))
	}
	return "read as: " + s + " over " + fmtInt(frames) + " " + plural(frames, "frame", "frames")
}

// distFeature is the features dataset a distance plan names.
func distFeature(p *plan.Plan) string {
	if p.Distance != nil {
		return p.Distance.Feature
	}
	return "?"
}

// filterText is a filter in the plan's words: "population_2020 > 1000".
func filterText(f plan.Filter) string {
	s := measureName(f.Measure) + " "
	switch {
	case f.Text != "":
		s += string(f.Op) + " " + f.Text
	case f.Op == plan.OpBetween:
		s += "between " + FormatFigure(f.Value) + " and " + FormatFigure(f.Value2)
	default:
		s += string(f.Op) + " " + FormatFigure(f.Value)
	}
	if f.Not {
		return "not " + s
	}
	return s
}
