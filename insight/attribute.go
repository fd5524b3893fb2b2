package insight

// attribute answers one measure: its figure, extremes and a per-frame table.
func (a *answerer) attribute(c *calc) {
	n := len(a.known)
	l := lowerLabel(labelOf(c.a))
	sf := summaryFacet(c)
	a.ins.Facets = append(a.ins.Facets, sf)
	a.summaryFig(c, sf)
	switch {
	case c.records == 0:
		a.ins.Headline = a.noneRecorded(c)
	case c.kind == kindMode:
		top := c.counts[0]
		switch {
		case n == 1:
			a.ins.Headline = a.subject() + " has " + l + " " + top.name + a.missingClause() + "."
		case top.count == n:
			a.ins.Headline = "All " + fmtInt(n) + " selected frames have " + l + " " + top.name + a.missingClause() + "."
		default:
			a.ins.Headline = "The most common " + l + " of the " + fmtInt(n) + " selected frames is " + top.name + ": " +
				fmtInt(top.count) + " of " + fmtInt(c.records) + " " + plural(c.records, "frame", "frames") +
				" (" + percent(top.count, c.records) + ")" + a.missingClause() + "."
		}
		if len(c.counts) > 1 {
			label := capitalize(pluralNoun(c)) + " in the selection"
			a.ins.Facets = append(a.ins.Facets, Facet{label, summarizeNames(names(c), pluralNoun(c))})
			a.namesFig(c, label)
		}
		a.coverage(c, "the share is of those")
	default:
		a.ins.Headline = a.subject() + " " + a.have() + " " + a.phrase(c) + a.missingClause() + "."
		if c.records > 1 {
			a.ins.Facets = append(a.ins.Facets,
				Facet{"Highest", a.atFrame(c, c.hi)},
				Facet{"Lowest", a.atFrame(c, c.lo)})
			a.atFrameFig(c, c.hi, "Highest")
			a.atFrameFig(c, c.lo, "Lowest")
		}
		if c.kind == kindSum {
			a.coverage(c, "the total covers those")
		} else {
			a.coverage(c, "the mean covers those")
		}
	}
	a.ins.Facets = append(a.ins.Facets, a.recordsFacet(c))
	a.ins.Table = a.frameTable(c)
	a.citeUnrecorded(c)
}

// atFrameFig records the figure of atFrame.
func (a *answerer) atFrameFig(c *calc, i int, label string) {
	a.measureFig(c.cells[i].num, calcUnit(c.a), SubjectFrame(a.known[i].ID), label)
}

// recordsFacet is "Frames with a record": "3 of 3".
func (a *answerer) recordsFacet(c *calc) Facet {
	a.ofFig(c.records, len(a.known), SubjectSelection, "Frames with a record")
	return Facet{"Frames with a record", fmtInt(c.records) + " of " + fmtInt(len(a.known))}
}
