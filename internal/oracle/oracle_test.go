package oracle

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixture: four frames on the equator, 0.01° apart but for the last,
// figures small enough to check by hand.
//
//	id  lon   area pop bld fac class        lga radiance health features
//	1   0     1    100 20  1   urban        X   -        1
//	2   0.01  1    50  10  -   rural        X   -        0
//	3   0.02  2    0   -   -   uninhabited  Y   -        0
//	10  1     1    250 40  2   urban        Y   5        2
func fixture() []Frame {
	fr := func(id string, lon, area float64, attrs map[string]any, health int) Frame {
		return Frame{ID: id, Lon: lon, Lat: 0, AreaKm2: area, Attrs: attrs, Features: map[string]int{"health": health}}
	}
	return []Frame{
		fr("1", 0, 1, map[string]any{"population_2020": 100.0, "building_count": 20.0, "facility_count": 1.0, "settlement_class": "urban", "lga": "X"}, 1),
		fr("2", 0.01, 1, map[string]any{"population_2020": 50.0, "building_count": 10.0, "settlement_class": "rural", "lga": "X"}, 0),
		fr("3", 0.02, 2, map[string]any{"population_2020": 0.0, "settlement_class": "uninhabited", "lga": "Y"}, 0),
		fr("10", 1, 1, map[string]any{"population_2020": 250.0, "building_count": 40.0, "facility_count": 2.0, "settlement_class": "urban", "lga": "Y", "radiance": 5.0}, 2),
	}
}

// Health points: on frames 1 and 10, and one far away.
var points = map[string][]Point{"health": {{0, 0}, {1, 0}, {1, 0}, {5, 5}}}

// kmPerDeg is one degree of a great circle.
var kmPerDeg = EarthRadiusKm * math.Pi / 180

