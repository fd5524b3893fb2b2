package insight

import (
	"math"
	"slices"
	"strings"

	"frameindex/plan"
)

// label is a column's label in a sentence, with its year: "estimated
// population (2020)".
func colLabel(col *Column) string {
	return lowerLabel(labelOf(&col.Attr)) + yearSuffix(&col.Attr)
}

// colUnit is what a column's figures are in.
func colUnit(col *Column) string {
	if col.Attr.Name == "" {
		return lowerLabel(col.DatasetName)
	}
	return calcUnit(&col.Attr)
}

// withUnitFig is a figure with its unit for a facet: "2,519 people".
func withUnitFig(v float64, unit string) string {
	if unit == "" {
		return FormatFigure(v)
	}
	if v == 1 {
		unit = singularPhrase(unit)
	}
	return FormatFigure(v) + " " + unit
}

// filterWords describes the plan's filters: "estimated population (2020)
// over 1,000 and health facilities equal to 0".
func (c *computer) filterWords() string {
	var parts []string
	for k := range c.p.Filters {
		f := &c.p.Filters[k]
		col := c.in.column(f.Measure)
		if col == nil {
			continue
		}
		var of *Column
		if f.Of != nil {
			of = c.in.column(*f.Of)
		}
		parts = append(parts, filterPhrase(f, col, of))
	}
	if d := c.p.Distance; d != nil && d.Op != "" && c.p.Agg != plan.AggCoverage {
		parts = append(parts, distancePhrase(d)+" "+c.featureName(d.Feature))
	}
	join := "and"
	if c.p.Join == "or" {
		join = "or"
	}
	return joinAnd(parts, join)
}

// distancePhrase says a distance condition before the features' name:
// "within 5 km of", "more than 5 km from", "between 2 and 5 km from".
func distancePhrase(d *plan.Distance) string {
	switch d.Op {
	case "beyond":
		return "more than " + FormatFigure(d.Km) + " km from"
	case "between":
		return "between " + FormatFigure(d.Km) + " and " + FormatFigure(d.Km2) + " km from"
	}
	return "within " + FormatFigure(d.Km) + " km of"
}

// filterPhrase describes one filter.
func filterPhrase(f *plan.Filter, col *Column, of *Column) string {
	l := colLabel(col)
	switch {
	case f.Per == "ha":
		l += " per hectare"
	case f.Per != "":
		l += " per km²"
	case of != nil:
		l += " per " + singularPhrase(colUnit(of))
	}
	var s string
	if col.IsCategory() {
		s = l + " " + f.Text
		if f.Op == plan.OpNe {
			s = l + " other than " + f.Text
		}
	} else {
		v := FormatFigure(f.Value)
		switch f.Op {
		case plan.OpGT:
			s = l + " over " + v
		case plan.OpGE:
			s = l + " at least " + v
		case plan.OpLT:
			s = l + " under " + v
		case plan.OpLE:
			s = l + " at most " + v
		case plan.OpEq:
			if f.Value == 0 && isSum(col) {
				s = "no " + l
			} else {
				s = l + " equal to " + v
			}
		case plan.OpNe:
			s = l + " other than " + v
		case plan.OpBetween:
			s = l + " between " + v + " and " + FormatFigure(f.Value2)
		}
	}
	if f.Not {
		return "not " + s
	}
	return s
}

// featureName names a features dataset in a sentence: "health facilities".
func (c *computer) featureName(id string) string {
	if d := c.in.dataset(id); d != nil {
		return lowerLabel(datasetName(d))
	}
	return id
}

