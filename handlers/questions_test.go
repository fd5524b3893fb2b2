package handlers

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/insight"
	"frameindex/limiter"
	"frameindex/narrate"
	"frameindex/narrate/ollamatest"
	"frameindex/state"
)

// clinicCentreKm is the great-circle distance from clinicFeat's point to
// the centre of frame id, computed here from its coordinates (the
// haversine on the mean Earth radius).
func clinicCentreKm(id string) float64 {
	row, col, _ := grid.RowCol(mustID(id))
	b := grid.CellBox(row, col)
	lon, lat := 7.4005, 9.077
	cl, ct := (b.MinLon+b.MaxLon)/2, (b.MinLat+b.MaxLat)/2
	const r = 6371.0088
	rad := math.Pi / 180
	h := math.Pow(math.Sin((ct-lat)*rad/2), 2) + math.Cos(lat*rad)*math.Cos(ct*rad)*math.Pow(math.Sin((cl-lon)*rad/2), 2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

func TestServer_HandleFramesInsight_Nearest(t *testing.T) {
	// The frame of the selection nearest to (or farthest from) any clinic,
	// by the distance from its centre, the clinics anywhere (here in frame
	// B, outside the selection).
	requireEngine(t)
	store := insightStore(10).fake()
	s, _ := insightServer(t, store, nil, nil)
	da, dc := clinicCentreKm(frameA), clinicCentreKm(frameC)
	nearID, nearKm, farID, farKm := frameA, da, frameC, dc
	if dc < da {
		nearID, nearKm, farID, farKm = frameC, dc, frameA, da
	}
	for _, tc := range []struct {
		q, intent, id string
		km            float64
	}{
		{"Which frame is nearest to a clinic?", "frames_nearest", nearID, nearKm},
		{"Which frame is farthest from a clinic?", "frames_farthest", farID, farKm},
	} {
		d := insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`","`+frameC+`"],"question":"`+tc.q+`"}`, secretAskOnly, ""))
		if d.Intent != tc.intent || d.Confidence != "exact" || d.Result == nil || !slices.Equal(d.Result.Frames, []string{tc.id}) ||
			d.Result.Value == nil || math.Abs(*d.Result.Value-tc.km) > 1e-9 || d.Result.Unit != "km" {
			t.Errorf("%q: %+v (want frame %s at %v km)", tc.q, d, tc.id, tc.km)
			continue
		}
		if f := d.facet("Distance to the nearest health facility"); f != insight.FormatFigure(tc.km)+" km" {
			t.Errorf("%q: distance facet %q", tc.q, f)
		}
	}
	// Coverage: the frames whose centre is within the larger of the two
	// distances, and the people there.
	km := math.Ceil(farKm)
	d := insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`","`+frameC+`"],"question":"How many people live within `+
		strconv.FormatFloat(km, 'f', 0, 64)+` km of a clinic?"}`, secretAskOnly, ""))
	if d.Intent != "frames_coverage" || d.Result == nil || d.Result.Value == nil || *d.Result.Value != 1234.5+4000 {
		t.Errorf("coverage: %+v", d)
	}
	// No known frame: nothing is computed.
	if u := insightOK(t, postInsight(s, `{"frameIds":["5"],"question":"Which frame is nearest to a clinic?"}`, secretAskOnly, "")); u.Confidence != "unknown" {
		t.Errorf("unknown frame: %+v", u)
	}
}

