package insight

import (
	"math"
	"slices"
	"strings"

	"frameindex/plan"
)

// maxGroupRows bounds a breakdown's table (the Result keeps every group).
const maxGroupRows = 1000

// groupRow is one group of a breakdown.
type groupRow struct {
	key string
	st  stat
}

// partition splits idx by the codes of a category column in one counting
// pass: groups[k] holds the frames whose code is k, in idx order; frames
// without a value are left out (their number is returned).
func partition(col *Column, idx []int32) (groups [][]int32, unvalued int) {
	counts := make([]int, len(col.Dict))
	for _, i := range idx {
		if code := col.Codes[i]; code >= 0 && int(code) < len(counts) {
			counts[code]++
		} else {
			unvalued++
		}
	}
	flat := make([]int32, 0, len(idx)-unvalued)
	groups = make([][]int32, len(counts))
	start := 0
	for k, n := range counts {
		groups[k] = flat[start : start : start+n]
		start += n
	}
	flat = flat[:start]
	for _, i := range idx {
		if code := col.Codes[i]; code >= 0 && int(code) < len(counts) {
			groups[code] = append(groups[code], i)
		}
	}
	return groups, unvalued
}

// breakdown answers a grouped plan: one row per value of the group
// measure, the plan's figure in columns, sorted as asked; the headline
// names the top and bottom groups.
func (c *computer) breakdown(base []int32) {
	gcol := c.in.column(c.p.Group.Measure)
	if gcol.Codes == nil {
		c.ans.Confidence = ConfidenceUnknown
		c.ans.Headline = labelOf(&gcol.Attr) + " is not a category, so the frames cannot be grouped by it."
		return
	}
	c.source(gcol)
	c.used[gcol.Dataset] = true
	c.conditionFigs()
	groups, unvalued := partition(gcol, base)
	m0 := c.measureCol(0)
	if m0 != nil {
		c.source(m0)
	}
	if m1 := c.measureCol(1); m1 != nil && (c.p.Agg == plan.AggRatio || c.p.Agg == plan.AggCompare) {
		c.source(m1)
	}
	// A share by group without a condition is each group's part of the
	// whole ("share of frames by state").
	distribution := c.p.Agg == plan.AggShare && len(c.p.Filters) == 0 && (c.p.Distance == nil || c.p.Distance.Op == "")
	whole := 0.0
	if distribution {
		for _, g := range groups {
			whole += c.shareBase(m0, g)
		}
	}
	rows := make([]groupRow, 0, len(groups))
	for k, g := range groups {
		if len(g) == 0 {
			continue
		}
		var st stat
		if c.p.Agg == plan.AggRank {
			st = stat{value: math.NaN(), at: -1, base: len(g)}
			idx, _ := c.filtered(g)
			st.matched = len(idx)
			if m0 != nil {
				st.value, st.records = summary(&c.in.Frames, m0, idx)
				if st.records > 0 {
					c.used[m0.Dataset] = true
				}
			}
		} else if distribution {
			st = stat{value: math.NaN(), at: -1, base: len(g), matched: len(g)}
			if whole > 0 {
				st.value = c.shareBase(m0, g) / whole
			}
		} else {
			st = c.eval(g)
		}
		rows = append(rows, groupRow{key: gcol.Dict[k], st: st})
	}
	desc := true
	if c.p.Order != nil {
		desc = c.p.Order.Desc
	}
	slices.SortStableFunc(rows, func(a, b groupRow) int {
		av, bv := a.st.value, b.st.value
		switch an, bn := math.IsNaN(av), math.IsNaN(bv); {
		case an && bn:
			return strings.Compare(a.key, b.key)
		case an:
			return 1
		case bn:
			return -1
		case av == bv:
			return strings.Compare(a.key, b.key)
		case (av > bv) == desc:
			return -1
		}
		return 1
	})
	if c.p.Order != nil && c.p.Order.K > 0 && len(rows) > c.p.Order.K {
		rows = rows[:c.p.Order.K]
	}
	gl := labelOf(&gcol.Attr)
	figLabel, unit := c.groupFigure()
	t := &Table{Columns: []string{gl, figLabel, "Frames"}}
	cov := c.p.Agg == plan.AggCoverage
	if cov {
		km := FormatFigure(c.p.Distance.Km)
		t.Columns = []string{gl, "Within " + km + " km", "More than " + km + " km", "Share within " + km + " km", "Frames"}
		if c.p.Distance.Op == "between" {
			band := km + " to " + FormatFigure(c.p.Distance.Km2) + " km"
			t.Columns = []string{gl, "Between " + band, "Not between " + band, "Share between " + band, "Frames"}
		}
	}
	for r, row := range rows {
		gv := GroupValue{Key: row.key, Frames: row.st.base}
		if v := row.st.value; !math.IsNaN(v) && !math.IsInf(v, 0) {
			gv.Value = &v
		}
		c.ans.Result.Groups = append(c.ans.Result.Groups, gv)
		if r >= maxGroupRows {
			continue
		}
		cell := "no record"
		if gv.Value != nil {
			cell = c.groupCell(row.st.value)
			c.fig(cell, unit, SubjectValue(row.key), figLabel, FigureMeasure)
		}
		frames := fmtInt(row.st.base)
		c.fig(frames, "frames", SubjectValue(row.key), "Frames", FigurePart)
		if cov {
			w, b := row.st.within, row.st.beyond
			if m0 == nil {
				w, b = float64(row.st.fWithin), float64(row.st.fBeyond)
			}
			share := "n/a"
			if w+b > 0 {
				share = formatPercent(w / (w + b))
			}
			t.Rows = append(t.Rows, []string{row.key, FormatFigure(w), FormatFigure(b), share, frames})
			c.fig(FormatFigure(w), unit, SubjectValue(row.key), t.Columns[1], FigureMeasure)
			c.fig(FormatFigure(b), unit, SubjectValue(row.key), t.Columns[2], FigureMeasure)
			c.fig(share, "% of "+unit, SubjectValue(row.key), t.Columns[3], FigureMeasure)
			continue
		}
		t.Rows = append(t.Rows, []string{row.key, cell, frames})
	}
	c.ans.Table = t
	c.ans.Result.Unit = unit
	c.fig(fmtInt(len(rows)), pluralPhrase(lowerLabel(gl)), SubjectSelection, gl, FigureNames)
	noun := pluralPhrase(lowerLabel(gl))
	if len(rows) == 0 {
		c.ans.Headline = "None of " + c.subjectLower() + " has a record of " + lowerLabel(gl) + "."
		return
	}
	named := func(rs []groupRow) string {
		var s []string
		for _, r := range rs {
			if math.IsNaN(r.st.value) {
				continue
			}
			s = append(s, r.key+" ("+c.groupCell(r.st.value)+")")
		}
		return joinAnd(s, "and")
	}
	k := min(3, len(rows))
	word := "highest"
	if !desc {
		word = "lowest"
	}
	h := "By " + lowerLabel(gl) + ", " + fmtInt(len(rows)) + " " + noun + " of " + c.subjectLower()
	h += ": " + word + " " + strings.ToLower(figLabel) + " in " + named(rows[:k])
	if len(rows) > 2*k && (c.p.Order == nil || c.p.Order.K == 0) {
		other := "lowest"
		if !desc {
			other = "highest"
		}
		var tail []groupRow
		for i := len(rows) - 1; i >= 0 && len(tail) < k; i-- {
			if !math.IsNaN(rows[i].st.value) {
				tail = append(tail, rows[i])
			}
		}
		if len(tail) > 0 {
			h += "; " + other + " in " + named(tail)
		}
	}
	c.ans.Headline = h + "."
	if unvalued > 0 {
		c.details = append(c.details, fmtInt(unvalued)+" of the frames "+plural(unvalued, "has", "have")+" no "+lowerLabel(gl)+" and "+plural(unvalued, "is", "are")+" left out of the breakdown.")
	}
	if len(rows) > maxGroupRows {
		c.details = append(c.details, "The table shows the first "+fmtInt(maxGroupRows)+" of "+fmtInt(len(rows))+" rows; the result holds them all.")
	}
	if cov {
		c.details = append(c.details, "Distances are great-circle (haversine, mean Earth radius 6,371.0088 km) from each frame's centre to the nearest feature anywhere in the country, searched up to "+fmtInt(SearchLimitKm)+" km.")
	}
}

