package insight

import (
	"sort"
	"strconv"
)

// density answers frames_density: a summed measure per km² (per hectare in
// the GIS register) over the frames that record it, with their area.
func (a *answerer) density() {
	mc := a.computeMetric(a.p.used[0], a.p.metric, a.areaUnit())
	n := len(a.known)
	x := mc.x
	l := lowerLabel(mc.label())
	switch {
	case x.records == 0:
		a.ins.Headline = a.noneRecorded(x)
	case !mc.ok:
		a.ins.Headline = a.subject() + " " + plural(n, "has", "have") + " no known area, so no density of " + lowerLabel(labelOf(x.a)) +
			" could be computed" + a.missingClause() + "."
	default:
		what := article(l) + " " + l + " of " + mc.show(mc.value)
		if isCountLabel(labelOf(x.a)) {
			what = mc.show(mc.value) // "3,329.84 buildings per km²"
		}
		a.ins.Headline = a.subject() + " " + a.have() + " " + what + mc.years() +
			": " + withUnit(x.total, x.a) + " on " + FormatNumber(mc.area) + " " + unitText(mc.unit) + a.coveredClause(mc.covered) +
			a.missingClause() + "."
	}
	if mc.ok {
		dl, tl := mc.label()+mc.years(), "Total "+lowerLabel(labelOf(x.a))+yearSuffix(x.a)
		a.ins.Facets = append(a.ins.Facets,
			Facet{dl, mc.show(mc.value) + a.coverNote(mc.covered)},
			Facet{a.areaLabel(), FormatNumber(mc.area) + " " + unitText(mc.unit) + a.coverNote(mc.covered)},
			Facet{tl, withUnit(x.total, x.a) + a.coverNote(x.records)})
		a.measureFig(mc.value, mc.metricUnit(), SubjectSelection, dl)
		a.coverFig(mc.covered, dl)
		a.measureFig(mc.area, unitText(mc.unit), SubjectSelection, a.areaLabel())
		a.coverFig(mc.covered, a.areaLabel())
		a.measureFig(x.total, calcUnit(x.a), SubjectSelection, tl)
		a.coverFig(x.records, tl)
		if mc.records > 1 {
			hi, lo := extremes(mc.cells)
			a.ins.Facets = append(a.ins.Facets,
				Facet{"Highest", mc.show(mc.cells[hi].num) + " (frame " + a.known[hi].ID + ")"},
				Facet{"Lowest", mc.show(mc.cells[lo].num) + " (frame " + a.known[lo].ID + ")"})
			a.measureFig(mc.cells[hi].num, mc.metricUnit(), SubjectFrame(a.known[hi].ID), "Highest")
			a.measureFig(mc.cells[lo].num, mc.metricUnit(), SubjectFrame(a.known[lo].ID), "Lowest")
		}
	}
	a.ins.Facets = append(a.ins.Facets, a.recordsFacet(x))
	switch {
	case mc.noArea > 0 && mc.noArea == x.records:
		a.details = append(a.details, "No frame that records "+lowerLabel(labelOf(x.a))+" has a known area.")
	case mc.noArea > 0:
		a.details = append(a.details, fmtInt(mc.noArea)+" of the frames that record "+lowerLabel(labelOf(x.a))+" "+
			plural(mc.noArea, "has", "have")+" no known area; the density covers the others.")
	}
	a.coverage(x, "the density covers those frames and their area")
	if a.req.AreaBasis != "" && mc.ok {
		a.details = append(a.details, "Areas are computed on the "+a.req.AreaBasis+".")
	}
	t := &Table{Columns: []string{"Frame", "Area (" + unitText(mc.unit) + ")", labelOf(x.a), mc.columnLabel()}}
	for i, f := range a.known {
		area := "unknown"
		if f.AreaKm2 > 0 {
			area = FormatNumber(f.AreaKm2 * areaFactor(mc.unit))
		}
		t.Rows = append(t.Rows, []string{f.ID, area, cellText(x.cells[i]), cellText(mc.cells[i])})
		if f.AreaKm2 > 0 {
			a.figure(area, unitText(mc.unit), SubjectFrame(f.ID), t.Columns[1], FigureMeasure)
		}
		if x.cells[i].ok {
			a.figure(x.cells[i].str, calcUnit(x.a), SubjectFrame(f.ID), t.Columns[2], FigureMeasure)
		}
		if mc.cells[i].ok {
			a.figure(mc.cells[i].str, mc.metricUnit(), SubjectFrame(f.ID), t.Columns[3], FigureMeasure)
		}
	}
	a.ins.Table = t
	a.citeUnrecorded(x)
}

