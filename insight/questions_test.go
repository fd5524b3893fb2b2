package insight

import (
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// questionCorpus holds the questions planners ask that issue 14 made
// answerable (densities, ratios, thresholds, gaps, shares, the nearest
// facility) and those a plan must mark partial or refuse, in plain and GIS
// wording, several phrasings of each kind, with misspellings, and the plan
// each must parse to over demoDatasets.
var questionCorpus = []corpusCase{
	{q: "what is the population density", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerKm2},
	{q: "population density", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerKm2},
	{q: "How densely populated are these frames?", intent: IntentDensity, measures: []string{mPop}, conf: ConfidencePartial, per: PerKm2},
	{q: "how dense is it", intent: IntentDensity, measures: []string{mPop}, conf: ConfidencePartial, per: PerKm2},
	{q: "how crowded is this area", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidencePartial},
	{q: "people per km2", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerKm2},
	{q: "population per square kilometre", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerKm2},
	{q: "residents per sq km", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerKm2},
	{q: "inhabitants per km²", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerKm2},
	{q: "building density", intent: IntentDensity, measures: []string{mBld}, conf: ConfidenceExact, per: PerKm2},
	{q: "density of buildings", intent: IntentDensity, measures: []string{mBld}, conf: ConfidenceExact, per: PerKm2},
	{q: "density of health facilities", intent: IntentDensity, measures: []string{mHlth}, conf: ConfidenceExact, per: PerKm2},
	{q: "clinics per km2", intent: IntentDensity, measures: []string{mHlth}, conf: ConfidenceExact, per: PerKm2},
	{q: "population density per hectare", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerHectare},
	{q: "people per hectare", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, per: PerHectare},
	{q: "zonal population density in the raster", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, register: RegisterGIS, per: PerHectare},
	{q: "population_2020 per km2 for each polygon", intent: IntentDensity, measures: []string{mPop}, conf: ConfidenceExact, register: RegisterGIS, per: PerKm2},
	{q: "popluation densty", intent: IntentDensity, measures: []string{mPop}, conf: ConfidencePartial, per: PerKm2},
	{q: "populaton density", intent: IntentDensity, measures: []string{mPop}, conf: ConfidencePartial, per: PerKm2},
	{q: "which frame has the highest population density", intent: IntentRank, measures: []string{mPop}, conf: ConfidenceExact, order: OrderHighest, per: PerKm2},
	{q: "densest frame", intent: IntentRank, measures: []string{mPop}, conf: ConfidencePartial, order: OrderHighest, per: PerKm2},
	{q: "sparsest frame", intent: IntentRank, measures: []string{mPop}, conf: ConfidencePartial, order: OrderLowest, per: PerKm2},
	{q: "least dense frame", intent: IntentRank, measures: []string{mPop}, conf: ConfidencePartial, order: OrderLowest, per: PerKm2},
	{q: "top 2 frames by building density", intent: IntentRank, measures: []string{mBld}, conf: ConfidenceExact, order: OrderHighest, per: PerKm2},
	{q: "radiance density", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "density of settlement class", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "residents per house", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidenceExact, scale: 1},
	{q: "how many people per building", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidenceExact, scale: 1},
	{q: "people per building", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidenceExact, scale: 1},
	{q: "people per hospital", intent: IntentRatio, measures: []string{mPop, mHlth}, conf: ConfidenceExact, scale: 1},
	{q: "how many people does each clinic serve", intent: IntentRatio, measures: []string{mPop, mHlth}, conf: ConfidenceExact, scale: 1},
	{q: "inhabitants for each clinic", intent: IntentRatio, measures: []string{mPop, mHlth}, conf: ConfidenceExact, scale: 1},
	{q: "clinics per 10k people", intent: IntentRatio, measures: []string{mHlth, mPop}, conf: ConfidenceExact, scale: 10000},
	{q: "hospitals per 100,000 inhabitants", intent: IntentRatio, measures: []string{mHlth, mPop}, conf: ConfidenceExact, scale: 100000},
	{q: "health facilities per 1,000 people", intent: IntentRatio, measures: []string{mHlth, mPop}, conf: ConfidenceExact, scale: 1000},
	{q: "number of clinics for every 10,000 residents", intent: IntentRatio, measures: []string{mHlth, mPop}, conf: ConfidenceExact, scale: 10000},
	{q: "buildings for each person", intent: IntentRatio, measures: []string{mBld, mPop}, conf: ConfidencePartial, scale: 1},
	{q: "buildings per capita", intent: IntentRatio, measures: []string{mBld, mPop}, conf: ConfidencePartial, scale: 1},
	{q: "clinics per capita", intent: IntentRatio, measures: []string{mHlth, mPop}, conf: ConfidencePartial, scale: 1},
	{q: "hospitals per person", intent: IntentRatio, measures: []string{mHlth, mPop}, conf: ConfidencePartial, scale: 1},
	{q: "ratio of people to buildings", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidenceExact, scale: 1},
	{q: "the people to buildings ratio", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidenceExact, scale: 1},
	{q: "zonal ratio of population_2020 to building_count", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidenceExact, register: RegisterGIS, scale: 1},
	{q: "resdents per huose", intent: IntentRatio, measures: []string{mPop, mBld}, conf: ConfidencePartial, scale: 1},
	{q: "which frame has the most people per house", intent: IntentRank, measures: []string{mPop, mBld}, conf: ConfidenceExact, order: OrderHighest, scale: 1},
	{q: "lowest population per building", intent: IntentRank, measures: []string{mPop, mBld}, conf: ConfidenceExact, order: OrderLowest, scale: 1},
	{q: "radiance per person", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "average radiance per person", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "frames with at least 5,000 residents", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">=", Value: 5000}},
	{q: "frames with more than 20,000 people", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">", Value: 20000}},
	{q: "frames with over 20000 residents", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">", Value: 20000}},
	{q: "frames with > 9000 people", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">", Value: 9000}},
	{q: "frames with 10,000 or more people", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">=", Value: 10000}},
	{q: "frames with 10k+ people", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">=", Value: 10000}},
	{q: "areas where population is under 10k", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: "<", Value: 10000}},
	{q: "frames with population above 15000", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">", Value: 15000}},
	{q: "frames with between 10,000 and 20,000 people", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: "between", Value: 10000, Value2: 20000}},
	{q: "population between 10k and 20k", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: "between", Value: 10000, Value2: 20000}},
	{q: "how many frames have fewer than 2 clinics", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "<", Value: 2}},
	{q: "frames with no more than 1 clinic", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "<=", Value: 1}},
	{q: "which frames have at least one clinic", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: ">=", Value: 1}},
	{q: "frames with 1 or more clinics", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: ">=", Value: 1}},
	{q: "how many frames have more than 3,000 buildings", intent: IntentThreshold, measures: []string{mBld}, conf: ConfidenceExact, cond: &Condition{Measure: mBld, Op: ">", Value: 3000}},
	{q: "cells with a building_count above 2000", intent: IntentThreshold, measures: []string{mBld}, conf: ConfidenceExact, cond: &Condition{Measure: mBld, Op: ">", Value: 2000}},
	{q: "polygons where population_2020 exceeds 10000", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, register: RegisterGIS, cond: &Condition{Measure: mPop, Op: ">", Value: 10000}},
	{q: "frames where radiance is more than 30", intent: IntentThreshold, measures: []string{mRad}, conf: ConfidenceExact, cond: &Condition{Measure: mRad, Op: ">", Value: 30}},
	{q: "how many frames have a night-time light radiance between 20 and 50", intent: IntentThreshold, measures: []string{mRad}, conf: ConfidenceExact, cond: &Condition{Measure: mRad, Op: "between", Value: 20, Value2: 50}},
	{q: "frames with radiance of at least 40", intent: IntentThreshold, measures: []string{mRad}, conf: ConfidenceExact, cond: &Condition{Measure: mRad, Op: ">=", Value: 40}},
	{q: "frames with more than 20,000 people per km2", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Per: "km2", Op: ">", Value: 20000}},
	{q: "frames with a population density above 20000 people per km²", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Per: "km2", Op: ">", Value: 20000}},
	{q: "frames with more than 5 people per building", intent: IntentThreshold, measures: []string{mPop, mBld}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Per: mBld, Scale: 1, Op: ">", Value: 5}},
	{q: "top 2 frames with at least 5000 people", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">=", Value: 5000}},
	{q: "how many buildings are in frames with more than 10,000 people", intent: IntentThreshold, measures: []string{mPop, mBld}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">", Value: 10000}},
	{q: "how many people live in frames with over 3,000 buildings", intent: IntentThreshold, measures: []string{mBld, mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mBld, Op: ">", Value: 3000}},
	{q: "frames with more than 3,000 buildings and fewer than 20,000 people", intent: IntentThreshold, measures: []string{mBld, mPop}, conf: ConfidencePartial, cond: &Condition{Measure: mBld, Op: ">", Value: 3000}},
	{q: "frames with at laest 5000 people", intent: IntentThreshold, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">=", Value: 5000}},
	{q: "frames with more than 5000", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "frames without a hospital", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "which frames have no clinics", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "how many frames have no health facility", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "frames lacking buildings", intent: IntentThreshold, measures: []string{mBld}, conf: ConfidenceExact, cond: &Condition{Measure: mBld, Op: "none"}},
	{q: "frames that do not have a hospital", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "frames that don't have a clinic", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "frames with zero clinics", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "frames withuot a hospitl", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidencePartial, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "how many people live in frames without a clinic", intent: IntentThreshold, measures: []string{mHlth, mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}},
	{q: "how many frames have clinics", intent: IntentThreshold, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "some"}},
	{q: "how many frames have buildings", intent: IntentThreshold, measures: []string{mBld}, conf: ConfidenceExact, cond: &Condition{Measure: mBld, Op: "some"}},
	{q: "how many frames are urban", intent: IntentThreshold, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "urban"}},
	{q: "which frames are rural", intent: IntentThreshold, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "rural"}},
	{q: "how many frames are peri-urban", intent: IntentThreshold, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "peri urban"}},
	{q: "what share of frames are urban", intent: IntentShare, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "urban"}, base: BaseFrames},
	{q: "what percentage of frames are rural", intent: IntentShare, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "rural"}, base: BaseFrames},
	{q: "what % of frames are urban", intent: IntentShare, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "urban"}, base: BaseFrames},
	{q: "proportion of frames that are not urban", intent: IntentShare, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is not", Category: "urban"}, base: BaseFrames},
	{q: "share of grid cells with settlement_class urban", intent: IntentShare, measures: []string{mSettl}, conf: ConfidenceExact, register: RegisterGIS, cond: &Condition{Measure: mSettl, Op: "is", Category: "urban"}, base: BaseFrames},
	{q: "share of frames with at least 10,000 people", intent: IntentShare, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">=", Value: 10000}, base: BaseFrames},
	{q: "what fraction of frames have more than 2 clinics", intent: IntentShare, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: ">", Value: 2}, base: BaseFrames},
	{q: "percentage of frames without a clinic", intent: IntentShare, measures: []string{mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}, base: BaseFrames},
	{q: "what share of the population lives in urban frames", intent: IntentShare, measures: []string{mPop, mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "urban"}, base: mPop},
	{q: "what percent of the population is rural", intent: IntentShare, measures: []string{mPop, mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "rural"}, base: mPop},
	{q: "what proportion of people live in frames with more than 10000 residents", intent: IntentShare, measures: []string{mPop}, conf: ConfidenceExact, cond: &Condition{Measure: mPop, Op: ">", Value: 10000}, base: mPop},
	{q: "what percentage of buildings are in urban frames", intent: IntentShare, measures: []string{mBld, mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "urban"}, base: mBld},
	{q: "share of the population in frames without a clinic", intent: IntentShare, measures: []string{mPop, mHlth}, conf: ConfidenceExact, cond: &Condition{Measure: mHlth, Op: "none"}, base: mPop},
	{q: "share of population by settlement class", intent: IntentShare, measures: []string{mPop, mSettl}, conf: ConfidenceExact, base: mPop},
	{q: "share of frames by state", intent: IntentShare, measures: []string{mState}, conf: ConfidenceExact, base: BaseFrames},
	{q: "breakdown of the population by state as a percentage", intent: IntentShare, measures: []string{mPop, mState}, conf: ConfidenceExact, base: mPop},
	{q: "share of the population", intent: IntentShare, measures: []string{mPop}, conf: ConfidenceExact, base: mPop},
	{q: "urban share", intent: IntentShare, measures: []string{mSettl}, conf: ConfidenceExact, cond: &Condition{Measure: mSettl, Op: "is", Category: "urban"}, base: BaseFrames},
	{q: "nearest hospital", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "nearest clinic", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "closest health facility", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "where is the nearest hospital", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "how far is the nearest hospital", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "how far is the closest clinic", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "distance to the nearest health facility", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "3 nearest health facilities", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 3},
	{q: "the two closest clinics", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 2},
	{q: "nearest 2 hospitals to frame 433102007", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 2},
	{q: "neerest clinic", intent: IntentNearest, conf: ConfidenceExact, dataset: "health", count: 1},
	{q: "nearest school", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "closest market", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "nearest population", intent: IntentUnsupported, conf: ConfidenceUnknown},
	{q: "population in 2015", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidencePartial},
	{q: "population in 2020", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "population 5000", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidencePartial},
	{q: "how many people live in these 3 frames", intent: IntentAttribute, measures: []string{mPop}, conf: ConfidenceExact},
	{q: "nearest clinic within 5 km", intent: IntentNearest, conf: ConfidencePartial, dataset: "health", count: 1},
}

