package plan

import (
	"encoding/json"
	"testing"
)

func TestParse_Debug(t *testing.T) {
	cat := demoCatalogue()
	for _, q := range []string{
		"average population",
		"Which frame is farthest from a health facility?",
		"How many people live more than 5 km from a health facility?",
		"How many people live in Dala LGA?",
		"frames with more than 1,000 people and no health facility",
		"between 500 and 2,000 people",
		"urban frames without a clinic",
		"top 5 frames by buildings",
		"population density by state",
		"people per building",
		"what share of frames are urban",
		"quarterly population",
	} {
		p := Parse(q, cat)
		b, _ := json.Marshal(p)
		t.Logf("%s\n  %s\n  %s %s\n  %s", q, p.Describe(49), p.Confidence(), p.Detail(), b)
	}
}