// conditionFigs records the values a plan's filters set.
func (c *computer) conditionFigs() {
	for k := range c.p.Filters {
		f := &c.p.Filters[k]
		col := c.in.column(f.Measure)
		if col == nil || col.IsCategory() {
			continue
		}
		unit := colUnit(col)
		switch {
		case f.Per == "ha":
			unit += " per hectare"
		case f.Per != "":
			unit += " per km²"
		case f.Of != nil:
			if of := c.in.column(*f.Of); of != nil {
				unit += " per " + singularPhrase(colUnit(of))
			}
		}
		c.fig(FormatFigure(f.Value), unit, SubjectSubset, "Condition", FigureCondition)
		if f.Op == plan.OpBetween {
			c.fig(FormatFigure(f.Value2), unit, SubjectSubset, "Condition", FigureCondition)
		}
	}
	if d := c.p.Distance; d != nil && d.Km > 0 {
		c.fig(FormatFigure(d.Km), "km", SubjectSubset, "Condition", FigureCondition)
		if d.Op == "between" {
			c.fig(FormatFigure(d.Km2), "km", SubjectSubset, "Condition", FigureCondition)
		}
	}
	if c.p.Agg == plan.AggRatio && c.p.Scale > 1 {
		c.fig(FormatFigure(c.p.Scale), "", SubjectSelection, "Scale", FigureScale)
	}
	if c.p.Order != nil && c.p.Order.K > 0 {
		c.fig(fmtInt(c.p.Order.K), "frames", SubjectSelection, "Order", FigureCount)
	}
}

// of is " of the frames with …" when the plan filters, else "".
func (c *computer) ofFiltered() string {
	if w := c.filterWords(); w != "" {
		return " with " + w
	}
	return ""
}

// scalar answers a plan without grouping.
func (c *computer) scalar(base []int32) {
	p := c.p
	c.conditionFigs()
	if p.Agg == plan.AggRank {
		c.rank(base)
		return
	}
	st := c.eval(base)
	subj := c.subject()
	m0 := c.measureCol(0)
	c.fig(fmtInt(c.n), "frames", SubjectSelection, "Frames", FigureCount)
	if st.matched < st.base {
		c.fig(fmtInt(st.matched), "frames", SubjectSubset, "Frames meeting the condition", FigurePart)
	}
	if m0 != nil {
		c.source(m0)
	}
	for k := range p.Filters {
		if col := c.in.column(p.Filters[k].Measure); col != nil {
			c.source(col)
		}
	}
	filt := c.ofFiltered()
	sub := SubjectSelection
	if filt != "" {
		sub = SubjectSubset
	}
	switch p.Agg {
	case plan.AggTotal, plan.AggMean, plan.AggMedian, plan.AggMin, plan.AggMax:
		if filt != "" {
			c.subsetFacets(st, filt)
		}
		c.attribute(st, m0, filt, sub)
	case plan.AggCount:
		c.count(st, base, filt, sub)
	case plan.AggShare:
		c.share(st, m0, filt)
	case plan.AggRatio:
		c.ratio(st, m0, filt, sub)
	case plan.AggDensity:
		c.density(st, m0, filt, sub)
	case plan.AggCompare:
		c.compare(st, filt, sub)
	case plan.AggNearest, plan.AggFarthest:
		if p.Order != nil && p.Order.K > 1 {
			c.nearFarList(base)
			return
		}
		c.nearFar(st)
	case plan.AggCoverage:
		c.coverage(st, m0)
	case plan.AggFeatureCount:
		col := c.featureCol()
		if col == nil {
			c.ans.Confidence = ConfidenceUnknown
			c.ans.Headline = "No readable dataset holds features of " + measureName(p.Measures[0]) + " on these frames."
			return
		}
		c.source(col)
		unit := lowerLabel(col.DatasetName)
		c.setValue(st.value, unit)
		c.facet(col.DatasetName, FormatFigure(st.value), unit, sub, FigureMeasure)
		c.ans.Headline = subj + filt + " " + plural(c.n, "holds", "hold") + " " + FormatFigure(st.value) + " " + unit + "."
	}
}