// TestServer_HandleFramesInsight_NearestCharged: a per-query dataset of
// features whose features answer a distance question is charged once;
// without credits it is left out and the question cannot be answered.
func TestServer_HandleFramesInsight_NearestCharged(t *testing.T) {
	requireEngine(t)
	for _, tc := range []struct {
		balance    int64
		confidence string
		charged    []string
		left       string
	}{
		{5, "exact", []string{"health"}, ""},
		{0, "unknown", nil, "health"},
	} {
		m := insightStore(tc.balance)
		m.datasets[2].access.PerQuery = true
		store := m.fake()
		s, _ := insightServer(t, store, nil, nil)
		d := insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`"],"question":"Which frame is nearest to a clinic?"}`, secretAskOnly, ""))
		var left []string
		for _, l := range d.LeftOut {
			left = append(left, l.ID)
		}
		if d.Intent != "frames_nearest" || d.Confidence != tc.confidence || !slices.Equal(d.Charged, tc.charged) || strings.Join(left, ",") != tc.left {
			t.Errorf("balance %d: %s %s charged %v left out %v", tc.balance, d.Intent, d.Confidence, d.Charged, left)
		}
		if tc.balance > 0 && (len(store.charges) != 1 || m.balance != tc.balance-1) {
			t.Errorf("charges %+v, balance %d", store.charges, m.balance)
		}
	}
}

// conceptEmbedding is the stand-in's embedding in these tests: one
// dimension per concept of a small vocabulary.
func conceptEmbedding(text string) []float32 {
	vocab := map[string]int{"pupil": 0, "pupils": 0, "student": 0, "students": 0, "learners": 0, "enrolled": 0,
		"school": 1, "schools": 1, "population": 2, "people": 2}
	v := make([]float32, 3)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		if k, ok := vocab[w]; ok {
			v[k]++
		}
	}
	return v
}

func TestServer_HandleFramesInsight_Hybrid(t *testing.T) {
	requireEngine(t)
	model := ollamatest.NewServer()
	defer model.Close()
	model.SetEmbedFunc(conceptEmbedding)
	embedder, err := narrate.NewClient(model.URL(), ollamatest.DefaultModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := insightStore(10)
	a, b := mustID(frameA), mustID(frameB)
	m.datasets = append(m.datasets, memDataset{
		access: state.Access{Dataset: state.Dataset{ID: "schools", Name: "Schools", Owner: "org1", Version: 1,
			Description: "Pupils enrolled in primary schools.",
			Attributes:  []state.Attribute{{Name: "pupils", Label: "Pupils enrolled", Type: "number", Aggregation: "sum"}}}},
		attrs: map[uint64]string{a: `{"pupils":30}`, b: `{"pupils":12}`}})
	var logs bytes.Buffer
	s := New(Config{Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return dataKeys },
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Data: m.fake(), Embedder: embedder})
	ask := func(q string) insightData {
		t.Helper()
		return insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`","`+frameB+`"],"question":"`+q+`"}`, secretAskOnly, ""))
	}
	documents := func(from int) (docs, queries int) {
		for _, r := range model.EmbedRequests()[from:] {
			for _, in := range r.Input.([]any) {
				if strings.HasPrefix(in.(string), "search_document: ") {
					docs++
				} else {
					queries++
				}
			}
		}
		return
	}

	d := ask("how many students are there")
	if d.Intent != "frames_attribute" || d.Retrieval != "hybrid" || d.Confidence != "partial" || !strings.Contains(d.Headline, "42") {
		t.Fatalf("by meaning: %+v", d)
	}
	if docs, _ := documents(0); docs != 10 { // every readable attribute once
		t.Errorf("%d measure texts embedded, want 10", docs)
	}
	n := len(model.EmbedRequests())
	ask("how many learners are enrolled")
	if docs, queries := documents(n); docs != 0 || queries == 0 {
		t.Errorf("second question: %d measure texts, %d question texts embedded", docs, queries)
	}
	// A question embedded before is not embedded again.
	n = len(model.EmbedRequests())
	ask("how many students are there")
	if len(model.EmbedRequests()) != n {
		t.Errorf("a repeated question was embedded again")
	}
	// A new version of a dataset: its measures are embedded again, alone.
	m.datasets[len(m.datasets)-1].access.Dataset.Version = 2
	n = len(model.EmbedRequests())
	ask("number of pupils")
	if docs, _ := documents(n); docs != 1 {
		t.Errorf("after a new version %d measure texts embedded, want 1", docs)
	}
	// Named exactly: no hybrid.
	if d := ask("total population_2020"); d.Retrieval != "none" || d.Confidence != "exact" {
		t.Errorf("named: %+v", d)
	}
	// The model fails: lexical retrieval, logged without the question.
	model.SetFail(http.StatusInternalServerError, "out of memory")
	if d := ask("how many kids are learning"); d.Retrieval == "hybrid" || d.Intent != "unsupported" {
		t.Errorf("failing embedder: %+v", d)
	}
	if !strings.Contains(logs.String(), "embedding failed") || strings.Contains(logs.String(), "kids") {
		t.Errorf("log: %s", logs.String())
	}
}