func TestParse_Questions(t *testing.T) {
	if len(questionCorpus) < 120 {
		t.Fatalf("the question corpus has %d questions; at least 120 wanted", len(questionCorpus))
	}
	ds := demoDatasets()
	seen := map[string]bool{}
	for _, tc := range questionCorpus {
		if seen[tc.q] {
			t.Errorf("%q is in the corpus twice", tc.q)
		}
		seen[tc.q] = true
		t.Run(tc.q, func(t *testing.T) {
			p := Parse(tc.q, ds)
			if want := tc.plan(); !reflect.DeepEqual(p, want) {
				t.Errorf("Parse(%q) =\n %+v %+v\nwant\n %+v %+v", tc.q, p, p.Condition, want, want.Condition)
			}
			if !wellFormed(p) {
				t.Errorf("Parse(%q) = %+v is not well formed", tc.q, p)
			}
		})
	}
}

// areaFrames are demoFrames with their areas: 0.85, 0.86 and 0.87 km².
func areaFrames() []Frame {
	fr := demoFrames()
	for i := range fr {
		fr[i].AreaKm2 = 0.85 + float64(i)/100
	}
	return fr
}

// testNearest is a search that found two health facilities.
func testNearest() *Nearest {
	return &Nearest{Dataset: "health", LimitKm: 50, Searched: 5, Features: []NearFeature{
		{Frame: "433102009", From: "433102008", DistanceKm: 1.234, Lon: 8.5123, Lat: 12.0021, Name: "Kano Clinic 4",
			Properties: []Property{{Key: "name", Value: str("Kano Clinic 4")}, {Key: "type", Value: str("clinic")}, {Key: "beds", Value: num(12)}}},
		{Frame: "433145101", From: "433145100", DistanceKm: 3.5, Lon: 9.3, Lat: 11.7, Name: "Dutse General Hospital 1"},
	}}
}

