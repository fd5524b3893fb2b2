package insight

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// selectFrames marks the known frames the condition holds on, and counts
// them; considered counts the frames the condition could be read on (all
// of them for OpNone, which counts a frame without a record as none).
func (a *answerer) selectFrames(c *condSpec, mc *metricCalc) (sel []bool, k, considered int) {
	sel = make([]bool, len(a.known))
	for i := range a.known {
		cl := mc.cells[i]
		var in bool
		switch c.op {
		case OpNone:
			considered++
			x := mc.x.cells[i]
			in = !x.ok || (mc.x.kind != kindMode && x.num == 0)
		case OpSome:
			if !mc.x.cells[i].ok {
				continue
			}
			considered++
			in = mc.x.kind == kindMode || mc.x.cells[i].num > 0
		case OpIs, OpIsNot:
			if !mc.x.cells[i].ok {
				continue
			}
			considered++
			in = a.sameValue(mc.x.cells[i].str, c) == (c.op == OpIs)
		default:
			if !cl.ok {
				continue
			}
			considered++
			in = compare(cl.num, c.op, c.v1, c.v2)
		}
		if in {
			sel[i] = true
			k++
		}
	}
	return sel, k, considered
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

// sameValue reports whether a category value recorded on a frame is the
// one the condition names: the very value matched, or the same words.
func (a *answerer) sameValue(recorded string, c *condSpec) bool {
	if c.value != "" {
		return strings.EqualFold(strings.TrimSpace(recorded), strings.TrimSpace(c.value))
	}
	return slicesEqual(words(recorded), words(c.category))
}

// valueShown is the category value for prose: as the frames record it
// when one matched, else as asked.
func (a *answerer) valueShown(c *condSpec, mc *metricCalc) string {
	if c.value != "" {
		return c.value
	}
	for _, nc := range mc.x.counts {
		if a.sameValue(nc.name, c) {
			return nc.name
		}
	}
	return c.category
}

// opText is a threshold's comparison in words.
func opText(op string, count bool) string {
	switch op {
	case OpGT:
		return "more than"
	case OpLT:
		if count {
			return "fewer than"
		}
		return "less than"
	case OpGE:
		return "at least"
	case OpLE:
		return "at most"
	case OpEq:
		return "exactly"
	}
	return ""
}

// condPhrase says what the selected frames have: "at least 5,000 people",
// "no health facility (no record or 0)", "settlement class urban", "a
// night-time light radiance of more than 20 nW/cm²/sr".
func (a *answerer) condPhrase(c *condSpec, mc *metricCalc) string {
	at := mc.x.a
	l := lowerLabel(labelOf(at))
	count := isCountLabel(labelOf(at))
	switch c.op {
	case OpIs:
		return l + " " + a.valueShown(c, mc)
	case OpIsNot:
		return l + " other than " + a.valueShown(c, mc)
	case OpNone:
		if count {
			return "no " + singularPhrase(l) + " (no record or 0)"
		}
		return "no " + l + " recorded (no record or 0)"
	case OpSome:
		if count {
			return l
		}
		return l + " above 0"
	}
	people := strings.EqualFold(strings.TrimSpace(at.Unit), "people")
	if mc.spec.kind == metricPlain && (count || people) {
		noun := func(v float64) string {
			if count {
				if v == 1 {
					return singularPhrase(l)
				}
				return l
			}
			return countNoun(at, v)
		}
		if c.op == OpBetween {
			return "between " + FormatNumber(c.v1) + " and " + FormatNumber(c.v2) + " " + noun(c.v2)
		}
		return opText(c.op, true) + " " + FormatNumber(c.v1) + " " + noun(c.v1)
	}
	ml := lowerLabel(mc.label())
	if c.op == OpBetween {
		return article(ml) + " " + ml + " between " + FormatNumber(c.v1) + " and " + FormatNumber(c.v2) + mc.unitSuffix(c.v2)
	}
	return article(ml) + " " + ml + " of " + opText(c.op, false) + " " + FormatNumber(c.v1) + mc.unitSuffix(c.v1)
}

// subjectMetric is what a threshold's subset is summed up by: another
// measure the question named ("buildings in frames with..."), else the
// condition's own measure (none for a category).
func (a *answerer) subjectMetric(c *condSpec, mc *metricCalc, skip int) *metricCalc {
	if len(a.p.used) > skip {
		s := a.p.used[skip]
		if s.ref != c.m.ref {
			return a.computeMetric(s, metricSpec{}, "")
		}
	}
	if mc.x.kind == kindMode || c.op == OpNone {
		return nil
	}
	return mc
}

// subsetFigure says a metric's figure over the selected frames, for a
// headline ("96,400 people in all") and a facet.
func (a *answerer) subsetFigure(sm *metricCalc, sel []bool) (prose string, f Facet, v float64, ok bool) {
	v, covered, ok := sm.over(sel)
	if !ok {
		return "", Facet{}, 0, false
	}
	l := lowerLabel(sm.label())
	k := 0
	for _, in := range sel {
		if in {
			k++
		}
	}
	note := ""
	if covered < k {
		note = " (" + fmtInt(covered) + " of " + fmtInt(k) + " frames)"
	}
	switch {
	case sm.spec.kind == metricPlain && sm.x.kind == kindSum:
		prose = withUnit(v, sm.x.a) + " in all" + sm.years()
		f = Facet{"Total " + l + " in those frames" + sm.years(), withUnit(v, sm.x.a) + note}
	case sm.spec.kind == metricPlain:
		prose = "a mean " + l + " of " + sm.show(v) + " among them" + sm.years()
		f = Facet{"Mean " + l + " in those frames" + sm.years(), sm.show(v) + note}
	default:
		prose = article(l) + " " + l + " of " + sm.show(v) + " together" + sm.years()
		f = Facet{capitalize(l) + " of those frames" + sm.years(), sm.show(v) + note}
	}
	a.measureFig(v, sm.metricUnit(), a.subsetSubject, f.Label)
	if note != "" {
		a.partFig(covered, SubjectSubset, f.Label)
		a.partFig(k, SubjectSubset, f.Label)
	}
	return prose, f, v, true
}

// threshold answers frames_threshold: how many frames meet a condition,
// which (a table), and the figure of that subset.
func (a *answerer) threshold() {
	c := a.p.cond
	mc := a.computeMetric(c.m, c.metric, a.areaUnit())
	sel, k, considered := a.selectFrames(c, mc)
	n := len(a.known)
	skip := 1
	if c.metric.kind == metricRatio {
		skip = 2
	}
	sm := a.subjectMetric(c, mc, skip)
	phrase := a.condPhrase(c, mc)
	a.condFigs(c, mc, "Frames with "+phrase)
	var figure string
	var subjectFacet Facet
	var part float64
	hasFigure := false
	if sm != nil && k > 0 {
		figure, subjectFacet, part, hasFigure = a.subsetFigure(sm, sel)
	}
	switch {
	case mc.x.records == 0 && c.op != OpNone:
		a.ins.Headline = a.noneRecorded(mc.x)
	case n == 1 && k == 0 && c.op == OpNone:
		a.ins.Headline = a.subject() + " has " + a.phrase(mc.x) + a.missingClause() + "."
	case k == 0 && c.op == OpNone:
		a.ins.Headline = "None of the " + fmtInt(n) + " selected frames lacks " + lowerLabel(labelOf(mc.x.a)) + ": all record more than 0" +
			a.missingClause() + "."
	case n == 1 && k == 0:
		a.ins.Headline = a.subject() + " does not have " + phrase + a.missingClause() + "."
	case n == 1:
		a.ins.Headline = a.subject() + " has " + phrase + a.missingClause() + "."
	case k == 0:
		a.ins.Headline = "None of the " + fmtInt(n) + " selected frames has " + phrase + a.missingClause() + "."
	case k == n:
		a.ins.Headline = "All " + fmtInt(n) + " selected frames have " + phrase + colon(figure, hasFigure) + a.missingClause() + "."
	default:
		a.ins.Headline = fmtInt(k) + " of the " + fmtInt(n) + " selected frames " + plural(k, "has", "have") + " " + phrase +
			colon(figure, hasFigure) + a.missingClause() + "."
	}
	a.ins.Facets = append(a.ins.Facets,
		Facet{"Frames with " + phrase, fmtInt(k) + " of " + fmtInt(n)},
		Facet{"Share of frames", percent(k, n)})
	a.ofFig(k, n, a.subsetSubject, "Frames with "+phrase)
	a.figure(percent(k, n), "% of frames", a.subsetSubject, "Share of frames", FigureMeasure)
	if hasFigure {
		a.ins.Facets = append(a.ins.Facets, subjectFacet)
		if sm.spec.kind == metricPlain && sm.x.kind == kindSum && sm.x.total > 0 {
			label := "Share of the total " + lowerLabel(labelOf(sm.x.a))
			a.ins.Facets = append(a.ins.Facets, Facet{label, percentOf(part, sm.x.total)})
			a.figure(percentOf(part, sm.x.total), percentUnit(sm.x.a), a.subsetSubject, label, FigureMeasure)
		}
	}
	if considered < n {
		a.ins.Facets = append(a.ins.Facets, Facet{"Frames with a record of " + lowerLabel(mc.label()), fmtInt(considered) + " of " + fmtInt(n)})
		a.ofFig(considered, n, SubjectSelection, "Frames with a record of "+lowerLabel(mc.label()))
		a.details = append(a.details, capitalize(lowerLabel(mc.label()))+" can be read on "+fmtInt(considered)+" of the "+
			fmtInt(n)+" selected frames; frames without a record are not counted.")
	}
	if c.op == OpNone {
		a.details = append(a.details, "A frame without a record of "+lowerLabel(labelOf(mc.x.a))+" counts as having none.")
	}
	a.ins.Table = a.subsetTable(mc, sm, sel, c.op)
	a.citeUnrecorded(mc.x)
	if mc.y != nil {
		a.citeUnrecorded(mc.y)
	}
	if sm != nil && sm != mc {
		a.citeUnrecorded(sm.x)
	}
}

// colon joins a figure to a headline: ": 96,400 people in all".
func colon(figure string, ok bool) string {
	if !ok || figure == "" {
		return ""
	}
	return ": " + figure
}

// subsetTable lists the frames selected: the condition's metric, and the
// subject's when it is another measure; highest first (in the order asked
// for a gap or a category).
func (a *answerer) subsetTable(mc, sm *metricCalc, sel []bool, op string) *Table {
	t := &Table{Columns: []string{"Frame", mc.columnLabel()}}
	other := sm != nil && sm != mc
	if other {
		t.Columns = append(t.Columns, sm.columnLabel())
	}
	var idx []int
	for i, in := range sel {
		if in {
			idx = append(idx, i)
		}
	}
	if op != OpNone && op != OpIs && op != OpIsNot {
		low := a.p.order == OrderLowest
		sort.SliceStable(idx, func(x, y int) bool {
			if low {
				return mc.cells[idx[x]].num < mc.cells[idx[y]].num
			}
			return mc.cells[idx[x]].num > mc.cells[idx[y]].num
		})
		if a.p.topAsked && a.p.top < len(idx) {
			idx = idx[:a.p.top]
			a.details = append(a.details, "The table lists the "+fmtInt(a.p.top)+" "+a.p.order+" of them.")
		}
	}
	for _, i := range idx {
		v := cellText(mc.cells[i])
		if mc.spec.kind == metricPlain && mc.x.cells[i].ok {
			v = mc.x.cells[i].str
		}
		row := []string{a.known[i].ID, v}
		if v != noRecord {
			unit := mc.metricUnit()
			if mc.spec.kind == metricPlain && mc.x.cells[i].ok {
				unit = calcUnit(mc.x.a)
			}
			a.figure(v, unit, SubjectFrame(a.known[i].ID), t.Columns[1], FigureMeasure)
		}
		if other {
			row = append(row, cellText(sm.cells[i]))
			if sm.cells[i].ok {
				a.figure(sm.cells[i].str, sm.metricUnit(), SubjectFrame(a.known[i].ID), t.Columns[2], FigureMeasure)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// percentOf is part/total as a whole percentage, with one decimal when
// rounding would say 0% or 100% of a part ("62%", "0.4%").
func percentOf(part, total float64) string {
	if !(total > 0) || math.IsNaN(part) || math.IsInf(part, 0) {
		return "n/a"
	}
	p := 100 * part / total
	r := math.Round(p)
	if (r == 0 && part > 0) || (r == 100 && part < total) {
		s := strconv.FormatFloat(p, 'f', 1, 64)
		if s == "0.0" {
			s = "0.1"
		} else if s == "100.0" {
			s = "99.9"
		}
		return s + "%"
	}
	return strconv.FormatFloat(r, 'f', 0, 64) + "%"
}

// condFigs records the values of a condition: its threshold (two for
// between), or the 0 of a gap; and sets the subject of the figures of the
// frames it selects.
func (a *answerer) condFigs(c *condSpec, mc *metricCalc, label string) {
	a.subsetSubject = SubjectSubset
	switch c.op {
	case OpIs:
		a.subsetSubject = SubjectValue(a.valueShown(c, mc))
	case OpIsNot:
	case OpNone:
		a.figure("0", mc.metricUnit(), SubjectSubset, label, FigureCondition)
	case OpSome:
		a.figure("0", mc.metricUnit(), SubjectSubset, label, FigureCondition)
	case OpBetween:
		a.figure(FormatNumber(c.v1), mc.metricUnit(), SubjectSubset, label, FigureCondition)
		a.figure(FormatNumber(c.v2), mc.metricUnit(), SubjectSubset, label, FigureCondition)
	default:
		a.figure(FormatNumber(c.v1), mc.metricUnit(), SubjectSubset, label, FigureCondition)
	}
	if mc.spec.kind == metricRatio && mc.spec.scale != 1 {
		a.figure(FormatNumber(mc.spec.scale), calcUnit(mc.y.a), SubjectSelection, label, FigureScale)
	}
}
