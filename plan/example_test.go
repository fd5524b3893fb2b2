package plan_test

import (
	"fmt"
	"strings"

	"frameindex/plan"
)

func ExampleParse() {
	cat := &plan.Catalogue{
		Measures: []plan.MeasureInfo{
			{Dataset: "population", Attribute: "population_2020", Label: "Estimated population", Type: "number",
				Aggregation: "sum", Year: 2020, Aliases: []string{"population", "people"}},
			{Dataset: "health", Attribute: "facility_count", Label: "Health facilities", Type: "number",
				Aggregation: "sum", Aliases: []string{"health facilities", "clinics"}},
		},
		Features: []plan.FeatureSet{{ID: "health", Name: "Health facilities"}},
	}
	for _, q := range []string{
		"frames with more than 1,000 people and no health facility",
		"How many people live more than 5 km from a health facility?",
		"What is the quarterly average population?",
	} {
		p := plan.Parse(q, cat)
		fmt.Println(p.Describe(49))
		fmt.Println(strings.TrimSpace(p.Confidence() + " " + p.Detail()))
	}
	// Output:
	// read as: count of frames, where population_2020 > 1,000 and facility_count = 0 over 49 frames
	// exact
	// read as: total of population_2020 over frames whose centre is beyond 5 km of the nearest feature of health over 49 frames
	// exact
	// read as: mean per frame of population_2020 over 49 frames; not read: quarterly
	// partial Not read: "quarterly".
}
