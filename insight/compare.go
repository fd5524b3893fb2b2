package insight

// compare answers two measures side by side.
func (a *answerer) compare(x, y *calc) {
	a.ins.Headline = a.subject() + " " + a.have() + " " + a.phrase(x) + " and " + a.phrase(y) + a.missingClause() + "."
	a.ins.Facets = append(a.ins.Facets, summaryFacet(x), summaryFacet(y))
	if x.kind == kindSum && y.kind == kindSum && x.records > 0 && y.records > 0 && y.total != 0 {
		a.ins.Facets = append(a.ins.Facets, Facet{
			capitalize(lowerLabel(labelOf(x.a))) + " per " + singularPhrase(lowerLabel(labelOf(y.a))),
			FormatNumber(x.total / y.total)})
	}
	a.coverage(x, "its figure covers those")
	a.coverage(y, "its figure covers those")
	t := a.frameTable(x, y)
	last := "Selection"
	if x.kind == kindSum && y.kind == kindSum {
		last = "Total"
	}
	t.Rows = append(t.Rows, []string{last, selectionCell(x), selectionCell(y)})
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
