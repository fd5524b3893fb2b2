package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/access"
	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/insight"
	"frameindex/narrate"
	"frameindex/narrate/ollamatest"
	"frameindex/plan"
	"frameindex/state"
)

// fakeAllowance records what the wording step reserved, committed and
// refunded; reserveErr makes every reservation fail with it.
type fakeAllowance struct {
	mu         sync.Mutex
	reserveErr error
	reserved   []state.Reservation
	committed  []uint64
	refunded   []uint64
}

func (a *fakeAllowance) ReserveAnswer(orgID, keyID, requestID string, cost int64, now time.Time) (state.Reservation, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.reserveErr != nil {
		return state.Reservation{}, a.reserveErr
	}
	r := state.Reservation{ID: uint64(len(a.reserved) + 1), OrgID: orgID, KeyID: keyID, RequestID: requestID, Credits: cost}
	a.reserved = append(a.reserved, r)
	return r, nil
}

func (a *fakeAllowance) CommitAnswer(r state.Reservation) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.committed = append(a.committed, r.ID)
	return nil
}

func (a *fakeAllowance) RefundAnswer(r state.Reservation, now time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refunded = append(a.refunded, r.ID)
	return nil
}

// fixedAnswer is the computed answer every question gets in these tests.
func fixedAnswer(engineCall) insight.Insight {
	return insight.Insight{
		Intent: "frames_attribute", Confidence: "exact", Register: "plain", Retrieval: "none",
		Headline: "The 2 selected frames have an estimated population of 12,345 (2020).",
		Facets: []insight.Facet{{Label: "Total estimated population (2020)", Value: "12,345 people"},
			{Label: "State", Value: "Kano"}},
		FrameIDs: []string{"1", "2"},
	}
}

func wordingServer(t *testing.T, model *ollamatest.Server, allow *fakeAllowance, timeout time.Duration) *Server {
	t.Helper()
	client, err := narrate.NewClient(model.URL(), ollamatest.DefaultModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{
		Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return dataKeys },
		Data: insightStore(10).fake(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Narrator: client, Allowance: allow, RequestTimeout: timeout,
		Places: func() []string { return []string{"Kaduna", "Kano", "Lagos"} },
	})
	s.compute = computeOf(fixedAnswer)
	return s
}

type wordedAnswer struct {
	Headline, Narrative, Engine, Model, Notice, Format string
}

