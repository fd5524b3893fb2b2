package insight

import "strings"

// profileFacets are the profile's facets after "Areas selected", found by
// concept, in the contract's order.
var profileFacets = []struct{ concept, label string }{
	{cState, "State"},
	{cLGA, "Local government area"},
	{cWard, "Ward"},
	{cBuildings, "Buildings"},
	{cPopulation, "Estimated population"},
	{cSettlement, "Settlement class"},
}

// profile answers with the profile of the frames: where they are, what
// lives there, and what every readable dataset records on them.
func (a *answerer) profile() {
	n := len(a.known)
	a.ins.Facets = append(a.ins.Facets, Facet{"Areas selected", fmtInt(n)})
	a.countFig(n, "frames", SubjectSelection, "Areas selected")
	calcs := map[string]*calc{}
	for _, pf := range profileFacets {
		r, ok := a.m.byConcept[pf.concept]
		if !ok {
			continue
		}
		c := a.compute(r)
		calcs[pf.concept] = c
		label := pf.label
		if pf.concept == cPopulation {
			label += yearSuffix(c.a)
		}
		value := "none recorded"
		switch {
		case c.records == 0:
		case c.kind == kindMode && (pf.concept == cState || pf.concept == cLGA || pf.concept == cWard):
			value = summarizeNames(names(c), pluralNoun(c))
			a.namesFig(c, label)
		case c.kind == kindMode:
			value = modeText(c)
			a.summaryFig(c, Facet{Label: label})
		default:
			value = FormatNumber(c.figure())
			a.measureFig(c.figure(), calcUnit(c.a), SubjectSelection, label)
		}
		a.ins.Facets = append(a.ins.Facets, Facet{label, value})
		a.citeUnrecorded(c)
	}

	// Headline: where, then population and buildings.
	var where string
	if st := calcs[cState]; st != nil && st.kind == kindMode && st.records > 0 {
		where = namesInProse(names(st), pluralNoun(st))
		if lga := calcs[cLGA]; n == 1 && lga != nil && lga.kind == kindMode && lga.records > 0 && lga.counts[0].name != st.counts[0].name {
			where = lga.counts[0].name + ", " + where
		}
	}
	var preds []string
	for _, concept := range []string{cPopulation, cBuildings} {
		if c := calcs[concept]; c != nil && c.records > 0 && c.kind != kindMode {
			preds = append(preds, a.phrase(c))
		}
	}

	// Table: every readable dataset.
	t := &Table{Columns: []string{"Dataset", "In selection", "In dataset"}}
	recorded := 0
	var featureRows []string
	for di := range a.m.ds {
		d := &a.m.ds[di]
		inSel, frames := 0, 0
		for _, f := range a.known {
			if df, ok := f.Data[d.ID]; ok {
				frames++
				if df.FeatureCount > 0 {
					inSel += df.FeatureCount
				}
			}
		}
		// Frames for a dataset that records attributes, features only for
		// a dataset of features alone: a dataset with both (building
		// counts everywhere, footprints on a sample) is better described by
		// where it records something than by where it has features.
		national := d.Features
		if d.Features > 0 && len(d.Attributes) == 0 {
			featureRows = append(featureRows, datasetName(d))
		} else {
			inSel, national = frames, d.Frames
		}
		if frames > 0 {
			recorded++
		}
		if inSel > 0 {
			a.used[di] = true
		}
		t.Rows = append(t.Rows, []string{datasetName(d), fmtInt(inSel), fmtInt(national)})
		unit, selKind, allKind := "frames", FigurePart, FigureCount
		if d.Features > 0 && len(d.Attributes) == 0 {
			unit, selKind, allKind = featureNouns(d), FigureMeasure, FigureMeasure
		}
		a.figure(fmtInt(inSel), unit, SubjectSelection, datasetName(d)+": In selection", selKind)
		a.figure(fmtInt(national), unit, SubjectDataset, datasetName(d)+": In dataset", allKind)
		known := false
		for _, s := range a.ins.Sources {
			known = known || s.LayerID == d.ID
		}
		if !known {
			a.ins.Sources = append(a.ins.Sources, Source{LayerID: d.ID, LayerName: datasetName(d)})
		}
	}
	if len(t.Rows) > 0 {
		a.ins.Table = t
		a.countFig(len(t.Rows), "datasets", SubjectSelection, "Dataset")
	}
	if len(preds) == 0 {
		if recorded == 0 {
			preds = []string{"no records in any readable dataset"}
		} else {
			preds = []string{"records in " + fmtInt(recorded) + " of the " + fmtInt(len(a.m.ds)) + " readable " + plural(len(a.m.ds), "dataset", "datasets")}
		}
	}
	h := a.subject()
	if where != "" {
		h += ", in " + where + ","
	}
	a.ins.Headline = h + " " + a.have() + " " + joinAnd(preds, "and") + a.missingClause() + "."

	// Detail: what a mixed selection spans, and how the table counts.
	var spans []string
	for _, concept := range []string{cState, cLGA, cWard} {
		if c := calcs[concept]; c != nil && c.kind == kindMode && len(c.counts) > 1 {
			spans = append(spans, fmtInt(len(c.counts))+" "+pluralNoun(c))
		}
	}
	if len(spans) > 0 {
		if st := calcs[cState]; st != nil && st.kind == kindMode && len(st.counts) > 1 {
			spans[0] += " (" + breakdown(st) + ")"
		}
		a.details = append(a.details, "The selection spans "+joinAnd(spans, "and")+".")
	}
	if c := calcs[cSettlement]; c != nil && c.kind == kindMode && len(c.counts) > 1 {
		a.details = append(a.details, capitalize(lowerLabel(labelOf(c.a)))+" by frame: "+breakdown(c)+".")
	}
	if len(featureRows) > 0 {
		a.details = append(a.details, "In the table, "+joinAnd(featureRows, "and")+" "+plural(len(featureRows), "counts", "count")+
			" features; every other dataset counts the frames it records something on.")
	}
}

// breakdown is "Kano 2 frames, Jigawa 1 frame" for a category, at most
// five values.
func breakdown(c *calc) string {
	var parts []string
	for i, nc := range c.counts {
		if i == 5 {
			parts = append(parts, fmtInt(len(c.counts)-5)+" more")
			break
		}
		parts = append(parts, nc.name+" "+fmtInt(nc.count)+" "+plural(nc.count, "frame", "frames"))
	}
	return strings.Join(parts, ", ")
}
