package insight

import (
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func askDemo(q string, frames []Frame) Insight {
	return AnswerRequest(Request{Question: q, Datasets: demoDatasets(), Frames: frames})
}

func facetsOf(pairs ...string) []Facet {
	var out []Facet
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Facet{pairs[i], pairs[i+1]})
	}
	return out
}

func checkGolden(t *testing.T, got Insight, headline string, facets []Facet, table *Table) {
	t.Helper()
	if got.Headline != headline {
		t.Errorf("headline\n got %q\nwant %q", got.Headline, headline)
	}
	if !reflect.DeepEqual(got.Facets, facets) {
		t.Errorf("facets\n got %q\nwant %q", got.Facets, facets)
	}
	if !reflect.DeepEqual(got.Table, table) {
		t.Errorf("table\n got %q\nwant %q", got.Table, table)
	}
}

func TestAnswer_ProfileGolden(t *testing.T) {
	got := askDemo("", demoFrames())
	checkGolden(t, got,
		"The 3 selected frames, in Kano and Jigawa, have an estimated population of 48,210 (2020) and 8,591 buildings (2020).",
		facetsOf(
			"Areas selected", "3",
			"State", "Kano, Jigawa (2 states)",
			"Local government area", "Kano Municipal, Dutse (2 local government areas)",
			"Ward", "Kano Municipal 3, Kano Municipal 4, Dutse 1 (3 wards)",
			"Buildings", "8,591",
			"Estimated population (2020)", "48,210",
			"Settlement class", "urban (67%)",
		),
		&Table{Columns: []string{"Dataset", "In selection", "In dataset"}, Rows: [][]string{
			{"Administrative areas (approximate)", "3", "1,083,000"},
			{"Buildings", "3", "901,000"}, // counts and footprints: counted by frames
			{"Health facilities", "2", "7,900"},
			{"Night-time lights", "2", "250,000"},
			{"Estimated population", "3", "1,083,000"},
			{"Settlement class", "3", "1,083,000"},
		}})
	wantDetail := "The selection spans 2 states (Kano 2 frames, Jigawa 1 frame), 2 local government areas and 3 wards. " +
		"Settlement class by frame: urban 2 frames, rural 1 frame."
	if got.Detail != wantDetail {
		t.Errorf("detail\n got %q\nwant %q", got.Detail, wantDetail)
	}
	if got.Intent != IntentFrames || got.Confidence != ConfidenceExact || got.Retrieval != RetrievalNone || got.Register != RegisterPlain {
		t.Errorf("intent %s confidence %s retrieval %s register %s", got.Intent, got.Confidence, got.Retrieval, got.Register)
	}
	if want := []string{"433102007", "433102008", "433145100"}; !reflect.DeepEqual(got.FrameIDs, want) {
		t.Errorf("frameIds %v", got.FrameIDs)
	}
	if want := []string{"admin", "buildings", "health", "nightlights", "population", "settlement"}; !reflect.DeepEqual(got.Used, want) {
		t.Errorf("used %v, want %v", got.Used, want)
	}
	wantSources := []Source{
		{"admin", "Administrative areas (approximate)", "state", "State"},
		{"admin", "Administrative areas (approximate)", "lga", "Local government area"},
		{"admin", "Administrative areas (approximate)", "ward", "Ward"},
		{"buildings", "Buildings", "building_count", "Buildings"},
		{"population", "Estimated population", "population_2020", "Estimated population"},
		{"settlement", "Settlement class", "settlement_class", "Settlement class"},
		{"health", "Health facilities", "", ""},
		{"nightlights", "Night-time lights", "", ""},
	}
	if !reflect.DeepEqual(got.Sources, wantSources) {
		t.Errorf("sources\n got %+v\nwant %+v", got.Sources, wantSources)
	}
}

func TestAnswer_ProfileOneFrame(t *testing.T) {
	got := askDemo("Tell me about this frame", demoFrames()[:1])
	checkGolden(t, got,
		"Frame 433102007, in Kano Municipal, Kano, has an estimated population of 21,500 (2020) and 3,900 buildings (2020).",
		facetsOf(
			"Areas selected", "1",
			"State", "Kano",
			"Local government area", "Kano Municipal",
			"Ward", "Kano Municipal 3",
			"Buildings", "3,900",
			"Estimated population (2020)", "21,500",
			"Settlement class", "urban (100%)",
		),
		&Table{Columns: []string{"Dataset", "In selection", "In dataset"}, Rows: [][]string{
			{"Administrative areas (approximate)", "1", "1,083,000"},
			{"Buildings", "1", "901,000"},
			{"Health facilities", "1", "7,900"},
			{"Night-time lights", "1", "250,000"},
			{"Estimated population", "1", "1,083,000"},
			{"Settlement class", "1", "1,083,000"},
		}})
}