// areaUnit is the density unit of the answer: the one the question named,
// else hectares in the GIS register (asked for or inferred) and km²
// otherwise.
func (a *answerer) areaUnit() string {
	if a.p.unit != "" {
		return a.p.unit
	}
	if a.ins.Register == RegisterGIS {
		return PerHectare
	}
	return PerKm2
}

// areaLabel is the area facet's label: "Area (WGS84 ellipsoid)".
func (a *answerer) areaLabel() string {
	if a.req.AreaBasis != "" {
		return "Area (" + a.req.AreaBasis + ")"
	}
	return "Area"
}

// coveredClause is " (the 2 of 3 frames that record it)" when a figure
// covers only some frames.
func (a *answerer) coveredClause(covered int) string {
	if covered >= len(a.known) {
		return ""
	}
	return " (the " + fmtInt(covered) + " of " + fmtInt(len(a.known)) + " frames that record it)"
}

// coverNote is " (2 of 3 frames)" for a facet value whose figure covers
// only some frames: every figure says how many frames it covers.
func (a *answerer) coverNote(covered int) string {
	if covered >= len(a.known) {
		return ""
	}
	return " (" + fmtInt(covered) + " of " + fmtInt(len(a.known)) + " frames)"
}

// cellText is a table cell: the value shown, or "no record".
func cellText(c cell) string {
	if c.ok {
		return c.str
	}
	return noRecord
}

// extremes are the indexes of the first highest and lowest recorded cells.
func extremes(cells []cell) (hi, lo int) {
	hi, lo = -1, -1
	for i, c := range cells {
		if !c.ok {
			continue
		}
		if hi < 0 || c.num > cells[hi].num {
			hi = i
		}
		if lo < 0 || c.num < cells[lo].num {
			lo = i
		}
	}
	return hi, lo
}

