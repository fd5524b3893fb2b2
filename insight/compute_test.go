package insight

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"frameindex/plan"
)

// Hand-written plans over a six-frame fixture: every figure is worked out
// here by hand, not by the engine.
//
//	frame  pop    bld  fac  radiance  settlement  lga    centre (lon, lat)
//	1      1000   200  -    5         urban       Dala   (8.50, 12.00)
//	2      3000   500  2    20        urban       Dala   (8.51, 12.00)
//	3      500    100  -    -         rural       Fagge  (8.52, 12.00)
//	4      -      -    1    1         rural       Fagge  (8.53, 12.00)
//	5      2000   300  -    8         urban       Nassarawa (8.54, 12.00)
//	6      1500   250  1    -         -           -      (8.55, 12.00)
//
// Each frame is 1 km² except frame 6 (2 km²).
func fixtureInput() *Input {
	nan := math.NaN()
	in := &Input{
		Frames: FrameSet{
			IDs:     []uint64{1, 2, 3, 4, 5, 6},
			Lon:     []float64{8.50, 8.51, 8.52, 8.53, 8.54, 8.55},
			Lat:     []float64{12, 12, 12, 12, 12, 12},
			AreaKm2: []float64{1, 1, 1, 1, 1, 2},
		},
		Datasets: []Dataset{
			{ID: "admin", Name: "Administrative areas", Frames: 100},
			{ID: "health", Name: "Health facilities", Frames: 10, Features: 12},
			{ID: "population", Name: "Estimated population", Frames: 90},
		},
		Presence: map[string]Presence{"admin": {Frames: 5}, "health": {Frames: 3, Features: 4}, "population": {Frames: 5}},
		Columns: []Column{
			{Dataset: "population", DatasetName: "Estimated population",
				Attr: Attribute{Name: "population_2020", Label: "Estimated population", Unit: "people", Type: "number", Aggregation: "sum", Year: 2020},
				Num:  []float64{1000, 3000, 500, nan, 2000, 1500}},
			{Dataset: "buildings", DatasetName: "Buildings",
				Attr: Attribute{Name: "building_count", Label: "Buildings", Unit: "buildings", Type: "number", Aggregation: "sum", Year: 2020},
				Num:  []float64{200, 500, 100, nan, 300, 250}},
			{Dataset: "health", DatasetName: "Health facilities",
				Attr: Attribute{Name: "facility_count", Label: "Health facilities", Unit: "facilities", Type: "number", Aggregation: "sum", Year: 2020},
				Num:  []float64{nan, 2, nan, 1, nan, 1}},
			{Dataset: "health", DatasetName: "Health facilities", Num: []float64{0, 2, 0, 1, 0, 1}},
			{Dataset: "nightlights", DatasetName: "Night-time lights",
				Attr: Attribute{Name: "radiance", Label: "Night-time light radiance", Unit: "nW/cm²/sr", Type: "number", Aggregation: "mean", Year: 2022},
				Num:  []float64{5, 20, nan, 1, 8, nan}},
			{Dataset: "settlement", DatasetName: "Settlement class",
				Attr:  Attribute{Name: "settlement_class", Label: "Settlement class", Type: "category", Aggregation: "mode"},
				Codes: []int32{0, 0, 1, 1, 0, -1}, Dict: []string{"urban", "rural"}},
			{Dataset: "admin", DatasetName: "Administrative areas",
				Attr:  Attribute{Name: "lga", Label: "Local government area", Type: "category", Aggregation: "mode"},
				Codes: []int32{0, 0, 1, 1, 2, -1}, Dict: []string{"Dala", "Fagge", "Nassarawa"}},
		},
	}
	return in
}

// m names a measure exactly.
func m(ds, attr string) plan.Measure {
	return plan.Measure{Dataset: ds, Attribute: attr, Match: "name"}
}

var pop = m("population", "population_2020")

