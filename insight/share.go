package insight

import (
	"sort"
	"strings"
)

// share answers frames_share: the share of the frames, or of a summed
// measure's total, that meets a condition; without a condition, the
// shares of a category's values, or of each frame.
func (a *answerer) share() {
	switch {
	case a.p.cond != nil:
		a.shareOfCondition()
	case a.p.group != nil:
		a.shareByCategory()
	default:
		a.shareByFrame()
	}
}

// shareOfCondition is the share of frames or of a total meeting the
// condition.
func (a *answerer) shareOfCondition() {
	c := a.p.cond
	mc := a.computeMetric(c.m, c.metric, a.areaUnit())
	sel, k, considered := a.selectFrames(c, mc)
	n := len(a.known)
	phrase := a.condPhrase(c, mc)
	a.condFigs(c, mc, "Frames with "+phrase)
	if a.p.base == nil {
		switch {
		case mc.x.records == 0 && c.op != OpNone:
			a.ins.Headline = a.noneRecorded(mc.x)
		default:
			a.ins.Headline = capitalize(percent(k, n)) + " of the " + fmtInt(n) + " selected frames (" + fmtInt(k) + ") " +
				plural(k, "has", "have") + " " + phrase + a.missingClause() + "."
		}
		a.ins.Facets = append(a.ins.Facets,
			Facet{"Share of frames with " + phrase, percent(k, n)},
			Facet{"Frames", fmtInt(k) + " of " + fmtInt(n)})
		a.figure(percent(k, n), "% of frames", a.subsetSubject, "Share of frames with "+phrase, FigureMeasure)
		a.ofFig(k, n, a.subsetSubject, "Frames")
		if sm := a.subjectMetric(c, mc, len(a.p.used)); sm != nil && k > 0 {
			if _, f, part, ok := a.subsetFigure(sm, sel); ok {
				a.ins.Facets = append(a.ins.Facets, f)
				if sm.spec.kind == metricPlain && sm.x.kind == kindSum && sm.x.total > 0 {
					label := "Share of the total " + lowerLabel(labelOf(sm.x.a))
					a.ins.Facets = append(a.ins.Facets, Facet{label, percentOf(part, sm.x.total)})
					a.figure(percentOf(part, sm.x.total), percentUnit(sm.x.a), a.subsetSubject, label, FigureMeasure)
				}
			}
		}
		if considered < n {
			a.ins.Facets = append(a.ins.Facets, Facet{"Frames with a record of " + lowerLabel(mc.label()), fmtInt(considered) + " of " + fmtInt(n)})
			a.ofFig(considered, n, SubjectSelection, "Frames with a record of "+lowerLabel(mc.label()))
			a.details = append(a.details, "The share is of all "+fmtInt(n)+" selected frames; "+lowerLabel(mc.label())+
				" can be read on "+fmtInt(considered)+" of them.")
		}
		if c.op == OpNone {
			a.details = append(a.details, "A frame without a record of "+lowerLabel(labelOf(mc.x.a))+" counts as having none.")
		}
		a.ins.Table = a.subsetTable(mc, nil, sel, c.op)
		a.citeUnrecorded(mc.x)
		return
	}

	base := a.compute(a.p.base.ref)
	bl := lowerLabel(labelOf(base.a))
	part, covered := 0.0, 0
	for i, in := range sel {
		if in && base.cells[i].ok {
			part += base.cells[i].num
			covered++
		}
	}
	switch {
	case base.records == 0:
		a.ins.Headline = a.noneRecorded(base)
	case mc.x.records == 0 && c.op != OpNone:
		a.ins.Headline = a.noneRecorded(mc.x)
	case base.total <= 0:
		a.ins.Headline = "The total " + bl + " of " + lowerFirst(a.subject()) + " is " +
			FormatNumber(base.total) + ", so no share of it can be computed" + a.missingClause() + "."
	default:
		a.ins.Headline = percentOf(part, base.total) + " of the " + bl + " of " + lowerFirst(a.subject()) + yearSuffix(base.a) + " " +
			verbIs(base.a) + " in frames with " + phrase + ": " + FormatNumber(part) + " of " + withUnit(base.total, base.a) +
			a.missingClause() + "."
	}
	if base.total > 0 {
		a.ins.Facets = append(a.ins.Facets, Facet{"Share of " + bl + yearSuffix(base.a), percentOf(part, base.total)})
		a.figure(percentOf(part, base.total), percentUnit(base.a), a.subsetSubject, "Share of "+bl+yearSuffix(base.a), FigureMeasure)
	}
	inLabel := capitalize(bl) + " in those frames" + yearSuffix(base.a)
	a.measureFig(part, calcUnit(base.a), a.subsetSubject, inLabel)
	if covered < k {
		a.partFig(covered, a.subsetSubject, inLabel)
		a.partFig(k, a.subsetSubject, inLabel)
	}
	a.ofFig(k, n, a.subsetSubject, "Frames with "+phrase)
	a.ins.Facets = append(a.ins.Facets,
		Facet{inLabel, withUnit(part, base.a) + a.coverNote2(covered, k)},
		a.totalFacet(base),
		Facet{"Frames with " + phrase, fmtInt(k) + " of " + fmtInt(n)})
	if considered < n && c.op != OpNone {
		a.details = append(a.details, capitalize(lowerLabel(mc.label()))+" can be read on "+fmtInt(considered)+" of the "+
			fmtInt(n)+" selected frames; frames without a record are not counted in the share.")
	}
	a.coverage(base, "the total covers those")
	if c.op == OpNone {
		a.details = append(a.details, "A frame without a record of "+lowerLabel(labelOf(mc.x.a))+" counts as having none.")
	}
	bm := &metricCalc{spec: metricSpec{}, x: base, cells: base.cells}
	if base.ref == mc.x.ref {
		bm = mc
	}
	a.ins.Table = a.subsetTable(mc, bm, sel, c.op)
	a.citeUnrecorded(base, mc.x)
}

