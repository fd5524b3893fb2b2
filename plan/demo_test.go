package plan

import "strings"

// demoCatalogue mirrors the national demo's readable datasets (package
// demo), which this package may not import.
func demoCatalogue() *Catalogue {
	places := map[string]bool{"dala": true, "kano": true, "kano state": true, "nassarawa": true, "gwale": true,
		"fagge": true, "tarauni": true, "kumbotso": true, "ungogo": true, "lagos": true, "abuja": true, "ikeja": true}
	return &Catalogue{
		Measures: []MeasureInfo{
			{Dataset: "admin", Attribute: "state", Label: "State", Type: "category", Aggregation: "mode",
				Aliases: []string{"state", "states", "state name"}, Values: []string{"Kano", "Lagos", "Jigawa"}},
			{Dataset: "admin", Attribute: "lga", Label: "Local government area", Type: "category", Aggregation: "mode",
				Aliases: []string{"lga", "lgas", "local government", "local government area", "district"},
				Values:  []string{"Nassarawa", "Gwale", "Fagge", "Tarauni"}},
			{Dataset: "admin", Attribute: "ward", Label: "Ward", Type: "category", Aggregation: "mode",
				Aliases: []string{"ward", "wards", "electoral ward"}},
			{Dataset: "population", Attribute: "population_2020", Label: "Estimated population", Unit: "people",
				Type: "number", Aggregation: "sum", Year: 2020,
				Aliases: []string{"population", "people", "residents", "inhabitants", "population 2020"}},
			{Dataset: "buildings", Attribute: "building_count", Label: "Buildings", Unit: "buildings", Type: "number",
				Aggregation: "sum", Aliases: []string{"buildings", "building count", "houses", "structures", "rooftops"}},
			{Dataset: "settlement", Attribute: "settlement_class", Label: "Settlement class", Type: "category",
				Aggregation: "mode", Year: 2020,
				Aliases: []string{"settlement", "settlement type", "urban", "rural", "urbanisation", "urbanization"},
				Values:  []string{"urban", "peri-urban", "rural", "uninhabited"}},
			{Dataset: "health", Attribute: "facility_count", Label: "Health facilities", Unit: "facilities",
				Type: "number", Aggregation: "sum",
				Aliases: []string{"health facilities", "facilities", "clinics", "hospitals", "health centres", "health centers"}},
			{Dataset: "nightlights", Attribute: "radiance", Label: "Night-time light radiance", Unit: "nW/cm²/sr",
				Type: "number", Aggregation: "mean",
				Aliases: []string{"night lights", "nightlights", "night-time lights", "lights", "light", "brightness", "radiance"}},
		},
		Features: []FeatureSet{{ID: "health", Name: "Health facilities"}, {ID: "buildings", Name: "Buildings"}},
		Place: func(ws []string) (int, bool) {
			for n := min(len(ws), 3); n > 0; n-- {
				if places[strings.ToLower(strings.Join(ws[:n], " "))] {
					return n, true
				}
			}
			return 0, false
		},
	}
}