// count words how many frames meet the plan's conditions: "k of n", the
// share, the matching frames (a selection's) and, in the headline, what
// they hold of the first condition's summed measure.
func (c *computer) count(st stat, base []int32, filt, sub string) {
	c.setValue(st.value, "frames")
	if filt == "" && c.placeOf != "" {
		label := "Frames"
		c.ans.Facets = append(c.ans.Facets, Facet{label, fmtInt(c.n) + " of " + fmtInt(c.asked)})
		c.fig(fmtInt(c.n), "frames", SubjectSubset, label, FigurePart)
		c.fig(fmtInt(c.asked), "frames", SubjectSelection, label, FigureCount)
		c.ans.Headline = fmtInt(c.n) + " of the " + fmtInt(c.asked) + " selected frames " + plural(c.n, "is", "are") + " in " + c.placeOf + "."
		return
	}
	if filt == "" {
		c.facet("Frames", fmtInt(st.matched), "frames", sub, FigureCount)
		c.ans.Headline = c.subject() + " " + plural(c.n, "is", "are") + " " + fmtInt(c.n) + " " + plural(c.n, "frame", "frames") + "."
		return
	}
	words := strings.TrimPrefix(filt, " with ")
	label := "Frames with " + words
	c.ans.Facets = append(c.ans.Facets, Facet{label, fmtInt(st.matched) + " of " + fmtInt(st.base)})
	c.fig(fmtInt(st.matched), "frames", SubjectSubset, label, FigurePart)
	c.fig(fmtInt(st.base), "frames", SubjectSelection, label, FigureCount)
	c.facet("Share of frames", percent(st.matched, st.base), "% of frames", SubjectSubset, FigureMeasure)
	c.ans.Headline = fmtInt(st.matched) + " of " + c.subjectLower() + " " + plural(st.matched, "has", "have") + " " + words
	idx, _ := c.filtered(base)
	var cols []*Column
	for k := range c.p.Filters {
		if col := c.in.column(c.p.Filters[k].Measure); col != nil && !slices.Contains(cols, col) {
			cols = append(cols, col)
		}
	}
	if len(cols) > 0 && cols[0].Num != nil && isSum(cols[0]) && len(idx) > 0 {
		v, _ := weightedSum(&c.in.Frames, cols[0], idx)
		if v > 0 {
			c.ans.Headline += "; together they have " + withUnitFig(v, colUnit(cols[0]))
			c.fig(FormatFigure(v), colUnit(cols[0]), SubjectSubset, "Together", FigureMeasure)
		}
	}
	c.ans.Headline += "."
	if c.in.Frames.Len() > maxFrameIDs || len(idx) == 0 {
		return
	}
	t := &Table{Columns: []string{"Frame"}}
	for _, col := range cols {
		t.Columns = append(t.Columns, labelOf(&col.Attr))
	}
	for _, i := range idx {
		id := c.frameID(i)
		row := []string{id}
		for _, col := range cols {
			row = append(row, c.cell(col, i, id))
		}
		t.Rows = append(t.Rows, row)
	}
	c.ans.Table = t
}

// subsetFacets say how many frames meet the plan's conditions, first.
func (c *computer) subsetFacets(st stat, filt string) {
	label := "Frames with " + strings.TrimPrefix(filt, " with ")
	c.ans.Facets = append(c.ans.Facets, Facet{label, fmtInt(st.matched) + " of " + fmtInt(st.base)})
	c.fig(fmtInt(st.matched), "frames", SubjectSubset, label, FigurePart)
	c.fig(fmtInt(st.base), "frames", SubjectSelection, label, FigureCount)
	c.facet("Share of frames", percent(st.matched, st.base), "% of frames", SubjectSubset, FigureMeasure)
}

// cell is a column's value on frame i for a table, recorded as a figure.
func (c *computer) cell(col *Column, i int32, id string) string {
	if col.Codes != nil {
		if code := col.Codes[i]; code >= 0 {
			return col.Dict[code]
		}
		return noRecord
	}
	v := colNum(col, i)
	if math.IsNaN(v) {
		return noRecord
	}
	s := FormatFigure(v)
	c.fig(s, colUnit(col), SubjectFrame(id), labelOf(&col.Attr), FigureMeasure)
	return s
}