// askArea answers q over areaFrames (and extra frames) with a nearest
// search at hand.
func askArea(q string, extra ...Frame) Insight {
	return AnswerRequest(Request{Question: q, Datasets: demoDatasets(), Frames: append(areaFrames(), extra...),
		AreaBasis: "WGS84 ellipsoid", Nearest: testNearest()})
}

// TestAnswer_QuestionsWellFormed: every answer to the question corpus
// has the intent its plan has, one-sentence headline, rows as wide as
// the columns, sources for what it used, a detail when partial, and
// follow-ups that parse exactly to supported intents.
func TestAnswer_QuestionsWellFormed(t *testing.T) {
	ds := demoDatasets()
	for _, tc := range questionCorpus {
		got := askArea(tc.q, Frame{ID: "42"})
		if got.Intent != tc.intent {
			t.Errorf("%q: intent %s, want %s", tc.q, got.Intent, tc.intent)
		}
		if !strings.HasSuffix(got.Headline, ".") || strings.Contains(got.Headline, ". ") {
			t.Errorf("%q: headline is not one sentence: %q", tc.q, got.Headline)
		}
		if got.Intent != IntentUnsupported && !strings.Contains(got.Headline, "1 of the 4 ids was not found") {
			t.Errorf("%q: headline %q does not say an id was not found", tc.q, got.Headline)
		}
		if got.Confidence == ConfidencePartial && got.Detail == "" {
			t.Errorf("%q: partial without a detail saying why", tc.q)
		}
		if (got.Retrieval == RetrievalLexical || got.Retrieval == RetrievalHybrid) && got.Confidence != ConfidencePartial {
			t.Errorf("%q: retrieval %s with confidence %s", tc.q, got.Retrieval, got.Confidence)
		}
		if got.Intent == IntentUnsupported && (len(got.Facets) > 0 || got.Table != nil || len(got.Used) > 0 || got.Confidence != ConfidenceUnknown) {
			t.Errorf("%q: figures in an unsupported answer: %+v", tc.q, got)
		}
		if got.Table != nil {
			for _, row := range got.Table.Rows {
				if len(row) != len(got.Table.Columns) {
					t.Errorf("%q: row %q for columns %q", tc.q, row, got.Table.Columns)
				}
			}
		}
		for _, u := range got.Used {
			found := false
			for _, s := range got.Sources {
				found = found || s.LayerID == u
			}
			if !found {
				t.Errorf("%q: used %s without a source", tc.q, u)
			}
		}
		if !sort.StringsAreSorted(got.Used) {
			t.Errorf("%q: used %v", tc.q, got.Used)
		}
		if got.Intent != IntentUnsupported && len(got.FollowUps) == 0 {
			t.Errorf("%q: no follow-ups", tc.q)
		}
		for _, f := range got.FollowUps {
			p := Parse(f, ds)
			if p.Intent == IntentUnsupported || p.Confidence != ConfidenceExact || !wellFormed(p) {
				t.Errorf("%q: follow-up %q parses to %+v", tc.q, f, p)
			}
			if p.Intent == IntentNearest && p.Dataset != "health" {
				continue // the test's search is of health facilities only
			}
			if a := askArea(f); a.Confidence == ConfidenceUnknown || a.Intent != p.Intent {
				t.Errorf("%q: follow-up %q answers %s %s %q", tc.q, f, a.Intent, a.Confidence, a.Headline)
			}
		}
	}
}