// TestFiguresOf_UnitsAndPlaces: table cells carry their column's unit to
// the verifier, and places the answer names itself may be named.
func TestFiguresOf_UnitsAndPlaces(t *testing.T) {
	res := insight.Insight{
		Headline: "2 of the 3 selected frames have state Kano.",
		Facets:   []insight.Facet{{Label: "Area (WGS84 ellipsoid)", Value: "2.58 km²"}},
		Table:    &insight.Table{Columns: []string{"Frame", "Area (km²)"}, Rows: [][]string{{"433102007", "0.86"}}},
	}
	f := figuresOf(res, []string{"Kano", "Jigawa"})
	for _, tt := range []struct {
		wording string
		ok      bool
	}{
		{"Two of the three frames are in Kano; together they cover 2.58 km².", true},
		{"One frame covers about 0.9 km².", true},
		{"One frame covers 0.86 hectares.", false},
		{"The frames cover 2.58 hectares.", false},
		{"Two frames are in Jigawa.", false},
	} {
		if v := narrate.Verify(tt.wording, f, false); v.OK != tt.ok {
			t.Errorf("Verify(%q) = %+v, want ok %v", tt.wording, v, tt.ok)
		}
	}
	if got := columnUnit("Distance (km)"); got != "km" {
		t.Errorf("columnUnit = %q", got)
	}
	for _, h := range []string{"Estimated population density (per km²)", "Frame", "Settlement class (2020)"} {
		if u := columnUnit(h); u != "" {
			t.Errorf("columnUnit(%q) = %q", h, u)
		}
	}
}

// questionBenchStore answers the selection's read with prepared records
// and ring reads of the health facilities from a map of features.
type questionBenchStore struct {
	preparedData
	features map[uint64][]byte
}

func (q questionBenchStore) ReadFrames(ids []string, frames []uint64, withFeatures bool, cap int) ([]bolt.FrameData, error) {
	if !withFeatures {
		return q.frames, nil
	}
	out := make([]bolt.FrameData, 0, 64)
	for _, f := range frames {
		if ft, ok := q.features[f]; ok {
			out = append(out, bolt.FrameData{Frame: f, Datasets: []bolt.DatasetFrame{{Dataset: "health", FeatureCount: 1, Features: [][]byte{ft}}}})
		}
	}
	return out, nil
}