func value(t *testing.T, a *Answer) float64 {
	t.Helper()
	if a.Result.Value == nil {
		t.Fatalf("no value: %+v", a.Insight)
	}
	return *a.Result.Value
}

func near(t *testing.T, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("value %v, want %v", got, want)
	}
}

func TestComputeAggregations(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    plan.Plan
		want float64
	}{
		{"total", plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}}, 8000},
		{"mean", plan.Plan{Agg: plan.AggMean, Measures: []plan.Measure{pop}}, 1600},
		{"median", plan.Plan{Agg: plan.AggMedian, Measures: []plan.Measure{pop}}, 1500},
		{"median even", plan.Plan{Agg: plan.AggMedian, Measures: []plan.Measure{m("nightlights", "radiance")}}, 6.5},
		{"min", plan.Plan{Agg: plan.AggMin, Measures: []plan.Measure{pop}}, 500},
		{"max", plan.Plan{Agg: plan.AggMax, Measures: []plan.Measure{pop}}, 3000},
		{"count no facility", plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{{Measure: m("health", "facility_count"), Op: plan.OpEq, Value: 0}}}, 3},
		{"count two conditions", plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{
			{Measure: pop, Op: plan.OpGT, Value: 1000},
			{Measure: m("health", "facility_count"), Op: plan.OpEq, Value: 0}}}, 1},
		{"count or", plan.Plan{Agg: plan.AggCount, Join: "or", Filters: []plan.Filter{
			{Measure: pop, Op: plan.OpGT, Value: 2500},
			{Measure: m("settlement", "settlement_class"), Op: plan.OpEq, Text: "rural"}}}, 3},
		{"count between", plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{{Measure: pop, Op: plan.OpBetween, Value: 500, Value2: 2000}}}, 4},
		{"urban without clinic", plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{
			{Measure: m("settlement", "settlement_class"), Op: plan.OpEq, Text: "urban"},
			{Measure: m("health", "facility_count"), Op: plan.OpGT, Value: 0, Not: true}}}, 2},
		{"not urban", plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{
			{Measure: m("settlement", "settlement_class"), Op: plan.OpNe, Text: "urban"}}}, 3}, // frame 6 records none: not urban
		{"not negates", plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{
			{Measure: m("settlement", "settlement_class"), Op: plan.OpEq, Text: "urban", Not: true}}}, 3},
		{"share of frames", plan.Plan{Agg: plan.AggShare, Filters: []plan.Filter{{Measure: m("settlement", "settlement_class"), Op: plan.OpEq, Text: "urban"}}}, 0.5},
		{"share of population", plan.Plan{Agg: plan.AggShare, Measures: []plan.Measure{pop}, Filters: []plan.Filter{{Measure: m("settlement", "settlement_class"), Op: plan.OpEq, Text: "urban"}}}, 6000.0 / 8000},
		{"ratio", plan.Plan{Agg: plan.AggRatio, Measures: []plan.Measure{m("health", "facility_count"), pop}, Scale: 10000}, 4.0 / 8000 * 10000},
		{"density", plan.Plan{Agg: plan.AggDensity, Measures: []plan.Measure{pop}}, 8000.0 / 7},
		{"density ha", plan.Plan{Agg: plan.AggDensity, Measures: []plan.Measure{pop}, Per: "ha"}, 8000.0 / 700},
		{"features", plan.Plan{Agg: plan.AggFeatureCount, Measures: []plan.Measure{{Dataset: "health", Match: "name"}}}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			a := Compute(&p, fixtureInput())
			near(t, value(t, a), tc.want)
			if a.Confidence != ConfidenceExact {
				t.Errorf("confidence %s, want exact (%s)", a.Confidence, a.Detail)
			}
			if !strings.HasPrefix(a.Detail, "Read as: ") {
				t.Errorf("detail %q does not start with the plan", a.Detail)
			}
		})
	}
}

