package plan

import (
	"slices"
	"testing"
)

// TestParse_Examples holds the examples and one question of
// each kind the plan covers, with the plan each must read to.
func TestParse_Examples(t *testing.T) {
	cat := demoCatalogue()
	for _, tc := range []struct{ q, want string }{
		// The five.
		{"average population", "mean population_2020 | exact"},
		{"Which frame is farthest from a health facility?", "farthest | health | exact"},
		{"How many people live more than 5 km from a health facility?", "coverage population_2020 | beyond 5 health | exact"},
		{"How many people live in Dala LGA?", "total population_2020 | [Dala] | exact"},
		{"frames with more than 1,000 people and no health facility", "count | population_2020 > 1,000 and facility_count = 0 | exact"},
		// Aggregations.
		{"What is the median population?", "median population_2020 | exact"},
		{"Which frame has the most people?", "max population_2020 | desc 1 | exact"},
		{"What is the lowest population of any frame?", "min population_2020 | asc 1 | exact"},
		{"Which 5 frames have the fewest buildings?", "rank building_count | asc 5 | exact"},
		{"top frames by radiance", "rank radiance | desc 3 | exact"},
		{"How many frames are there?", "count | exact"},
		{"What percentage of the population lives in urban frames?", "share population_2020 | settlement_class = urban | exact"},
		{"people per building", "ratio population_2020,building_count | exact"},
		{"clinics per 10,000 people", "ratio facility_count,population_2020 | scale 10,000 | exact"},
		// The population of "per person" is inferred, not named: partial
		// (the contract, §4: exact only for a name, label or alias).
		{"buildings per person", "ratio building_count,population_2020 | partial"},
		{"buildings per capita", "ratio building_count,population_2020 | partial"},
		{"how many people does each clinic serve", "ratio population_2020,facility_count | exact"},
		{"How many people does each building hold?", "ratio population_2020,building_count | exact"},
		{"How many frames have a population of 0?", "count | population_2020 = 0 | exact"},
		{"densest frame", "max population_2020 | desc 1 | per km2 | partial"},
		{"sparsest frames", "rank population_2020 | asc 3 | per km2 | partial"},
		{"top 2 frames with at least 5000 people", "rank population_2020 | population_2020 >= 5,000 | desc 2 | exact"},
		{"zonal population density of the raster cells", "density population_2020 | per ha | exact"},
		{"breakdown of the population by state as a percentage", "share population_2020 | by state | exact"},
		{"population density in hectares", "density population_2020 | per ha | exact"},
		{"buildings per km²", "density building_count | per km2 | exact"},
		{"top 3 frames by population density", "rank population_2020 | desc 3 | per km2 | exact"},
		{"compare population and buildings", "compare population_2020,building_count | exact"},
		{"nearest health facility", "nearest | health | exact"},
		{"How many frames are within 5 km of a clinic?", "coverage | within 5 health | exact"},
		{"what share of people live within 2 km of a clinic", "share population_2020 | within 2 health | exact"},
		{"How many building footprints are there?", "featurecount | buildings | exact"},
		{"Tell me about these frames", "profile | exact"},
		// Filters: words and symbols, several, negation, or.
		{"frames with 10k+ people", "count | population_2020 >= 10,000 | exact"},
		{"frames with 5,000 or more people", "count | population_2020 >= 5,000 | exact"},
		{"between 500 and 2,000 people", "count | population_2020 between 500 and 2,000 | exact"},
		{"frames with population > 5000 and radiance < 2", "count | population_2020 > 5,000 and radiance < 2 | exact"},
		{"urban frames without a clinic", "count | settlement_class = urban and facility_count = 0 | exact"},
		{"frames that are not urban", "count | settlement_class != urban | exact"},
		{"rural or peri-urban frames", "count | settlement_class = rural or settlement_class = peri-urban | exact"},
		{"how many frames have a clinic", "count | facility_count >= 1 | exact"},
		{"mean population of frames with at least 2 hospitals", "mean population_2020 | facility_count >= 2 | exact"},
		// Groups.
		{"total population by state", "total population_2020 | by state | exact"},
		{"population for each LGA", "total population_2020 | by lga | exact"},
		{"average radiance ward by ward", "mean radiance | by ward | exact"},
		{"Which state has the most people?", "total population_2020 | by state | desc 1 | exact"},
		// Partial and unsupported readings.
		{"What is the popluation?", "total population_2020 | partial"},
		{"What is the population in 2015?", "total population_2020 | partial"},
		{"What is the quarterly average population?", "mean population_2020 | partial"},
		{"average population excluding urban frames", "mean population_2020 | settlement_class = urban | partial"},
		{"What is the GDP per capita?", "unsupported | unknown"},
		{"population growth", "unsupported | unknown"},
		{"How many people live within 5 km of a market?", "unsupported | unknown"},
		{"where is the nearest school", "unsupported | unknown"},
	} {
		p := Parse(tc.q, cat)
		if got := summary(p); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s (%s)", tc.q, got, tc.want, p.Detail())
		}
	}
}