// attribute words total, mean, median, min and max.
func (c *computer) attribute(st stat, col *Column, filt, sub string) {
	l, unit := colLabel(col), colUnit(col)
	if c.p.Agg != plan.AggTotal && c.p.Agg != plan.AggMean {
		l, unit = c.perFrameWords(col)
	}
	subj := c.subject() + filt
	if st.records == 0 {
		c.ans.Headline = capitalize(subj) + " " + plural(c.n, "has", "have") + " no record of " + l + "."
		return
	}
	c.setValue(st.value, unit)
	v := withUnitFig(st.value, unit)
	var label string
	switch c.p.Agg {
	case plan.AggTotal:
		label = "Total " + l
		c.ans.Headline = subj + " " + plural(c.n, "has", "have") + " a total " + l + " of " + v + "."
	case plan.AggMean:
		label = "Mean " + l + " per frame"
		c.ans.Headline = "The mean " + l + " per frame of " + lowerThe(subj) + " is " + v + "."
	case plan.AggMedian:
		label = "Median " + l + " per frame"
		c.ans.Headline = "The median " + l + " per frame of " + lowerThe(subj) + " is " + v + "."
	case plan.AggMin, plan.AggMax:
		word := "smallest"
		if c.p.Agg == plan.AggMax {
			word = "largest"
		}
		id := c.frameID(st.at)
		label = capitalize(word) + " " + l
		c.ans.Result.Frames = []string{id}
		c.ans.Headline = "The " + word + " " + l + " of " + lowerThe(subj) + " is " + v + ", on frame " + id + "."
		c.fig(id, "frame id", SubjectFrame(id), label, FigureID)
	}
	c.facet(label, v, unit, sub, FigureMeasure)
	c.facet("Frames recording it", fmtInt(st.records), "frames", sub, FigurePart)
	if st.records < st.matched {
		c.details = append(c.details, capitalize(l)+" is recorded on "+fmtInt(st.records)+" of the "+fmtInt(st.matched)+
			" frames; frames without a record are left out"+map[bool]string{true: " (they hold none)", false: ""}[isSum(col)]+".")
	}
	if c.in.Frames.Len() <= maxFrameIDs && c.n > 1 {
		idx, _ := c.filtered(c.all)
		c.frameTable(col, idx)
	}
}