// coverNote2 is " (2 of 3 frames)" when a figure over k frames covers
// only some of them.
func (a *answerer) coverNote2(covered, k int) string {
	if covered >= k {
		return ""
	}
	return " (" + fmtInt(covered) + " of " + fmtInt(k) + " frames)"
}

// lowerFirst lower-cases the first letter of a sentence subject ("The 3
// selected frames" -> "the 3 selected frames"; "Frame 1" -> "frame 1").
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// shareByCategory breaks the frames (or a total) down by a category's
// values.
func (a *answerer) shareByCategory() {
	g := a.compute(a.p.group.ref)
	gl := lowerLabel(labelOf(g.a))
	var base *calc
	if a.p.base != nil {
		base = a.compute(a.p.base.ref)
	}
	type row struct {
		name   string
		frames int
		sum    float64
	}
	var rows []row
	for _, nc := range g.counts {
		r := row{name: nc.name, frames: nc.count}
		if base != nil {
			for i := range a.known {
				if g.cells[i].ok && g.cells[i].str == nc.name && base.cells[i].ok {
					r.sum += base.cells[i].num
				}
			}
		}
		rows = append(rows, r)
	}
	if base != nil {
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].sum > rows[j].sum })
	}
	var parts []string
	for i, r := range rows {
		if i == 3 {
			parts = append(parts, fmtInt(len(rows)-3)+" more")
			break
		}
		if base != nil {
			parts = append(parts, r.name+" "+FormatNumber(r.sum)+" ("+percentOf(r.sum, base.total)+")")
		} else {
			parts = append(parts, r.name+" "+fmtInt(r.frames)+" "+plural(r.frames, "frame", "frames")+" ("+percent(r.frames, g.records)+")")
		}
	}
	switch {
	case g.records == 0:
		a.ins.Headline = a.noneRecorded(g)
	case base != nil && base.records == 0:
		a.ins.Headline = a.noneRecorded(base)
	case base != nil:
		a.ins.Headline = "The " + lowerLabel(labelOf(base.a)) + " of " + lowerFirst(a.subject()) + yearSuffix(base.a) + " by " + gl + ": " +
			joinAnd(parts, "and") + a.missingClause() + "."
	default:
		a.ins.Headline = a.subject() + " by " + gl + ": " + joinAnd(parts, "and") + a.missingClause() + "."
	}
	t := &Table{Columns: []string{labelOf(g.a), "Frames", "Share of frames"}}
	if base != nil {
		t.Columns = append(t.Columns, labelOf(base.a), "Share of "+lowerLabel(labelOf(base.a)))
	}
	for _, r := range rows {
		cells := []string{r.name, fmtInt(r.frames), percent(r.frames, g.records)}
		sub := SubjectValue(r.name)
		a.partFig(r.frames, sub, r.name+": Frames")
		a.figure(percent(r.frames, g.records), "% of frames", sub, r.name+": Share of frames", FigureMeasure)
		if base != nil {
			cells = append(cells, FormatNumber(r.sum), percentOf(r.sum, base.total))
			a.measureFig(r.sum, calcUnit(base.a), sub, r.name+": "+labelOf(base.a))
			a.figure(percentOf(r.sum, base.total), percentUnit(base.a), sub, r.name+": Share of "+lowerLabel(labelOf(base.a)), FigureMeasure)
		}
		t.Rows = append(t.Rows, cells)
	}
	if len(rows) > 0 {
		a.ins.Table = t
		top := rows[0]
		v := top.name + " (" + percent(top.frames, g.records) + " of frames)"
		if base != nil {
			v = top.name + " (" + percentOf(top.sum, base.total) + " of " + lowerLabel(labelOf(base.a)) + ")"
		}
		a.ins.Facets = append(a.ins.Facets, Facet{"Largest share", v},
			Facet{capitalize(pluralNoun(g)) + " in the selection", fmtInt(len(rows))})
		if base != nil {
			a.figure(percentOf(top.sum, base.total), percentUnit(base.a), SubjectValue(top.name), "Largest share", FigureMeasure)
		} else {
			a.figure(percent(top.frames, g.records), "% of frames", SubjectValue(top.name), "Largest share", FigureMeasure)
		}
		a.namesFig(g, capitalize(pluralNoun(g))+" in the selection")
		if base != nil {
			a.ins.Facets = append(a.ins.Facets, a.totalFacet(base))
		}
	}
	a.ins.Facets = append(a.ins.Facets, a.recordsFacet(g))
	a.coverage(g, "the shares are of those")
	if base != nil {
		a.coverage(base, "the total covers those")
		a.citeUnrecorded(g, base)
	} else {
		a.citeUnrecorded(g)
	}
}