const (
	P = "population_2020"
	B = "building_count"
	H = "facility_count"
	S = "settlement_class"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestEval(t *testing.T) {
	urban := Filter{Measure: S, Op: "=", Text: "urban"}
	noFac := Filter{Measure: H, Op: "=", Value: 0}
	cases := []struct {
		name   string
		e      Expect
		value  float64
		frames []string
	}{
		{"total", Expect{Agg: "total", Measure: P}, 400, nil},
		{"total of a measure some frames lack", Expect{Agg: "total", Measure: B}, 70, nil},
		{"mean", Expect{Agg: "mean", Measure: P}, 100, nil},
		{"mean over the frames that record it", Expect{Agg: "mean", Measure: "radiance"}, 5, nil},
		{"median of an even count", Expect{Agg: "median", Measure: P}, 75, nil},
		{"median of an odd count", Expect{Agg: "median", Measure: P, Filters: []Filter{{Measure: S, Op: "!=", Text: "uninhabited"}}}, 100, nil},
		{"min and its frame", Expect{Agg: "min", Measure: P}, 0, []string{"3"}},
		{"max and its frame", Expect{Agg: "max", Measure: P}, 250, []string{"10"}},
		{"count without filters", Expect{Agg: "count"}, 4, nil},
		{"count: no facility reads a missing record as 0", Expect{Agg: "count", Filters: []Filter{noFac}}, 2, nil},
		{"count: and", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: ">=", Value: 50}, urban}, Join: "and"}, 2, nil},
		{"count: or", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: ">", Value: 200}, {Measure: S, Op: "=", Text: "rural"}}, Join: "or"}, 2, nil},
		{"count: not a category", Expect{Agg: "count", Filters: []Filter{{Measure: S, Op: "!=", Text: "URBAN"}}}, 2, nil},
		{"count: between is inclusive", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: "between", Value: 50, Value2: 100}}}, 2, nil},
		{"count: in", Expect{Agg: "count", Filters: []Filter{{Measure: S, Op: "in", Text: "rural, uninhabited"}}}, 2, nil},
		{"count: < and <=", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: "<", Value: 100}, {Measure: B, Op: "<=", Value: 10}}}, 2, nil},
		{"share of frames", Expect{Agg: "share", Filters: []Filter{urban}}, 0.5, nil},
		{"share of a measure", Expect{Agg: "share", Measure: P, Filters: []Filter{urban}}, 0.875, nil},
		{"ratio", Expect{Agg: "ratio", Measure: P, Measure2: B}, 400.0 / 70, nil},
		{"ratio with a scale", Expect{Agg: "ratio", Measure: H, Measure2: P, Scale: 1000}, 7.5, nil},
		{"density per km²", Expect{Agg: "density", Measure: P}, 80, nil},
		{"density per hectare", Expect{Agg: "density", Measure: P, Per: "ha"}, 0.8, nil},
		{"density of filtered frames", Expect{Agg: "density", Measure: P, Filters: []Filter{urban}}, 175, nil},
		{"rank desc", Expect{Agg: "rank", Measure: P, Order: "desc", K: 2}, 250, []string{"10", "1"}},
		{"rank asc", Expect{Agg: "rank", Measure: P, Order: "asc", K: 3}, 0, []string{"3", "2", "1"}},
		{"rank over frames recording the measure", Expect{Agg: "rank", Measure: B, Order: "asc", K: 10}, 10, []string{"2", "1", "10"}},
		{"nearest, ties listed", Expect{Agg: "nearest", Feature: "health"}, 0, []string{"1", "10"}},
		{"farthest", Expect{Agg: "farthest", Feature: "health"}, 0.02 * kmPerDeg, []string{"3"}},
		{"farthest of the filtered frames", Expect{Agg: "farthest", Feature: "health", Filters: []Filter{{Measure: P, Op: ">", Value: 0}}}, 0.01 * kmPerDeg, []string{"2"}},
		{"coverage within", Expect{Agg: "coverage", Measure: P, DistanceKm: 1.5, DistanceOp: "within", Feature: "health"}, 400, nil},
		{"coverage within, frames", Expect{Agg: "coverage", DistanceKm: 2, DistanceOp: "within", Feature: "health"}, 3, nil},
		{"coverage beyond", Expect{Agg: "coverage", Measure: P, DistanceKm: 1, DistanceOp: "beyond", Feature: "health"}, 50, nil},
		{"coverage beyond, with a filter", Expect{Agg: "coverage", Measure: P, DistanceKm: 1, DistanceOp: "beyond", Feature: "health", Filters: []Filter{urban}}, 0, nil},
		{"share within a distance", Expect{Agg: "share", Measure: P, DistanceKm: 0.5, DistanceOp: "within", Feature: "health"}, 350.0 / 400, nil},
		{"coverage in a band: frames 2 and 3", Expect{Agg: "coverage", Measure: P, DistanceKm: 1, DistanceKm2: 3, DistanceOp: "between", Feature: "health"}, 50, nil},
		{"count in a band", Expect{Agg: "count", DistanceKm: 1, DistanceKm2: 3, DistanceOp: "between", Feature: "health"}, 2, nil},
		{"the 2 frames farthest", Expect{Agg: "farthest", Feature: "health", Order: "desc", K: 2}, 0.02 * kmPerDeg, []string{"3", "2"}},
		{"the 3 frames nearest, ties by id", Expect{Agg: "nearest", Feature: "health", Order: "asc", K: 3}, 0, []string{"1", "10", "2"}},
		{"density filter per km²", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: ">", Value: 60, Per: "km2"}}}, 2, nil},
		{"density filter per hectare", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: ">", Value: 0.6, Per: "ha"}}}, 2, nil},
		{"ratio filter: some over none is more than any number", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: ">", Value: 60, Of: H}}}, 3, nil},
		{"ratio filter: under", Expect{Agg: "count", Filters: []Filter{{Measure: P, Op: "<", Value: 110, Of: H}}}, 1, nil},
		{"featurecount", Expect{Agg: "featurecount", Feature: "health"}, 3, nil},
		{"place in the selection", Expect{Agg: "total", Measure: P, Place: "y"}, 250, nil},
		{"weights absent: whole frames", Expect{Agg: "total", Measure: P, Filters: []Filter{{Measure: S, Op: "=", Text: "urban"}}}, 350, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Eval(c.e, fixture(), points)
			if !r.Defined || !near(r.Value, c.value) || !slices.Equal(r.Frames, c.frames) {
				t.Errorf("got %+v, want %g %v", r, c.value, c.frames)
			}
		})
	}
}