// TestAnswer_ProfileWithoutDatasets: only the frame count is known.
func TestAnswer_ProfileWithoutDatasets(t *testing.T) {
	got := AnswerRequest(Request{Frames: demoFrames()})
	checkGolden(t, got, "The 3 selected frames have no records in any readable dataset.", facetsOf("Areas selected", "3"), nil)
	if got.Confidence != ConfidenceExact || len(got.Used) != 0 {
		t.Errorf("confidence %s used %v", got.Confidence, got.Used)
	}
	// Only the overview can be suggested.
	if len(got.FollowUps) != 0 {
		t.Errorf("followUps %v", got.FollowUps)
	}
}

func TestAnswer_AttributeGolden(t *testing.T) {
	frames := append(demoFrames(), Frame{ID: "999"})
	got := askDemo("how many people live here", frames)
	checkGolden(t, got,
		"The 3 selected frames have an estimated population of 48,210 (2020); 1 of the 4 ids was not found.",
		facetsOf(
			"Total estimated population (2020)", "48,210 people",
			"Highest", "21,500 people (frame 433102007)",
			"Lowest", "8,500 people (frame 433145100)",
			"Frames with a record", "3 of 3",
		),
		&Table{Columns: []string{"Frame", "Estimated population"}, Rows: [][]string{
			{"433102007", "21,500"}, {"433102008", "18,210"}, {"433145100", "8,500"},
		}})
	if got.Detail != `This id was not found: "999".` {
		t.Errorf("detail %q", got.Detail)
	}
	if !reflect.DeepEqual(got.Used, []string{"population"}) {
		t.Errorf("used %v", got.Used)
	}
	if want := []Source{{"population", "Estimated population", "population_2020", "Estimated population"}}; !reflect.DeepEqual(got.Sources, want) {
		t.Errorf("sources %+v", got.Sources)
	}
}

func TestAnswer_AttributePartial(t *testing.T) {
	got := askDemo("how many folks are in these places", demoFrames())
	if got.Confidence != ConfidencePartial || got.Retrieval != RetrievalLexical {
		t.Errorf("confidence %s retrieval %s", got.Confidence, got.Retrieval)
	}
	if got.Detail != `Read "folks" as Estimated population.` {
		t.Errorf("detail %q", got.Detail)
	}
}

func TestAnswer_AttributeMean(t *testing.T) {
	got := askDemo("average radiance", demoFrames())
	checkGolden(t, got,
		"The 3 selected frames have a mean night-time light radiance of 36.62 nW/cm²/sr (2022).",
		facetsOf(
			"Mean night-time light radiance (2022)", "36.62 nW/cm²/sr",
			"Highest", "42.75 nW/cm²/sr (frame 433102007)",
			"Lowest", "30.5 nW/cm²/sr (frame 433102008)",
			"Frames with a record", "2 of 3",
		),
		&Table{Columns: []string{"Frame", "Night-time light radiance"}, Rows: [][]string{
			{"433102007", "42.75"}, {"433102008", "30.5"}, {"433145100", "no record"},
		}})
	if got.Detail != "Night-time light radiance is recorded on 2 of the 3 selected frames; the mean covers those." {
		t.Errorf("detail %q", got.Detail)
	}
	one := askDemo("average radiance", demoFrames()[:1])
	if want := "Frame 433102007 has a night-time light radiance of 42.75 nW/cm²/sr (2022)."; one.Headline != want {
		t.Errorf("headline %q, want %q", one.Headline, want)
	}
	none := askDemo("average radiance", demoFrames()[2:])
	if want := "Frame 433145100 has no record of night-time light radiance."; none.Headline != want {
		t.Errorf("headline %q, want %q", none.Headline, want)
	}
	if len(none.Used) != 0 || none.Confidence != ConfidenceExact {
		t.Errorf("no record: used %v confidence %s", none.Used, none.Confidence)
	}
}

