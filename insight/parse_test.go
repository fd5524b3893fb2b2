package insight

import (
	"reflect"
	"strings"
	"testing"
)

// Measures of demoDatasets, as Plan.Measures names them.
const (
	mPop   = "population.population_2020"
	mBld   = "buildings.building_count"
	mHlth  = "health.facility_count"
	mRad   = "nightlights.radiance"
	mSettl = "settlement.settlement_class"
	mState = "admin.state"
	mLGA   = "admin.lga"
	mWard  = "admin.ward"
)

// corpusCase is one question of the corpus and the plan it must parse to.
type corpusCase struct {
	q        string
	intent   string
	measures []string
	conf     string
	register string // "" means plain
	order    string // frames_rank only
	top      int    // frames_rank only; 0 means the default

	per     string     // Plan.Per
	scale   float64    // Plan.Scale
	cond    *Condition // Plan.Condition
	base    string     // Plan.Base
	dataset string     // Plan.Dataset
	count   int        // Plan.Count
}

// plan is the Plan a case must parse to.
func (tc corpusCase) plan() Plan {
	reg := tc.register
	if reg == "" {
		reg = RegisterPlain
	}
	return Plan{Intent: tc.intent, Measures: tc.measures, Confidence: tc.conf, Register: reg, Order: tc.order,
		Per: tc.per, Scale: tc.scale, Condition: tc.cond, Base: tc.base, Dataset: tc.dataset, Count: tc.count}
}