func askWorded(t *testing.T, s *Server, body string) wordedAnswer {
	t.Helper()
	r := newInsightRequest(body, secretAskOnly, "application/json")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	_, router := loadOpenAPI(t)
	// A fresh request: the server has read the first one's body.
	if err := validateResponse(t, router, newInsightRequest(body, secretAskOnly, "application/json"), w, true); err != nil {
		t.Fatalf("the answer does not match the OpenAPI document: %v\n%s", err, w.Body)
	}
	var env struct{ Data wordedAnswer }
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

func TestServer_Wording(t *testing.T) {
	body := `{"frameIds":` + idsJSON(2) + `,"question":"population"}`
	report := `{"frameIds":` + idsJSON(2) + `,"question":"population","format":"report"}`
	tests := []struct {
		name       string
		body       string
		reply      string
		fail       int
		delay      time.Duration
		reserveErr error
		engine     string
		notice     bool
		committed  int
		refunded   int
	}{
		{"kept", body, "About 12,000 people live in the 2 frames of Kano (2020 estimate).", 0, 0, nil, "llm", false, 1, 0},
		{"one wrong number", body, "About 13,500 people live in the 2 frames.", 0, 0, nil, "deterministic", false, 0, 1},
		{"an invented place", body, "The 2 frames in Kaduna hold 12,345 people.", 0, 0, nil, "deterministic", false, 0, 1},
		{"model fails", body, "", 500, 0, nil, "deterministic", false, 0, 1},
		{"model slower than the budget", body, "12,345 people.", 0, 10 * time.Second, nil, "deterministic", false, 0, 1},
		{"report kept", report, "## Population\n\n- 12,345 people live in the 2 selected frames (2020).", 0, 0, nil, "llm", false, 1, 0},
		{"report without sections", report, "12,345 people live in the 2 selected frames.", 0, 0, nil, "deterministic", false, 0, 1},
		{"allowance and credits spent", body, "12,345 people.", 0, 0, state.ErrNoAllowance, "deterministic", true, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := ollamatest.NewServer()
			defer model.Close()
			model.SetReply(tc.reply)
			if tc.fail != 0 {
				model.SetFail(tc.fail, "out of memory")
			}
			model.SetDelay(tc.delay)
			allow := &fakeAllowance{reserveErr: tc.reserveErr}
			s := wordingServer(t, model, allow, 3*time.Second)
			start := time.Now()
			a := askWorded(t, s, tc.body)
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("answer took %v, beyond the request budget", took)
			}
			if a.Engine != tc.engine || (a.Notice != "") != tc.notice {
				t.Fatalf("engine %q notice %q: %+v", a.Engine, a.Notice, a)
			}
			if tc.engine == "llm" {
				if a.Narrative == "" || a.Model != ollamatest.DefaultModel {
					t.Fatalf("worded answer without narrative or model: %+v", a)
				}
				if strings.HasPrefix(tc.body, report[:20]) && strings.Contains(tc.body, "report") != (a.Format == "report") {
					t.Fatalf("format %q", a.Format)
				}
			} else if a.Narrative != "" || a.Model != "" || a.Format != "" {
				t.Fatalf("deterministic answer carries wording: %+v", a)
			}
			if a.Headline == "" {
				t.Fatal("no headline")
			}
			if len(allow.committed) != tc.committed || len(allow.refunded) != tc.refunded {
				t.Fatalf("committed %v refunded %v", allow.committed, allow.refunded)
			}
			// The model never sees the question's text.
			for _, req := range model.Requests() {
				for _, m := range req.Messages {
					if strings.Contains(m.Content, `"population"`) {
						t.Fatalf("the question reached the model: %q", m.Content)
					}
				}
			}
		})
	}
}

// claimSelection is a selection of the national demo the wording corpus
// is written against: rows x cols frames from the cell holding (lat, lon),
// every step frames apart, and extra ids.
type claimSelection struct {
	name             string
	lat, lon         float64
	rows, cols, step int
	extra            []uint64
}

// claimQuestions are asked of each selection whose name they list ("*":
// all).
var claimQuestions = []struct {
	name, question, format, register string
	on                               []string
}{
	{"profile", "", "answer", "plain", []string{"*"}},
	{"profile-report", "", "report", "gis", []string{"kano", "border"}},
	{"population", "how many people live here", "answer", "plain", []string{"*"}},
	{"buildings-gis", "zonal sum of building_count", "answer", "gis", []string{"lagos", "abuja"}},
	{"rank-buildings", "which frame has the most buildings", "answer", "plain", []string{"lagos", "kano", "abuja"}},
	{"rank-top3", "top 3 frames by population", "report", "plain", []string{"kano", "border"}},
	{"rank-lowest", "which frame has the lowest population", "answer", "plain", []string{"border", "rural"}},
	{"compare", "compare population and health facilities", "answer", "plain", []string{"lagos", "kano"}},
	{"density", "what is the population density", "answer", "plain", []string{"lagos", "kano", "rural"}},
	{"density-gis", "population density of the raster cells", "report", "gis", []string{"abuja"}},
	{"densest", "which frame is the densest", "answer", "plain", []string{"kano"}},
	{"ratio", "how many people per building", "answer", "plain", []string{"lagos", "border"}},
	{"ratio-scale", "clinics per 10,000 people", "answer", "plain", []string{"kano", "lagos"}},
	{"threshold", "frames with at least 20,000 people", "answer", "plain", []string{"lagos"}},
	{"threshold-kano", "frames with at least 3,000 people", "answer", "plain", []string{"kano"}},
	{"threshold-subject", "how many buildings are in frames with more than 300 people", "answer", "plain", []string{"border"}},
	{"gap", "frames without a health facility", "answer", "plain", []string{"kano", "rural"}},
	{"share-urban", "what share of the population lives in urban frames", "answer", "plain", []string{"kano", "border"}},
	{"share-state", "share of the population by state", "report", "plain", []string{"border"}},
	{"share-rural", "what % of frames are rural", "answer", "gis", []string{"rural", "border"}},
	{"nearest", "where is the nearest clinic", "answer", "plain", []string{"lagos", "rural", "single"}},
	{"nearest-3", "the 3 nearest health facilities", "report", "plain", []string{"abuja"}},
	{"radiance", "mean night-time light radiance", "answer", "gis", []string{"kano", "single"}},
	{"settlement", "most common settlement class", "answer", "plain", []string{"border"}},
}