func TestAnswer_DensityGolden(t *testing.T) {
	got := askArea("What is the population density?")
	// 48,210 people on 0.85 + 0.86 + 0.87 = 2.58 km².
	checkGolden(t, got,
		"The 3 selected frames have an estimated population density of 18,686.05 people per km² (2020): 48,210 people on 2.58 km².",
		facetsOf(
			"Estimated population density (2020)", "18,686.05 people per km²",
			"Area (WGS84 ellipsoid)", "2.58 km²",
			"Total estimated population (2020)", "48,210 people",
			"Highest", "25,294.12 people per km² (frame 433102007)",
			"Lowest", "9,770.11 people per km² (frame 433145100)",
			"Frames with a record", "3 of 3",
		),
		&Table{Columns: []string{"Frame", "Area (km²)", "Estimated population", "Estimated population density (per km²)"}, Rows: [][]string{
			{"433102007", "0.85", "21,500", "25,294.12"},
			{"433102008", "0.86", "18,210", "21,174.42"},
			{"433145100", "0.87", "8,500", "9,770.11"},
		}})
	if got.Detail != "Areas are computed on the WGS84 ellipsoid." || !reflect.DeepEqual(got.Used, []string{"population"}) {
		t.Errorf("detail %q used %v", got.Detail, got.Used)
	}
	// The GIS register: per hectare.
	gis := AnswerRequest(Request{Question: "population density", Register: RegisterGIS, Datasets: demoDatasets(), Frames: areaFrames()})
	if want := "186.86 people per hectare"; gis.Facets[0].Value != want || gis.Facets[1].Value != "258 ha" {
		t.Errorf("GIS density facets %+v, want %s on 258 ha", gis.Facets, want)
	}
	// Coverage: health facilities on 2 of 3 frames, 1.72 km².
	h := askArea("density of health facilities")
	if want := "The 3 selected frames have 1.74 facilities per km² (2020): 3 facilities on 1.72 km² (the 2 of 3 frames that record it)."; h.Headline != want {
		t.Errorf("headline %q\nwant %q", h.Headline, want)
	}
	if h.Facets[0].Value != "1.74 facilities per km² (2 of 3 frames)" || h.Facets[1].Value != "1.72 km² (2 of 3 frames)" {
		t.Errorf("facets do not say what they cover: %+v", h.Facets)
	}
	// No area known: no density, and no figure from areas.
	none := AnswerRequest(Request{Question: "population density", Datasets: demoDatasets(), Frames: demoFrames()})
	if !strings.Contains(none.Headline, "no known area") || none.Facets[0].Label != "Frames with a record" {
		t.Errorf("without areas: %q %+v", none.Headline, none.Facets)
	}
}

func TestAnswer_RatioGolden(t *testing.T) {
	got := askArea("hospitals per 100,000 inhabitants")
	// 3 facilities (frames A and C) per 48,210 people: 6.2228 per 100,000.
	checkGolden(t, got,
		"The 3 selected frames have 6.22 health facilities per 100,000 people (2020): 3 facilities (2 of 3 frames) and 48,210 people.",
		facetsOf(
			"Health facilities per 100,000 people (2020)", "6.22",
			"Total health facilities (2020)", "3 facilities (2 of 3 frames)",
			"Total estimated population (2020)", "48,210 people",
			"Highest", "11.76 (frame 433145100)",
			"Lowest", "9.3 (frame 433102007)",
			"Frames with both recorded", "2 of 3",
		),
		&Table{Columns: []string{"Frame", "Health facilities", "Estimated population", "Health facilities per 100,000 people"}, Rows: [][]string{
			{"433102007", "2", "21,500", "9.3"},
			{"433102008", "no record", "18,210", "no record"},
			{"433145100", "1", "8,500", "11.76"},
			{"Total", "3", "48,210", "6.22"},
		}})
	res := askArea("residents per house")
	if want := "The 3 selected frames have an estimated population of 5.61 per building (2020): 48,210 people and 8,591 buildings."; res.Headline != want {
		t.Errorf("headline %q\nwant %q", res.Headline, want)
	}
	cap := askArea("buildings for each person")
	if cap.Confidence != ConfidencePartial || cap.Facets[0] != (Facet{"Buildings per person (2020)", "0.18"}) {
		t.Errorf("per person: %s %+v", cap.Confidence, cap.Facets)
	}
}