// BenchmarkHandleInsightQuestions50 asks issue 14's questions about 50
// frames with 6 datasets recording on each, through the whole Server as
// BenchmarkHandleInsight50 does, the nearest facility searched on rings of
// frames around them: "nearest" finds one a few km away, "nearest50km"
// one 45 km away, which reads every ring out to 50 km (about 12,000
// frames; the store is a map here, see access.BenchmarkNearest for bbolt).
func BenchmarkHandleInsightQuestions50(b *testing.B) {
	ix := benchIndex(b)
	const secret = "svc_sk_BenchBenchBenchBenchBenchBench00"
	keys := digestKeys{state.Digest(secret): {ID: "key_bench", OrgID: "org_bench", Digest: state.Digest(secret),
		Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead, state.CapAskQuery}}}
	lc := limiter.DefaultConfig()
	lc.Key = limiter.Limit{PerMinute: 6e10, Burst: 1e9}
	lc.Org, lc.Insight = lc.Key, lc.Key

	var ids []string
	var frames []uint64
	for i := range 50 {
		ids = append(ids, id(9500+i/10, 22500+i%10))
		frames = append(frames, mustID(ids[i]))
	}
	m := insightStore(0)
	m.datasets = slices.Delete(m.datasets, 4, 5)
	for i := range m.datasets {
		d := &m.datasets[i]
		d.attrs, d.features = map[uint64]string{}, nil
		for k, fr := range frames {
			switch d.access.Dataset.ID {
			case "admin":
				d.attrs[fr] = `{"state":"Oyo","lga":"Ibadan North ` + strconv.Itoa(k%3) + `","ward":"Ward ` + strconv.Itoa(k%7) + `"}`
			case "buildings":
				d.attrs[fr] = `{"building_count":` + strconv.Itoa(100+k*13) + `}`
			case "health":
				if k%3 > 0 {
					d.attrs[fr] = `{"facility_count":` + strconv.Itoa(k%3) + `}`
				}
			case "nightlights":
				d.attrs[fr] = `{"radiance":` + strconv.FormatFloat(float64(k)*0.75, 'f', -1, 64) + `}`
			case "population":
				d.attrs[fr] = `{"population_2020":` + strconv.FormatFloat(1000+float64(k)*37.25, 'f', -1, 64) + `}`
			case "settlement":
				d.attrs[fr] = `{"settlement_class":"` + []string{"urban", "peri-urban", "rural"}[k%3] + `"}`
			}
		}
	}
	acc, _ := m.Readable(state.Key{})
	names := make([]string, len(acc))
	for i := range acc {
		names[i] = acc[i].Dataset.ID
	}
	prepared, _ := m.ReadFrames(names, frames, false, featureCap)
	feature := func(row, col int) (uint64, []byte) {
		bx := grid.CellBox(row, col)
		return grid.CellID(row, col), []byte(`{"type":"Feature","geometry":{"type":"Point","coordinates":[` +
			strconv.FormatFloat(bx.MinLon+0.003, 'f', 7, 64) + `,` + strconv.FormatFloat(bx.MinLat+0.003, 'f', 7, 64) +
			`]},"properties":{"name":"Clinic","type":"clinic"}}`)
	}
	near, far := map[uint64][]byte{}, map[uint64][]byte{}
	k, v := feature(9500+8, 22500+14) // about 4 km east of the selection
	near[k] = v
	k, v = feature(9500+5, 22500+9+49) // about 45 km east
	far[k] = v
	server := func(features map[uint64][]byte) *Server {
		return New(Config{
			Frames:  func() FrameIndex { return ix },
			Keys:    func() KeyLookup { return keys },
			Logger:  slog.New(slog.NewJSONHandler(io.Discard, nil)),
			Limiter: limiter.New(lc, limiter.NewMemory(lc), nil),
			Data:    questionBenchStore{preparedData{access: acc, frames: prepared}, features},
		})
	}
	sNear, sFar := server(near), server(far)
	q, _ := json.Marshal(ids)
	for _, bench := range []struct {
		name, question, intent string
		s                      *Server
	}{
		{"density", "What is the population density?", "frames_density", sNear},
		{"density_rank", "Which frame has the highest building density?", "frames_rank", sNear},
		{"ratio", "How many hospitals per 100,000 inhabitants?", "frames_ratio", sNear},
		{"threshold", "How many frames have at least 2,000 residents?", "frames_threshold", sNear},
		{"gap", "Which frames have no clinic?", "frames_threshold", sNear},
		{"share", "What share of the population lives in urban frames?", "frames_share", sNear},
		{"share_by_class", "Share of frames by settlement class", "frames_share", sNear},
		{"nearest", "Where is the nearest hospital?", "frames_nearest", sNear},
		{"nearest50km", "Where is the nearest hospital?", "frames_nearest", sFar},
	} {
		body := []byte(`{"frameIds":` + string(q) + `,"question":"` + bench.question + `"}`)
		b.Run(bench.name, func(b *testing.B) {
			w := &discardWriter{header: http.Header{}}
			r := benchRequest("/v1/frames/insight")
			r.Method = http.MethodPost
			br := bytes.NewReader(body)
			r.Body = io.NopCloser(br)
			// Check the answer once.
			check := benchRequest("/v1/frames/insight")
			check.Method = http.MethodPost
			check.Body = io.NopCloser(bytes.NewReader(body))
			cw := &captureWriter{header: http.Header{}}
			bench.s.ServeHTTP(cw, check)
			if cw.status != http.StatusOK || !bytes.Contains(cw.body.Bytes(), []byte(`"intent":"`+bench.intent+`"`)) ||
				bytes.Contains(cw.body.Bytes(), []byte(`"confidence":"unknown"`)) {
				b.Fatalf("status %d: %s", cw.status, cw.body.Bytes())
			}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.header)
				w.status, w.n = 0, 0
				br.Reset(body)
				bench.s.ServeHTTP(w, r)
			}
			if w.status != http.StatusOK {
				b.Fatalf("status %d", w.status)
			}
		})
	}
}

