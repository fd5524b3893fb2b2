package insight

// noRecord is a table cell for a frame a dataset records nothing on.
const noRecord = "no record"

// summaryFacet is a measure's figure over the selection, as a facet.
func summaryFacet(c *calc) Facet {
	l := lowerLabel(labelOf(c.a))
	switch {
	case c.records == 0:
		return Facet{capitalize(l) + yearSuffix(c.a), "none recorded"}
	case c.kind == kindSum:
		return Facet{"Total " + l + yearSuffix(c.a), withUnit(c.total, c.a)}
	case c.kind == kindMean:
		return Facet{"Mean " + l + yearSuffix(c.a), withUnit(c.mean, c.a)}
	}
	return Facet{"Most common " + l + yearSuffix(c.a), modeText(c)}
}

// modeText is "urban (67%)": the most common value and its share of the
// frames that record one.
func modeText(c *calc) string {
	if len(c.counts) == 0 {
		return "none recorded"
	}
	return c.counts[0].name + " (" + percent(c.counts[0].count, c.records) + ")"
}

// names are a category's distinct values, most frames first.
func names(c *calc) []string {
	out := make([]string, len(c.counts))
	for i, nc := range c.counts {
		out[i] = nc.name
	}
	return out
}

// pluralNoun is how several of a category's values are counted: "states".
func pluralNoun(c *calc) string { return pluralPhrase(lowerLabel(labelOf(c.a))) }

// phrase is what the frames have of a measure, after "has"/"have":
// "an estimated population of 48,210 (2020)", "4,591 buildings (2020)",
// "a mean night-time light radiance of 12.5 nW/cm²/sr (2022)".
func (a *answerer) phrase(c *calc) string {
	l := lowerLabel(labelOf(c.a))
	n := len(a.known)
	switch {
	case c.records == 0:
		return "no record of " + l
	case c.kind == kindMode:
		top := c.counts[0]
		if top.count == c.records {
			return l + " " + top.name
		}
		return l + " " + top.name + " on " + fmtInt(top.count) + " of " + fmtInt(c.records) + " frames (" + percent(top.count, c.records) + ")"
	}
	v := c.figure()
	mean := c.kind == kindMean && (n > 1 || c.records > 1)
	if isCountLabel(labelOf(c.a)) {
		if mean {
			return "a mean of " + FormatNumber(v) + " " + l + " per frame" + yearSuffix(c.a)
		}
		noun := l
		if v == 1 {
			noun = singularPhrase(l)
		}
		return FormatNumber(v) + " " + noun + yearSuffix(c.a)
	}
	if mean {
		return "a mean " + l + " of " + FormatNumber(v) + proseUnit(c.a) + yearSuffix(c.a)
	}
	return article(l) + " " + l + " of " + FormatNumber(v) + proseUnit(c.a) + yearSuffix(c.a)
}

// noneRecorded is the headline for a measure no known frame records.
func (a *answerer) noneRecorded(c *calc) string {
	l := lowerLabel(labelOf(c.a))
	if n := len(a.known); n != 1 {
		return "None of the " + fmtInt(n) + " selected frames has a record of " + l + a.missingClause() + "."
	}
	return a.subject() + " has no record of " + l + a.missingClause() + "."
}

// atFrame is a frame's value of a numeric measure for a facet, with the
// frame: "3,900 buildings (frame 433102007)".
func (a *answerer) atFrame(c *calc, i int) string {
	return withUnit(c.cells[i].num, c.a) + " (frame " + a.known[i].ID + ")"
}

// frameTable is the per-frame table of measures.
func (a *answerer) frameTable(cs ...*calc) *Table {
	t := &Table{Columns: []string{"Frame"}}
	for _, c := range cs {
		t.Columns = append(t.Columns, labelOf(c.a))
		a.frameCellsFig(c, labelOf(c.a))
	}
	for i, f := range a.known {
		row := []string{f.ID}
		for _, c := range cs {
			if c.cells[i].ok {
				row = append(row, c.cells[i].str)
			} else {
				row = append(row, noRecord)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// coverage says, for the detail, when a measure is recorded on only some
// of the frames.
func (a *answerer) coverage(c *calc, what string) {
	n := len(a.known)
	if c.records == 0 || c.records == n {
		return
	}
	a.details = append(a.details, labelOf(c.a)+" "+verbIs(c.a)+" recorded on "+fmtInt(c.records)+" of the "+fmtInt(n)+
		" selected frames; "+what+".")
}