// corpus is the question corpus: plain and GIS phrasing, imperatives,
// misspellings, synonyms, measures no dataset records, and the empty
// question, over demoDatasets.
var corpus = []corpusCase{
	// The profile: empty, overview wording, imperatives, GIS phrasing.
	{q: "", intent: IntentFrames, conf: ConfidenceExact},
	{q: "   ", intent: IntentFrames, conf: ConfidenceExact},
	{q: "Give me an overview of these frames", intent: IntentFrames, conf: ConfidenceExact},
	{q: "tell me about these areas", intent: IntentFrames, conf: ConfidenceExact},
	{q: "Describe this place.", intent: IntentFrames, conf: ConfidenceExact},
	{q: "summarise the selection", intent: IntentFrames, conf: ConfidenceExact},
	{q: "What's here?", intent: IntentFrames, conf: ConfidenceExact},
	{q: "profile", intent: IntentFrames, conf: ConfidenceExact},
	{q: "overveiw please", intent: IntentFrames, conf: ConfidenceExact}, // misspelt intent word
	{q: "show me these frames", intent: IntentFrames, conf: ConfidenceExact},
	{q: "Tell me about Kano", intent: IntentFrames, conf: ConfidenceExact},
	{q: "Summarize the attribute table for these polygons", intent: IntentFrames, conf: ConfidenceExact, register: RegisterGIS},
	{q: "what can you tell me about these grid cells", intent: IntentFrames, conf: ConfidenceExact, register: RegisterGIS},
	{q: "summary of the raster layer", intent: IntentFrames, conf: ConfidenceExact, register: RegisterGIS},

	// One measure, named (exact) by name, label or alias, singular or plural.
	{q: "how many people live here", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "What is the population?", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "population", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "POPULATION", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "Total population_2020", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "how many residents?", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "number of inhabitants", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "show me the estimated population", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "Show me the people", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "compare population across frames", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "how many buildings are there", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact},
	{q: "count the houses", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact},
	{q: "give me the number of houses", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact},
	{q: "list the structures", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact},
	{q: "building_count", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact},
	{q: "a building", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact}, // singular names the plural alias
	{q: "how many clinics are there", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidenceExact},
	{q: "any medical facilities here?", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidenceExact},
	{q: "number of health centres", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidenceExact},
	{q: "which frames have clinics", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidenceExact},
	{q: "average radiance", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidenceExact},
	{q: "night-time lights", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidenceExact},
	{q: "what are the nightlights like", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidenceExact},
	{q: "What's the average brightness?", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidenceExact},
	{q: "which state is this in", intent: IntentAttribute, measures: []string{mState}, conf: ConfidenceExact},
	{q: "what LGA", intent: IntentAttribute, measures: []string{mLGA}, conf: ConfidenceExact},
	{q: "which local government area are these frames in", intent: IntentAttribute, measures: []string{mLGA}, conf: ConfidenceExact},
	{q: "which district?", intent: IntentAttribute, measures: []string{mLGA}, conf: ConfidenceExact},
	{q: "what ward is this", intent: IntentAttribute, measures: []string{mWard}, conf: ConfidenceExact},
	{q: "List the wards", intent: IntentAttribute, measures: []string{mWard}, conf: ConfidenceExact},
	{q: "how urban is it", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact},
	{q: "is it rural or urban", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact},
	{q: "settlement type", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact},
	{q: "what is the settlement class", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact},
	{q: "what is the most common settlement class", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact},
	{q: "urbanisation level", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact},
	{q: "What is the degree of urbanization?", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact},
	{q: "zonal statistics of population_2020 per grid cell", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact, register: RegisterGIS},
	{q: "aggregate the building_count attribute over these polygons", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact, register: RegisterGIS},
	{q: "sum of facility_count per feature class", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidenceExact, register: RegisterGIS},
	{q: "mean radiance raster value across cells", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidenceExact, register: RegisterGIS},
	{q: "Choropleth of settlement_class by polygon", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidenceExact, register: RegisterGIS},

	// One measure from other wording (partial): synonyms, stems, misspellings.
	{q: "popluation", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidencePartial},
	{q: "poplation please", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidencePartial},
	{q: "how many folks live here", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidencePartial},
	{q: "how populated is this area", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidencePartial},
	{q: "how many buidlings", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidencePartial},
	{q: "how many homes", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidencePartial},
	{q: "number of dwellings", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidencePartial},
	{q: "show rooftops and housing", intent: IntentAttribute, measures: []string{mBld}, conf: ConfidenceExact}, // rooftops is an alias; housing also reads as buildings
	{q: "hospitls?", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidencePartial},
	{q: "is there a hospital", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidenceExact},
	{q: "medical services", intent: IntentAttribute, measures: []string{mHlth}, conf: ConfidencePartial},
	{q: "how bright is it at night", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidencePartial},
	{q: "mean luminosity", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidencePartial},
	{q: "how well lit are these frames", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidencePartial},
	{q: "radience", intent: IntentAttribute, measures: []string{mRad}, conf: ConfidencePartial},
	{q: "province", intent: IntentAttribute, measures: []string{mState}, conf: ConfidencePartial},
	{q: "what is the county", intent: IntentAttribute, measures: []string{mLGA}, conf: ConfidencePartial},
	{q: "settelment", intent: IntentAttribute, measures: []string{mSettl}, conf: ConfidencePartial},

	// Rankings.
	{q: "which frame has the most people", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderHighest},
	{q: "which frame has the most buildings", intent: IntentRank, measures: []string{mBld}, conf: ConfidenceExact, order: OrderHighest},
	{q: "top 3 areas by buildings", intent: IntentRank, measures: []string{mBld}, conf: ConfidenceExact, order: OrderHighest, top: 3},
	{q: "lowest radiance", intent: IntentRank, measures: []string{mRad}, conf: ConfidenceExact, order: OrderLowest},
	{q: "darkest frame", intent: IntentRank, measures: []string{mRad}, conf: ConfidencePartial, order: OrderLowest},
	{q: "brightest area", intent: IntentRank, measures: []string{mRad}, conf: ConfidencePartial, order: OrderHighest},
	{q: "least populated frame", intent: IntentRank, measures: []string{mPop}, conf: ConfidencePartial, order: OrderLowest},
	{q: "most populous cell", intent: IntentRank, measures: []string{mPop}, conf: ConfidencePartial, order: OrderHighest},
	{q: "top 5 frames by number of clinics", intent: IntentRank, measures: []string{mHlth}, conf: ConfidenceExact, order: OrderHighest, top: 5},
	{q: "show the top ten by population", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderHighest, top: 10},
	{q: "rank the frames by population ascending", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderLowest},
	{q: "which grid cell has the maximum radiance", intent: IntentRank, measures: []string{mRad}, conf: ConfidenceExact, order: OrderHighest, register: RegisterGIS},
	{q: "fewest hospitals", intent: IntentRank, measures: []string{mHlth}, conf: ConfidenceExact, order: OrderLowest},
	{q: "which frame has more houses", intent: IntentRank, measures: []string{mBld}, conf: ConfidenceExact, order: OrderHighest},
	{q: "Sort by inhabitants", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderHighest},
	{q: "bottom three by people", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderLowest, top: 3},
	{q: "top 3 frames with the fewest people", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderLowest, top: 3},
	{q: "sort by the most buildings", intent: IntentRank, measures: []string{mBld}, conf: ConfidenceExact, order: OrderHighest},
	{q: "which frame has the most popluation", intent: IntentRank, measures: []string{mPop}, conf: ConfidencePartial, order: OrderHighest},
	{q: "which state has the most people", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderHighest},
	{q: "which frame has the most people and buildings", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderHighest},
	{q: "2 lowest frames by building count", intent: IntentRank, measures: []string{mBld}, conf: ConfidenceExact, order: OrderLowest, top: 2},

	// Comparisons.
	{q: "compare population and buildings", intent: IntentCompare, measures: []string{mPop, mBld}, conf: ConfidenceExact},
	{q: "population vs health facilities", intent: IntentCompare, measures: []string{mPop, mHlth}, conf: ConfidenceExact},
	{q: "people versus houses", intent: IntentCompare, measures: []string{mPop, mBld}, conf: ConfidenceExact},
	{q: "compare folks and homes", intent: IntentCompare, measures: []string{mPop, mBld}, conf: ConfidencePartial},
	{q: "population and radiance side by side", intent: IntentCompare, measures: []string{mPop, mRad}, conf: ConfidenceExact},
	{q: "buildings against clinics", intent: IntentCompare, measures: []string{mBld, mHlth}, conf: ConfidenceExact},
	{q: "compare the urban share and the population", intent: IntentCompare, measures: []string{mSettl, mPop}, conf: ConfidenceExact},
	// Was frames_compare (two totals without the ratio): issue 14 names it.
	{q: "people per building", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidenceExact, scale: 1},
	{q: "compare population, buildings and clinics", intent: IntentCompare, measures: []string{mPop, mBld}, conf: ConfidenceExact},
	{q: "Compare population_2020 with building_count for each polygon", intent: IntentCompare, measures: []string{mPop, mBld}, conf: ConfidenceExact, register: RegisterGIS},
	{q: "compare the most people with the most buildings", intent: IntentCompare, measures: []string{mPop, mBld}, conf: ConfidenceExact},

	// Nothing to compute: measures no dataset records.
	{q: "what is the GDP", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "what is the GDP per capita", intent: IntentUnsupported, conf: ConfidenceUnknown},
	// Was unsupported: issue 14 makes densities answerable.
	{q: "what is the population density", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerKm2},
	{q: "what is the population growth", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "average income of residents", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "building heights", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "crime rate", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "how many schools are there", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "rainfall", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "What's the weather like?", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "asdfgh qwerty", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "what is the CRS", intent: IntentUnsupported, conf: ConfidenceUnknown, register: RegisterGIS},
	{q: "buffer the polygons by 5 km", intent: IntentUnsupported, conf: ConfidenceUnknown, register: RegisterGIS},
	{q: "which projection is the extent in", intent: IntentUnsupported, conf: ConfidenceUnknown, register: RegisterGIS},
}