func TestAnswer_ThresholdGolden(t *testing.T) {
	got := askArea("frames with at least 10,000 residents")
	checkGolden(t, got,
		"2 of the 3 selected frames have at least 10,000 people: 39,710 people in all (2020).",
		facetsOf(
			"Frames with at least 10,000 people", "2 of 3",
			"Share of frames", "67%",
			"Total estimated population in those frames (2020)", "39,710 people",
			"Share of the total estimated population", "82%",
		),
		&Table{Columns: []string{"Frame", "Estimated population"}, Rows: [][]string{{"433102007", "21,500"}, {"433102008", "18,210"}}})
	gap := askArea("frames without a hospital")
	checkGolden(t, gap, "1 of the 3 selected frames has no health facility (no record or 0).",
		facetsOf("Frames with no health facility (no record or 0)", "1 of 3", "Share of frames", "33%"),
		&Table{Columns: []string{"Frame", "Health facilities"}, Rows: [][]string{{"433102008", "no record"}}})
	// The figure of the subset for another measure.
	b := askArea("how many buildings are in frames with more than 10,000 people")
	if want := "2 of the 3 selected frames have more than 10,000 people: 7,200 buildings in all (2020)."; b.Headline != want {
		t.Errorf("headline %q\nwant %q", b.Headline, want)
	}
	// A measure recorded on some frames says so.
	r := askArea("frames with radiance above 35")
	if r.Facets[len(r.Facets)-1] != (Facet{"Frames with a record of night-time light radiance", "2 of 3"}) || !strings.Contains(r.Detail, "2 of the 3") {
		t.Errorf("coverage: %+v %q", r.Facets, r.Detail)
	}
	none := askArea("frames with more than 50,000 people")
	if none.Headline != "None of the 3 selected frames has more than 50,000 people." || none.Table != nil {
		t.Errorf("no frame: %q %+v", none.Headline, none.Table)
	}
	top := askArea("top 1 frame with at least 5000 people")
	if len(top.Table.Rows) != 1 || top.Table.Rows[0][0] != "433102007" || top.Confidence != ConfidenceExact {
		t.Errorf("top 1: %+v %s", top.Table, top.Confidence)
	}
}

func TestAnswer_ShareGolden(t *testing.T) {
	got := askArea("what share of the population lives in urban frames")
	checkGolden(t, got,
		"82% of the estimated population of the 3 selected frames (2020) is in frames with settlement class urban: 39,710 of 48,210 people.",
		facetsOf(
			"Share of estimated population (2020)", "82%",
			"Estimated population in those frames (2020)", "39,710 people",
			"Total estimated population (2020)", "48,210 people",
			"Frames with settlement class urban", "2 of 3",
		),
		&Table{Columns: []string{"Frame", "Settlement class", "Estimated population"}, Rows: [][]string{
			{"433102007", "urban", "21,500"}, {"433102008", "urban", "18,210"}}})
	frames := askArea("what percentage of frames are rural")
	if frames.Headline != "33% of the 3 selected frames (1) has settlement class rural." {
		t.Errorf("headline %q", frames.Headline)
	}
	byState := askArea("share of frames by state")
	if want := [][]string{{"Kano", "2", "67%"}, {"Jigawa", "1", "33%"}}; !reflect.DeepEqual(byState.Table.Rows, want) {
		t.Errorf("rows %q", byState.Table.Rows)
	}
	byFrame := askArea("share of the population")
	if want := "Frame 433102007 holds the largest share of the estimated population of the 3 selected frames (2020): 45% (21,500 of 48,210 people)."; byFrame.Headline != want {
		t.Errorf("headline %q", byFrame.Headline)
	}
}

func TestAnswer_NearestGolden(t *testing.T) {
	got := askArea("where is the nearest clinic?")
	checkGolden(t, got,
		"The nearest health facility to the 3 selected frames is Kano Clinic 4, 1.23 km from frame 433102008 in a straight line, in frame 433102009.",
		facetsOf(
			"Nearest health facility", "Kano Clinic 4",
			"Distance (great circle)", "1.23 km",
			"From frame", "433102008",
			"In frame", "433102009",
			"Position (lon, lat)", "8.5123, 12.0021",
			"Type", "clinic",
			"Beds", "12",
			"Searched", "within 50 km of the selected frames",
		),
		&Table{Columns: []string{"Rank", "Name", "Distance (km)", "In frame", "From frame"}, Rows: [][]string{
			{"1", "Kano Clinic 4", "1.23", "433102009", "433102008"}}})
	if !reflect.DeepEqual(got.Used, []string{"health"}) || got.Sources[0].LayerID != "health" {
		t.Errorf("used %v sources %+v", got.Used, got.Sources)
	}
	two := askArea("the 2 closest hospitals")
	if len(two.Table.Rows) != 2 || !strings.HasPrefix(two.Headline, "The 2 health facilities nearest the 3 selected frames lie 1.23 to 3.5 km away") {
		t.Errorf("two: %q %+v", two.Headline, two.Table)
	}
	hidden := testNearest()
	hidden.Hidden = true
	for i := range hidden.Features {
		hidden.Features[i].Name, hidden.Features[i].Properties = "", nil
	}
	h := AnswerRequest(Request{Question: "nearest clinic", Datasets: demoDatasets(), Frames: areaFrames(), Nearest: hidden})
	if strings.Contains(h.Headline, "Kano Clinic") || len(h.Table.Columns) != 4 || !strings.Contains(h.Detail, "feature.read") {
		t.Errorf("hidden: %q %+v %q", h.Headline, h.Table, h.Detail)
	}
	empty := AnswerRequest(Request{Question: "nearest clinic", Datasets: demoDatasets(), Frames: areaFrames(),
		Nearest: &Nearest{Dataset: "health", LimitKm: 50, Searched: 50}})
	if empty.Headline != "No health facility lies within 50 km of the 3 selected frames." || len(empty.Used) != 0 || empty.Confidence != ConfidenceExact {
		t.Errorf("none found: %q used %v %s", empty.Headline, empty.Used, empty.Confidence)
	}
	unsearched := AnswerRequest(Request{Question: "nearest clinic", Datasets: demoDatasets(), Frames: areaFrames()})
	if unsearched.Confidence != ConfidenceUnknown || len(unsearched.Facets) != 0 || len(unsearched.Used) != 0 {
		t.Errorf("no search: %+v", unsearched)
	}
}

