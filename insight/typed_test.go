package insight

import (
	"regexp"
	"strings"
	"testing"
)

// shownNumber finds the numbers a facet value or table cell shows, as
// FormatNumber and percent write them.
var shownNumber = regexp.MustCompile(`-?\d[\d,]*(\.\d+)?%?`)

// inName reports whether the number at s[i:] sits inside a name ("Kano
// Municipal 3", "Kano Clinic 4"): right after a word and a space.
func inName(s string, i int) bool {
	if i < 2 || s[i-1] != ' ' {
		return false
	}
	c := s[i-2]
	return 'a' <= c|0x20 && c|0x20 <= 'z'
}

// typedQuestions are the questions whose answers TestAnswer_FiguresCover
// checks, besides the question corpus: one of every intent and shape.
var typedQuestions = []string{
	"", "how many people live here", "total buildings", "mean radiance", "most common settlement class",
	"which state", "which lga", "which frame has the most buildings", "top 2 frames by population",
	"frame with the fewest people", "compare population and health facilities", "compare population and radiance",
	"population density", "building density per hectare", "densest frame", "people per building",
	"clinics per 10,000 people", "top 2 by people per building", "frames with at least 10,000 people",
	"frames with between 5,000 and 20,000 people", "buildings in frames with over 10,000 people",
	"frames without a health facility", "how many frames are urban", "which frames are in Kano",
	"what share of the population lives in urban frames", "share of frames with at least 10,000 people",
	"share of the population by state", "what share of frames are rural", "share of buildings by frame",
	"nearest clinic", "the 2 nearest health facilities", "frames with over 2,000 people per km²",
	"frames with more than 5 people per building",
}

// TestAnswer_FiguresCover: every number a facet value or table cell shows
// (but a digit inside a name) is among the answer's typed figures, with a
// known kind and a subject of the documented forms; every frame id is.
func TestAnswer_FiguresCover(t *testing.T) {
	qs := append([]string{}, typedQuestions...)
	for _, tc := range questionCorpus {
		qs = append(qs, tc.q)
	}
	kinds := set(FigureMeasure, FigureCount, FigurePart, FigureNames, FigureCondition, FigureScale, FigureRank, FigureID, FigureCoordinate, FigureName)
	for _, q := range qs {
		for _, reg := range []string{"plain", "gis"} {
			req := Request{Question: q, Register: reg, Datasets: demoDatasets(), Frames: append(areaFrames(), Frame{ID: "42"}),
				AreaBasis: "WGS84 ellipsoid", Nearest: testNearest()}
			got := AnswerRequest(req)
			texts := map[string]bool{}
			for _, f := range got.Figures {
				texts[f.Text] = true
				if !kinds[f.Kind] {
					t.Errorf("%q: figure %+v has an unknown kind", q, f)
				}
				s := f.Subject
				if !(s == SubjectSelection || s == SubjectSubset || s == SubjectDataset || strings.HasPrefix(s, "frame ") || strings.HasPrefix(s, "value ")) {
					t.Errorf("%q: figure %+v has an odd subject", q, f)
				}
				if f.Label == "" {
					t.Errorf("%q: figure %+v has no label", q, f)
				}
			}
			check := func(where, s string) {
				for _, m := range shownNumber.FindAllStringIndex(s, -1) {
					n := strings.TrimRight(s[m[0]:m[1]], ",")
					if !texts[n] && !inName(s, m[0]) {
						t.Errorf("%q (%s): %s %q shows %s, which no typed figure holds", q, reg, where, s, n)
					}
				}
			}
			for _, f := range got.Facets {
				check("facet "+f.Label, f.Value)
			}
			if got.Table != nil {
				for _, row := range got.Table.Rows {
					for _, c := range row {
						check("cell", c)
					}
				}
			}
			for _, id := range got.FrameIDs {
				if !texts[id] {
					t.Errorf("%q: frame id %s is not a figure", q, id)
				}
			}
		}
	}
}

// TestAnswer_FiguresTyped: figures carry the unit and subject of what they
// count, on a profile, a per-frame measure, a density and a breakdown.
func TestAnswer_FiguresTyped(t *testing.T) {
	find := func(in Insight, text, label string) *Figure {
		for i := range in.Figures {
			if in.Figures[i].Text == text && (label == "" || in.Figures[i].Label == label) {
				return &in.Figures[i]
			}
		}
		return nil
	}
	tests := []struct {
		q, text, label, unit, subject, kind string
	}{
		{"", "3", "Areas selected", "frames", SubjectSelection, FigureCount},
		{"", "2", "State", "states", SubjectSelection, FigureNames},
		{"", "48,210", "Estimated population (2020)", "people", SubjectSelection, FigureMeasure},
		{"", "67%", "Settlement class", "% of frames", SubjectValue("urban"), FigureMeasure},
		{"", "1,083,000", "Estimated population: In dataset", "frames", SubjectDataset, FigureCount},
		{"", "3", "Estimated population: In selection", "frames", SubjectSelection, FigurePart},
		{"how many people live here", "21,500", "Highest", "people", SubjectFrame("433102007"), FigureMeasure},
		{"how many people live here", "18,210", "Estimated population", "people", SubjectFrame("433102008"), FigureMeasure},
		{"population density", "0.86", "Area (km²)", "km²", SubjectFrame("433102008"), FigureMeasure},
		{"building density per hectare", "258", "Area", "ha", SubjectSelection, FigureMeasure},
		{"clinics per 10,000 people", "10,000", "", "people", SubjectSelection, FigureScale},
		{"frames with at least 10,000 people", "10,000", "", "people", SubjectSubset, FigureCondition},
		{"frames with at least 10,000 people", "67%", "Share of frames", "% of frames", SubjectSubset, FigureMeasure},
		{"share of the population by state", "18%", "", "% of estimated population", SubjectValue("Jigawa"), FigureMeasure},
		{"how many frames are urban", "2", "", "frames", SubjectValue("urban"), FigurePart},
		{"nearest clinic", "1.23", "", "km", SubjectFrame("433102008"), FigureMeasure},
		{"nearest clinic", "50", "", "km", SubjectSelection, FigureCondition},
	}
	for _, tc := range tests {
		got := AnswerRequest(Request{Question: tc.q, Datasets: demoDatasets(), Frames: areaFrames(), Nearest: testNearest()})
		f := find(got, tc.text, tc.label)
		if f == nil {
			t.Errorf("%q: no figure %s (%s) among %+v", tc.q, tc.text, tc.label, got.Figures)
			continue
		}
		if f.Unit != tc.unit || f.Subject != tc.subject || f.Kind != tc.kind {
			t.Errorf("%q: figure %+v, want unit %q subject %q kind %q", tc.q, *f, tc.unit, tc.subject, tc.kind)
		}
	}
}