func TestComputeMeanIsNotTotal(t *testing.T) {
	a := Compute(&plan.Plan{Agg: plan.AggMean, Measures: []plan.Measure{pop}}, fixtureInput())
	if a.Intent != IntentAttribute || !strings.Contains(a.Headline, "mean") || !strings.Contains(a.Headline, "1,600") {
		t.Errorf("headline %q", a.Headline)
	}
	if !strings.HasPrefix(a.Detail, "Read as: mean per frame of population_2020 over 6 frames.") {
		t.Errorf("detail %q", a.Detail)
	}
	if !strings.Contains(a.Detail, "recorded on 5 of the 6 frames") {
		t.Errorf("detail %q does not say a frame was left out", a.Detail)
	}
}

func TestComputeWeights(t *testing.T) {
	in := fixtureInput()
	in.Frames.Weight = []float64{1, 0.5, 1, 1, 0, 1}
	a := Compute(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}}, in)
	near(t, value(t, a), 1000+1500+500+1500)
	a = Compute(&plan.Plan{Agg: plan.AggMean, Measures: []plan.Measure{pop}}, in)
	near(t, value(t, a), (1000+1500+500+1500)/3.5)
	if !strings.Contains(a.Detail, "weighted") {
		t.Errorf("detail %q does not say frames are weighted", a.Detail)
	}
}

func TestComputeRankAndBreakdown(t *testing.T) {
	a := Compute(&plan.Plan{Agg: plan.AggRank, Measures: []plan.Measure{pop}, Order: &plan.Order{Desc: true, K: 2}}, fixtureInput())
	if !slices.Equal(a.Result.Frames, []string{"2", "5"}) {
		t.Errorf("top 2 %v", a.Result.Frames)
	}
	a = Compute(&plan.Plan{Agg: plan.AggRank, Measures: []plan.Measure{pop}, Order: &plan.Order{K: 1}}, fixtureInput())
	if !slices.Equal(a.Result.Frames, []string{"3"}) {
		t.Errorf("bottom 1 %v", a.Result.Frames)
	}
	lga := m("admin", "lga")
	a = Compute(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}, Group: &plan.Group{Measure: lga}}, fixtureInput())
	if a.Intent != IntentBreakdown {
		t.Errorf("intent %s", a.Intent)
	}
	want := map[string]float64{"Dala": 4000, "Nassarawa": 2000, "Fagge": 500}
	var keys []string
	for _, g := range a.Result.Groups {
		keys = append(keys, g.Key)
		near(t, *g.Value, want[g.Key])
	}
	if !slices.Equal(keys, []string{"Dala", "Nassarawa", "Fagge"}) {
		t.Errorf("groups %v", keys)
	}
	if len(a.Table.Rows) != 3 || a.Table.Rows[0][0] != "Dala" || a.Table.Rows[0][1] != "4,000" {
		t.Errorf("table %v", a.Table)
	}
	if !strings.Contains(a.Headline, "Dala (4,000)") {
		t.Errorf("headline %q", a.Headline)
	}
	// Fewest health facilities per 10,000 people, by LGA, bottom first.
	a = Compute(&plan.Plan{Agg: plan.AggRatio, Measures: []plan.Measure{m("health", "facility_count"), pop}, Scale: 10000,
		Group: &plan.Group{Measure: lga}, Order: &plan.Order{Desc: false}}, fixtureInput())
	got := map[string]float64{}
	for _, g := range a.Result.Groups {
		if g.Value != nil {
			got[g.Key] = *g.Value
		}
	}
	near(t, got["Dala"], 2.0/4000*10000)
	near(t, got["Fagge"], 1.0/500*10000)
	if a.Result.Groups[0].Key != "Nassarawa" {
		t.Errorf("first group %v", a.Result.Groups)
	}
}

// line is a Nearness over facilities on the parallel 12°N, by haversine.
type line []float64

func (l line) NearestKm(lon, lat, limit float64) float64 {
	best := math.Inf(1)
	for _, x := range l {
		if d := testHaversine(lon, lat, x, 12); d < best {
			best = d
		}
	}
	if best > limit {
		return math.Inf(1)
	}
	return best
}