func TestAnswer_AttributeSingular(t *testing.T) {
	got := askDemo("clinics", demoFrames()[2:])
	checkGolden(t, got, "Frame 433145100 has 1 health facility (2020).",
		facetsOf("Total health facilities (2020)", "1 facility", "Frames with a record", "1 of 1"),
		&Table{Columns: []string{"Frame", "Health facilities"}, Rows: [][]string{{"433145100", "1"}}})
}

func TestAnswer_CategoryGolden(t *testing.T) {
	got := askDemo("how urban is it", demoFrames())
	checkGolden(t, got,
		"The most common settlement class of the 3 selected frames is urban: 2 of 3 frames (67%).",
		facetsOf(
			"Most common settlement class (2020)", "urban (67%)",
			"Settlement classes in the selection", "urban, rural (2 settlement classes)",
			"Frames with a record", "3 of 3",
		),
		&Table{Columns: []string{"Frame", "Settlement class"}, Rows: [][]string{
			{"433102007", "urban"}, {"433102008", "urban"}, {"433145100", "rural"},
		}})
	same := askDemo("which state", demoFrames()[:2])
	if want := "All 2 selected frames have state Kano."; same.Headline != want {
		t.Errorf("headline %q, want %q", same.Headline, want)
	}
}

func TestAnswer_RankGolden(t *testing.T) {
	got := askDemo("which frame has the most buildings", demoFrames())
	checkGolden(t, got,
		"Frame 433102007 has the most buildings of the 3 selected frames: 3,900 (2020).",
		facetsOf(
			"Frames ranked", "3 of 3",
			"Most buildings (2020)", "3,900 buildings (frame 433102007)",
			"Fewest buildings (2020)", "1,391 buildings (frame 433145100)",
			"Total buildings (2020)", "8,591 buildings",
		),
		&Table{Columns: []string{"Rank", "Frame", "Buildings"}, Rows: [][]string{
			{"1", "433102007", "3,900"}, {"2", "433102008", "3,300"}, {"3", "433145100", "1,391"},
		}})

	low := askDemo("bottom 2 by population", demoFrames())
	checkGolden(t, low,
		"Frame 433145100 has the lowest estimated population of the 3 selected frames: 8,500 (2020).",
		facetsOf(
			"Frames ranked", "3 of 3",
			"Highest estimated population (2020)", "21,500 people (frame 433102007)",
			"Lowest estimated population (2020)", "8,500 people (frame 433145100)",
			"Total estimated population (2020)", "48,210 people",
		),
		&Table{Columns: []string{"Rank", "Frame", "Estimated population"}, Rows: [][]string{
			{"1", "433145100", "8,500"}, {"2", "433102008", "18,210"},
		}})
}

func TestAnswer_RankTies(t *testing.T) {
	fr := demoFrames()
	fr[1].Data["buildings"] = DatasetFrame{Attrs: map[string]Value{"building_count": num(3900)}}
	got := askDemo("which frame has the most buildings", fr)
	if want := "Frames 433102007 and 433102008 have the most buildings of the 3 selected frames: 3,900 (2020) each."; got.Headline != want {
		t.Errorf("headline %q, want %q", got.Headline, want)
	}
	if want := [][]string{{"1", "433102007", "3,900"}, {"1", "433102008", "3,900"}, {"3", "433145100", "1,391"}}; !reflect.DeepEqual(got.Table.Rows, want) {
		t.Errorf("rows %q", got.Table.Rows)
	}
}

func TestAnswer_CompareGolden(t *testing.T) {
	got := askDemo("population vs health facilities", demoFrames())
	checkGolden(t, got,
		"The 3 selected frames have an estimated population of 48,210 (2020) and 3 health facilities (2020).",
		facetsOf(
			"Total estimated population (2020)", "48,210 people",
			"Total health facilities (2020)", "3 facilities",
			"Estimated population per health facility", "16,070",
		),
		&Table{Columns: []string{"Frame", "Estimated population", "Health facilities"}, Rows: [][]string{
			{"433102007", "21,500", "2"},
			{"433102008", "18,210", "no record"},
			{"433145100", "8,500", "1"},
			{"Total", "48,210", "3"},
		}})
	if !reflect.DeepEqual(got.Used, []string{"health", "population"}) {
		t.Errorf("used %v", got.Used)
	}
	mixed := askDemo("compare settlement class and radiance", demoFrames())
	if want := "The 3 selected frames have settlement class urban on 2 of 3 frames (67%) and a mean night-time light radiance of 36.62 nW/cm²/sr (2022)."; mixed.Headline != want {
		t.Errorf("headline %q, want %q", mixed.Headline, want)
	}
	if last := mixed.Table.Rows[len(mixed.Table.Rows)-1]; !reflect.DeepEqual(last, []string{"Selection", "urban (67%)", "36.62 (mean)"}) {
		t.Errorf("last row %q", last)
	}
}