// shareBase is what a share divides over frames idx: the measure's
// weighted total, or the frames' weight.
func (c *computer) shareBase(m0 *Column, idx []int32) float64 {
	if m0 != nil {
		v, _ := weightedSum(&c.in.Frames, m0, idx)
		return v
	}
	w := 0.0
	for _, i := range idx {
		w += c.in.Frames.weight(i)
	}
	return w
}

// groupCell shows a group's figure: a share as a percentage.
func (c *computer) groupCell(v float64) string {
	if c.p.Agg == plan.AggShare {
		return formatPercent(v)
	}
	return FormatFigure(v)
}

// groupFigure is the column label and unit of a breakdown's figure.
func (c *computer) groupFigure() (string, string) {
	m0 := c.measureCol(0)
	l, unit := "", ""
	if m0 != nil {
		l, unit = labelOf(&m0.Attr)+yearSuffix(&m0.Attr), colUnit(m0)
	}
	switch c.p.Agg {
	case plan.AggTotal:
		return "Total " + lowerLabel(l), unit
	case plan.AggMean:
		return "Mean " + lowerLabel(l) + " per frame", unit
	case plan.AggMedian:
		return "Median " + lowerLabel(l) + " per frame", unit
	case plan.AggMin:
		return "Smallest " + lowerLabel(l), unit
	case plan.AggMax:
		return "Largest " + lowerLabel(l), unit
	case plan.AggCount:
		if w := c.filterWords(); w != "" {
			return "Frames with " + w, "frames"
		}
		return "Frames", "frames"
	case plan.AggShare:
		if m0 != nil {
			return "Share of " + lowerLabel(l), "% of " + lowerLabel(labelOf(&m0.Attr))
		}
		return "Share of frames", "% of frames"
	case plan.AggRatio:
		if m1 := c.measureCol(1); m1 != nil {
			per := colUnit(m1)
			if c.p.Scale > 1 {
				per = FormatFigure(c.p.Scale) + " " + per
			} else {
				per = singularPhrase(per)
			}
			return capitalize(unit) + " per " + per, unit + " per " + per
		}
	case plan.AggDensity:
		area := "km²"
		if c.p.Per == "ha" {
			area = "hectare"
		}
		return capitalize(unit) + " per " + area, unit + " per " + area
	case plan.AggRank:
		if m0 != nil && !isSum(m0) {
			return "Mean " + lowerLabel(l) + " per frame", unit
		}
		return "Total " + lowerLabel(l), unit
	case plan.AggCoverage:
		if m0 != nil {
			l = unit
		} else {
			l, unit = "frames", "frames"
		}
		switch d := c.p.Distance; d.Op {
		case "beyond":
			return capitalize(l) + " more than " + FormatFigure(d.Km) + " km away", unit
		case "between":
			return capitalize(l) + " " + FormatFigure(d.Km) + " to " + FormatFigure(d.Km2) + " km away", unit
		}
		return capitalize(l) + " within " + FormatFigure(c.p.Distance.Km) + " km", unit
	case plan.AggFeatureCount:
		if col := c.featureCol(); col != nil {
			return col.DatasetName, lowerLabel(col.DatasetName)
		}
	case plan.AggNearest, plan.AggFarthest:
		return "Distance (km)", "km"
	}
	return capitalize(l), unit
}
