package insight_test

import (
	"fmt"

	"frameindex/insight"
)

// An attribute question about two frames, one of them with a value stored
// as text, and an id the grid does not hold.
func ExampleAnswerRequest() {
	datasets := []insight.Dataset{{
		ID: "population", Name: "Estimated population", Frames: 1083000,
		Attributes: []insight.Attribute{{
			Name: "population_2020", Label: "Estimated population", Unit: "people",
			Type: "number", Aggregation: "sum", Year: 2020, Aliases: []string{"people"},
		}},
	}}
	pop := func(v insight.Value) map[string]insight.DatasetFrame {
		return map[string]insight.DatasetFrame{"population": {Attrs: map[string]insight.Value{"population_2020": v}}}
	}
	ans := insight.AnswerRequest(insight.Request{
		Question: "How many folks live here?",
		Datasets: datasets,
		Frames: []insight.Frame{
			{ID: "433102007", Known: true, Data: pop(insight.Value{Num: 21500, IsNum: true})},
			{ID: "433102008", Known: true, Data: pop(insight.Value{Str: "18210"})},
			{ID: "1"},
		},
	})
	fmt.Println(ans.Intent, ans.Confidence, ans.Retrieval)
	fmt.Println(ans.Headline)
	fmt.Println(ans.Detail)
	for _, f := range ans.Facets {
		fmt.Printf("%s: %s\n", f.Label, f.Value)
	}
	fmt.Println(ans.Used)
	// Output:
	// frames_attribute partial lexical
	// The 2 selected frames have an estimated population of 39,710 (2020); 1 of the 3 ids was not found.
	// Read "folks" as Estimated population. This id was not found: "1".
	// Total estimated population (2020): 39,710 people
	// Highest: 21,500 people (frame 433102007)
	// Lowest: 18,210 people (frame 433102008)
	// Frames with a record: 2 of 2
	// [population]
}

// Parse shows what a question asks before any data is read.
func ExampleParse() {
	datasets := []insight.Dataset{{ID: "buildings", Name: "Buildings", Attributes: []insight.Attribute{
		{Name: "building_count", Label: "Buildings", Type: "number", Aggregation: "sum", Aliases: []string{"houses"}},
	}}}
	fmt.Printf("%+v\n", insight.Parse("top 5 frames by buidlings", datasets))
	fmt.Printf("%+v\n", insight.Parse("what is the GDP", datasets))
	// Output:
	// {Intent:frames_rank Measures:[buildings.building_count] Confidence:partial Register:plain Order:highest Per: Scale:0 Condition:<nil> Base: Dataset: Count:0}
	// {Intent:unsupported Measures:[] Confidence:unknown Register:plain Order: Per: Scale:0 Condition:<nil> Base: Dataset: Count:0}
}