func testHaversine(lon1, lat1, lon2, lat2 float64) float64 {
	const rad = math.Pi / 180
	h := math.Pow(math.Sin((lat2-lat1)*rad/2), 2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Pow(math.Sin((lon2-lon1)*rad/2), 2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(h))
}

func TestComputeDistances(t *testing.T) {
	in := fixtureInput()
	in.Near = map[string]Nearness{"health": line{8.50}}
	a := Compute(&plan.Plan{Agg: plan.AggFarthest, Distance: &plan.Distance{Feature: "health"}}, in)
	if !slices.Equal(a.Result.Frames, []string{"6"}) {
		t.Errorf("farthest %v", a.Result.Frames)
	}
	near(t, value(t, a), testHaversine(8.55, 12, 8.50, 12))
	if a.Intent != IntentFarthest || !strings.Contains(a.Headline, "farthest") {
		t.Errorf("intent %s headline %q", a.Intent, a.Headline)
	}
	a = Compute(&plan.Plan{Agg: plan.AggNearest, Distance: &plan.Distance{Feature: "health"}}, in)
	near(t, value(t, a), 0)
	// Frames 1-3 lie within 2.5 km (0, 1.09, 2.18 km), 4-6 beyond.
	a = Compute(&plan.Plan{Agg: plan.AggCoverage, Measures: []plan.Measure{pop}, Distance: &plan.Distance{Feature: "health", Km: 2.5, Op: "beyond"}}, in)
	near(t, value(t, a), 2000+1500)
	if !strings.Contains(a.Headline, "3,500 people live more than 2.5 km") {
		t.Errorf("headline %q", a.Headline)
	}
	a = Compute(&plan.Plan{Agg: plan.AggCoverage, Distance: &plan.Distance{Feature: "health", Km: 2.5, Op: "within"}}, in)
	near(t, value(t, a), 3)
	// Nothing within the search: beyond any distance, never a figure.
	in.Near = map[string]Nearness{"health": line{20}}
	a = Compute(&plan.Plan{Agg: plan.AggFarthest, Distance: &plan.Distance{Feature: "health"}}, in)
	if a.Result.Value != nil || !strings.Contains(a.Headline, "none lies within 100 km") {
		t.Errorf("value %v headline %q", a.Result.Value, a.Headline)
	}
}

func TestComputePlaceOutside(t *testing.T) {
	in := fixtureInput()
	in.Places = []PlaceCheck{{Name: "Dala", Found: true, InFrames: false}}
	a := Compute(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}, Places: []string{"Dala"}}, in)
	if a.Confidence != ConfidencePartial || a.Result.Value != nil || !strings.Contains(a.Headline, "Dala is not in the selection") {
		t.Errorf("confidence %s value %v headline %q", a.Confidence, a.Result.Value, a.Headline)
	}
	in.Places[0].InFrames = true
	a = Compute(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}, Places: []string{"Dala"}}, in)
	if a.Result.Value == nil || a.Confidence != ConfidenceExact {
		t.Errorf("a place inside: %+v", a.Insight)
	}
}

func TestComputeUnreadIsNeverExact(t *testing.T) {
	p := plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}, Words: []plan.Word{
		{Text: "total", Role: "agg", Meaning: true}, {Text: "population", Role: "measure", Meaning: true},
		{Text: "growth", Role: "unread", Meaning: true}, {Text: "the", Role: "function"}}}
	a := Compute(&p, fixtureInput())
	if a.Confidence != ConfidencePartial || !strings.Contains(a.Detail, `Not read: "growth"`) {
		t.Errorf("confidence %s detail %q", a.Confidence, a.Detail)
	}
	if !slices.Equal(a.Unread, []string{"growth"}) {
		t.Errorf("unread %v", a.Unread)
	}
	p.Agg = plan.AggUnsupported
	a = Compute(&p, fixtureInput())
	if a.Confidence != ConfidenceUnknown || a.Intent != IntentUnsupported {
		t.Errorf("unsupported: %s %s", a.Confidence, a.Intent)
	}
	loose := plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{{Dataset: "population", Attribute: "population_2020", Match: "synonym"}}}
	if a := Compute(&loose, fixtureInput()); a.Confidence != ConfidencePartial {
		t.Errorf("a measure matched by synonym is %s", a.Confidence)
	}
}

