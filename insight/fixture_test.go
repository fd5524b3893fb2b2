package insight

// Fixtures modelled on the demo (demo/demo.go): six datasets in ascending
// id order with the demo's attribute names, labels, units, years and
// aliases, and three frames with known values.

func num(x float64) Value { return Value{Num: x, IsNum: true} }
func str(s string) Value  { return Value{Str: s} }

// demoDatasets is a fresh copy of the demo's readable datasets.
func demoDatasets() []Dataset {
	return []Dataset{
		{ID: "admin", Name: "Administrative areas (approximate)", Frames: 1083000, Attributes: []Attribute{
			{Name: "state", Label: "State", Type: "category", Aggregation: "mode", Aliases: []string{"state", "states", "state name"}},
			{Name: "lga", Label: "Local government area", Type: "category", Aggregation: "mode",
				Aliases: []string{"lga", "lgas", "local government", "local government area", "district"}},
			{Name: "ward", Label: "Ward", Type: "category", Aggregation: "mode", Aliases: []string{"ward", "wards", "electoral ward"}},
		}},
		{ID: "buildings", Name: "Buildings", Frames: 901000, Features: 3600, Attributes: []Attribute{
			{Name: "building_count", Label: "Buildings", Unit: "buildings", Type: "number", Aggregation: "sum", Year: 2020,
				Aliases: []string{"buildings", "building count", "houses", "structures", "rooftops"}},
		}},
		{ID: "health", Name: "Health facilities", Frames: 7900, Features: 8200, Attributes: []Attribute{
			{Name: "facility_count", Label: "Health facilities", Unit: "facilities", Type: "number", Aggregation: "sum", Year: 2020,
				Aliases: []string{"health facilities", "facilities", "clinics", "hospitals", "health centres", "health centers"}},
		}},
		{ID: "nightlights", Name: "Night-time lights", Frames: 250000, Attributes: []Attribute{
			{Name: "radiance", Label: "Night-time light radiance", Unit: "nW/cm²/sr", Type: "number", Aggregation: "mean", Year: 2022,
				Aliases: []string{"night lights", "nightlights", "night-time lights", "lights", "light", "brightness", "radiance"}},
		}},
		{ID: "population", Name: "Estimated population", Frames: 1083000, Attributes: []Attribute{
			{Name: "population_2020", Label: "Estimated population", Unit: "people", Type: "number", Aggregation: "sum", Year: 2020,
				Aliases: []string{"population", "people", "residents", "inhabitants", "population 2020"}},
		}},
		{ID: "settlement", Name: "Settlement class", Frames: 1083000, Attributes: []Attribute{
			{Name: "settlement_class", Label: "Settlement class", Type: "category", Aggregation: "mode", Year: 2020,
				Aliases: []string{"settlement", "settlement type", "urban", "rural", "urbanisation", "urbanization"}},
		}},
	}
}

// frame builds a known frame from dataset id -> attributes (and feature
// counts under the key "#features").
func frame(id string, data map[string]map[string]Value, features map[string]int) Frame {
	f := Frame{ID: id, Known: true, Data: map[string]DatasetFrame{}}
	for ds, attrs := range data {
		f.Data[ds] = DatasetFrame{Attrs: attrs, FeatureCount: features[ds]}
	}
	for ds, n := range features {
		if _, ok := f.Data[ds]; !ok {
			f.Data[ds] = DatasetFrame{FeatureCount: n}
		}
	}
	return f
}

// demoFrames are three known frames: two urban frames of Kano Municipal
// (Kano) and a rural one of Dutse (Jigawa).
//
//	frame      state  lga            ward             population buildings class facilities radiance
//	433102007  Kano   Kano Municipal Kano Municipal 3 21,500     3,900     urban 2          42.75
//	433102008  Kano   Kano Municipal Kano Municipal 4 18,210     3,300     urban -          30.5
//	433145100  Jigawa Dutse          Dutse 1          8,500      1,391     rural 1          -
func demoFrames() []Frame {
	return []Frame{
		frame("433102007", map[string]map[string]Value{
			"admin":       {"state": str("Kano"), "lga": str("Kano Municipal"), "ward": str("Kano Municipal 3")},
			"population":  {"population_2020": num(21500)},
			"buildings":   {"building_count": num(3900)},
			"settlement":  {"settlement_class": str("urban")},
			"health":      {"facility_count": num(2)},
			"nightlights": {"radiance": num(42.75)},
		}, map[string]int{"health": 2}),
		frame("433102008", map[string]map[string]Value{
			"admin":       {"state": str("Kano"), "lga": str("Kano Municipal"), "ward": str("Kano Municipal 4")},
			"population":  {"population_2020": num(18210)},
			"buildings":   {"building_count": num(3300)},
			"settlement":  {"settlement_class": str("urban")},
			"nightlights": {"radiance": num(30.5)},
		}, nil),
		frame("433145100", map[string]map[string]Value{
			"admin":      {"state": str("Jigawa"), "lga": str("Dutse"), "ward": str("Dutse 1")},
			"population": {"population_2020": num(8500)},
			"buildings":  {"building_count": num(1391)},
			"settlement": {"settlement_class": str("rural")},
			"health":     {"facility_count": num(1)},
		}, map[string]int{"health": 1}),
	}
}