// shareByFrame is each frame's share of a summed measure's total.
func (a *answerer) shareByFrame() {
	c := a.compute(a.p.base.ref)
	l := lowerLabel(labelOf(c.a))
	switch {
	case c.records == 0:
		a.ins.Headline = a.noneRecorded(c)
	case c.total <= 0:
		a.ins.Headline = "The total " + l + " of " + lowerFirst(a.subject()) + " is " + FormatNumber(c.total) +
			", so no share of it can be computed" + a.missingClause() + "."
	case len(a.known) == 1:
		a.ins.Headline = a.subject() + " holds all of its " + l + yearSuffix(c.a) + ": " + withUnit(c.total, c.a) + a.missingClause() + "."
	default:
		a.ins.Headline = "Frame " + a.known[c.hi].ID + " holds the largest share of the " + l + " of " + lowerFirst(a.subject()) +
			yearSuffix(c.a) + ": " + percentOf(c.cells[c.hi].num, c.total) + " (" + c.cells[c.hi].str + " of " + withUnit(c.total, c.a) + ")" +
			a.missingClause() + "."
	}
	a.ins.Facets = append(a.ins.Facets, a.totalFacet(c))
	if c.records > 0 && c.total > 0 {
		a.ins.Facets = append(a.ins.Facets,
			Facet{"Largest share", percentOf(c.cells[c.hi].num, c.total) + " (frame " + a.known[c.hi].ID + ")"},
			Facet{"Smallest share", percentOf(c.cells[c.lo].num, c.total) + " (frame " + a.known[c.lo].ID + ")"})
		a.figure(percentOf(c.cells[c.hi].num, c.total), percentUnit(c.a), SubjectFrame(a.known[c.hi].ID), "Largest share", FigureMeasure)
		a.figure(percentOf(c.cells[c.lo].num, c.total), percentUnit(c.a), SubjectFrame(a.known[c.lo].ID), "Smallest share", FigureMeasure)
	}
	a.ins.Facets = append(a.ins.Facets, a.recordsFacet(c))
	a.coverage(c, "the shares are of those frames' total")
	t := &Table{Columns: []string{"Frame", labelOf(c.a), "Share"}}
	for i, f := range a.known {
		share := noRecord
		v := noRecord
		if c.cells[i].ok {
			v = c.cells[i].str
			share = percentOf(c.cells[i].num, c.total)
			a.figure(v, calcUnit(c.a), SubjectFrame(f.ID), labelOf(c.a), FigureMeasure)
			a.figure(share, percentUnit(c.a), SubjectFrame(f.ID), "Share", FigureMeasure)
		}
		t.Rows = append(t.Rows, []string{f.ID, v, share})
	}
	a.ins.Table = t
	a.citeUnrecorded(c)
}