func TestComputeProfile(t *testing.T) {
	a := Compute(&plan.Plan{Agg: plan.AggProfile}, fixtureInput())
	var labels []string
	for _, f := range a.Facets {
		labels = append(labels, f.Label)
	}
	want := []string{"Areas selected", "Local government area", "Buildings", "Estimated population (2020)", "Settlement class"}
	if !slices.Equal(labels, want) {
		t.Errorf("facets %v, want %v", labels, want)
	}
	if a.Facets[3].Value != "8,000" || a.Facets[4].Value != "urban (60%)" {
		t.Errorf("facets %v", a.Facets)
	}
	if a.Table == nil || !slices.Equal(a.Table.Columns, []string{"Dataset", "In selection", "In dataset"}) || a.Table.Rows[1][1] != "4" {
		t.Errorf("table %+v", a.Table)
	}
}

func TestFormatFigure(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.185, "0.185"}, {0.18512, "0.185"}, {9812.4, "9,812.4"}, {12.5, "12.5"}, {1.25, "1.25"}, {100.4, "100.4"},
		{0.0012345, "0.00123"}, {-2.5, "-2.5"}, {1234567, "1,234,567"}, {math.NaN(), "n/a"},
	} {
		if got := FormatFigure(tc.v); got != tc.want {
			t.Errorf("FormatFigure(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	// Never more than 0.5 % off.
	for v := 0.001; v < 1e6; v *= 1.0137 {
		s := strings.ReplaceAll(FormatFigure(v), ",", "")
		shown, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(shown-v)/v > 0.005 {
			t.Fatalf("FormatFigure(%v) = %s loses %.2f%%", v, s, 100*math.Abs(shown-v)/v)
		}
	}
}

func TestComputeNearestListed(t *testing.T) {
	in := fixtureInput()
	d1, d2 := testHaversine(8.52, 12, 8.521, 12.002), testHaversine(8.55, 12, 8.56, 12)
	in.Nearest = &Nearest{Dataset: "health", LimitKm: 100, Features: []NearFeature{
		{Frame: "3", From: "3", DistanceKm: d1, Lon: 8.521, Lat: 12.002, Name: "Dala Clinic",
			Properties: []Property{{Key: "beds", Value: Value{Num: 12, IsNum: true}}}},
		{Frame: "9", From: "6", DistanceKm: d2, Lon: 8.56, Lat: 12, Name: ""},
	}}
	p := &plan.Plan{Agg: plan.AggNearest, Distance: &plan.Distance{Feature: "health", List: 3}}
	a := Compute(p, in)
	near(t, value(t, a), d1)
	if !slices.Equal(a.Result.Frames, []string{"3"}) || a.Result.Unit != "km" || a.Intent != IntentNearest {
		t.Errorf("result %+v intent %s", a.Result, a.Intent)
	}
	if a.Table == nil || len(a.Table.Rows) != 2 || a.Table.Rows[0][1] != "Dala Clinic" || a.Table.Rows[1][1] != "unnamed" ||
		a.Table.Rows[1][2] != FormatFigure(d2) {
		t.Errorf("table %+v", a.Table)
	}
	if !strings.Contains(a.Headline, "The 2 health facilities nearest") || !strings.Contains(a.Headline, "inside it") ||
		!strings.Contains(a.Detail, "Only 2 health facilities lie within 100 km") {
		t.Errorf("headline %q detail %q", a.Headline, a.Detail)
	}
	if !slices.Contains(a.Used, "health") || a.Confidence != ConfidenceExact {
		t.Errorf("used %v confidence %s", a.Used, a.Confidence)
	}
	// Hidden features: no names, no positions.
	in.Nearest.Hidden = true
	a = Compute(p, in)
	if len(a.Table.Columns) != 4 || strings.Contains(a.Headline, "Dala Clinic") {
		t.Errorf("hidden: %q %+v", a.Headline, a.Table)
	}
	// Nothing within the limit.
	in.Nearest = &Nearest{Dataset: "health", LimitKm: 100}
	if a = Compute(p, in); a.Result.Value != nil || !strings.Contains(a.Headline, "No health facility lies within 100 km") {
		t.Errorf("none: %v %q", a.Result.Value, a.Headline)
	}
	// No search made: the nearest frame is answered instead.
	in.Nearest = nil
	in.Near = map[string]Nearness{"health": line{8.50}}
	if a = Compute(p, in); a.Table != nil && len(a.Table.Rows) > 0 || !slices.Equal(a.Result.Frames, []string{"1"}) {
		t.Errorf("no search: %+v", a.Insight)
	}
}

func TestComputeFramesNearestFarthestK(t *testing.T) {
	in := fixtureInput()
	in.Near = map[string]Nearness{"health": line{8.50}}
	// Distances grow with the frame's longitude: 6, 5, 4 are farthest.
	a := Compute(&plan.Plan{Agg: plan.AggFarthest, Order: &plan.Order{Desc: true, K: 3}, Distance: &plan.Distance{Feature: "health"}}, in)
	if !slices.Equal(a.Result.Frames, []string{"6", "5", "4"}) || a.Table == nil || len(a.Table.Rows) != 3 {
		t.Fatalf("farthest 3: %v %+v", a.Result.Frames, a.Table)
	}
	near(t, value(t, a), testHaversine(8.55, 12, 8.50, 12))
	if a.Table.Rows[2][2] != FormatFigure(testHaversine(8.53, 12, 8.50, 12)) || !strings.Contains(a.Headline, "The 3 frames") {
		t.Errorf("rows %v headline %q", a.Table.Rows, a.Headline)
	}
	a = Compute(&plan.Plan{Agg: plan.AggNearest, Order: &plan.Order{K: 2}, Distance: &plan.Distance{Feature: "health"}}, in)
	if !slices.Equal(a.Result.Frames, []string{"1", "2"}) {
		t.Errorf("nearest 2: %v", a.Result.Frames)
	}
	// A frame with nothing within the search is the farthest, its
	// distance unknown.
	in.Near = map[string]Nearness{"health": line{7.6}} // 8.50 is 98 km away, 8.55 beyond 100 km
	a = Compute(&plan.Plan{Agg: plan.AggFarthest, Order: &plan.Order{Desc: true, K: 2}, Distance: &plan.Distance{Feature: "health"}}, in)
	if len(a.Result.Frames) != 2 || a.Table.Rows[0][2] != "more than 100" || !strings.Contains(a.Detail, "no health facility within 100 km") {
		t.Errorf("beyond the search: %v %v %q", a.Result.Frames, a.Table.Rows, a.Detail)
	}
}

func TestComputeDistanceBand(t *testing.T) {
	in := fixtureInput()
	in.Near = map[string]Nearness{"health": line{8.50}}
	// Frames at 0, 1.09, 2.18, 3.26, 4.35, 5.44 km: between 1 and 4 km are
	// frames 2, 3, 4 (3,000 + 500 + none recorded).
	d := &plan.Distance{Feature: "health", Km: 1, Km2: 4, Op: "between"}
	a := Compute(&plan.Plan{Agg: plan.AggCoverage, Measures: []plan.Measure{pop}, Distance: d}, in)
	near(t, value(t, a), 3500)
	if !strings.Contains(a.Headline, "between 1 and 4 km from the nearest health facility") {
		t.Errorf("headline %q", a.Headline)
	}
	a = Compute(&plan.Plan{Agg: plan.AggCoverage, Distance: d}, in)
	near(t, value(t, a), 3)
	// As a condition of a count: the same frames.
	a = Compute(&plan.Plan{Agg: plan.AggCount, Distance: d}, in)
	near(t, value(t, a), 3)
	// The bound is inclusive outside, exclusive inside: 0-1.09 is not in
	// a band from 1.09.
	if d := (&plan.Distance{Op: "between", Km: 2, Km2: 5}); d.Holds(2) || !d.Holds(5) || d.Holds(5.01) || !d.Holds(2.01) {
		t.Errorf("Holds")
	}
}

func TestComputeDerivedFilters(t *testing.T) {
	in := fixtureInput()
	// Density: frame 6 holds 1,500 people on 2 km² (750 per km²); more
	// than 900 per km²: frames 1, 2, 5.
	f := plan.Filter{Measure: pop, Op: plan.OpGT, Value: 900, Per: "km2"}
	a := Compute(&plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{f}}, in)
	near(t, value(t, a), 3)
	if !strings.Contains(a.Headline, "per km² over 900") {
		t.Errorf("headline %q", a.Headline)
	}
	f.Value = 700 // frame 6 now meets it
	near(t, value(t, Compute(&plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{f}}, in)), 4)
	f.Per = "ha" // 7 per hectare: frames 1, 2, 5 (10, 30, 20) and 6 (7.5)
	f.Value = 7
	near(t, value(t, Compute(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}, Filters: []plan.Filter{f}}, in)), 1000+3000+2000+1500)
	// Ratio: people per health facility over 1,000. Frame 2 has 1,500,
	// frame 6 1,500, frame 4 none (no people, one facility), frames 1, 3
	// and 5 people and no facility (more than any number).
	fac := m("health", "facility_count")
	r := plan.Filter{Measure: pop, Op: plan.OpGT, Value: 1000, Of: &fac}
	a = Compute(&plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{r}}, in)
	near(t, value(t, a), 5)
	if !strings.Contains(a.Detail, "than any number") || a.Confidence != ConfidenceExact {
		t.Errorf("detail %q confidence %s", a.Detail, a.Confidence)
	}
	r.Op, r.Value = plan.OpLT, 2000 // only the frames with a facility: 2, 4 and 6
	near(t, value(t, Compute(&plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{r}}, in)), 3)
	// None of either: no ratio, no comparison met.
	zero := &Column{Num: []float64{0}}
	if v := derivedValue(&r, zero, zero, &in.Frames, 0); !math.IsNaN(v) || compareValue(&plan.Filter{Op: plan.OpGE}, v) {
		t.Errorf("0 per 0 is %g", v)
	}
	// A derived filter on a category cannot be compared.
	cls := plan.Filter{Measure: m("settlement", "settlement_class"), Op: plan.OpGT, Value: 1, Per: "km2"}
	if a := Compute(&plan.Plan{Agg: plan.AggCount, Filters: []plan.Filter{cls}}, in); a.Confidence != ConfidenceUnknown {
		t.Errorf("category density: %s %q", a.Confidence, a.Headline)
	}
}

func TestComputePlaceUnknown(t *testing.T) {
	in := fixtureInput()
	in.Places = []PlaceCheck{{Name: "Garki", Found: false}}
	a := Compute(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}, Places: []string{"Garki"}}, in)
	if a.Confidence != ConfidencePartial || a.Result.Value != nil ||
		!strings.Contains(a.Headline, "Garki is not a place in the readable boundary data, so it is not in the selection") ||
		!strings.Contains(a.Detail, "import a boundary dataset that names Garki") {
		t.Errorf("confidence %s value %v headline %q detail %q", a.Confidence, a.Result.Value, a.Headline, a.Detail)
	}
	// A place the caller never checked reads as unknown too.
	in.Places = nil
	if a := Compute(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}, Places: []string{"Garki"}}, in); a.Result.Value != nil {
		t.Errorf("unchecked place answered: %+v", a.Insight)
	}
}