// captureWriter keeps the body.
type captureWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *captureWriter) Header() http.Header         { return w.header }
func (w *captureWriter) WriteHeader(s int)           { w.status = s }
func (w *captureWriter) Write(p []byte) (int, error) { return w.body.Write(p) }

// TestOpenAPI_QuestionIntents: answers of every new intent from the real
// engine validate against the document (the intent enum included).
func TestOpenAPI_QuestionIntents(t *testing.T) {
	requireEngine(t)
	_, router := loadOpenAPI(t)
	ids := `["` + frameA + `","` + frameB + `","` + frameC + `"]`
	for q, intent := range map[string]string{
		"population density":                             "frames_density",
		"which frame has the highest population density": "frames_rank",
		"residents per house":                            "frames_ratio",
		"frames with at least 1,000 residents":           "frames_threshold",
		"frames without a clinic":                        "frames_threshold",
		"what share of the population is urban":          "frames_share",
		"share of frames by state":                       "frames_breakdown",
		"nearest clinic":                                 "frames_nearest",
		"population in 2015":                             "frames_attribute",
	} {
		s := insightDocServer(10, allowAll, nil, false)
		r := newInsightRequest(`{"frameIds":`+ids+`,"question":"`+q+`"}`, secretAskOnly, "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if !strings.Contains(w.Body.String(), `"intent":"`+intent+`"`) {
			t.Errorf("%q: %s", q, w.Body)
			continue
		}
		if err := validateResponse(t, router, newInsightRequest(`{"frameIds":`+ids+`,"question":"`+q+`"}`, secretAskOnly, "application/json"), w, true); err != nil {
			t.Errorf("%q: the answer does not validate: %v\n%s", q, err, w.Body)
		}
	}
}