func TestAnswer_Unsupported(t *testing.T) {
	got := askDemo("what is the GDP", demoFrames())
	want := "This question cannot be answered from the readable datasets; ask for an overview of the frames or about " +
		"estimated population, buildings, health facilities, night-time light radiance and 4 more measures."
	if got.Headline != want {
		t.Errorf("headline %q\nwant %q", got.Headline, want)
	}
	if got.Intent != IntentUnsupported || got.Confidence != ConfidenceUnknown || got.Detail != `No readable dataset records "gdp".` {
		t.Errorf("intent %s confidence %s detail %q", got.Intent, got.Confidence, got.Detail)
	}
	if len(got.Facets) != 0 || got.Table != nil || len(got.Used) != 0 {
		t.Errorf("figures in an unsupported answer: %+v", got)
	}
	if len(got.FollowUps) < 2 {
		t.Errorf("followUps %v", got.FollowUps)
	}
	dens := askDemo("what is the population growth", demoFrames())
	if dens.Detail != `No readable dataset records "population growth".` {
		t.Errorf("detail %q", dens.Detail)
	}
}

func TestAnswer_NothingFound(t *testing.T) {
	tests := []struct {
		q      string
		frames []Frame
		intent string
		head   string
	}{
		{"", []Frame{{ID: "1"}, {ID: "2"}}, IntentFrames, "None of the 2 frame ids was found, so nothing could be computed."},
		{"population", []Frame{{ID: "7"}}, IntentAttribute, "Frame id 7 was not found, so nothing could be computed."},
		{"top 3 by buildings", nil, IntentRank, "No frames were given, so nothing could be computed."},
	}
	for _, tc := range tests {
		got := askDemo(tc.q, tc.frames)
		if got.Headline != tc.head || got.Intent != tc.intent || got.Confidence != ConfidenceUnknown {
			t.Errorf("%q: %q intent %s confidence %s", tc.q, got.Headline, got.Intent, got.Confidence)
		}
		if len(got.Facets) != 0 || got.Table != nil || len(got.Used) != 0 || len(got.FrameIDs) != 0 {
			t.Errorf("%q: figures without frames: %+v", tc.q, got)
		}
	}
}

func TestAnswer_RegisterAndFormat(t *testing.T) {
	got := AnswerRequest(Request{Question: "population", Register: "gis", Format: "report", Datasets: demoDatasets(), Frames: demoFrames()})
	if got.Register != RegisterGIS || got.Format != "report" {
		t.Errorf("register %s format %s", got.Register, got.Format)
	}
	got = AnswerRequest(Request{Question: "zonal sum of population", Register: "plain", Datasets: demoDatasets(), Frames: demoFrames()})
	if got.Register != RegisterPlain || got.Format != "" {
		t.Errorf("register %s format %s", got.Register, got.Format)
	}
	got = AnswerRequest(Request{Question: "zonal sum of population", Datasets: demoDatasets(), Frames: demoFrames()})
	if got.Register != RegisterGIS {
		t.Errorf("inferred register %s", got.Register)
	}
}

// TestAnswer_DuplicateAndOddValues: duplicates count once; text numbers
// are read; values of the wrong kind or NaN are left out.
func TestAnswer_DuplicateAndOddValues(t *testing.T) {
	fr := demoFrames()
	fr[1].Data["population"] = DatasetFrame{Attrs: map[string]Value{"population_2020": str(" 18210 ")}}
	fr[2].Data["population"] = DatasetFrame{Attrs: map[string]Value{"population_2020": str("many")}}
	fr = append(fr, fr[0], Frame{ID: "5", Known: true, Data: map[string]DatasetFrame{
		"population": {Attrs: map[string]Value{"population_2020": num(math.NaN())}}}})
	got := askDemo("population", fr)
	if want := "The 4 selected frames have an estimated population of 39,710 (2020)."; got.Headline != want {
		t.Errorf("headline %q, want %q", got.Headline, want)
	}
	if want := "Frames with a record"; got.Facets[3].Label != want || got.Facets[3].Value != "2 of 4" {
		t.Errorf("facet %+v", got.Facets[3])
	}
}