// claimSelections are the selections of the corpus.
var claimSelections = []claimSelection{
	{name: "lagos", lat: 6.4541, lon: 3.3947, rows: 2, cols: 2, step: 1},
	{name: "kano", lat: 12.0022, lon: 8.5920, rows: 3, cols: 3, step: 1},
	{name: "abuja", lat: 9.0765, lon: 7.3986, rows: 2, cols: 3, step: 1},
	{name: "border", lat: 12.05, lon: 8.70, rows: 1, cols: 12, step: 12},
	{name: "rural", lat: 11.20, lon: 12.90, rows: 2, cols: 3, step: 40},
	{name: "single", lat: 7.3775, lon: 3.9470, rows: 1, cols: 1, step: 1},
	// Two frames of Lagos Island and two ids of the sea, which no frame
	// holds.
	{name: "missing", lat: 6.4541, lon: 3.3947, rows: 1, cols: 2, step: 1, extra: []uint64{1, 2}},
}

// claimAnswer is one captured answer with the figures its wording is
// checked against (narrate/testdata/claims_answers.json): each figure as
// [text, canonical unit, subject, kind, label].
type claimAnswer struct {
	Name     string      `json:"name"`
	Question string      `json:"question"`
	Format   string      `json:"format"`
	Register string      `json:"register"`
	Headline string      `json:"headline"`
	Detail   string      `json:"detail,omitempty"`
	Facets   [][2]string `json:"facets,omitempty"`
	Table    [][]string  `json:"table,omitempty"`
	FrameIDs []string    `json:"frameIds"`
	Frames   int         `json:"frames"`
	Rows     int         `json:"rows"`
	Places   []string    `json:"places"`
	Values   []string    `json:"values,omitempty"`
	Figures  [][5]string `json:"figures"`
}

