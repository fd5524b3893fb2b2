package insight

// compare answers two measures side by side.
func (a *answerer) compare(x, y *calc) {
	a.ins.Headline = a.subject() + " " + a.have() + " " + a.phrase(x) + " and " + a.phrase(y) + a.missingClause() + "."
	fx, fy := summaryFacet(x), summaryFacet(y)
	a.ins.Facets = append(a.ins.Facets, fx, fy)
	a.summaryFig(x, fx)
	a.summaryFig(y, fy)
	if x.kind == kindSum && y.kind == kindSum && x.records > 0 && y.records > 0 && y.total != 0 {
		label := capitalize(lowerLabel(labelOf(x.a))) + " per " + singularPhrase(lowerLabel(labelOf(y.a)))
		a.ins.Facets = append(a.ins.Facets, Facet{label, FormatNumber(x.total / y.total)})
		a.measureFig(x.total/y.total, countNoun(x.a, 2)+" per "+perWhat(y.a, 1), SubjectSelection, label)
	}
	a.coverage(x, "its figure covers those")
	a.coverage(y, "its figure covers those")
	t := a.frameTable(x, y)
	last := "Selection"
	if x.kind == kindSum && y.kind == kindSum {
		last = "Total"
	}
	t.Rows = append(t.Rows, []string{last, selectionCell(x), selectionCell(y)})
	a.selectionCellFig(x, last+": "+labelOf(x.a))
	a.selectionCellFig(y, last+": "+labelOf(y.a))
	a.ins.Table = t
	a.citeUnrecorded(x, y)
}

// selectionCell is a measure's figure for the last row of a comparison.
func selectionCell(c *calc) string {
	switch {
	case c.records == 0:
		return noRecord
	case c.kind == kindSum:
		return FormatNumber(c.total)
	case c.kind == kindMean:
		return FormatNumber(c.mean) + " (mean)"
	}
	return modeText(c)
}