// TestAnswer_Values: category values the frames hold name conditions
// ("in Kano"); Parse, without frames, cannot know them.
func TestAnswer_Values(t *testing.T) {
	for _, tc := range []struct{ q, head string }{
		{"how many frames are in Kano", "2 of the 3 selected frames have state Kano."},
		{"which frames are in Jigawa", "1 of the 3 selected frames has state Jigawa."},
		{"what share of frames are in Kano Municipal", "67% of the 3 selected frames (2) have local government area Kano Municipal."},
		{"share of the population in Dutse", "18% of the estimated population of the 3 selected frames (2020) is in frames with local government area Dutse: 8,500 of 48,210 people."},
	} {
		got := askArea(tc.q)
		if got.Headline != tc.head || got.Confidence != ConfidenceExact {
			t.Errorf("%q: %s %q\nwant %q", tc.q, got.Confidence, got.Headline, tc.head)
		}
		if p := PlanOf(Request{Question: tc.q, Datasets: demoDatasets(), Frames: areaFrames()}); p.Intent != got.Intent {
			t.Errorf("%q: PlanOf %s, Answer %s", tc.q, p.Intent, got.Intent)
		}
		if p := Parse(tc.q, demoDatasets()); p.Condition != nil {
			t.Errorf("%q: Parse without frames knows the value: %+v", tc.q, p)
		}
	}
}

// TestAnswer_NeverAnotherQuestion: the wrong answers issue 14 names, and
// questions the engine cannot read fully, are never answered exactly.
func TestAnswer_NeverAnotherQuestion(t *testing.T) {
	for _, tc := range []struct {
		q, intent, conf, detail string
	}{
		{"frames with at least 5,000 residents", IntentThreshold, ConfidenceExact, ""},
		{"frames without a hospital", IntentThreshold, ConfidenceExact, ""},
		{"residents per house", IntentRatio, ConfidenceExact, ""},
		{"population density", IntentDensity, ConfidenceExact, ""},
		{"population in 2015", IntentAttribute, ConfidencePartial, "The year 2015 was not read: Estimated population is of 2020."},
		{"population 5000", IntentAttribute, ConfidencePartial, "The number 5,000 was not read."},
		{"frames with more than 3,000 buildings and fewer than 20,000 people", IntentThreshold, ConfidencePartial, `Only one condition is applied; "fewer than 20000" was not.`},
		{"frames with more than 5000", IntentUnsupported, ConfidenceUnknown, `No readable measure was named for "more than 5000".`},
		{"radiance density", IntentUnsupported, ConfidenceUnknown, "A density is computed for summed measures (totals); night-time light radiance is a mean."},
		{"radiance per person", IntentUnsupported, ConfidenceUnknown, "A ratio is computed between two summed measures (totals); night-time light radiance is a mean and estimated population is a total."},
		{"nearest clinic within 5 km", IntentNearest, ConfidencePartial, "The number 5 was not read: the search goes up to a fixed distance."},
		{"nearest population", IntentUnsupported, ConfidenceUnknown, "A distance is measured to features; Estimated population holds none."},
		{"frames with a population density above 20000 people per km²", IntentThreshold, ConfidenceExact, ""},
	} {
		got := askArea(tc.q)
		if got.Intent != tc.intent || got.Confidence != tc.conf || !strings.Contains(got.Detail, tc.detail) {
			t.Errorf("%q: %s %s detail %q; want %s %s with %q", tc.q, got.Intent, got.Confidence, got.Detail, tc.intent, tc.conf, tc.detail)
		}
		if strings.Contains(tc.q, "at least") && got.Intent == IntentRank {
			t.Errorf("%q answered as a ranking", tc.q)
		}
	}
}