func TestEvalGroups(t *testing.T) {
	cases := []struct {
		name  string
		e     Expect
		value float64
		want  map[string]float64
	}{
		{"total by lga", Expect{Agg: "total", Measure: P, GroupBy: "lga"}, 400, map[string]float64{"X": 150, "Y": 250}},
		{"count by class", Expect{Agg: "count", GroupBy: S}, 4, map[string]float64{"urban": 2, "rural": 1, "uninhabited": 1}},
		{"share of frames by class is the whole's composition", Expect{Agg: "share", GroupBy: S}, 1,
			map[string]float64{"urban": 0.5, "rural": 0.25, "uninhabited": 0.25}},
		{"share of people by class", Expect{Agg: "share", Measure: P, GroupBy: S}, 1,
			map[string]float64{"urban": 0.875, "rural": 0.125, "uninhabited": 0}},
		{"share with a condition is within each group", Expect{Agg: "share", GroupBy: "lga", Filters: []Filter{{Measure: H, Op: ">=", Value: 1}}}, 0.5,
			map[string]float64{"X": 0.5, "Y": 0.5}},
		{"mean by lga, groups without a value left out", Expect{Agg: "mean", Measure: "radiance", GroupBy: "lga"}, 5, map[string]float64{"Y": 5}},
		{"median by lga", Expect{Agg: "median", Measure: P, GroupBy: "lga"}, 75, map[string]float64{"X": 75, "Y": 125}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Eval(c.e, fixture(), points)
			if !r.Defined || !near(r.Value, c.value) || len(r.Groups) != len(c.want) {
				t.Fatalf("got %+v, want %g %v", r, c.value, c.want)
			}
			for k, v := range c.want {
				if g, ok := r.Groups[k]; !ok || !near(g, v) {
					t.Errorf("group %s: %g (%v), want %g", k, g, ok, v)
				}
			}
		})
	}
	g := Eval(Expect{Agg: "total", Measure: P, GroupBy: S}, fixture(), points).Groups
	if top := TopGroups(g, false, 1); !slices.Equal(top, []string{"urban"}) {
		t.Errorf("top group %v", top)
	}
	if low := TopGroups(g, true, 2); !slices.Equal(low, []string{"uninhabited", "rural"}) {
		t.Errorf("bottom groups %v", low)
	}
	if all := TopGroups(g, false, 0); len(all) != 3 {
		t.Errorf("all groups %v", all)
	}
}

func TestEvalUndefined(t *testing.T) {
	far := map[string][]Point{"health": {{2, 0}}} // 222 km from every frame
	cases := []struct {
		name string
		e    Expect
		pts  map[string][]Point
	}{
		{"unsupported", Expect{Agg: "unsupported"}, points},
		{"profile", Expect{Agg: "profile"}, points},
		{"place not in the selection", Expect{Agg: "total", Measure: P, Place: "Dala"}, points},
		{"mean of no values", Expect{Agg: "mean", Measure: "radiance", Filters: []Filter{{Measure: "lga", Op: "=", Text: "X"}}}, points},
		{"ratio over nothing", Expect{Agg: "ratio", Measure: P, Measure2: "schools"}, points},
		{"farthest beyond the search", Expect{Agg: "farthest", Feature: "health"}, far},
		{"nearest beyond the search", Expect{Agg: "nearest", Feature: "health"}, far},
		{"nearest without any feature", Expect{Agg: "nearest", Feature: "schools"}, points},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r := Eval(c.e, fixture(), c.pts); r.Defined {
				t.Errorf("got %+v, want nothing computed", r)
			}
		})
	}
}

// TestSearchBound: a feature past SearchKm is as good as none; a frame
// without a feature that near is beyond any distance asked.
func TestSearchBound(t *testing.T) {
	far := map[string][]Point{"health": {{1.5, 0}}} // frame 10 at 55.6 km, the others past 100 km
	beyond := Eval(Expect{Agg: "coverage", DistanceKm: 100, DistanceOp: "beyond", Feature: "health"}, fixture(), far)
	if !beyond.Defined || beyond.Value != 3 {
		t.Errorf("beyond 100 km: %+v, want 3 frames", beyond)
	}
	within := Eval(Expect{Agg: "coverage", Measure: P, DistanceKm: 60, DistanceOp: "within", Feature: "health"}, fixture(), far)
	if !within.Defined || within.Value != 250 {
		t.Errorf("within 60 km: %+v, want 250 people", within)
	}
	if d := NearestKm(0, 0, far["health"]); !math.IsInf(d, 1) {
		t.Errorf("nearest at 167 km: %g, want +Inf (past the search)", d)
	}
	if d := NearestKm(1, 0, far["health"]); !near(d, 0.5*kmPerDeg) {
		t.Errorf("nearest: %g", d)
	}
}

