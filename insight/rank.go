package insight

import (
	"sort"
	"strconv"
)

// rankWord is how a ranking is worded for an attribute: "most" or
// "fewest" for countable things, else "highest" or "lowest".
func rankWord(at *Attribute, high bool) string {
	if isCountLabel(labelOf(at)) {
		if high {
			return "most"
		}
		return "fewest"
	}
	if high {
		return "highest"
	}
	return "lowest"
}

// rankPhrase is "the most buildings" or "the highest estimated population".
func rankPhrase(at *Attribute, high bool) string {
	return "the " + rankWord(at, high) + " " + lowerLabel(labelOf(at))
}

// rank answers which frames rank highest or lowest on a numeric measure.
func (a *answerer) rank(c *calc) {
	n := len(a.known)
	high := a.p.plan.Order != OrderLowest
	var order []int
	for i := range c.cells {
		if c.cells[i].ok {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(x, y int) bool {
		if high {
			return c.cells[order[x]].num > c.cells[order[y]].num
		}
		return c.cells[order[x]].num < c.cells[order[y]].num
	})
	l := lowerLabel(labelOf(c.a))
	value := func(i int) string { return FormatNumber(c.cells[i].num) + proseUnit(c.a) }
	switch {
	case c.records == 0:
		a.ins.Headline = a.noneRecorded(c)
	case n == 1:
		a.ins.Headline = a.subject() + " is the only selected frame: it has " + a.phrase(c) + a.missingClause() + "."
	case c.records == 1:
		a.ins.Headline = "Frame " + a.known[order[0]].ID + " is the only one of the " + fmtInt(n) +
			" selected frames with a record of " + l + ": " + value(order[0]) + yearSuffix(c.a) + a.missingClause() + "."
	default:
		among := "the " + fmtInt(n) + " selected frames"
		if c.records < n {
			among = "the " + fmtInt(c.records) + " selected frames that record it"
		}
		best := c.cells[order[0]].num
		var tied []string
		for _, i := range order {
			if c.cells[i].num == best {
				tied = append(tied, a.known[i].ID)
			}
		}
		switch {
		case len(tied) == 1:
			a.ins.Headline = "Frame " + tied[0] + " has " + rankPhrase(c.a, high) + " of " + among + ": " + value(order[0]) +
				yearSuffix(c.a) + a.missingClause() + "."
		case len(tied) <= 3:
			a.ins.Headline = "Frames " + joinAnd(tied, "and") + " have " + rankPhrase(c.a, high) + " of " + among + ": " +
				value(order[0]) + yearSuffix(c.a) + " each" + a.missingClause() + "."
		case len(tied) == c.records:
			a.ins.Headline = "All " + among[len("the "):] + " tie for " + rankPhrase(c.a, high) + ": " +
				value(order[0]) + yearSuffix(c.a) + " each" + a.missingClause() + "."
		default:
			a.ins.Headline = fmtInt(len(tied)) + " of " + among + " tie for " + rankPhrase(c.a, high) + ": " +
				value(order[0]) + yearSuffix(c.a) + " each" + a.missingClause() + "."
		}
	}
	a.coverage(c, "only those are ranked")
	if c.records > 0 {
		a.ins.Facets = append(a.ins.Facets, Facet{"Frames ranked", fmtInt(c.records) + " of " + fmtInt(n)})
		a.ofFig(c.records, n, SubjectSelection, "Frames ranked")
		first, last := order[0], order[len(order)-1]
		hi, lo := first, last
		if !high {
			hi, lo = last, first
		}
		hiLabel := capitalize(rankPhrase(c.a, true)[len("the "):]) + yearSuffix(c.a)
		loLabel := capitalize(rankPhrase(c.a, false)[len("the "):]) + yearSuffix(c.a)
		a.ins.Facets = append(a.ins.Facets, Facet{hiLabel, a.atFrame(c, hi)}, Facet{loLabel, a.atFrame(c, lo)})
		a.atFrameFig(c, hi, hiLabel)
		a.atFrameFig(c, lo, loLabel)
	}
	sf := summaryFacet(c)
	a.ins.Facets = append(a.ins.Facets, sf)
	a.summaryFig(c, sf)
	t := &Table{Columns: []string{"Rank", "Frame", labelOf(c.a)}}
	top := a.p.top
	if top > len(order) {
		top = len(order)
	}
	place := 0
	for k := 0; k < top; k++ {
		i := order[k]
		if k == 0 || c.cells[i].num != c.cells[order[k-1]].num {
			place = k + 1
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(place), a.known[i].ID, c.cells[i].str})
		a.figure(strconv.Itoa(place), "", SubjectFrame(a.known[i].ID), "Rank", FigureRank)
		a.figure(c.cells[i].str, calcUnit(c.a), SubjectFrame(a.known[i].ID), labelOf(c.a), FigureMeasure)
	}
	if len(t.Rows) > 0 {
		a.ins.Table = t
		a.partFig(len(t.Rows), SubjectSelection, "Frames listed")
	}
	a.citeUnrecorded(c)
}