// ratio answers frames_ratio: X per (scale) Y over the selection, from the
// totals of each (over the frames that record it), with the ratio of each
// frame that records both.
func (a *answerer) ratio() {
	mc := a.computeMetric(a.p.used[0], a.p.metric, "")
	x, y := mc.x, mc.y
	l := lowerLabel(labelOf(x.a))
	per := perWhat(y.a, mc.spec.scale)
	both := withUnit(x.total, x.a) + a.coverNote(x.records) + " and " + withUnit(y.total, y.a) + a.coverNote(y.records)
	switch {
	case x.records == 0:
		a.ins.Headline = a.noneRecorded(x)
	case y.records == 0:
		a.ins.Headline = a.noneRecorded(y)
	case !mc.ok:
		a.ins.Headline = a.subject() + " " + a.have() + " a total " + lowerLabel(labelOf(y.a)) + " of 0, so no ratio of " + l +
			" per " + per + " could be computed" + a.missingClause() + "."
	case isCountLabel(labelOf(x.a)):
		a.ins.Headline = a.subject() + " " + a.have() + " " + FormatNumber(mc.value) + " " + l + " per " + per + mc.years() + ": " +
			both + a.missingClause() + "."
	default:
		a.ins.Headline = a.subject() + " " + a.have() + " " + article(l) + " " + l + " of " + FormatNumber(mc.value) + " per " + per +
			mc.years() + ": " + both + a.missingClause() + "."
	}
	if mc.ok {
		a.ins.Facets = append(a.ins.Facets, Facet{mc.label() + mc.years(), FormatNumber(mc.value)})
		a.measureFig(mc.value, mc.metricUnit(), SubjectSelection, mc.label()+mc.years())
	}
	if mc.spec.scale != 1 {
		a.figure(FormatNumber(mc.spec.scale), calcUnit(y.a), SubjectSelection, mc.label(), FigureScale)
	}
	a.ins.Facets = append(a.ins.Facets, a.totalFacet(x), a.totalFacet(y))
	if mc.records > 1 {
		hi, lo := extremes(mc.cells)
		a.ins.Facets = append(a.ins.Facets,
			Facet{"Highest", FormatNumber(mc.cells[hi].num) + " (frame " + a.known[hi].ID + ")"},
			Facet{"Lowest", FormatNumber(mc.cells[lo].num) + " (frame " + a.known[lo].ID + ")"})
		a.measureFig(mc.cells[hi].num, mc.metricUnit(), SubjectFrame(a.known[hi].ID), "Highest")
		a.measureFig(mc.cells[lo].num, mc.metricUnit(), SubjectFrame(a.known[lo].ID), "Lowest")
	}
	a.ins.Facets = append(a.ins.Facets, Facet{"Frames with both recorded", fmtInt(mc.records) + " of " + fmtInt(len(a.known))})
	a.ofFig(mc.records, len(a.known), SubjectSelection, "Frames with both recorded")
	a.coverage(x, "its total covers those")
	a.coverage(y, "its total covers those")
	if mc.records < len(a.known) && mc.ok {
		a.details = append(a.details, "The ratio of the selection divides the two totals; a frame's own ratio is shown where it records both.")
	}
	t := a.frameTable(x, y)
	t.Columns = append(t.Columns, mc.label())
	for i := range t.Rows {
		t.Rows[i] = append(t.Rows[i], cellText(mc.cells[i]))
		if mc.cells[i].ok {
			a.figure(mc.cells[i].str, mc.metricUnit(), SubjectFrame(a.known[i].ID), mc.label(), FigureMeasure)
		}
	}
	total := "n/a"
	if mc.ok {
		total = FormatNumber(mc.value)
	}
	t.Rows = append(t.Rows, []string{"Total", selectionCell(x), selectionCell(y), total})
	a.selectionCellFig(x, "Total: "+labelOf(x.a))
	a.selectionCellFig(y, "Total: "+labelOf(y.a))
	a.ins.Table = t
	a.citeUnrecorded(x, y)
}

// totalFacet is a summed measure's total, saying how many frames it
// covers when not all.
func (a *answerer) totalFacet(c *calc) Facet {
	f := summaryFacet(c)
	a.summaryFig(c, f)
	if c.records > 0 {
		f.Value += a.coverNote(c.records)
		a.coverFig(c.records, f.Label)
	}
	return f
}