func TestParse_Corpus(t *testing.T) {
	if len(corpus) < 80 {
		t.Fatalf("the corpus has %d questions; at least 80 wanted", len(corpus))
	}
	ds := demoDatasets()
	m := newMatcher(ds)
	for _, tc := range corpus {
		t.Run(tc.q, func(t *testing.T) {
			p := Parse(tc.q, ds)
			want := tc.plan()
			if !reflect.DeepEqual(p, want) {
				t.Errorf("Parse(%q) =\n %+v\nwant\n %+v", tc.q, p, want)
			}
			if tc.top > 0 {
				if got := m.parse(tc.q).top; got != tc.top {
					t.Errorf("Parse(%q): top %d, want %d", tc.q, got, tc.top)
				}
			}
		})
	}
}

// TestParse_NoHardcodedIDs renames every dataset and keeps only labels:
// measures are found by names, labels, aliases and concepts, not by the
// demo's ids.
func TestParse_NoHardcodedIDs(t *testing.T) {
	ds := []Dataset{
		{ID: "ds1", Name: "Census counts", Attributes: []Attribute{
			{Name: "pop_total", Label: "Residents counted", Type: "number", Aggregation: "sum"}}},
		{ID: "ds2", Name: "OSM", Attributes: []Attribute{
			{Name: "bldg", Label: "Building footprints", Type: "number", Aggregation: "sum"},
			{Name: "hosp", Label: "Hospitals", Type: "number", Aggregation: "sum"}}},
		{ID: "ds3", Name: "Roads", Attributes: []Attribute{
			{Name: "road_km", Label: "Road length", Unit: "km", Type: "number", Aggregation: "sum"}}},
	}
	tests := []struct {
		q        string
		intent   string
		measures []string
		conf     string
	}{
		{"how many people", IntentAttribute, []string{"ds1.pop_total"}, ConfidencePartial},
		{"population", IntentAttribute, []string{"ds1.pop_total"}, ConfidencePartial},
		{"residents counted", IntentAttribute, []string{"ds1.pop_total"}, ConfidenceExact},
		{"pop_total", IntentAttribute, []string{"ds1.pop_total"}, ConfidenceExact},
		{"how many houses", IntentAttribute, []string{"ds2.bldg"}, ConfidencePartial},
		{"building footprints", IntentAttribute, []string{"ds2.bldg"}, ConfidenceExact},
		{"clinics", IntentAttribute, []string{"ds2.hosp"}, ConfidencePartial},
		{"hospital", IntentAttribute, []string{"ds2.hosp"}, ConfidenceExact},
		{"road length", IntentAttribute, []string{"ds3.road_km"}, ConfidenceExact},
		{"roads", IntentAttribute, []string{"ds3.road_km"}, ConfidencePartial}, // the dataset's name
		{"longest road length", IntentRank, []string{"ds3.road_km"}, ConfidenceExact},
		{"radiance", IntentUnsupported, nil, ConfidenceUnknown},
		{"what is the state", IntentUnsupported, nil, ConfidenceUnknown},
	}
	for _, tc := range tests {
		p := Parse(tc.q, ds)
		if p.Intent != tc.intent || !reflect.DeepEqual(p.Measures, tc.measures) || p.Confidence != tc.conf {
			t.Errorf("Parse(%q) = %+v; want intent %s, measures %v, confidence %s", tc.q, p, tc.intent, tc.measures, tc.conf)
		}
	}
}