// lowerFirstWord lower-cases the first letter of a label: "Within 5 km"
// becomes "within 5 km".
func lowerFirstWord(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// lowerThe lower-cases "The" at the start of a subject.
func lowerThe(s string) string {
	if strings.HasPrefix(s, "The ") {
		return "the " + s[4:]
	}
	return s
}

// frameTable is the per-frame table of a measure over the frames idx
// (small selections only).
func (c *computer) frameTable(col *Column, idx []int32) {
	t := &Table{Columns: []string{"Frame", labelOf(&col.Attr)}}
	for _, i := range idx {
		id := c.frameID(i)
		v := colNum(col, i)
		cell := noRecord
		if !math.IsNaN(v) {
			cell = FormatFigure(v)
			c.fig(cell, colUnit(col), SubjectFrame(id), labelOf(&col.Attr), FigureMeasure)
		}
		t.Rows = append(t.Rows, []string{id, cell})
	}
	c.ans.Table = t
}

// share words a share of frames or of a measure's total.
func (c *computer) share(st stat, col *Column, filt string) {
	if math.IsNaN(st.value) {
		c.ans.Headline = "No share could be computed: " + c.subjectLower() + " hold none of it."
		return
	}
	c.setValue(st.value, "share")
	pc := formatPercent(st.value)
	if col != nil {
		unit := "% of " + lowerLabel(labelOf(&col.Attr))
		c.facet("Share of "+colLabel(col), pc, unit, SubjectSubset, FigureMeasure)
		idx, _ := c.filtered(c.all)
		part, _ := weightedSum(&c.in.Frames, col, idx)
		c.facet(capitalize(colLabel(col))+" in those frames", withUnitFig(part, colUnit(col)), colUnit(col), SubjectSubset, FigureMeasure)
		c.ans.Headline = pc + " of the " + colLabel(col) + " of " + c.subjectLower() + " is in frames" + filt + "."
		return
	}
	c.facet("Share of frames", pc, "% of frames", SubjectSubset, FigureMeasure)
	c.ans.Facets = append(c.ans.Facets, Facet{"Frames", fmtInt(st.matched) + " of " + fmtInt(st.base)})
	c.fig(fmtInt(st.matched), "frames", SubjectSubset, "Frames", FigurePart)
	c.fig(fmtInt(st.base), "frames", SubjectSelection, "Frames", FigureCount)
	c.ans.Headline = pc + " of " + c.subjectLower() + " (" + fmtInt(st.matched) + " of " + fmtInt(st.base) + ") are frames" + filt + "."
}

// ratio words a ratio of two totals.
func (c *computer) ratio(st stat, col *Column, filt, sub string) {
	den := c.measureCol(1)
	c.source(den)
	if math.IsNaN(st.value) {
		c.ans.Headline = "No ratio could be computed: " + c.subjectLower() + filt + " hold no " + colLabel(den) + "."
		return
	}
	per := colUnit(den)
	if c.p.Scale > 1 {
		per = FormatFigure(c.p.Scale) + " " + per
	} else {
		per = singularPhrase(per)
	}
	unit := colUnit(col) + " per " + per
	c.setValue(st.value, unit)
	v := FormatFigure(st.value)
	c.facet(capitalize(colLabel(col))+" per "+per, v+" "+unit, unit, sub, FigureMeasure)
	c.ans.Headline = c.subject() + filt + " " + plural(c.n, "has", "have") + " " + v + " " + unit + "."
	if c.in.Frames.Len() > maxFrameIDs {
		return
	}
	// Each frame's values and the totals divided.
	idx, _ := c.filtered(c.all)
	t := &Table{Columns: []string{"Frame", labelOf(&col.Attr), labelOf(&den.Attr)}}
	for _, i := range idx {
		id := c.frameID(i)
		t.Rows = append(t.Rows, []string{id, c.cell(col, i, id), c.cell(den, i, id)})
	}
	x, _ := weightedSum(&c.in.Frames, col, idx)
	t.Rows = append(t.Rows, []string{"Total", FormatFigure(x), FormatFigure(st.second)})
	c.fig(FormatFigure(x), colUnit(col), sub, "Total", FigureMeasure)
	c.fig(FormatFigure(st.second), colUnit(den), sub, "Total", FigureMeasure)
	c.ans.Table = t
}

// density words a measure's total per km² (or hectare).
func (c *computer) density(st stat, col *Column, filt, sub string) {
	area, areaV := "km²", st.second
	if c.p.Per == "ha" {
		area, areaV = "hectare", st.second*100
	}
	if math.IsNaN(st.value) {
		c.ans.Headline = "No density could be computed: the frames' area is unknown."
		return
	}
	unit := colUnit(col) + " per " + area
	c.setValue(st.value, unit)
	v := FormatFigure(st.value)
	c.facet(capitalize(colLabel(col))+" per "+area, v+" "+unit, unit, sub, FigureMeasure)
	au := "km²"
	if c.p.Per == "ha" {
		au = "ha"
	}
	c.facet("Area", FormatFigure(areaV)+" "+au, au, sub, FigureMeasure)
	c.ans.Headline = c.subject() + filt + " " + plural(c.n, "has", "have") + " " + v + " " + unit + "."
	if c.in.AreaBasis != "" {
		c.details = append(c.details, "Areas are measured on the "+c.in.AreaBasis+".")
	}
}

// compare words two measures side by side.
func (c *computer) compare(st stat, filt, sub string) {
	a, b := c.measureCol(0), c.measureCol(1)
	c.source(b)
	var phr []string
	for k, col := range []*Column{a, b} {
		v := st.value
		if k == 1 {
			v = st.second
		}
		what := "Total "
		if !isSum(col) {
			what = "Mean "
		}
		if math.IsNaN(v) {
			c.ans.Facets = append(c.ans.Facets, Facet{capitalize(colLabel(col)), "none recorded"})
			phr = append(phr, "no record of "+colLabel(col))
			continue
		}
		c.facet(what+colLabel(col), withUnitFig(v, colUnit(col)), colUnit(col), sub, FigureMeasure)
		phr = append(phr, strings.ToLower(what)+colLabel(col)+" "+withUnitFig(v, colUnit(col)))
	}
	c.setValue(st.value, colUnit(a))
	c.ans.Headline = c.subject() + filt + ": " + joinAnd(phr, "and") + "."
}

// nearFar words the nearest or farthest frame from a features dataset.
func (c *computer) nearFar(st stat) {
	feat := c.featureName(c.p.Distance.Feature)
	c.ans.Sources = append(c.ans.Sources, Source{LayerID: c.p.Distance.Feature, LayerName: capitalize(feat)})
	if st.at < 0 {
		c.ans.Headline = "No frame met the condition, so no distance was measured."
		return
	}
	id := c.frameID(st.at)
	c.ans.Result.Frames = []string{id}
	word := "nearest to"
	if c.p.Agg == plan.AggFarthest {
		word = "farthest from"
	}
	c.fig(id, "frame id", SubjectFrame(id), "Frame", FigureID)
	if math.IsInf(st.value, 1) {
		c.ans.Result.Unit = "km"
		c.ans.Headline = "Frame " + id + " is the " + word + " " + feat + " of " + c.subjectLower() + ": none lies within " +
			fmtInt(SearchLimitKm) + " km of its centre."
		c.fig(fmtInt(SearchLimitKm), "km", SubjectFrame(id), "Search limit", FigureCondition)
		c.facet("Frame", id, "frame id", SubjectFrame(id), FigureID)
		return
	}
	c.setValue(st.value, "km")
	v := FormatFigure(st.value)
	c.facet("Frame", id, "frame id", SubjectFrame(id), FigureID)
	c.facet("Distance to the nearest "+singularPhrase(feat), v+" km", "km", SubjectFrame(id), FigureMeasure)
	c.ans.Headline = "Frame " + id + " is the " + word + " " + feat + " of " + c.subjectLower() + ": its centre is " + v +
		" km from the nearest " + singularPhrase(feat) + "."
	if c.n == 1 {
		c.ans.Headline = "The centre of frame " + id + " is " + v + " km from the nearest " + singularPhrase(feat) + "."
	}
	c.details = append(c.details, "Distances are great-circle (haversine, mean Earth radius 6,371.0088 km) from each frame's centre to the nearest feature anywhere in the country, searched up to "+fmtInt(SearchLimitKm)+" km.")
}

// nearFarList words the K frames nearest to (or farthest from) a
// features dataset: a table of frames by their centre's distance to the
// nearest feature, nearest (or farthest) first, ties by position in the
// selection. A frame with no feature within the search is farthest of
// all, its distance unknown.
func (c *computer) nearFarList(base []int32) {
	feat := c.featureName(c.p.Distance.Feature)
	c.ans.Sources = append(c.ans.Sources, Source{LayerID: c.p.Distance.Feature, LayerName: capitalize(feat)})
	idx, ok := c.filtered(base)
	if !ok {
		return
	}
	far := c.p.Agg == plan.AggFarthest
	k := c.p.Order.K
	rows := topK(idx, k, far, c.distance)
	if len(rows) == 0 {
		c.ans.Headline = "No frame met the condition, so no distance was measured."
		return
	}
	word := "nearest to"
	if far {
		word = "farthest from"
	}
	one := singularPhrase(feat)
	t := &Table{Columns: []string{"Rank", "Frame", "Distance to the nearest " + one + " (km)"}}
	var names []string
	beyond := 0
	for r, rw := range rows {
		id := c.frameID(rw.i)
		c.ans.Result.Frames = append(c.ans.Result.Frames, id)
		c.fig(fmtInt(r+1), "", SubjectFrame(id), "Rank", FigureRank)
		c.fig(id, "frame id", SubjectFrame(id), "Frame", FigureID)
		cell := "more than " + fmtInt(SearchLimitKm)
		if math.IsInf(rw.v, 1) {
			beyond++
			c.fig(fmtInt(SearchLimitKm), "km", SubjectFrame(id), "Search limit", FigureCondition)
		} else {
			cell = FormatFigure(rw.v)
			c.fig(cell, "km", SubjectFrame(id), "Distance to the nearest "+one, FigureMeasure)
		}
		t.Rows = append(t.Rows, []string{fmtInt(r + 1), id, cell})
		if r < 3 {
			names = append(names, id+" ("+cell+" km)")
		}
	}
	c.ans.Table = t
	c.setValue(rows[0].v, "km")
	if math.IsInf(rows[0].v, 1) {
		c.ans.Result.Unit = "km"
	}
	n := len(rows)
	c.ans.Headline = "The " + fmtInt(n) + " " + plural(n, "frame", "frames") + " of " + c.subjectLower() + c.ofFiltered() + " " +
		word + " " + feat + ", by the distance from " + plural(n, "its", "their") + " centre to the nearest " + one + ": " +
		joinAnd(names, "and") + "."
	if n < k {
		c.details = append(c.details, "Only "+fmtInt(n)+" "+plural(n, "frame", "frames")+" could be ranked.")
	}
	if beyond > 0 {
		c.details = append(c.details, fmtInt(beyond)+" "+plural(beyond, "frame has", "frames have")+" no "+one+
			" within "+fmtInt(SearchLimitKm)+" km of "+plural(beyond, "its", "their")+" centre.")
	}
	c.details = append(c.details, "Distances are great-circle (haversine, mean Earth radius 6,371.0088 km) from each frame's centre to the nearest feature anywhere in the country, searched up to "+fmtInt(SearchLimitKm)+" km.")
}

// ranked is a frame and the value it is ranked by.
type ranked struct {
	i int32
	v float64
}

// topK ranks the frames idx by val, highest first when desc, ties in the
// order given, frames without a value (NaN) left out, and keeps the
// first k.
func topK(idx []int32, k int, desc bool, val func(int32) float64) []ranked {
	rows := make([]ranked, 0, len(idx))
	for _, i := range idx {
		if v := val(i); !math.IsNaN(v) {
			rows = append(rows, ranked{i, v})
		}
	}
	slices.SortStableFunc(rows, func(a, b ranked) int {
		switch {
		case a.v == b.v:
			return 0
		case (a.v > b.v) == desc:
			return -1
		}
		return 1
	})
	if len(rows) > k {
		rows = rows[:k]
	}
	return rows
}

// coverage words people (or frames) within and beyond a distance.
func (c *computer) coverage(st stat, col *Column) {
	d := c.p.Distance
	feat := c.featureName(d.Feature)
	c.ans.Sources = append(c.ans.Sources, Source{LayerID: d.Feature, LayerName: capitalize(feat)})
	km := FormatFigure(d.Km)
	unit := "frames"
	within, beyond := float64(st.fWithin), float64(st.fBeyond)
	if col != nil {
		unit = colUnit(col)
		within, beyond = st.within, st.beyond
	}
	total := within + beyond
	c.setValue(st.value, unit)
	// The two sides of the condition: within and beyond a distance, or
	// inside and outside a band.
	in, out := "Within "+km+" km", "More than "+km+" km"
	if d.Op == "between" {
		band := km + " to " + FormatFigure(d.Km2) + " km"
		in, out = "Between "+band, "Not between "+band
	}
	c.facet(in, withUnitFig(within, unit), unit, SubjectSubset, FigureMeasure)
	c.facet(out, withUnitFig(beyond, unit), unit, SubjectSubset, FigureMeasure)
	if col != nil {
		c.facet("Frames "+lowerFirstWord(in), fmtInt(st.fWithin), "frames", SubjectSubset, FigurePart)
		c.facet("Frames "+lowerFirstWord(out), fmtInt(st.fBeyond), "frames", SubjectSubset, FigurePart)
	}
	share := math.NaN()
	if total > 0 {
		share = within / total
		c.facet("Share "+lowerFirstWord(in), formatPercent(share), "% of "+unit, SubjectSubset, FigureMeasure)
	}
	rel, v := "within "+km+" km of a "+singularPhrase(feat), within
	switch d.Op {
	case "beyond":
		rel, v = "more than "+km+" km from the nearest "+singularPhrase(feat), beyond
	case "between":
		rel = "between " + km + " and " + FormatFigure(d.Km2) + " km from the nearest " + singularPhrase(feat)
	}
	what := unit
	if col != nil && unit == "people" {
		what = "people live"
	} else if col == nil {
		what = plural(int(v), "frame lies", "frames lie")
	}
	c.ans.Headline = FormatFigure(v) + " " + what + " " + rel + " in " + c.subjectLower()
	if total > 0 {
		c.ans.Headline += " (" + formatPercent(v/total) + ")"
	}
	c.ans.Headline += "."
	c.details = append(c.details, "Distances are great-circle (haversine, mean Earth radius 6,371.0088 km) from each frame's centre to the nearest feature anywhere in the country, searched up to "+fmtInt(SearchLimitKm)+" km.")
}

// rank words the top or bottom K frames by a measure (or a density or
// ratio of it).
func (c *computer) rank(base []int32) {
	col := c.measureCol(0)
	if col == nil {
		return
	}
	c.source(col)
	idx, ok := c.filtered(base)
	if !ok {
		return
	}
	desc, k := true, 5
	if c.p.Order != nil {
		desc = c.p.Order.Desc
		if c.p.Order.K > 0 {
			k = c.p.Order.K
		}
	}
	rows := topK(idx, k, desc, func(i int32) float64 { return c.perFrame(col, i) })
	if len(rows) > 0 {
		c.used[col.Dataset] = true
	}
	word := "highest"
	if !desc {
		word = "lowest"
	}
	l, unit := c.perFrameWords(col)
	if len(rows) == 0 {
		c.ans.Headline = "None of " + c.subjectLower() + " has a record of " + l + "."
		return
	}
	t := &Table{Columns: []string{"Rank", "Frame", capitalize(l)}}
	var names []string
	for r, rw := range rows {
		id := c.frameID(rw.i)
		v := FormatFigure(rw.v)
		t.Rows = append(t.Rows, []string{fmtInt(r + 1), id, v})
		c.ans.Result.Frames = append(c.ans.Result.Frames, id)
		c.fig(fmtInt(r+1), "", SubjectFrame(id), "Rank", FigureRank)
		c.fig(id, "frame id", SubjectFrame(id), "Frame", FigureID)
		c.fig(v, unit, SubjectFrame(id), capitalize(l), FigureMeasure)
		if r < 3 {
			names = append(names, id+" ("+withUnitFig(rw.v, unit)+")")
		}
	}
	c.ans.Table = t
	c.setValue(rows[0].v, unit)
	top := "The frame"
	if len(rows) > 1 {
		top = "The " + fmtInt(len(rows)) + " frames"
	}
	c.ans.Headline = top + " of " + c.subjectLower() + c.ofFiltered() + " with the " + word + " " + l + ": " + joinAnd(names, "and") + "."
}

// cell is one frame's value of a measure.
type cell struct {
	ok  bool
	num float64
	str string
}

// compare applies a threshold.
func compare(x float64, op string, v1, v2 float64) bool {
	switch op {
	case OpGT:
		return x > v1
	case OpGE:
		return x >= v1
	case OpLT:
		return x < v1
	case OpLE:
		return x <= v1
	case OpEq:
		return x == v1
	case OpBetween:
		return x >= v1 && x <= v2
	}
	return false
}

// noRecord is a table cell for a frame a dataset records nothing on.
const noRecord = "no record"