// randomFrames builds n known frames over demoDatasets with values drawn
// from a fixed seed; some datasets are missing on some frames.
func randomFrames(seed uint64, n int) []Frame {
	r := rand.New(rand.NewPCG(seed, 7))
	states := []string{"Kano", "Jigawa", "Katsina", "Kaduna", "Lagos", "Oyo"}
	classes := []string{"urban", "peri-urban", "rural", "uninhabited"}
	out := make([]Frame, n)
	for i := range out {
		f := Frame{ID: strconv.Itoa(433000000 + r.IntN(1000000)*7 + i), Known: true, Data: map[string]DatasetFrame{}}
		st := states[r.IntN(len(states))]
		f.Data["admin"] = DatasetFrame{Attrs: map[string]Value{"state": str(st), "lga": str(st + " LGA " + strconv.Itoa(r.IntN(4))),
			"ward": str("Ward " + strconv.Itoa(r.IntN(30)))}}
		pop := float64(r.IntN(40000))
		f.Data["population"] = DatasetFrame{Attrs: map[string]Value{"population_2020": num(pop)}}
		if pop > 0 {
			f.Data["buildings"] = DatasetFrame{Attrs: map[string]Value{"building_count": num(math.Round(pop / 5.5))}, FeatureCount: r.IntN(3)}
		}
		f.Data["settlement"] = DatasetFrame{Attrs: map[string]Value{"settlement_class": str(classes[r.IntN(len(classes))])}}
		if k := r.IntN(4); k > 0 && pop > 20000 {
			f.Data["health"] = DatasetFrame{Attrs: map[string]Value{"facility_count": num(float64(k))}, FeatureCount: k}
		}
		if r.IntN(3) > 0 {
			f.Data["nightlights"] = DatasetFrame{Attrs: map[string]Value{"radiance": num(math.Round(r.Float64()*8000) / 100)}}
		}
		out[i] = f
	}
	return out
}

// figures are the numbers a text shows, as written ("48,210", "36.62").
var figures = regexp.MustCompile(`\d+(?:,\d{3})*(?:\.\d+)?`)