// TestCaptureClaimAnswers writes narrate/testdata/claims_answers.json:
// real answers of the national demo, with the figures figuresOf hands the
// wording check, for narrate's claim corpus. It runs only when asked:
//
//	frameindex demo --data /tmp/demo.db   # once; stop it when it serves
//	FRAMEINDEX_CLAIMS_DEMO=/tmp/demo.db go test ./handlers/ -run TestCaptureClaimAnswers
func TestCaptureClaimAnswers(t *testing.T) {
	path := os.Getenv("FRAMEINDEX_CLAIMS_DEMO")
	if path == "" {
		t.Skip("set FRAMEINDEX_CLAIMS_DEMO to a demo data file to capture the claim corpus's answers")
	}
	store, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, runs, _, err := store.Grid()
	if err != nil {
		t.Fatal(err)
	}
	ix := index.NewLattice(runs)
	known, err := store.CategoryValues([]string{"state", "lga", "ward"})
	if err != nil {
		t.Fatal(err)
	}
	key := state.Key{ID: "capture", OrgID: "demo", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead, state.CapAskQuery}}
	srv := New(Config{Frames: func() FrameIndex { return ix }, Data: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var out []claimAnswer
	for _, sel := range claimSelections {
		row, col := grid.CellAt(sel.lat, sel.lon)
		var ids []uint64
		for r := 0; r < sel.rows; r++ {
			for c := 0; c < sel.cols; c++ {
				ids = append(ids, grid.CellID(row+r*sel.step, col+c*sel.step))
			}
		}
		ids = append(ids, sel.extra...)
		for _, q := range claimQuestions {
			if !slices.Contains(q.on, "*") && !slices.Contains(q.on, sel.name) {
				continue
			}
			ans, err := access.Read(store, ix, key, ids, false)
			if err != nil {
				t.Fatal(err)
			}
			// The handler's steps: the catalogue, the plan, the search, the
			// input, the engine.
			cat, err := srv.catalogueFor(ans)
			if err != nil {
				t.Fatal(err)
			}
			pl := plan.Parse(q.question, cat.cat)
			if q.register != "" {
				pl.Register = q.register
			}
			near, err := ans.Near(pl, srv.plans.reach, store)
			if err != nil {
				t.Fatal(err)
			}
			in, err := ans.SelectionInput(access.Question{Text: q.question, Format: q.format, Register: q.register}, near)
			if err != nil {
				t.Fatal(err)
			}
			in.Places = cat.placeChecks(pl, &in)
			res := insight.Compute(pl, &in).Insight
			f := figuresOf(res, known)
			ca := claimAnswer{Name: sel.name + "-" + q.name, Question: q.question, Format: q.format, Register: q.register,
				Headline: res.Headline, Detail: res.Detail, FrameIDs: res.FrameIDs, Frames: f.Frames, Rows: f.Rows, Places: f.Places,
				Values: slices.Compact(slices.Sorted(slices.Values(f.Values)))}
			for _, fc := range res.Facets {
				ca.Facets = append(ca.Facets, [2]string{fc.Label, fc.Value})
			}
			if res.Table != nil {
				ca.Table = append([][]string{res.Table.Columns}, res.Table.Rows...)
			}
			for _, g := range f.List {
				ca.Figures = append(ca.Figures, [5]string{g.Text, g.Unit, g.Subject, g.Kind, g.Label})
			}
			out = append(out, ca)
		}
	}
	// The known places: every state and LGA, and the wards of the LGAs
	// the answers name (the national list of wards is too long to keep).
	named := map[string]bool{}
	for _, a := range out {
		for _, p := range a.Places {
			named[p] = true
		}
	}
	var kept []string
	for _, p := range known {
		lga, _, isWard := strings.Cut(p, " Ward ")
		if !isWard || named[lga] {
			kept = append(kept, p)
		}
	}
	// One answer a line.
	var b strings.Builder
	head, _ := json.Marshal("FRAMEINDEX_CLAIMS_DEMO=demo.db go test ./handlers/ -run TestCaptureClaimAnswers (see handlers/wording_test.go)")
	kp, _ := json.Marshal(kept)
	b.WriteString("{\"how\": " + string(head) + ",\n\"knownPlaces\": " + string(kp) + ",\n\"answers\": [\n")
	for i, a := range out {
		line, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		if i < len(out)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	if err := os.WriteFile(filepath.Join("..", "narrate", "testdata", "claims_answers.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d answers captured", len(out))
}

// claimAnswer is the engine's answer to q over three frames of two wards
// of Kano Municipal, with population, buildings and areas.
func claimAnswerOf(q string) insight.Insight {
	admin := func(name, label string, codes ...int32) insight.Column {
		dict := map[string][]string{"state": {"Kano"}, "lga": {"Kano Municipal"}, "ward": {"Kano Municipal 3", "Kano Municipal 4"}}[name]
		return insight.Column{Dataset: "admin", DatasetName: "Administrative areas", Codes: codes, Dict: dict,
			Attr: insight.Attribute{Name: name, Label: label, Type: "category", Aggregation: "mode"}}
	}
	build := insight.Attribute{Name: "building_count", Label: "Buildings", Unit: "buildings", Type: "number", Aggregation: "sum", Year: 2020}
	pop := insight.Attribute{Name: "population_2020", Label: "Estimated population", Unit: "people", Type: "number", Aggregation: "sum", Year: 2020,
		Aliases: []string{"people", "population"}}
	in := &insight.Input{AreaBasis: "WGS84 ellipsoid",
		Datasets: []insight.Dataset{
			{ID: "admin", Name: "Administrative areas", Attributes: []insight.Attribute{
				{Name: "state", Label: "State", Type: "category", Aggregation: "mode"},
				{Name: "lga", Label: "Local government area", Type: "category", Aggregation: "mode"},
				{Name: "ward", Label: "Ward", Type: "category", Aggregation: "mode"}}},
			{ID: "buildings", Name: "Buildings", Attributes: []insight.Attribute{build}},
			{ID: "population", Name: "Estimated population", Attributes: []insight.Attribute{pop}},
		},
		Frames: insight.FrameSet{IDs: []uint64{433102007, 433102008, 433102009}, AreaKm2: []float64{0.85, 0.85, 0.85}},
		Columns: []insight.Column{
			admin("state", "State", 0, 0, 0), admin("lga", "Local government area", 0, 0, 0), admin("ward", "Ward", 0, 0, 1),
			{Dataset: "buildings", DatasetName: "Buildings", Attr: build, Num: []float64{2400, 70, 900}},
			{Dataset: "population", DatasetName: "Estimated population", Attr: pop, Num: []float64{12000, 345, 5000}},
		},
	}
	cat := &plan.Catalogue{}
	for _, c := range in.Columns {
		a := c.Attr
		cat.Measures = append(cat.Measures, plan.MeasureInfo{Dataset: c.Dataset, Attribute: a.Name, Label: a.Label, Aliases: a.Aliases,
			Unit: a.Unit, Type: a.Type, Aggregation: a.Aggregation, Year: a.Year, Values: c.Dict})
	}
	return insight.Compute(plan.Parse(q, cat), in).Insight
}

// TestFiguresOf_Claims: the figures handed to the check carry units and
// subjects from the engine, so a right number said of the wrong thing is
// discarded, with the kind of error; honest wordings are kept.
func TestFiguresOf_Claims(t *testing.T) {
	known := []string{"Kano", "Kano Municipal", "Kano Municipal 3", "Kano Municipal 4", "Jigawa", "Dutse"}
	tests := []struct {
		q, wording, kind string // kind "" for an honest wording
	}{
		{"", "The 3 selected frames, in Kano Municipal, hold about 17,300 people and 3,370 buildings in two wards.", ""},
		{"", "The selection spans three local government areas.", narrate.FailNames},
		{"", "The frames hold 3,370 km² of built-up land.", narrate.FailUnit},
		{"", "The fourth frame holds the most buildings.", narrate.FailOrdinal},
		{"", "Over 17,350 people live in the three frames.", narrate.FailHedge},
		{"", "The frames lie in Kano and Jigawa.", narrate.FailPlace},
		{"", "A figure of 2.55 km².", narrate.FailNumber},
		{"how many people live here", "Frame 433102007 holds 12,000 people, frame 433102009 5,000 and frame 433102008 345.", ""},
		{"how many people live here", "Frame 433102008 is the busiest, with 12,000 people.", narrate.FailSubject},
		{"how many people live here", "Frame 433102007 holds 17,345 people.", narrate.FailSubject},
		{"population density", "About 6,800 people live on each km² of the 2.55 km² the frames cover.", ""},
		{"population density", "The frames cover 6,802 hectares.", narrate.FailUnit},
		{"people per building", "There are about 5.2 people per building; frame 433102008 holds 345 people and 70 buildings.", ""},
		{"people per building", "There are 5.15 buildings per person.", narrate.FailUnit},
		// A figure with its year before its label is kept when right; a
		// bound rounded past the figure is a number the server did not
		// compute.
		{"how many people live here", "The 2020 population of the 3 frames is 17,345.", ""},
		{"how many people live here", "Their 2020 estimated population is about 17,300 people.", ""},
		{"how many people live here", "The 2020 population of the 3 frames is 17,354.", narrate.FailNumber},
		{"how many people live here", "More than 17,000 people live here.", ""},
		{"how many people live here", "Fewer than 17,400 people live here.", narrate.FailNumber},
		{"how many people live here", "More than 18,000 people live here.", narrate.FailNumber},
	}
	for _, tc := range tests {
		res := claimAnswerOf(tc.q)
		v := narrate.Verify(tc.wording, figuresOf(res, known), false)
		if v.OK != (tc.kind == "") || v.Kind != tc.kind {
			t.Errorf("%q over %q: %+v, want kind %q (headline %q)", tc.wording, tc.q, v, tc.kind, res.Headline)
		}
	}
}

// TestPromptOf_Figures: the model is told what each number is; ids and
// ranks are left to the table.
func TestPromptOf_Figures(t *testing.T) {
	res := claimAnswerOf("which frame has the most people")
	pr := promptOf(res, insightParams{}, false)
	var lines []string
	for _, f := range pr.Figures {
		lines = append(lines, f.Text+" | "+f.Unit+" | "+f.Of+" | "+f.Label)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"12,000 | people | frame 433102007 |", "12,000 | people | the selection | Largest estimated population", "3 | frames | the selection | Frames"} {
		if !strings.Contains(all, want) {
			t.Errorf("prompt figures lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "frame id") {
		t.Errorf("ids among the prompt's figures:\n%s", all)
	}
	if msg := narrate.UserMessage(pr); !strings.Contains(msg, "What each number is") {
		t.Errorf("user message:\n%s", msg)
	}
}

// TestServer_WordingDiscardLogged: a discarded wording is refunded and
// logged with the kind of error and the number, never the question.
func TestServer_WordingDiscardLogged(t *testing.T) {
	model := ollamatest.NewServer()
	defer model.Close()
	var logs strings.Builder
	var mu sync.Mutex
	allow := &fakeAllowance{}
	s := wordingServer(t, model, allow, 3*time.Second)
	s.logger = slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	s.compute = computeOf(func(req engineCall) insight.Insight { return claimAnswerOf(req.Question) })
	model.SetReply("The selection spans three local government areas.")
	a := askWorded(t, s, `{"frameIds":`+idsJSON(2)+`,"question":"tell me about these secret frames"}`)
	if a.Engine != "deterministic" || len(allow.refunded) != 1 || len(allow.committed) != 0 {
		t.Fatalf("engine %q, refunded %v, committed %v", a.Engine, allow.refunded, allow.committed)
	}
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	if !strings.Contains(out, `"kind":"wrong count of names"`) || !strings.Contains(out, `three`) || strings.Contains(out, "secret") {
		t.Errorf("log:\n%s", out)
	}
}

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// startingAllowance is fakeAllowance whose reservations are decided
// before they are durable (state.ReserveStarter, as *bolt.Store's).
type startingAllowance struct {
	*fakeAllowance
	durable func() error
}

func (a startingAllowance) StartReserveAnswer(orgID, keyID, requestID string, cost int64, now time.Time) (state.Reservation, func() error, error) {
	r, err := a.ReserveAnswer(orgID, keyID, requestID, cost, now)
	return r, a.durable, err
}

// The model words while the reservation commits; the wording is shown,
// and the reservation settled, only once the reservation is durable. When
// its commit fails, the answer is not worded and nothing is settled.
func TestServer_WordingWhileReserving(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("commit fails=", fail), func(t *testing.T) {
			model := ollamatest.NewServer()
			defer model.Close()
			model.SetReply("About 12,000 people live in the 2 frames of Kano (2020 estimate).")
			allow := &fakeAllowance{}
			waited := 0
			start := startingAllowance{fakeAllowance: allow, durable: func() error {
				waited++
				if n := len(model.Requests()); n != 1 {
					t.Errorf("the model was called %d times before the reservation was durable, want 1 (while it commits)", n)
				}
				if len(allow.committed)+len(allow.refunded) > 0 {
					t.Error("the reservation was settled before it was durable")
				}
				if fail {
					return errors.New("fsync: input/output error")
				}
				return nil
			}}
			s := wordingServer(t, model, allow, 3*time.Second)
			s.allowance = start
			a := askWorded(t, s, `{"frameIds":`+idsJSON(2)+`,"question":"population"}`)
			if waited != 1 {
				t.Fatalf("durable called %d times, want 1", waited)
			}
			wantEngine, wantCommitted := "llm", 1
			if fail {
				wantEngine, wantCommitted = "deterministic", 0
			}
			if a.Engine != wantEngine || (a.Narrative != "") != !fail {
				t.Errorf("engine %q narrative %q, want %s", a.Engine, a.Narrative, wantEngine)
			}
			if len(allow.committed) != wantCommitted || len(allow.refunded) != 0 {
				t.Errorf("committed %v refunded %v", allow.committed, allow.refunded)
			}
		})
	}
}