func TestHaversine(t *testing.T) {
	if d := HaversineKm(0, 0, 1, 0); !near(d, kmPerDeg) || !near(d, 111.195080234) {
		t.Errorf("1° of longitude on the equator: %.12g km", d)
	}
	if d := HaversineKm(7.49, 9.06, 7.49, 9.06); d != 0 {
		t.Errorf("same point: %g", d)
	}
	if d := HaversineKm(0, 0, 180, 0); !near(d, math.Pi*EarthRadiusKm) {
		t.Errorf("antipodes: %g", d)
	}
}

func TestReadLines(t *testing.T) {
	good := `{"id":"a","q":"x","select":"s","expect":{"agg":"total","measure":"population_2020"}}` + "\n\n" +
		`{"id":"b","q":"y","select":"s","expect":{"agg":"count","filters":[{"measure":"facility_count","op":"=","value":0}]}}`
	ls, err := ReadLines(strings.NewReader(good))
	if err != nil || len(ls) != 2 || ls[1].Expect.Filters[0].Op != "=" {
		t.Fatalf("%+v %v", ls, err)
	}
	for _, bad := range []string{
		`{"id":"a","q":"x","select":"s","expect":{"agg":"total","mesure":"population_2020"}}`,
		`{"id":"a","q":"x","select":"s","expect":{}}`,
		`{"id":"a","q":"x","select":"s","expect":{"agg":"count"}}` + "\n" + `{"id":"a","q":"x","select":"s","expect":{"agg":"count"}}`,
		`{"id":"a",`,
	} {
		if _, err := ReadLines(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// TestCorpusWellFormed checks the corpus files against the schema: known
// aggregations, operators, measures and selections, and expectations that
// hang together (a ratio has two measures, unread words are never exact).
func TestCorpusWellFormed(t *testing.T) {
	dir := filepath.Join("..", "..", "plan", "testdata", "corpus")
	raw, err := os.ReadFile(filepath.Join(dir, "selections.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sels map[string]Selection
	if err := json.Unmarshal(raw, &sels); err != nil {
		t.Fatal(err)
	}
	for name, s := range sels {
		if s.Fixture == "" && (s.Limit < 1 || s.Limit > 50 || s.BBox[0] >= s.BBox[2] || s.BBox[1] >= s.BBox[3]) {
			t.Errorf("selection %s: %+v (limit 1..50, a box in order)", name, s)
		}
	}
	aggs := map[string]bool{"total": true, "mean": true, "median": true, "min": true, "max": true, "count": true, "share": true,
		"ratio": true, "density": true, "rank": true, "nearest": true, "farthest": true, "coverage": true, "featurecount": true,
		"profile": true, "unsupported": true}
	numbers := map[string]bool{"population_2020": true, "building_count": true, "facility_count": true, "radiance": true}
	categories := map[string]bool{"state": true, "lga": true, "ward": true, "settlement_class": true}
	ops := map[string]bool{">": true, ">=": true, "<": true, "<=": true, "=": true, "!=": true, "between": true, "in": true}
	total := 0
	for _, file := range []string{"heldout.jsonl", "tuning.jsonl"} {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		lines, err := ReadLines(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		total += len(lines)
		if file == "heldout.jsonl" && len(lines) < 100 {
			t.Errorf("held-out: %d questions, want at least 100", len(lines))
		}
		for _, l := range lines {
			e := l.Expect
			bad := func(why string) { t.Errorf("%s %s %q: %s", file, l.ID, l.Q, why) }
			if _, ok := sels[l.Select]; !ok {
				bad("unknown selection " + l.Select)
			}
			if !aggs[e.Agg] {
				bad("unknown agg " + e.Agg)
			}
			if l.Register != "plain" && l.Register != "gis" {
				bad("register " + l.Register)
			}
			for _, m := range []string{e.Measure, e.Measure2} {
				if m != "" && !numbers[m] {
					bad("unknown measure " + m)
				}
			}
			if e.GroupBy != "" && !categories[e.GroupBy] {
				bad("groupBy is not a category: " + e.GroupBy)
			}
			for _, fl := range e.Filters {
				switch {
				case !ops[fl.Op]:
					bad("op " + fl.Op)
				case fl.Text != "" && !categories[fl.Measure]:
					bad("text filter on " + fl.Measure)
				case fl.Text == "" && !numbers[fl.Measure]:
					bad("number filter on " + fl.Measure)
				case fl.Op == "between" && fl.Value2 <= fl.Value:
					bad("between needs value < value2")
				case fl.Per != "" && fl.Per != "km2" && fl.Per != "ha":
					bad("per " + fl.Per)
				case fl.Of != "" && (!numbers[fl.Of] || fl.Per != "" || fl.Text != ""):
					bad("of needs a number measure, without per or text: " + fl.Of)
				}
			}
			if len(e.Filters) > 0 && e.Join != "and" && e.Join != "or" {
				bad("join " + e.Join)
			}
			if (e.Agg == "ratio") != (e.Measure2 != "") {
				bad("a ratio, and only a ratio, has measure2")
			}
			needMeasure := map[string]bool{"total": true, "mean": true, "median": true, "min": true, "max": true, "ratio": true, "density": true, "rank": true}
			if needMeasure[e.Agg] && e.Measure == "" {
				bad(e.Agg + " without a measure")
			}
			if (e.Agg == "rank") && (e.K < 1 || (e.Order != "asc" && e.Order != "desc")) {
				bad("rank needs order and k")
			}
			if e.Agg == "nearest" || e.Agg == "farthest" || e.Agg == "coverage" || e.Agg == "featurecount" || e.DistanceOp != "" {
				if e.Feature != "health" && e.Feature != "buildings" {
					bad("feature " + e.Feature)
				}
			}
			if (e.DistanceOp != "") != (e.DistanceKm > 0) || (e.Agg == "coverage" && e.DistanceOp == "") {
				bad("distance needs both distanceKm and distanceOp")
			}
			if (e.DistanceOp == "between") != (e.DistanceKm2 > e.DistanceKm) {
				bad("a band (between), and only a band, has distanceKm2 beyond distanceKm")
			}
			if (e.Agg == "nearest" || e.Agg == "farthest") && e.K > 0 && e.Order != map[bool]string{true: "asc", false: "desc"}[e.Agg == "nearest"] {
				bad("K frames nearest are asc, farthest desc")
			}
			switch e.Confidence {
			case "exact":
				if len(e.Unread) > 0 || e.Agg == "unsupported" {
					bad("exact with unread words or unsupported")
				}
			case "partial":
			case "unknown":
				if e.Agg != "unsupported" {
					bad("unknown confidence on a computable plan")
				}
			default:
				bad("confidence " + e.Confidence)
			}
			if e.Agg == "unsupported" && e.Confidence != "unknown" {
				bad("unsupported must be unknown")
			}
		}
	}
	if total < 300 {
		t.Errorf("corpus: %d questions, want at least 300", total)
	}
}

// FuzzReadLines: any input is read or refused, never a panic, and a line
// read is whole (id, selection, aggregation).
func FuzzReadLines(f *testing.F) {
	f.Add(`{"id":"a","q":"x","select":"s","expect":{"agg":"total","measure":"population_2020"}}`)
	f.Add(`{"id":"b","q":"y","select":"s","expect":{"agg":"count","filters":[{"measure":"facility_count","op":"=","value":0}],"join":"and"}}` + "\n\n")
	f.Add(`{"id":"c","q":"","select":"s","expect":{"agg":"coverage","distanceKm":5,"distanceOp":"beyond","feature":"health","unread":["x"]}}`)
	f.Fuzz(func(t *testing.T, s string) {
		lines, err := ReadLines(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, l := range lines {
			if l.ID == "" || l.Select == "" || l.Expect.Agg == "" {
				t.Fatalf("read an incomplete line %+v", l)
			}
			Eval(l.Expect, fixture(), points) // whatever it asks, no panic
		}
	})
}
