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

// calcUnit is what a measure's figures are in: its unit, the plural of a
// countable label ("health facilities"), else its label ("night-time light
// radiance" has nW/cm²/sr; an index without a unit is in itself).
func calcUnit(at *Attribute) string {
	if u := strings.TrimSpace(at.Unit); u != "" {
		return u
	}
	return lowerLabel(labelOf(at))
}