// TestParse_NoDatasets: with nothing readable only the profile remains.
func TestParse_NoDatasets(t *testing.T) {
	for q, want := range map[string]string{
		"":                       IntentFrames,
		"overview":               IntentFrames,
		"how many people":        IntentUnsupported,
		"which has most clinics": IntentUnsupported,
	} {
		if p := Parse(q, nil); p.Intent != want {
			t.Errorf("Parse(%q, nil).Intent = %s, want %s", q, p.Intent, want)
		}
	}
}

// TestParse_Detail checks what the parser records for the detail: how a
// partial measure was read, what was dropped and which words are unknown.
func TestParse_Detail(t *testing.T) {
	m := newMatcher(demoDatasets())
	p := m.parse("How many folks live in these popluated places?")
	if len(p.used) != 1 || p.used[0].words != "folks" || p.used[0].via != viaSynonym {
		t.Errorf("used = %+v; want folks by synonym", p.used)
	}
	p = m.parse("what is the population growth")
	if len(p.modified) != 1 || p.modified[0].modifier != "population growth" {
		t.Errorf("modified = %+v", p.modified)
	}
	p = m.parse("what is the GDP and the rainfall")
	if strings.Join(p.unknown, ",") != "gdp,rainfall" {
		t.Errorf("unknown = %v", p.unknown)
	}
	p = m.parse("buidlings")
	if len(p.used) != 1 || p.used[0].via != viaSpelling {
		t.Errorf("used = %+v; want a spelling match", p.used)
	}
}
