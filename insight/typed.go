package insight

import "strings"

// Figure is one number an answer shows, and what it is: the wording check
// (package narrate, through the handler) accepts a number in a model's
// wording only when it states a figure with an agreeing unit and subject.
// Figures are not part of the JSON answer (Insight.Figures).
type Figure struct {
	// Text is the number as the answer shows it: "86,556", "0.85", "67%".
	Text string
	// Unit is what the number counts or measures, in words: "people",
	// "buildings", "frames", "km²", "people per km²", "people per
	// building", "% of frames", "% of estimated population", "states";
	// "" when it has none (a bare index).
	Unit string
	// Subject is what the number is of (see the Subject constants and
	// SubjectFrame, SubjectValue): the selection, one frame, the frames
	// with a category value, the frames meeting a condition, the whole
	// dataset.
	Subject string
	// Label is the facet label or table column (and row) it is shown under.
	Label string
	// Kind says how the number may be stated (see the Figure kinds).
	Kind string
}

// Figure kinds.
const (
	// FigureMeasure is a measure's value: a total, mean, density, ratio,
	// share, area or distance. Hedges ("over", "almost") must point the
	// right way from it.
	FigureMeasure = ""
	// FigureCount is a count of frames, ids or datasets.
	FigureCount = "count"
	// FigurePart is a count of some of the frames: the k of "k of n", the
	// frames of one category value, the frames a dataset records
	// something on. A wording's "X of the Y frames" states one.
	FigurePart = "part"
	// FigureNames is how many names of a category the answer holds
	// ("Kano, Jigawa (2 states)"; 1 for a single name): a wording that
	// counts states, LGAs or wards must say this number.
	FigureNames = "names"
	// FigureCondition is a value the question set (a threshold, a search
	// radius): stated as a condition, with its own hedge.
	FigureCondition = "condition"
	// FigureScale is the base of a ratio ("100,000" of "per 100,000
	// people").
	FigureScale = "scale"
	// FigureRank is a place in a ranking.
	FigureRank = "rank"
	// FigureID is a frame id.
	FigureID = "id"
	// FigureCoordinate is a longitude or latitude.
	FigureCoordinate = "coordinate"
	// FigureName is a number inside a name ("Primary Health Centre 6"): it
	// may be written only without a unit.
	FigureName = "name"
)

// Subjects of a figure, besides SubjectFrame and SubjectValue.
const (
	// SubjectSelection is the selected frames as a whole.
	SubjectSelection = ""
	// SubjectSubset is the frames meeting a threshold's or share's
	// condition.
	SubjectSubset = "subset"
	// SubjectDataset is a whole dataset, nationally ("In dataset").
	SubjectDataset = "dataset"
)

// SubjectFrame is the subject of a figure of one frame: "frame 433102007".
func SubjectFrame(id string) string { return "frame " + id }

// SubjectValue is the subject of a figure of the frames holding a category
// value (a place name, "urban"): "value Kano".
func SubjectValue(v string) string { return "value " + v }

// figure records a number the answer shows.
func (a *answerer) figure(text, unit, subject, label, kind string) {
	if text == "" || text == "n/a" {
		return
	}
	a.ins.Figures = append(a.ins.Figures, Figure{Text: text, Unit: unit, Subject: subject, Label: label, Kind: kind})
}

// measureFig records a measure's value v as FormatNumber shows it.
func (a *answerer) measureFig(v float64, unit, subject, label string) {
	a.figure(FormatNumber(v), unit, subject, label, FigureMeasure)
}

// countFig records a count of frames (or of what unit says).
func (a *answerer) countFig(n int, unit, subject, label string) {
	a.figure(fmtInt(n), unit, subject, label, FigureCount)
}

// ofFig records "k of n" frames: k of the subject, n of the selection.
func (a *answerer) ofFig(k, n int, subject, label string) {
	a.partFig(k, subject, label)
	a.countFig(n, "frames", SubjectSelection, label)
}

// partFig records a count of some of the frames.
func (a *answerer) partFig(k int, subject, label string) {
	a.figure(fmtInt(k), "frames", subject, label, FigurePart)
}

// coverFig records the counts of a coverNote (" (2 of 3 frames)"), when
// it is shown.
func (a *answerer) coverFig(covered int, label string) {
	if covered < len(a.known) {
		a.ofFig(covered, len(a.known), SubjectSelection, label)
	}
}

// calcUnit is what a measure's figures are in: its unit, the plural of a
// countable label ("health facilities"), else its label ("night-time light
// radiance" has nW/cm²/sr; an index without a unit is in itself).
func calcUnit(at *Attribute) string {
	if u := strings.TrimSpace(at.Unit); u != "" {
		return u
	}
	return lowerLabel(labelOf(at))
}

// metricUnit is what a derived metric's values are in: the measure's unit,
// "people per km²", or "people per building".
func (mc *metricCalc) metricUnit() string {
	switch mc.spec.kind {
	case metricDensity:
		return countNoun(mc.x.a, 2) + " per " + unitWord(mc.unit)
	case metricRatio:
		return countNoun(mc.x.a, 2) + " per " + perWhat(mc.y.a, mc.spec.scale)
	}
	return calcUnit(mc.x.a)
}

// percentUnit is the unit of a share of a measure's total.
func percentUnit(at *Attribute) string { return "% of " + lowerLabel(labelOf(at)) }

// summaryFig records the figure of summaryFacet.
func (a *answerer) summaryFig(c *calc, f Facet) {
	switch {
	case c.records == 0:
	case c.kind == kindMode:
		if len(c.counts) > 0 {
			a.figure(percent(c.counts[0].count, c.records), "% of frames", SubjectValue(c.counts[0].name), f.Label, FigureMeasure)
		}
	default:
		a.measureFig(c.figure(), calcUnit(c.a), SubjectSelection, f.Label)
	}
}

// namesFig records how many names of a category the selection holds.
func (a *answerer) namesFig(c *calc, label string) {
	a.figure(fmtInt(len(c.counts)), pluralNoun(c), SubjectSelection, label, FigureNames)
}

// frameCellsFig records the numbers of a per-frame column of c.
func (a *answerer) frameCellsFig(c *calc, label string) {
	if c.kind == kindMode {
		return
	}
	for i, f := range a.known {
		if c.cells[i].ok {
			a.figure(c.cells[i].str, calcUnit(c.a), SubjectFrame(f.ID), label, FigureMeasure)
		}
	}
}

// selectionCellFig records the figure of selectionCell.
func (a *answerer) selectionCellFig(c *calc, label string) {
	switch {
	case c.records == 0:
	case c.kind == kindMode:
		a.summaryFig(c, Facet{Label: label})
	default:
		a.measureFig(c.figure(), calcUnit(c.a), SubjectSelection, label)
	}
}

// idFigs records the frame ids of the answer.
func (a *answerer) idFigs() {
	for _, f := range a.known {
		a.figure(f.ID, "frame id", SubjectFrame(f.ID), "Frame", FigureID)
	}
	for _, id := range a.missing {
		a.figure(id, "frame id", SubjectFrame(id), "Not found", FigureID)
	}
}