// TestAnswer_CrossCheck recomputes every figure of the answers to a set of
// questions over random frames directly from the inputs.
func TestAnswer_CrossCheck(t *testing.T) {
	ds := demoDatasets()
	for seed := uint64(1); seed <= 20; seed++ {
		frames := randomFrames(seed, 1+int(seed*7)%50)
		ids := map[string]bool{}
		for _, f := range frames {
			ids[f.ID] = true
		}
		vals := func(dsID, attr string) (sum float64, n int, per map[string]float64) {
			per = map[string]float64{}
			for _, f := range frames {
				if v, ok := f.Data[dsID].Attrs[attr]; ok {
					sum += v.Num
					n++
					per[f.ID] = v.Num
				}
			}
			return
		}
		modeOf := func(dsID, attr string) (string, int, int) {
			counts := map[string]int{}
			first := map[string]int{}
			total := 0
			for i, f := range frames {
				if v, ok := f.Data[dsID].Attrs[attr]; ok {
					if _, seen := counts[v.Str]; !seen {
						first[v.Str] = i
					}
					counts[v.Str]++
					total++
				}
			}
			best := ""
			for k, c := range counts {
				if best == "" || c > counts[best] || (c == counts[best] && first[k] < first[best]) {
					best = k
				}
			}
			return best, counts[best], total
		}
		n := len(frames)
		nFrames := strconv.Itoa(n)

		// The profile.
		prof := AnswerRequest(Request{Datasets: ds, Frames: frames})
		popSum, _, _ := vals("population", "population_2020")
		bldSum, _, _ := vals("buildings", "building_count")
		mode, modeN, modeTotal := modeOf("settlement", "settlement_class")
		want := map[string]string{
			"Areas selected":              nFrames,
			"Buildings":                   FormatNumber(bldSum),
			"Estimated population (2020)": FormatNumber(popSum),
			"Settlement class":            mode + " (" + strconv.Itoa(int(math.Round(100*float64(modeN)/float64(modeTotal)))) + "%)",
		}
		for _, f := range prof.Facets {
			if w, ok := want[f.Label]; ok && w != f.Value {
				t.Errorf("seed %d profile facet %s = %q, want %q", seed, f.Label, f.Value, w)
			}
		}
		for i, d := range ds {
			inSel := 0
			for _, f := range frames {
				if df, ok := f.Data[d.ID]; ok {
					if d.Features > 0 && len(d.Attributes) == 0 {
						inSel += df.FeatureCount
					} else {
						inSel++
					}
				}
			}
			if got := prof.Table.Rows[i][1]; got != fmtInt(inSel) {
				t.Errorf("seed %d profile table %s in selection = %s, want %d", seed, d.ID, got, inSel)
			}
		}
		states := map[string]bool{}
		for _, f := range frames {
			states[f.Data["admin"].Attrs["state"].Str] = true
		}
		checkHeadlineFigures(t, prof, FormatNumber(popSum), FormatNumber(bldSum), nFrames, "2020", strconv.Itoa(len(states)-3))

		// One measure per aggregation.
		for _, m := range []struct{ q, ds, attr string }{
			{"population", "population", "population_2020"},
			{"buildings", "buildings", "building_count"},
			{"health facilities", "health", "facility_count"},
			{"radiance", "nightlights", "radiance"},
		} {
			got := AnswerRequest(Request{Question: m.q, Datasets: ds, Frames: frames})
			sum, cnt, per := vals(m.ds, m.attr)
			fig := sum
			if m.ds == "nightlights" && cnt > 0 {
				fig = sum / float64(cnt)
			}
			if cnt > 0 && !strings.HasPrefix(got.Facets[0].Value, FormatNumber(fig)+" ") {
				t.Errorf("seed %d %s: facet %q, want figure %s", seed, m.q, got.Facets[0].Value, FormatNumber(fig))
			}
			for _, row := range got.Table.Rows {
				v, ok := per[row[0]]
				switch {
				case !ids[row[0]]:
					t.Errorf("seed %d %s: table row of unknown frame %q", seed, m.q, row[0])
				case ok && row[1] != FormatNumber(v), !ok && row[1] != noRecord:
					t.Errorf("seed %d %s: frame %s cell %q, value %v (recorded %v)", seed, m.q, row[0], row[1], v, ok)
				}
			}
			if len(got.Table.Rows) != n {
				t.Errorf("seed %d %s: %d rows for %d frames", seed, m.q, len(got.Table.Rows), n)
			}
			if cnt > 0 {
				checkHeadlineFigures(t, got, FormatNumber(fig), nFrames, strconv.Itoa(m2year(m.ds)))
			}

			// The ranking of the same measure.
			rk := AnswerRequest(Request{Question: "top 5 by " + m.q, Datasets: ds, Frames: frames})
			var sorted []float64
			for _, v := range per {
				sorted = append(sorted, v)
			}
			sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
			if cnt == 0 {
				continue
			}
			if rk.Table == nil || len(rk.Table.Rows) != min(5, cnt) {
				t.Fatalf("seed %d rank %s: table %+v for %d records", seed, m.q, rk.Table, cnt)
			}
			for i, row := range rk.Table.Rows {
				if row[2] != FormatNumber(sorted[i]) || FormatNumber(per[row[1]]) != row[2] {
					t.Errorf("seed %d rank %s row %d = %q, want value %s", seed, m.q, i, row, FormatNumber(sorted[i]))
				}
			}
			tied := 0
			for _, v := range sorted {
				if v == sorted[0] {
					tied++
				}
			}
			checkHeadlineFigures(t, rk, FormatNumber(sorted[0]), nFrames, strconv.Itoa(cnt), strconv.Itoa(m2year(m.ds)), strconv.Itoa(tied),
				rk.Table.Rows[0][1], rk.Table.Rows[min(1, len(rk.Table.Rows)-1)][1], rk.Table.Rows[min(2, len(rk.Table.Rows)-1)][1])
		}

		// A comparison: per-frame cells and the totals row.
		cmp := AnswerRequest(Request{Question: "compare population and buildings", Datasets: ds, Frames: frames})
		last := cmp.Table.Rows[len(cmp.Table.Rows)-1]
		if !reflect.DeepEqual(last, []string{"Total", FormatNumber(popSum), FormatNumber(bldSum)}) {
			t.Errorf("seed %d compare totals %q, want %s and %s", seed, last, FormatNumber(popSum), FormatNumber(bldSum))
		}
		if bldSum > 0 {
			if f := cmp.Facets[2]; f.Value != FormatNumber(popSum/bldSum) {
				t.Errorf("seed %d compare ratio %q, want %s", seed, f.Value, FormatNumber(popSum/bldSum))
			}
		}
		checkHeadlineFigures(t, cmp, FormatNumber(popSum), FormatNumber(bldSum), nFrames, "2020")
	}
}