// TestServer_HandleFramesInsight_Issue22Gaps: K frames by distance, a
// band of distances, conditions on a density or a ratio, and a place no
// readable dataset names, each against figures worked out here from the
// fixture's values (insightStore) and the clinic's coordinates.
func TestServer_HandleFramesInsight_Issue22Gaps(t *testing.T) {
	requireEngine(t)
	s, _ := insightServer(t, insightStore(10).fake(), nil, nil)
	ask := func(q string) insightData {
		t.Helper()
		return insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`","`+frameB+`","`+frameC+`"],"question":"`+q+`"}`, secretAskOnly, ""))
	}
	pop := map[string]float64{frameA: 1234.5, frameB: 800, frameC: 4000}
	ids := []string{frameA, frameB, frameC}
	slices.SortFunc(ids, func(x, y string) int { return cmp.Compare(clinicCentreKm(y), clinicCentreKm(x)) }) // farthest first

	d := ask("the 2 frames farthest from a clinic")
	if d.Intent != "frames_farthest" || d.Result == nil || !slices.Equal(d.Result.Frames, ids[:2]) || d.Table == nil || len(d.Table.Rows) != 2 ||
		d.Result.Value == nil || math.Abs(*d.Result.Value-clinicCentreKm(ids[0])) > 1e-9 {
		t.Errorf("farthest 2: %+v %+v", d.Result, d.Table)
	}

	// A band that leaves out the nearest frame and holds the two others.
	lo := math.Ceil(clinicCentreKm(ids[2])*1000) / 1000
	hi := math.Ceil(clinicCentreKm(ids[0])*1000) / 1000
	d = ask("How many people live between " + strconv.FormatFloat(lo, 'f', -1, 64) + " and " + strconv.FormatFloat(hi, 'f', -1, 64) + " km from a clinic?")
	if want := pop[ids[0]] + pop[ids[1]]; d.Intent != "frames_coverage" || d.Confidence != "exact" || d.Result == nil || d.Result.Value == nil || *d.Result.Value != want {
		t.Errorf("band: %+v, want %g (%s)", d.Result, want, d.Headline)
	}

	// Densities: each frame's people over its area on the sphere (within
	// 0.5 % of the ellipsoid's; the threshold is far from every frame).
	area := func(id string) float64 {
		row, col, _ := grid.RowCol(mustID(id))
		b := grid.CellBox(row, col)
		const r, rad = 6371.0088, math.Pi / 180
		return r * r * (b.MaxLon - b.MinLon) * rad * (math.Sin(b.MaxLat*rad) - math.Sin(b.MinLat*rad))
	}
	dense := 0
	for id, p := range pop {
		if p/area(id) > 1200 {
			dense++
		}
	}
	d = ask("How many frames have more than 1,200 people per km²?")
	if d.Result == nil || d.Result.Value == nil || *d.Result.Value != float64(dense) || d.Confidence != "exact" {
		t.Errorf("density filter: %+v, want %d (%s)", d.Result, dense, d.Headline)
	}
	// Ratios: frame B has 800 people and 2 clinics (400 per clinic); A and
	// C have people and no clinic, more than any number per clinic.
	d = ask("How many frames have more than 500 people per clinic?")
	if d.Result == nil || d.Result.Value == nil || *d.Result.Value != 2 || !strings.Contains(d.Detail, "than any number") {
		t.Errorf("ratio filter over: %+v %q", d.Result, d.Detail)
	}
	d = ask("How many frames have fewer than 500 people per clinic?")
	if d.Result == nil || d.Result.Value == nil || *d.Result.Value != 1 {
		t.Errorf("ratio filter under: %+v %q", d.Result, d.Headline)
	}

	// Dala is no value of the readable administrative areas.
	d = ask("How many people live in Dala LGA?")
	if d.Confidence != "partial" || d.Result != nil && d.Result.Value != nil ||
		!strings.Contains(d.Headline, "Dala is not a place in the readable boundary data, so it is not in the selection") {
		t.Errorf("Dala: %s %+v %q", d.Confidence, d.Result, d.Headline)
	}
	// A place the data names is answered about its frames.
	d = ask("How many people live in Suleja?")
	if d.Result == nil || d.Result.Value == nil || *d.Result.Value != 4000 {
		t.Errorf("Suleja: %+v %q", d.Result, d.Headline)
	}
	// The country is every frame's place: the selection is answered.
	for _, q := range []string{"How many people live in Nigeria?", "What is the total population of the selected frames in Nigeria?"} {
		d = ask(q)
		if want := pop[ids[0]] + pop[ids[1]] + pop[ids[2]]; d.Confidence != "exact" || d.Result == nil || d.Result.Value == nil || *d.Result.Value != want {
			t.Errorf("%q: %s %+v, want %g (%s)", q, d.Confidence, d.Result, want, d.Headline)
		}
	}
}