// rankMetric answers frames_rank on a density or a ratio: the frames
// ordered by the derived value.
func (a *answerer) rankMetric() {
	unit := a.areaUnit()
	mc := a.computeMetric(a.p.used[0], a.p.metric, unit)
	n := len(a.known)
	high := a.p.plan.Order != OrderLowest
	var order []int
	for i := range mc.cells {
		if mc.cells[i].ok {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(x, y int) bool {
		if high {
			return mc.cells[order[x]].num > mc.cells[order[y]].num
		}
		return mc.cells[order[x]].num < mc.cells[order[y]].num
	})
	word := "highest"
	if !high {
		word = "lowest"
	}
	l := lowerLabel(mc.label())
	switch {
	case mc.x.records == 0:
		a.ins.Headline = a.noneRecorded(mc.x)
	case len(order) == 0:
		a.ins.Headline = "No " + l + " could be computed for the " + fmtInt(n) + " selected frames" + a.missingClause() + "."
	case len(order) == 1:
		a.ins.Headline = "Frame " + a.known[order[0]].ID + " is the only one of the " + fmtInt(n) + " selected frames with " +
			article(l) + " " + l + ": " + mc.show(mc.cells[order[0]].num) + mc.years() + a.missingClause() + "."
	default:
		// Derived values are continuous: frames tie when they show the
		// same figure.
		best := mc.cells[order[0]].num
		var tied []string
		for _, i := range order {
			if mc.cells[i].str == mc.cells[order[0]].str {
				tied = append(tied, a.known[i].ID)
			}
		}
		among := "the " + fmtInt(n) + " selected frames"
		if len(order) < n {
			among = "the " + fmtInt(len(order)) + " selected frames where it can be computed"
		}
		if len(tied) == 1 {
			a.ins.Headline = "Frame " + tied[0] + " has the " + word + " " + l + " of " + among + ": " + mc.show(best) + mc.years() + a.missingClause() + "."
		} else {
			a.ins.Headline = fmtInt(len(tied)) + " of " + among + " tie for the " + word + " " + l + ": " + mc.show(best) + mc.years() +
				" each" + a.missingClause() + "."
		}
	}
	if len(order) > 0 {
		a.ins.Facets = append(a.ins.Facets, Facet{"Frames ranked", fmtInt(len(order)) + " of " + fmtInt(n)})
		a.ofFig(len(order), n, SubjectSelection, "Frames ranked")
		hi, lo := extremes(mc.cells)
		a.ins.Facets = append(a.ins.Facets,
			Facet{"Highest " + l + mc.years(), mc.show(mc.cells[hi].num) + " (frame " + a.known[hi].ID + ")"},
			Facet{"Lowest " + l + mc.years(), mc.show(mc.cells[lo].num) + " (frame " + a.known[lo].ID + ")"})
		a.measureFig(mc.cells[hi].num, mc.metricUnit(), SubjectFrame(a.known[hi].ID), "Highest "+l+mc.years())
		a.measureFig(mc.cells[lo].num, mc.metricUnit(), SubjectFrame(a.known[lo].ID), "Lowest "+l+mc.years())
		if mc.ok {
			a.ins.Facets = append(a.ins.Facets, Facet{capitalize(l) + " of the selection", mc.show(mc.value) + a.coverNote(mc.covered)})
			a.measureFig(mc.value, mc.metricUnit(), SubjectSelection, capitalize(l)+" of the selection")
			a.coverFig(mc.covered, capitalize(l)+" of the selection")
		}
		if mc.spec.kind == metricRatio && mc.spec.scale != 1 {
			a.figure(FormatNumber(mc.spec.scale), calcUnit(mc.y.a), SubjectSelection, mc.label(), FigureScale)
		}
	}
	if mc.spec.kind == metricDensity {
		a.coverage(mc.x, "only those are ranked")
		if a.req.AreaBasis != "" && len(order) > 0 {
			a.details = append(a.details, "Areas are computed on the "+a.req.AreaBasis+".")
		}
	} else if len(order) < n && len(order) > 0 {
		a.details = append(a.details, "Only the "+fmtInt(len(order))+" frames that record both measures are ranked.")
	}
	t := &Table{Columns: []string{"Rank", "Frame", mc.columnLabel()}}
	top := min(a.p.top, len(order))
	place := 0
	for k := 0; k < top; k++ {
		i := order[k]
		if k == 0 || mc.cells[i].str != mc.cells[order[k-1]].str {
			place = k + 1
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(place), a.known[i].ID, mc.cells[i].str})
		a.figure(strconv.Itoa(place), "", SubjectFrame(a.known[i].ID), "Rank", FigureRank)
		a.figure(mc.cells[i].str, mc.metricUnit(), SubjectFrame(a.known[i].ID), mc.columnLabel(), FigureMeasure)
	}
	if len(t.Rows) > 0 {
		a.ins.Table = t
		a.partFig(len(t.Rows), SubjectSelection, "Frames listed")
	}
	a.citeUnrecorded(mc.x)
	if mc.y != nil {
		a.citeUnrecorded(mc.y)
	}
	if len(order) == 0 {
		a.used = map[int]bool{}
	}
}