// TestAnswer_QuestionsCrossCheck recomputes the figures of densities,
// ratios, thresholds, gaps and shares over random frames directly from
// the inputs.
func TestAnswer_QuestionsCrossCheck(t *testing.T) {
	ds := demoDatasets()
	for seed := uint64(1); seed <= 20; seed++ {
		frames := randomFrames(seed, 1+int(seed*7)%50)
		for i := range frames {
			frames[i].AreaKm2 = 0.8 + float64(i%7)/100
		}
		n := len(frames)
		ask := func(q string) Insight { return AnswerRequest(Request{Question: q, Datasets: ds, Frames: frames}) }
		val := func(f Frame, d, a string) (float64, bool) {
			v, ok := f.Data[d].Attrs[a]
			return v.Num, ok
		}
		facet := func(ins Insight, label string) string {
			for _, f := range ins.Facets {
				if f.Label == label {
					return f.Value
				}
			}
			return ""
		}

		// Density: the population over the area of the frames recording it.
		pop, area, popN := 0.0, 0.0, 0
		for _, f := range frames {
			if v, ok := val(f, "population", "population_2020"); ok {
				pop += v
				area += f.AreaKm2
				popN++
			}
		}
		d := ask("population density")
		if got, want := facet(d, "Estimated population density (2020)"), FormatNumber(pop/area)+" people per km²"; got != want {
			t.Errorf("seed %d density %q, want %q", seed, got, want)
		}
		if got := facet(d, "Area (WGS84 ellipsoid)"); got != "" {
			t.Errorf("seed %d: an area basis the request did not give: %q", seed, got)
		}
		if got, want := facet(d, "Area"), FormatNumber(area)+" km²"; got != want {
			t.Errorf("seed %d area %q, want %q", seed, got, want)
		}

		// Ratio: facilities per 100,000 people, each total over its records.
		fac, facN := 0.0, 0
		for _, f := range frames {
			if v, ok := val(f, "health", "facility_count"); ok {
				fac += v
				facN++
			}
		}
		r := ask("health facilities per 100,000 people")
		if pop > 0 && facN > 0 {
			if got, want := facet(r, "Health facilities per 100,000 people (2020)"), FormatNumber(fac/pop*1e5); got != want {
				t.Errorf("seed %d ratio %q, want %q", seed, got, want)
			}
			if got, want := facet(r, "Frames with both recorded"), fmtInt(facN)+" of "+fmtInt(n); got != want {
				t.Errorf("seed %d both %q, want %q", seed, got, want)
			}
		}

		// Threshold: frames with at least 20,000 people, and their total.
		k, sub := 0, 0.0
		var rows []string
		for _, f := range frames {
			if v, ok := val(f, "population", "population_2020"); ok && v >= 20000 {
				k++
				sub += v
				rows = append(rows, f.ID)
			}
		}
		th := ask("frames with at least 20,000 residents")
		if got, want := facet(th, "Frames with at least 20,000 people"), fmtInt(k)+" of "+fmtInt(n); got != want {
			t.Errorf("seed %d threshold %q, want %q", seed, got, want)
		}
		if k > 0 {
			if got, want := facet(th, "Total estimated population in those frames (2020)"), withUnit(sub, &ds[4].Attributes[0]); got != want {
				t.Errorf("seed %d subset %q, want %q", seed, got, want)
			}
			var ids []string
			for _, row := range th.Table.Rows {
				ids = append(ids, row[0])
			}
			sort.Strings(ids)
			sort.Strings(rows)
			if !reflect.DeepEqual(ids, rows) {
				t.Errorf("seed %d threshold rows %v, want %v", seed, ids, rows)
			}
			checkHeadlineFigures(t, th, fmtInt(k), fmtInt(n), "20,000", FormatNumber(sub), "2020")
		}

		// Gap: frames recording no facility.
		g := 0
		for _, f := range frames {
			if v, ok := val(f, "health", "facility_count"); !ok || v == 0 {
				g++
			}
		}
		gp := ask("how many frames have no clinic")
		if got, want := facet(gp, "Frames with no health facility (no record or 0)"), fmtInt(g)+" of "+fmtInt(n); got != want {
			t.Errorf("seed %d gap %q, want %q", seed, got, want)
		}
		if got, want := facet(gp, "Share of frames"), percent(g, n); got != want {
			t.Errorf("seed %d gap share %q, want %q", seed, got, want)
		}

		// Share: the population of urban frames.
		urban := 0.0
		for _, f := range frames {
			if f.Data["settlement"].Attrs["settlement_class"].Str == "urban" {
				if v, ok := val(f, "population", "population_2020"); ok {
					urban += v
				}
			}
		}
		sh := ask("what share of the population lives in urban frames")
		if pop > 0 {
			want := strconv.FormatFloat(math.Round(100*urban/pop), 'f', 0, 64) + "%"
			if p := 100 * urban / pop; (math.Round(p) == 0 && urban > 0) || (math.Round(p) == 100 && urban < pop) {
				want = percentOf(urban, pop) // the one-decimal edge cases of percentOf
			}
			if got := facet(sh, "Share of estimated population (2020)"); got != want {
				t.Errorf("seed %d share %q, want %q", seed, got, want)
			}
		}
		_ = popN
	}
}

// embedFake is an embedding for tests: one dimension per concept of a
// small vocabulary, so that texts sharing a concept are alike and others
// orthogonal. The query and document prefixes carry no concept.
func embedFake(text string) []float32 {
	vocab := map[string]int{"pupil": 0, "student": 0, "learner": 0, "enrolled": 0, "school": 1,
		"2015": 2, "population": 3, "people": 3, "folk": 3, "resident": 3, "growth": 3, "road": 4, "length": 4}
	v := make([]float32, 5)
	for _, t := range tokenize(text) {
		if k, ok := vocab[t.sing]; ok {
			v[k]++
		}
	}
	return v
}

// embeddingsFor embeds what the handler would for req.
func embeddingsFor(req Request) *Embeddings {
	e := &Embeddings{Texts: map[string][]float32{}, Measures: map[string][]float32{}}
	for _, t := range EmbedTexts(req) {
		e.Texts[t] = embedFake(t)
	}
	for _, d := range req.Datasets {
		for _, a := range d.Attributes {
			e.Measures[d.ID+"."+a.Name] = embedFake(MeasureText(d, a))
		}
	}
	return e
}