func m2year(dsID string) int {
	if dsID == "nightlights" {
		return 2022
	}
	return 2020
}

// checkHeadlineFigures fails when the headline shows a number that is not
// one of the figures recomputed by the test.
func checkHeadlineFigures(t *testing.T, ins Insight, allowed ...string) {
	t.Helper()
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, f := range figures.FindAllString(ins.Headline, -1) {
		if !ok[f] {
			t.Errorf("headline %q shows %s, which is none of the recomputed figures %v", ins.Headline, f, allowed)
		}
	}
}

// TestAnswer_FollowUps: every follow-up of every corpus answer parses to a
// supported intent with readable measures, and answers with figures.
func TestAnswer_FollowUps(t *testing.T) {
	ds := demoDatasets()
	frames := demoFrames()
	for _, tc := range corpus {
		got := AnswerRequest(Request{Question: tc.q, Datasets: ds, Frames: frames})
		if n := len(got.FollowUps); n < 2 || n > 4 {
			t.Errorf("%q: %d follow-ups %q; want 2 to 4", tc.q, n, got.FollowUps)
		}
		for _, f := range got.FollowUps {
			p := Parse(f, ds)
			if p.Intent == IntentUnsupported || p.Confidence != ConfidenceExact || (p.Intent != IntentFrames && len(p.Measures) == 0) {
				t.Errorf("%q: follow-up %q parses to %+v", tc.q, f, p)
			}
			if a := AnswerRequest(Request{Question: f, Datasets: ds, Frames: frames}); a.Confidence == ConfidenceUnknown || a.Intent != p.Intent {
				t.Errorf("%q: follow-up %q answers %+v", tc.q, f, a)
			}
		}
	}
}

// TestAnswer_Invariants: every corpus answer is well formed.
func TestAnswer_Invariants(t *testing.T) {
	intents := set(Intents...)
	confs := set(ConfidenceExact, ConfidencePartial, ConfidenceUnknown)
	for _, tc := range corpus {
		got := AnswerRequest(Request{Question: tc.q, Datasets: demoDatasets(), Frames: append(demoFrames(), Frame{ID: "42"})})
		if !intents[got.Intent] || !confs[got.Confidence] || got.Intent != tc.intent {
			t.Errorf("%q: intent %s confidence %s", tc.q, got.Intent, got.Confidence)
		}
		if !strings.HasSuffix(got.Headline, ".") || strings.Count(got.Headline, ". ") > 0 {
			t.Errorf("%q: headline is not one sentence: %q", tc.q, got.Headline)
		}
		if got.Intent != IntentUnsupported && !strings.Contains(got.Headline, "1 of the 4 ids was not found") {
			t.Errorf("%q: headline %q does not say an id was not found", tc.q, got.Headline)
		}
		if !sort.StringsAreSorted(got.Used) {
			t.Errorf("%q: used %v not ascending", tc.q, got.Used)
		}
		for _, s := range got.Sources {
			if s.LayerID == "" || s.LayerName == "" {
				t.Errorf("%q: source %+v", tc.q, s)
			}
		}
		if got.Table != nil {
			for _, row := range got.Table.Rows {
				if len(row) != len(got.Table.Columns) {
					t.Errorf("%q: row %q for columns %q", tc.q, row, got.Table.Columns)
				}
			}
		}
		if (got.Retrieval == RetrievalLexical) != (got.Confidence == ConfidencePartial) {
			t.Errorf("%q: retrieval %s with confidence %s", tc.q, got.Retrieval, got.Confidence)
		}
	}
}
