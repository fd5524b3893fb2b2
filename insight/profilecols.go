package insight

import (
	"cmp"
	"slices"
	"strings"
)

// profileRole finds the column of a profile facet among the input's
// columns: the admin levels and settlement class by category name, the
// buildings and population by summed numeric name.
func (in *Input) profileColumn(role string) *Column {
	for i := range in.Columns {
		col := &in.Columns[i]
		name := strings.ToLower(col.Attr.Name)
		label := strings.ToLower(labelOf(&col.Attr))
		cat := col.Codes != nil
		switch role {
		case cState:
			if cat && (name == "state" || label == "state") {
				return col
			}
		case cLGA:
			if cat && (name == "lga" || strings.Contains(label, "local government")) {
				return col
			}
		case cWard:
			if cat && (name == "ward" || label == "ward") {
				return col
			}
		case cSettlement:
			if cat && strings.Contains(name, "settlement") {
				return col
			}
		case cBuildings:
			if !cat && col.Num != nil && isSum(col) && col.Attr.Name != "" && strings.Contains(name, "building") {
				return col
			}
		case cPopulation:
			if !cat && col.Num != nil && isSum(col) && strings.Contains(name, "population") {
				return col
			}
		}
	}
	return nil
}

// valueCount is a category value and the frames holding it.
type valueCount struct {
	name  string
	count int
}

// categoryCounts counts a category's values over idx, most frames first
// (ties by name), and the frames that record one.
func categoryCounts(col *Column, idx []int32) ([]valueCount, int) {
	counts := make([]int, len(col.Dict))
	rec := 0
	for _, i := range idx {
		if code := col.Codes[i]; code >= 0 && int(code) < len(counts) {
			counts[code]++
			rec++
		}
	}
	var out []valueCount
	for k, n := range counts {
		if n > 0 {
			out = append(out, valueCount{col.Dict[k], n})
		}
	}
	slices.SortStableFunc(out, func(a, b valueCount) int {
		if a.count != b.count {
			return b.count - a.count
		}
		return cmp.Compare(a.name, b.name)
	})
	return out, rec
}

// profile answers with the profile of the frames: the contract's facets,
// in its order, and a table of every readable dataset.
func (c *computer) profile() {
	n := c.n
	c.ans.Facets = append(c.ans.Facets, Facet{"Areas selected", fmtInt(n)})
	c.fig(fmtInt(n), "frames", SubjectSelection, "Areas selected", FigureCount)
	var where string
	var preds []string
	for _, pf := range profileFacets {
		col := c.in.profileColumn(pf.concept)
		if col == nil {
			continue
		}
		label := pf.label
		if pf.concept == cPopulation {
			label += yearSuffix(&col.Attr)
		}
		value := "none recorded"
		if col.Codes != nil {
			counts, rec := categoryCounts(col, c.all)
			if rec > 0 {
				c.used[col.Dataset] = true
				names := make([]string, len(counts))
				for k, nc := range counts {
					names[k] = nc.name
				}
				noun := pluralPhrase(lowerLabel(labelOf(&col.Attr)))
				if pf.concept == cSettlement {
					value = counts[0].name + " (" + percent(counts[0].count, rec) + ")"
					c.fig(percent(counts[0].count, rec), "% of frames", SubjectValue(counts[0].name), label, FigureMeasure)
					if len(counts) > 1 {
						c.details = append(c.details, capitalize(lowerLabel(labelOf(&col.Attr)))+" by frame: "+breakdownNames(counts)+".")
					}
				} else {
					value = summarizeNames(names, noun)
					c.fig(fmtInt(len(names)), noun, SubjectSelection, label, FigureNames)
					if pf.concept == cState {
						where = namesInProse(names, noun)
					}
					if len(counts) > 1 {
						c.details = append(c.details, "The selection spans "+fmtInt(len(counts))+" "+noun+" ("+breakdownNames(counts)+").")
					}
				}
			}
		} else {
			v, rec := weightedSum(&c.in.Frames, col, c.all)
			if rec > 0 {
				c.used[col.Dataset] = true
				value = FormatFigure(v)
				c.fig(value, colUnit(col), SubjectSelection, label, FigureMeasure)
				preds = append(preds, withUnitFig(v, colUnit(col))+yearSuffix(&col.Attr))
			}
		}
		c.ans.Facets = append(c.ans.Facets, Facet{label, value})
		c.source(col)
	}
	t := &Table{Columns: []string{"Dataset", "In selection", "In dataset"}}
	var featureRows []string
	recorded := 0
	for di := range c.in.Datasets {
		d := &c.in.Datasets[di]
		pr := c.in.Presence[d.ID]
		inSel, national := pr.Frames, d.Frames
		unit, selKind, allKind := "frames", FigurePart, FigureCount
		if d.Features > 0 && len(d.Attributes) == 0 {
			inSel, national = pr.Features, d.Features
			featureRows = append(featureRows, datasetName(d))
			unit, selKind, allKind = lowerLabel(datasetName(d)), FigureMeasure, FigureMeasure
		}
		if pr.Frames > 0 {
			recorded++
		}
		if inSel > 0 {
			c.used[d.ID] = true
		}
		t.Rows = append(t.Rows, []string{datasetName(d), fmtInt(inSel), fmtInt(national)})
		c.fig(fmtInt(inSel), unit, SubjectSelection, datasetName(d)+": In selection", selKind)
		c.fig(fmtInt(national), unit, SubjectDataset, datasetName(d)+": In dataset", allKind)
		if !slices.ContainsFunc(c.ans.Sources, func(s Source) bool { return s.LayerID == d.ID }) {
			c.ans.Sources = append(c.ans.Sources, Source{LayerID: d.ID, LayerName: datasetName(d)})
		}
	}
	if len(t.Rows) > 0 {
		c.ans.Table = t
		c.fig(fmtInt(len(t.Rows)), "datasets", SubjectSelection, "Dataset", FigureCount)
	}
	if len(featureRows) > 0 {
		c.details = append(c.details, "In the table, "+joinAnd(featureRows, "and")+" "+plural(len(featureRows), "counts", "count")+
			" features; every other dataset counts the frames it records something on.")
	}
	if len(preds) == 0 {
		preds = []string{"records in " + fmtInt(recorded) + " of the " + fmtInt(len(c.in.Datasets)) + " readable " + plural(len(c.in.Datasets), "dataset", "datasets")}
	}
	h := c.subject()
	if where != "" {
		h += ", in " + where + ","
	}
	c.ans.Headline = h + " " + plural(n, "has", "have") + " " + joinAnd(preds, "and") + "."
}

// breakdownNames is "Kano 2 frames, Jigawa 1 frame", at most five values.
func breakdownNames(counts []valueCount) string {
	var parts []string
	for i, nc := range counts {
		if i == 5 {
			parts = append(parts, fmtInt(len(counts)-5)+" more")
			break
		}
		parts = append(parts, nc.name+" "+fmtInt(nc.count)+" "+plural(nc.count, "frame", "frames"))
	}
	return strings.Join(parts, ", ")
}

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