func TestAnswer_Hybrid(t *testing.T) {
	ds := []Dataset{
		{ID: "census", Name: "Census", Attributes: []Attribute{
			{Name: "population_2020", Label: "Estimated population", Unit: "people", Type: "number", Aggregation: "sum", Year: 2020},
			{Name: "population_2015", Label: "Estimated population", Unit: "people", Type: "number", Aggregation: "sum", Year: 2015,
				Aliases: []string{"census 2015"}},
		}},
		{ID: "schools", Name: "Schools", Description: "Pupils enrolled in primary schools.", Attributes: []Attribute{
			{Name: "pupils_enrolled", Label: "Pupils enrolled", Unit: "pupils", Type: "number", Aggregation: "sum"}}},
		{ID: "roads", Name: "Roads", Attributes: []Attribute{{Name: "road_km", Label: "Road length", Unit: "km", Type: "number", Aggregation: "sum"}}},
	}
	frames := []Frame{
		{ID: "1", Known: true, Data: map[string]DatasetFrame{"census": {Attrs: map[string]Value{"population_2020": num(100), "population_2015": num(80)}},
			"schools": {Attrs: map[string]Value{"pupils_enrolled": num(30)}}}},
		{ID: "2", Known: true, Data: map[string]DatasetFrame{"census": {Attrs: map[string]Value{"population_2020": num(50), "population_2015": num(45)}},
			"schools": {Attrs: map[string]Value{"pupils_enrolled": num(12)}}}},
	}
	tests := []struct {
		q                   string
		lexical, hybrid     string // intents
		measures            []string
		retrieval, headline string
	}{
		// No word of "students" is in any name, label or synonym: lexical
		// retrieval cannot answer, hybrid finds the pupils by meaning.
		{"how many students are there", IntentUnsupported, IntentAttribute, []string{"schools.pupils_enrolled"}, RetrievalHybrid,
			"The 2 selected frames have a pupils enrolled of 42."},
		{"number of learners per km2", IntentUnsupported, IntentDensity, []string{"schools.pupils_enrolled"}, RetrievalHybrid, ""},
		// Two attributes carry population; the folks of 2015 are told apart
		// by meaning.
		{"how many folks lived here in 2015", IntentAttribute, IntentAttribute, []string{"census.population_2015"}, RetrievalHybrid,
			"The 2 selected frames have an estimated population of 125 (2015)."},
		// Named exactly: retrieval none either way.
		{"road length", IntentAttribute, IntentAttribute, []string{"roads.road_km"}, RetrievalNone, ""},
		// A word qualifying a named measure is not a measure by meaning.
		{"population growth", IntentUnsupported, IntentUnsupported, nil, RetrievalNone, ""},
		// Nothing near enough: still unsupported.
		{"what is the GDP", IntentUnsupported, IntentUnsupported, nil, RetrievalNone, ""},
	}
	for _, tc := range tests {
		req := Request{Question: tc.q, Datasets: ds, Frames: frames}
		if got := AnswerRequest(req); got.Intent != tc.lexical {
			t.Errorf("%q lexically: %s", tc.q, got.Intent)
		}
		req.Embeddings = embeddingsFor(req)
		got := AnswerRequest(req)
		p := PlanOf(req)
		if got.Intent != tc.hybrid || !reflect.DeepEqual(p.Measures, tc.measures) {
			t.Errorf("%q hybrid: %s %v (plan %+v)", tc.q, got.Intent, got.Headline, p)
			continue
		}
		if got.Intent != IntentUnsupported && got.Retrieval != tc.retrieval {
			t.Errorf("%q: retrieval %s, want %s", tc.q, got.Retrieval, tc.retrieval)
		}
		if tc.headline != "" && got.Headline != tc.headline {
			t.Errorf("%q: headline %q, want %q", tc.q, got.Headline, tc.headline)
		}
		if tc.retrieval == RetrievalHybrid && (got.Confidence != ConfidencePartial || got.Detail == "") {
			t.Errorf("%q: %s %q", tc.q, got.Confidence, got.Detail)
		}
	}
	// What is embedded: content words only, with the task prefixes.
	texts := EmbedTexts(Request{Question: "How many students are there in 2015?", Datasets: ds, Frames: frames})
	if want := []string{"search_query: students 2015", "search_query: students"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("EmbedTexts = %q, want %q", texts, want)
	}
	if mt := MeasureText(ds[1], ds[1].Attributes[0]); !strings.HasPrefix(mt, "search_document: Pupils enrolled") || !strings.Contains(mt, "primary schools") {
		t.Errorf("MeasureText = %q", mt)
	}
	// Vectors of another length, or none, match nothing.
	req := Request{Question: "how many students are there", Datasets: ds, Frames: frames,
		Embeddings: &Embeddings{Texts: map[string][]float32{"search_query: students": {1}}, Measures: map[string][]float32{"schools.pupils_enrolled": {1, 0}}}}
	if got := AnswerRequest(req); got.Intent != IntentUnsupported {
		t.Errorf("mismatched vectors: %s", got.Intent)
	}
}

func TestCosine(t *testing.T) {
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{1, 0}, 1},
		{[]float32{1, 0}, []float32{0, 2}, 0},
		{[]float32{1, 1}, []float32{-1, -1}, -1},
		{[]float32{1}, []float32{1, 0}, -1},
		{nil, nil, -1},
		{[]float32{0, 0}, []float32{1, 0}, -1},
	} {
		if got := cosine(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNumbersAndSymbols(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"5,000 people", []string{"5000", "people"}},
		{"1,234,567.5", []string{"1234567.5"}},
		{"1,2,3", []string{"1", "2", "3"}},
		{"2.5 km", []string{"2.5", "km"}},
		{"v1.2", []string{"v1", "2"}},
		{"what's", []string{"whats"}},
	} {
		var got []string
		for _, tk := range tokenize(tc.in) {
			got = append(got, tk.raw)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		">= 5": " at least  5", "<=5": " at most 5", "> 5": " more than  5", "<5": " less than 5", "5+": "5 or more ",
		"10k+": "10k or more ", "40%": "40 percent ", "people/house": "people per house", "a+b": "a+b",
	} {
		if got := normalizeSymbols(in); got != want {
			t.Errorf("normalizeSymbols(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		q    string
		want float64
	}{
		{"10k", 1e4}, {"10 thousand", 1e4}, {"a thousand", 1e3}, {"1.5 million", 1.5e6}, {"five", 5}, {"twenty hundred", 2000}, {"2.5", 2.5},
	} {
		v, _, ok := numberAt(tokenize(tc.q), 0)
		if !ok || v != tc.want {
			t.Errorf("numberAt(%q) = %v, %v; want %v", tc.q, v, ok, tc.want)
		}
	}
	for _, w := range []string{"k", "", ".5", "5.", "1.2.3", "1e5", "x"} {
		if _, ok := parseNumberToken(w); ok {
			t.Errorf("parseNumberToken(%q) accepted", w)
		}
	}
}