// TestParse_Unread names the words a partial plan did not read.
func TestParse_Unread(t *testing.T) {
	cat := demoCatalogue()
	for q, want := range map[string][]string{
		"What is the quarterly average population?":     {"quarterly"},
		"average population excluding urban frames":     {"excluding"},
		"average population per fortnight":              {"per", "fortnight"},
		"How many people lived here in 1990?":           {"1990"},
		"total population of frames with 2 schools":     {"2", "schools"},
		"How many people live within 5 km of a market?": {"people", "within", "5", "km", "market"},
	} {
		p := Parse(q, cat)
		if got := p.Unread(); !slices.Equal(got, want) {
			t.Errorf("%q: unread %q, want %q", q, got, want)
		}
		if p.Confidence() == Exact {
			t.Errorf("%q: exact with unread words", q)
		}
	}
}

// TestDescribe says plans in plain words.
func TestDescribe(t *testing.T) {
	cat := demoCatalogue()
	for q, want := range map[string]string{
		"average population": "read as: mean per frame of population_2020 over 49 frames",
		"How many people live more than 5 km from a health facility?": "read as: total of population_2020 over frames whose centre is beyond 5 km of the nearest feature of health over 49 frames",
		"frames with more than 1,000 people and no health facility":   "read as: count of frames, where population_2020 > 1,000 and facility_count = 0 over 49 frames",
		"quarterly population": "read as: total of population_2020 over 49 frames; not read: quarterly",
	} {
		if got := Parse(q, cat).Describe(49); got != want {
			t.Errorf("%q:\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestDescribe_Metric names a ranking's density or ratio.
func TestDescribe_Metric(t *testing.T) {
	cat := demoCatalogue()
	for q, want := range map[string]string{
		"top 3 frames by population density":        "read as: the 3 frames with the highest population_2020 per km²",
		"which frame has the most people per house": "read as: largest per-frame population_2020 per building_count",
	} {
		if got := Parse(q, cat).Describe(0); got != want {
			t.Errorf("%q:\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestParse_Reach: one reach a plan; a band of distances is a reach
// between two bounds.
func TestParse_Reach(t *testing.T) {
	cat := demoCatalogue()
	for q, want := range map[string]string{
		"How many people live between 2 and 5 km from a clinic?":             "coverage population_2020 | between 2-5 health | exact",
		"frames from 1 to 3 km away from a hospital":                         "coverage | between 1-3 health | exact",
		"How many people live exactly 5 km from a clinic?":                   "unsupported | unknown",
		"people within 2 km of a clinic and more than 10 km from a hospital": "coverage population_2020 | within 2 health | partial",
		"How many buildings lie within 500 m of a clinic?":                   "coverage building_count | within 0.5 health | exact",
		"How many people have no clinic within 5 km?":                        "coverage population_2020 | beyond 5 health | exact",
		"What share of people live within 5 km of a health facility?":        "share population_2020 | within 5 health | exact",
	} {
		p := Parse(q, cat)
		checkPlan(t, q, p)
		if got := summary(p); got != want {
			t.Errorf("%q:\n got %s\nwant %s (%s)", q, got, want, p.Detail())
		}
	}
}

// TestParse_HyphenatedValue reads a hyphenated category value whole when
// the catalogue knows only its last part (a selection with no
// peri-urban frame): "peri" is not left unread, nor "urban" counted.
func TestParse_HyphenatedValue(t *testing.T) {
	cat := demoCatalogue()
	for i, m := range cat.Measures {
		if m.Attribute == "settlement_class" {
			cat.Measures[i].Values = []string{"urban", "rural"}
		}
	}
	for q, want := range map[string]string{
		"how many frames are peri-urban":               "count | settlement_class = peri-urban | exact",
		"proportion of residents in peri-urban frames": "share population_2020 | settlement_class = peri-urban | exact",
		"how many frames are urban":                    "count | settlement_class = urban | exact",
	} {
		if got := summary(Parse(q, cat)); got != want {
			t.Errorf("%q: got %s, want %s", q, got, want)
		}
	}
}

// TestParse_FramesByDistanceAndDerivedFilters: K frames nearest or
// farthest (issue 22), and conditions on a density or a ratio per frame.
func TestParse_FramesByDistanceAndDerivedFilters(t *testing.T) {
	cat := demoCatalogue()
	for q, want := range map[string]string{
		"the 3 frames farthest from a health facility":         "farthest | desc 3 | health | exact",
		"5 nearest frames to a clinic":                         "nearest | asc 5 | health | exact",
		"which 4 cells are farthest from a hospital?":          "farthest | desc 4 | health | exact",
		"Which frame is farthest from a health facility?":      "farthest | health | exact",
		"the 3 closest health facilities":                      "nearest | health | exact",
		"frames with more than 500 people per km²":             "count | population_2020 per km² > 500 | exact",
		"how many frames have over 20 buildings per hectare":   "count | building_count per hectare > 20 | exact",
		"frames with a population density above 2,000":         "count | population_2020 per km² > 2,000 | exact",
		"where people per facility exceed 10,000":              "count | population_2020 per facility_count > 10,000 | exact",
		"total population where people per clinic exceed 5000": "total population_2020 | population_2020 per facility_count > 5,000 | exact",
	} {
		p := Parse(q, cat)
		checkPlan(t, q, p)
		if got := summary(p); got != want {
			t.Errorf("%q:\n got %s\nwant %s (%s)", q, got, want, p.Detail())
		}
	}
}
