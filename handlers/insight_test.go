package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/insight"
	"frameindex/limiter"
	"frameindex/plan"
	"frameindex/state"
)

// The datasets of the question tests, shaped like the demo's (demo/demo.go):
// admin, buildings, health, population and settlement are the
// organisation's own; nightlights is licensed per query (price 1) and
// records on frames A and B; paid_elsewhere is per query and records
// nothing on the test frames.
func insightStore(balance int64) *memStore {
	a, b, c := mustID(frameA), mustID(frameB), mustID(frameC)
	num := func(name, label, unit, agg string, year int, aliases ...string) state.Attribute {
		return state.Attribute{Name: name, Label: label, Unit: unit, Type: "number", Aggregation: agg, Year: year, Aliases: aliases}
	}
	cat := func(name, label string, aliases ...string) state.Attribute {
		return state.Attribute{Name: name, Label: label, Type: "category", Aggregation: "mode", Aliases: aliases}
	}
	ds := func(id, name string, frames, features int, perQuery bool, attrs ...state.Attribute) state.Access {
		return state.Access{Dataset: state.Dataset{ID: id, Name: name, Price: 1, Owner: "org1", Attributes: attrs,
			Frames: frames, Features: features}, PerQuery: perQuery}
	}
	return &memStore{balance: balance, datasets: []memDataset{
		{access: ds("admin", "Administrative areas", 1000, 0, false,
			cat("state", "State", "state"), cat("lga", "Local government area", "lga"), cat("ward", "Ward", "ward")),
			attrs: map[uint64]string{
				a: `{"state":"Federal Capital Territory","lga":"Abuja Municipal","ward":"Garki 1"}`,
				b: `{"state":"Federal Capital Territory","lga":"Abuja Municipal","ward":"Garki 2"}`,
				c: `{"state":"Niger","lga":"Suleja","ward":"Suleja 1"}`}},
		{access: ds("buildings", "Buildings", 700, 0, false, num("building_count", "Buildings", "buildings", "sum", 0, "houses")),
			attrs: map[uint64]string{a: `{"building_count":312}`, c: `{"building_count":1.5e3}`}},
		{access: ds("health", "Health facilities", 90, 120, false, num("facility_count", "Health facilities", "facilities", "sum", 0, "clinics")),
			attrs:    map[uint64]string{b: `{"facility_count":2}`},
			features: map[uint64][]string{b: {clinicFeat, clinicFeat}}},
		{access: ds("nightlights", "Night-time lights", 400, 0, true, num("radiance", "Night-time light radiance", "nW/cm²/sr", "mean", 2022)),
			attrs: map[uint64]string{a: `{"radiance":12.5}`, b: `{"radiance":7.25}`}},
		{access: ds("paid_elsewhere", "Paid elsewhere", 5, 0, true, num("x", "X", "", "sum", 0)),
			attrs: map[uint64]string{1: `{"x":1}`}},
		{access: ds("population", "Estimated population", 1000, 0, false,
			num("population_2020", "Estimated population", "people", "sum", 2020, "population", "people")),
			attrs: map[uint64]string{a: `{"population_2020":1234.5}`, b: `{"population_2020":800}`, c: `{"population_2020":4000}`}},
		{access: ds("settlement", "Settlement class", 1000, 0, false, cat("settlement_class", "Settlement class", "urban")),
			attrs: map[uint64]string{a: `{"settlement_class":"urban"}`, b: `{"settlement_class":"urban"}`, c: `{"settlement_class":"rural","flag":true,"none":null,"big":1e999,"list":[1]}`}},
	}}
}

// sumEngine is a fake insight engine: for every dataset of the request with
// a number on a known frame it adds a facet (the dataset's name and the sum
// of its numbers) and a source, and names the dataset in Used. It records
// every request it was given.
type sumEngine struct {
	mu   sync.Mutex
	reqs []engineCall
	// also adds to every answer (for envelope tests)
	extra func(*insight.Insight)
}

func (e *sumEngine) answer(req engineCall) insight.Insight {
	e.mu.Lock()
	e.reqs = append(e.reqs, req)
	e.mu.Unlock()
	res := insight.Insight{Intent: "frames", Confidence: "exact", Register: "plain", Retrieval: "none"}
	known := 0
	for _, f := range req.Frames {
		if f.Known {
			known++
			res.FrameIDs = append(res.FrameIDs, f.ID)
		}
	}
	res.Headline = strconv.Itoa(known) + " frames."
	for _, d := range req.Datasets {
		sum, any := 0.0, false
		for _, f := range req.Frames {
			for _, v := range f.Data[d.ID].Attrs {
				if v.IsNum {
					sum, any = sum+v.Num, true
				}
			}
		}
		if !any {
			continue
		}
		res.Facets = append(res.Facets, insight.Facet{Label: d.Name, Value: strconv.FormatFloat(sum, 'f', -1, 64)})
		res.Sources = append(res.Sources, insight.Source{LayerID: d.ID, LayerName: d.Name})
		res.Used = append(res.Used, d.ID)
	}
	if e.extra != nil {
		e.extra(&res)
	}
	return res
}

func (e *sumEngine) requests() []engineCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.reqs)
}

// insightServer returns a Server over the abuja grid with store as its
// DataStore (nil for none), the limiter lim (nil: unmetered) and engine as
// its engine (nil: the real one), logging JSON to the returned buffer.
func insightServer(t testing.TB, store DataStore, lim RateLimiter, engine func(engineCall) insight.Insight) (*Server, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	cfg := Config{
		Frames:  func() FrameIndex { return abuja },
		Keys:    func() KeyLookup { return dataKeys },
		Logger:  slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:     func() time.Time { return dataNow },
		Limiter: lim,
	}
	if store != nil {
		cfg.Data = store
	}
	s := New(cfg)
	if engine != nil {
		s.compute = computeOf(engine)
	}
	return s, &logs
}

// postInsight sends body to POST /v1/frames/insight with the secret as a
// Bearer key ("" for none) and the Content-Type ct ("" for none).
func postInsight(s http.Handler, body, secret, ct string) *httptest.ResponseRecorder {
	r := newInsightRequest(body, secret, ct)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func newInsightRequest(body, secret, ct string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/v1/frames/insight", strings.NewReader(body))
	if secret != "" {
		r.Header.Set("Authorization", "Bearer "+secret)
	}
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	return r
}

// insightData is the data of a question answer, decoded strictly.
type insightData struct {
	Intent     string           `json:"intent"`
	Headline   string           `json:"headline"`
	Detail     string           `json:"detail"`
	Facets     []insight.Facet  `json:"facets"`
	Table      *insight.Table   `json:"table"`
	Sources    []insight.Source `json:"sources"`
	FollowUps  []string         `json:"followUps"`
	Confidence string           `json:"confidence"`
	Engine     string           `json:"engine"`
	Register   string           `json:"register"`
	Retrieval  string           `json:"retrieval"`
	Format     string           `json:"format"`
	FrameIDs   []string         `json:"frameIds"`
	Charged    []string         `json:"charged"`
	LeftOut    []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"leftOut"`
	// The extensions: how the question was read, and the primary figure.
	Plan   json.RawMessage `json:"plan"`
	Result *insight.Result `json:"result"`
}

// facet returns the value of the facet labelled label, or "".
func (d insightData) facet(label string) string {
	for _, f := range d.Facets {
		if f.Label == label {
			return f.Value
		}
	}
	return ""
}

// insightOK decodes a 200 answer, checking the envelope (no null anywhere)
// and that data holds only the Insight's members.
func insightOK(t testing.TB, w *httptest.ResponseRecorder) insightData {
	t.Helper()
	env := decode(t, w)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var d insightData
	dec := json.NewDecoder(bytes.NewReader(env.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("data does not decode strictly: %v\n%.500s", err, env.Data)
	}
	if d.Engine != engineDeterministic || d.Intent == "" || d.Headline == "" || d.Confidence == "" {
		t.Fatalf("a required member is missing: %s", env.Data)
	}
	rest := bytes.ReplaceAll(env.Data, []byte(`"rows":[]`), nil) // required, may be empty
	for _, empty := range []string{`""`, `[]`, `{}`} {
		if bytes.Contains(rest, []byte(":"+empty)) {
			t.Fatalf("data holds an empty member %s: %s", empty, env.Data)
		}
	}
	return d
}

// idsJSON returns n distinct frame ids of the abuja grid as a JSON array.
func idsJSON(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Quote(id(9700+i/20, 22480+i%20))
	}
	return "[" + strings.Join(ids, ",") + "]"
}

func TestServer_HandleFramesInsight_BodyErrors(t *testing.T) {
	one := `"frameIds":["` + frameA + `"]`
	long := func(r string, n int) string { return strings.Repeat(r, n) }
	tests := []struct {
		name   string
		ct     string // Content-Type; "" for none
		body   string
		status int
		code   string   // "" for 200
		frags  []string // fragments of the message
	}{
		// Content-Type.
		{"no content type", "", "{" + one + "}", 200, "", nil},
		{"json", "application/json", "{" + one + "}", 200, "", nil},
		{"json with charset", "application/json; charset=UTF-8", "{" + one + "}", 200, "", nil},
		{"json upper case", "Application/JSON", "{" + one + "}", 200, "", nil},
		{"text/plain", "text/plain", "{" + one + "}", 400, codeInvalidBody, []string{"application/json", `"text/plain"`}},
		{"form", "application/x-www-form-urlencoded", "{" + one + "}", 400, codeInvalidBody, []string{"application/json"}},
		{"latin-1", "application/json; charset=latin1", "{" + one + "}", 400, codeInvalidBody, []string{"UTF-8", `"latin1"`}},
		{"not a media type", "json;;", "{" + one + "}", 400, codeInvalidBody, []string{"not a media type"}},

		// Not one JSON object.
		{"empty", "", "", 400, codeInvalidBody, []string{"empty"}},
		{"white space", "", " \n\t", 400, codeInvalidBody, []string{"empty"}},
		{"array", "", `[{` + one + `}]`, 400, codeInvalidBody, []string{"JSON object", "an array"}},
		{"string", "", `"frameIds"`, 400, codeInvalidBody, []string{"JSON object", "a string"}},
		{"number", "", `12`, 400, codeInvalidBody, []string{"JSON object", "a number"}},
		{"null", "", `null`, 400, codeInvalidBody, []string{"JSON object", "null"}},
		{"malformed", "", `{frameIds:["1"]}`, 400, codeInvalidBody, []string{"not valid JSON", "offset 1", "invalid character"}},
		{"trailing comma", "", "{" + one + ",}", 400, codeInvalidBody, []string{"not valid JSON"}},
		{"cut short", "", "{" + one, 400, codeInvalidBody, []string{"ends before"}},
		{"cut in a value", "", `{"frameIds":["1"`, 400, codeInvalidBody, []string{"value of frameIds", "ends before"}},
		{"bad value", "", `{"question":tru}`, 400, codeInvalidBody, []string{"value of question", "not valid JSON"}},
		{"trailing object", "", "{" + one + "} {}", 400, codeInvalidBody, []string{"more after"}},
		{"trailing garbage", "", "{" + one + "}x", 400, codeInvalidBody, []string{"more after"}},
		{"trailing white space", "", "{" + one + "}\r\n \t", 200, "", nil},

		// Members.
		{"unknown member", "", "{" + one + `,"colour":"red"}`, 400, codeInvalidBody, []string{`"colour"`, "frameIds (or area), question, format and register"}},
		{"unknown before missing frameIds", "", `{"x":1}`, 400, codeInvalidBody, []string{`"x"`}},
		{"member case", "", `{"FrameIds":["1"]}`, 400, codeInvalidBody, []string{`"FrameIds"`}},
		{"repeated member", "", "{" + one + `,"question":"a","question":"b"}`, 400, codeInvalidBody, []string{"question twice"}},
		{"frameIds string", "", `{"frameIds":"` + frameA + `"}`, 400, codeInvalidBody, []string{"frameIds must be an array", "a string"}},
		{"frameIds null", "", `{"frameIds":null}`, 400, codeInvalidBody, []string{"frameIds must be an array", "null"}},
		{"frameIds object", "", `{"frameIds":{}}`, 400, codeInvalidBody, []string{"frameIds", "an object"}},
		{"frameIds number entry", "", `{"frameIds":["1",419494487]}`, 400, codeInvalidBody, []string{"frameIds[1] must be", "a number"}},
		{"frameIds null entry", "", `{"frameIds":[null]}`, 400, codeInvalidBody, []string{"frameIds[0]", "null"}},
		{"frameIds nested", "", `{"frameIds":[["1"]]}`, 400, codeInvalidBody, []string{"frameIds[0]", "an array"}},
		{"question number", "", "{" + one + `,"question":5}`, 400, codeInvalidBody, []string{"question must be a string", "a number"}},
		{"question null", "", "{" + one + `,"question":null}`, 400, codeInvalidBody, []string{"question must be a string", "null"}},
		{"format boolean", "", "{" + one + `,"format":true}`, 400, codeInvalidBody, []string{"format must be a string", "a boolean"}},
		{"register object", "", "{" + one + `,"register":{}}`, 400, codeInvalidBody, []string{"register must be a string", "an object"}},
		{"type error before missing frameIds", "", `{"question":5}`, 400, codeInvalidBody, []string{"question"}},

		// Values.
		{"frameIds missing", "", `{}`, 400, codeInvalid, []string{"frameIds is required"}},
		{"frameIds missing with question", "", `{"question":"hi"}`, 400, codeInvalid, []string{"frameIds is required"}},
		{"frameIds empty", "", `{"frameIds":[]}`, 400, codeInvalid, []string{"frameIds is empty"}},
		{"50 frameIds", "", `{"frameIds":` + idsJSON(50) + `}`, 200, "", nil},
		{"51 frameIds", "", `{"frameIds":` + idsJSON(51) + `}`, 400, codeInvalid, []string{"frameIds lists 51 ids", "at most 50"}},
		{"51 duplicates counted", "", `{"frameIds":[` + strings.Repeat(`"1",`, 50) + `"1"]}`, 400, codeInvalid, []string{"51"}},
		{"50 duplicates", "", `{"frameIds":[` + strings.Repeat(`"`+frameA+`",`, 49) + `"` + frameA + `"]}`, 200, "", nil},
		{"id not digits", "", `{"frameIds":["x1"]}`, 400, codeInvalid, []string{`frameIds entry "x1"`}},
		{"id empty", "", `{"frameIds":[""]}`, 400, codeInvalid, []string{`frameIds entry ""`}},
		{"id with space", "", `{"frameIds":[" 1"]}`, 400, codeInvalid, []string{`" 1"`}},
		{"id signed", "", `{"frameIds":["+1"]}`, 400, codeInvalid, []string{`"+1"`}},
		{"id 21 digits", "", `{"frameIds":["000000000000000000001"]}`, 400, codeInvalid, []string{"1 to 20 digits"}},
		{"id over 64 bits", "", `{"frameIds":["18446744073709551616"]}`, 400, codeInvalid, []string{"18446744073709551615"}},
		{"id 64 bits", "", `{"frameIds":["18446744073709551615"]}`, 200, "", nil},
		{"id with leading zeros", "", `{"frameIds":["0` + frameA + `"]}`, 200, "", nil},
		{"question 1,000 one-byte", "", "{" + one + `,"question":"` + long("a", 1000) + `"}`, 200, "", nil},
		{"question 1,000 two-byte", "", "{" + one + `,"question":"` + long("é", 1000) + `"}`, 200, "", nil},
		{"question 1,001 two-byte", "", "{" + one + `,"question":"` + long("é", 1001) + `"}`, 400, codeTooLong, []string{"question is 1,001 characters", "at most 1,000"}},
		{"question 1,000 four-byte", "", "{" + one + `,"question":"` + long("𝄞", 1000) + `"}`, 200, "", nil},
		{"question 1,001 four-byte", "", "{" + one + `,"question":"` + long("𝄞", 1001) + `"}`, 400, codeTooLong, []string{"1,001"}},
		{"question 1,000 escaped", "", "{" + one + `,"question":"` + long(`\u00e9`, 1000) + `"}`, 200, "", nil},
		{"question 1,001 surrogate pairs", "", "{" + one + `,"question":"` + long(`\ud834\udd1e`, 1001) + `"}`, 400, codeTooLong, []string{"1,001"}},
		{"question 5,000", "", "{" + one + `,"question":"` + long("a", 5000) + `"}`, 400, codeTooLong, []string{"5,000"}},
		{"question empty", "", "{" + one + `,"question":""}`, 200, "", nil},
		{"format answer", "", "{" + one + `,"format":"answer"}`, 200, "", nil},
		{"format report", "", "{" + one + `,"format":"report"}`, 200, "", nil},
		{"format poem", "", "{" + one + `,"format":"poem"}`, 400, codeInvalid, []string{`format must be "answer" or "report"`, `"poem"`}},
		{"format empty", "", "{" + one + `,"format":""}`, 400, codeInvalid, []string{"format", `got ""`}},
		{"format case", "", "{" + one + `,"format":"Report"}`, 400, codeInvalid, []string{`"Report"`}},
		{"register plain", "", "{" + one + `,"register":"plain"}`, 200, "", nil},
		{"register gis", "", "{" + one + `,"register":"gis"}`, 200, "", nil},
		{"register case", "", "{" + one + `,"register":"GIS"}`, 400, codeInvalid, []string{`register must be "plain" or "gis"`, `"GIS"`}},
		{"register empty", "", "{" + one + `,"register":""}`, 400, codeInvalid, []string{"register"}},

		// The order of the value checks: frameIds, question, format, register.
		{"frameIds before question", "", `{"frameIds":[],"question":"` + long("a", 1001) + `"}`, 400, codeInvalid, []string{"frameIds"}},
		{"question before format", "", `{"format":"x","register":"y",` + one + `,"question":"` + long("a", 1001) + `"}`, 400, codeTooLong, nil},
		{"format before register", "", `{"register":"y","format":"x",` + one + `}`, 400, codeInvalid, []string{"format"}},

		// Size.
		{"1 MiB", "", "{" + one + `,"question":"a"` + strings.Repeat(" ", maxInsightBody-len(one)-17) + "}", 200, "", nil},
		{"over 1 MiB", "", "{" + one + `,"question":"a"` + strings.Repeat(" ", maxInsightBody-len(one)-16) + "}", 400, codeInvalidBody, []string{"over 1 MiB"}},
		{"over 1 MiB in a string", "", "{" + one + `,"question":"` + long("a", 2<<20) + `"}`, 400, codeInvalidBody, []string{"over 1 MiB"}},
		{"over 1 MiB after the object", "", "{" + one + "}" + strings.Repeat(" ", 2<<20), 400, codeInvalidBody, []string{"over 1 MiB"}},
	}
	store := insightStore(10)
	engine := &sumEngine{}
	s, _ := insightServer(t, store.fake(), nil, engine.answer)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := postInsight(s, tt.body, secretAskOnly, tt.ct)
			if tt.code == "" {
				insightOK(t, w)
				return
			}
			wantErrorNull(t, w, tt.status, tt.code, tt.frags...)
		})
	}
	// The size cases are exact: the accepted body is 1 MiB to the byte.
	if n := len("{" + one + `,"question":"a"` + strings.Repeat(" ", maxInsightBody-len(one)-17) + "}"); n != maxInsightBody {
		t.Errorf("the 1 MiB body is %d bytes", n)
	}
}

func TestServer_HandleFramesInsight_CheckOrder(t *testing.T) {
	// Contract §6: credential (401) -> invalid-key meter (429) -> buckets,
	// with the insight bucket (429) -> capability (403) -> body (400). A
	// malformed body is never read before the key, the buckets and the
	// capability passed.
	var mu sync.Mutex
	var asked []bool
	lim := func(allowed bool) *fakeLimiter {
		return &fakeLimiter{
			RequestFn: func(_, _ string, insight bool) (limiter.Decision, error) {
				mu.Lock()
				asked = append(asked, insight)
				mu.Unlock()
				return limiter.Decision{Allowed: allowed, State: limiter.State{Limit: 30, Remaining: 29, Reset: 2 * time.Second, RetryAfter: 3 * time.Second}}, nil
			},
			InvalidKeyFn: func([32]byte) (limiter.Decision, error) {
				return limiter.Decision{Allowed: allowed, State: limiter.State{Limit: 5, Remaining: 4, Reset: 12 * time.Second, RetryAfter: 12 * time.Second}}, nil
			},
		}
	}
	const bad = `{"frameIds":`
	tests := []struct {
		name    string
		allowed bool
		secret  string
		body    string
		status  int
		code    string
		insight []bool // what the limiter was asked
	}{
		{"no key", true, "", bad, 401, codeUnauthorized, nil},
		{"invalid key", true, "svc_sk_nosuchkey", bad, 401, codeInvalidKey, nil},
		{"invalid key metered", false, "svc_sk_nosuchkey", bad, 429, codeRateLimited, nil},
		{"buckets before capability", false, secretGood, bad, 429, codeRateLimited, []bool{true}},
		{"capability before body", true, secretGood, bad, 403, codeInsufficientScope, []bool{true}},
		{"capability of the data call is not enough", true, secretFeatures, `{"frameIds":["1"]}`, 403, codeInsufficientScope, []bool{true}},
		{"body", true, secretAskOnly, bad, 400, codeInvalidBody, []bool{true}},
		{"answered", true, secretAskOnly, `{"frameIds":["1"]}`, 200, "", []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			store := insightStore(10).fake()
			s, _ := insightServer(t, store, lim(tt.allowed), (&sumEngine{}).answer)
			w := postInsight(s, tt.body, tt.secret, "application/json")
			if tt.code == "" {
				insightOK(t, w)
			} else {
				env := wantError(t, w, tt.status, tt.code)
				if tt.code == codeInsufficientScope && !strings.Contains(env.Error.Message, string(state.CapAskQuery)) {
					t.Errorf("the message does not name %s: %s", state.CapAskQuery, env.Error.Message)
				}
			}
			if !slices.Equal(asked, tt.insight) {
				t.Errorf("the limiter was asked insight=%v, want %v", asked, tt.insight)
			}
			if tt.status == 429 && w.Header().Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			if tt.secret != "" && tt.code != codeInvalidKey && w.Header().Get("X-RateLimit-Limit") == "" {
				t.Error("a metered response without X-RateLimit-Limit")
			}
			if tt.status != 200 && len(store.reads) > 0 {
				t.Errorf("the store was read on a %d", tt.status)
			}
		})
	}
	// The other calls do not spend from the insight bucket.
	asked = nil
	s, _ := insightServer(t, insightStore(10).fake(), lim(true), nil)
	get(s, "/v1/frames/data?ids="+frameA, secretFeatures)
	get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretFeatures)
	if !slices.Equal(asked, []bool{false, false}) {
		t.Errorf("the data and point calls asked insight=%v", asked)
	}
	// Other methods are 405 with Allow, before any key is read.
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		r := httptest.NewRequest(m, "/v1/frames/insight", nil)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		wantError(t, w, http.StatusMethodNotAllowed, codeMethodNotAllowed)
		if w.Header().Get("Allow") != "POST" {
			t.Errorf("%s: Allow = %q", m, w.Header().Get("Allow"))
		}
	}
}

func TestServer_HandleFramesInsight_Request(t *testing.T) {
	// What the engine is given: the question's words and options, every
	// readable dataset in ascending id with its attributes converted, and
	// the frames the grid holds in the order first asked, each once, with
	// what each dataset records (then the ids it does not hold).
	store := insightStore(10).fake()
	engine := &sumEngine{}
	s, _ := insightServer(t, store, nil, engine.answer)
	body := `{"register":"gis","question":"Total population?","frameIds":["` + frameC + `","` + frameA + `","5","0` + frameC + `","` + frameB + `","5"]}`
	d := insightOK(t, postInsight(s, body, secretAskOnly, "application/json"))
	reqs := engine.requests()
	if len(reqs) != 1 {
		t.Fatalf("the engine was asked %d times", len(reqs))
	}
	req := reqs[0]
	if req.Question != "Total population" || req.Format != "answer" || req.Register != "gis" {
		t.Errorf("question %q, format %q, register %q", req.Question, req.Format, req.Register)
	}
	var ids []string
	for _, ds := range req.Datasets {
		ids = append(ids, ds.ID)
	}
	if want := "admin buildings health nightlights paid_elsewhere population settlement"; strings.Join(ids, " ") != want {
		t.Errorf("datasets %v, want %s", ids, want)
	}
	pop := req.Datasets[5]
	wantPop := insight.Dataset{ID: "population", Name: "Estimated population", Frames: 1000, Attributes: []insight.Attribute{{
		Name: "population_2020", Label: "Estimated population", Unit: "people", Type: "number", Aggregation: "sum", Year: 2020,
		Aliases: []string{"population", "people"}}}}
	if !equalJSON(pop, wantPop) {
		t.Errorf("population dataset\n got %+v\nwant %+v", pop, wantPop)
	}
	if h := req.Datasets[2]; h.Frames != 90 || h.Features != 120 {
		t.Errorf("health: %d frames, %d features", h.Frames, h.Features)
	}
	// Frames: C, A, B, then 5 (unknown); "0C" is C again.
	var frames []string
	for _, f := range req.Frames {
		frames = append(frames, f.ID+":"+strconv.FormatBool(f.Known))
	}
	if want := frameC + ":true " + frameA + ":true " + frameB + ":true 5:false"; strings.Join(frames, " ") != want {
		t.Errorf("frames %v, want %s", frames, want)
	}
	fc, fa, fb, fx := req.Frames[0], req.Frames[1], req.Frames[2], req.Frames[3]
	if fx.Data != nil {
		t.Errorf("the unknown frame has data %v", fx.Data)
	}
	wantC := map[string]engineFrameData{
		"admin":      {Attrs: map[string]insight.Value{"state": {Str: "Niger"}, "lga": {Str: "Suleja"}, "ward": {Str: "Suleja 1"}}},
		"buildings":  {Attrs: map[string]insight.Value{"building_count": {Num: 1500, IsNum: true}}},
		"population": {Attrs: map[string]insight.Value{"population_2020": {Num: 4000, IsNum: true}}},
		// Booleans, null, arrays and numbers beyond float64 are left out.
		"settlement": {Attrs: map[string]insight.Value{"settlement_class": {Str: "rural"}}},
	}
	if !equalJSON(fc.Data, wantC) {
		t.Errorf("frame C\n got %+v\nwant %+v", fc.Data, wantC)
	}
	if got := fb.Data["health"]; got.FeatureCount != 2 || got.Attrs["facility_count"] != (insight.Value{Num: 2, IsNum: true}) {
		t.Errorf("health on B: %+v", got)
	}
	if got := fa.Data["nightlights"].Attrs["radiance"]; got != (insight.Value{Num: 12.5, IsNum: true}) {
		t.Errorf("radiance on A: %+v", got)
	}
	if _, ok := fa.Data["health"]; ok {
		t.Error("health records nothing on A, yet is in its data")
	}
	// The store was read once, for the known frames, without features.
	if len(store.reads) != 1 || store.reads[0].withFeatures || !slices.Equal(store.reads[0].frames, []uint64{mustID(frameC), mustID(frameA), mustID(frameB)}) {
		t.Errorf("reads %+v", store.reads)
	}
	if !slices.Equal(d.FrameIDs, []string{frameC, frameA, frameB}) {
		t.Errorf("frameIds %v", d.FrameIDs)
	}
}

// wantErrorNull is wantError for a message that may say "null": the
// envelope checks of decode refuse the word anywhere in a body.
func wantErrorNull(t testing.TB, w *httptest.ResponseRecorder, status int, code string, fragments ...string) {
	t.Helper()
	c := httptest.NewRecorder()
	for k, v := range w.Header() {
		c.Header()[k] = v
	}
	c.Code = w.Code
	c.Body.Write(bytes.ReplaceAll(w.Body.Bytes(), []byte("null"), []byte("NULL")))
	for i, f := range fragments {
		fragments[i] = strings.ReplaceAll(f, "null", "NULL")
	}
	wantError(t, c, status, code, fragments...)
}

// equalJSON compares two values by their JSON encodings (maps sorted).
func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func TestServer_HandleFramesInsight_Charging(t *testing.T) {
	A, B, C := frameA, frameB, frameC
	tests := []struct {
		name     string
		frames   []string
		balance  int64
		used     func([]string) []string // filters the engine's Used; nil keeps it
		asks     [][]string              // per Charge call, the datasets asked
		charged  []string
		leftOut  []string
		answers  int    // times the engine answered
		radiance string // the nightlights facet, "" when absent
		balance2 int64
	}{
		{name: "charged once", frames: []string{A, B, A}, balance: 10, asks: [][]string{{"nightlights"}},
			charged: []string{"nightlights"}, answers: 1, radiance: "19.75", balance2: 9},
		{name: "records nothing: not charged", frames: []string{C}, balance: 10, answers: 1, balance2: 10},
		{name: "not used: not charged", frames: []string{A, B}, balance: 10,
			used: func(u []string) []string {
				return slices.DeleteFunc(u, func(s string) bool { return s == "nightlights" })
			}, answers: 1, radiance: "19.75", balance2: 10},
		{name: "used but nothing recorded: not charged", frames: []string{C}, balance: 10,
			used: func(u []string) []string { return append(u, "nightlights", "paid_elsewhere", "nosuch") }, answers: 1, balance2: 10},
		{name: "left out and recomputed", frames: []string{A, B, C}, balance: 0, asks: [][]string{{"nightlights"}},
			leftOut: []string{"nightlights"}, answers: 2, balance2: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := insightStore(tt.balance)
			store := m.fake()
			engine := &sumEngine{}
			answer := engine.answer
			if tt.used != nil {
				answer = func(req engineCall) insight.Insight {
					res := engine.answer(req)
					res.Used = tt.used(res.Used)
					return res
				}
			}
			s, _ := insightServer(t, store, nil, answer)
			q, _ := json.Marshal(tt.frames)
			w := postInsight(s, `{"frameIds":`+string(q)+`}`, secretAskOnly, "")
			d := insightOK(t, w)
			var asks [][]string
			for _, c := range store.charges {
				var ids []string
				for _, p := range c.ds {
					ids = append(ids, p.ID)
					if p.Price != 1 {
						t.Errorf("%s asked at price %d", p.ID, p.Price)
					}
				}
				asks = append(asks, ids)
				if c.orgID != "org1" || c.keyID != "key_ask" || c.requestID != w.Header().Get("X-Request-Id") || !c.now.Equal(dataNow) {
					t.Errorf("charge %+v, request id %s", c, w.Header().Get("X-Request-Id"))
				}
			}
			if !equalJSON(asks, tt.asks) {
				t.Errorf("Charge asked %v, want %v", asks, tt.asks)
			}
			if !slices.Equal(d.Charged, tt.charged) {
				t.Errorf("charged %v, want %v", d.Charged, tt.charged)
			}
			var left []string
			for _, l := range d.LeftOut {
				left = append(left, l.ID)
				if l.Reason != reasonInsufficientCredits || l.Name != "Night-time lights" {
					t.Errorf("leftOut entry %+v", l)
				}
			}
			if !slices.Equal(left, tt.leftOut) {
				t.Errorf("leftOut %v, want %v", left, tt.leftOut)
			}
			if n := len(engine.requests()); n != tt.answers {
				t.Errorf("the engine answered %d times, want %d", n, tt.answers)
			}
			if got := d.facet("Night-time lights"); got != tt.radiance {
				t.Errorf("nightlights facet %q, want %q (facets %+v)", got, tt.radiance, d.Facets)
			}
			if m.balance != tt.balance2 {
				t.Errorf("balance %d, want %d", m.balance, tt.balance2)
			}
			if got := d.facet("Estimated population"); tt.frames[0] == A && got == "" {
				t.Errorf("the population facet went missing: %+v", d.Facets)
			}
		})
	}
}

func TestServer_HandleFramesInsight_LeftOutRecomputed(t *testing.T) {
	// The recomputation sees neither the dataset nor its records, and the
	// other figures stand unchanged.
	engine := &sumEngine{}
	s, _ := insightServer(t, insightStore(0).fake(), nil, engine.answer)
	d := insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`","`+frameB+`"]}`, secretAskOnly, ""))
	reqs := engine.requests()
	if len(reqs) != 2 {
		t.Fatalf("the engine answered %d times", len(reqs))
	}
	for _, ds := range reqs[1].Datasets {
		if ds.ID == "nightlights" {
			t.Error("the left-out dataset is still among the datasets")
		}
	}
	for _, f := range reqs[1].Frames {
		if _, ok := f.Data["nightlights"]; ok {
			t.Errorf("the left-out dataset still records on frame %s", f.ID)
		}
	}
	if len(reqs[1].Datasets) != 6 || len(reqs[1].Frames) != 2 || reqs[1].Question != reqs[0].Question {
		t.Errorf("the second request lost more than the dataset: %+v", reqs[1])
	}
	want := []insight.Facet{{Label: "Health facilities", Value: "2"}, {Label: "Buildings", Value: "312"}, {Label: "Estimated population", Value: "2034.5"}}
	slices.SortFunc(want, func(a, b insight.Facet) int { return strings.Compare(a.Label, b.Label) })
	got := slices.Clone(d.Facets)
	slices.SortFunc(got, func(a, b insight.Facet) int { return strings.Compare(a.Label, b.Label) })
	if !slices.Equal(got, want) {
		t.Errorf("facets %+v, want %+v", got, want)
	}
	for _, src := range d.Sources {
		if src.LayerID == "nightlights" {
			t.Error("the left-out dataset is among the sources")
		}
	}
}

func TestServer_HandleFramesInsight_SecondCharge(t *testing.T) {
	// When the answer without a left-out dataset uses another per-query
	// dataset, that one is charged in turn (once), and both are reported.
	m := insightStore(1)
	m.datasets[4].attrs[mustID(frameA)] = `{"x":3}` // paid_elsewhere now records on A
	m.datasets[4].access.Dataset.Price = 1
	m.datasets[3].access.Dataset.Price = 2 // nightlights costs more than the balance
	store := m.fake()
	engine := &sumEngine{}
	// The engine uses nightlights when it may, paid_elsewhere otherwise.
	answer := func(req engineCall) insight.Insight {
		res := engine.answer(req)
		if slices.Contains(res.Used, "nightlights") {
			res.Used = slices.DeleteFunc(res.Used, func(s string) bool { return s == "paid_elsewhere" })
		}
		return res
	}
	s, _ := insightServer(t, store, nil, answer)
	d := insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`"]}`, secretAskOnly, ""))
	if len(store.charges) != 2 || store.charges[0].ds[0].ID != "nightlights" || store.charges[1].ds[0].ID != "paid_elsewhere" {
		t.Fatalf("charges %+v", store.charges)
	}
	if !slices.Equal(d.Charged, []string{"paid_elsewhere"}) || len(d.LeftOut) != 1 || d.LeftOut[0].ID != "nightlights" {
		t.Errorf("charged %v, leftOut %+v", d.Charged, d.LeftOut)
	}
	if d.facet("Paid elsewhere") != "3" || d.facet("Night-time lights") != "" || m.balance != 0 {
		t.Errorf("facets %+v, balance %d", d.Facets, m.balance)
	}
}

func TestServer_HandleFramesInsight_Envelope(t *testing.T) {
	// The exact answer: the engine's members in the spec's table order,
	// engine, charged and leftOut, then the plan extension; no null, no
	// empty member; no format (a
	// deterministic answer has no narrative to be a report); a table's
	// missing rows as [].
	tests := []struct {
		name  string
		extra func(*insight.Insight)
		want  string
	}{
		{"plain", nil,
			`{"data":{"intent":"frames","headline":"1 frames.","facets":[{"label":"Night-time lights","value":"12.5"}],` +
				`"sources":[{"layerId":"nightlights","layerName":"Night-time lights"}],"confidence":"exact","register":"plain",` +
				`"retrieval":"none","frameIds":["` + frameA + `"],"engine":"deterministic","charged":["nightlights"],` +
				`"plan":{"agg":"profile","format":"answer","join":"and","readAs":"read as: an overview over 1 frame","register":"plain"}}}` + "\n"},
		{"everything", func(r *insight.Insight) {
			r.Intent, r.Headline, r.Detail = "frames_attribute", `<b>"x" & y</b>`, "d\u2028"
			r.Facets, r.Sources = []insight.Facet{{Label: "Population", Value: "1,234 people"}}, []insight.Source{}
			r.Table = &insight.Table{Columns: []string{"Frame", "Value"}, Rows: [][]string{{"1", "2"}, nil}}
			r.FollowUps = []string{"Which frame has the most buildings?"}
			r.Format, r.FrameIDs = "report", nil
		},
			`{"data":{"intent":"frames_attribute","headline":"<b>\"x\" & y</b>","detail":"d\u2028",` +
				`"facets":[{"label":"Population","value":"1,234 people"}],"table":{"columns":["Frame","Value"],"rows":[["1","2"],[]]},` +
				`"followUps":["Which frame has the most buildings?"],"confidence":"exact","register":"plain","retrieval":"none",` +
				`"engine":"deterministic","charged":["nightlights"],"plan":{"agg":"profile","format":"answer","join":"and","readAs":"read as: an overview","register":"plain"}}}` + "\n"},
		{"format answer dropped, empty table dropped, no rows", func(r *insight.Insight) {
			r.Facets, r.Sources, r.FrameIDs, r.Register, r.Retrieval = nil, nil, nil, "", ""
			r.Format, r.Table = "answer", &insight.Table{}
		}, `{"data":{"intent":"frames","headline":"1 frames.","confidence":"exact","engine":"deterministic","charged":["nightlights"],"plan":{"agg":"profile","format":"answer","join":"and","readAs":"read as: an overview","register":"plain"}}}` + "\n"},
		{"rows null", func(r *insight.Insight) {
			r.Facets, r.Sources, r.FrameIDs, r.Register, r.Retrieval = nil, nil, nil, "", ""
			r.Table = &insight.Table{Columns: []string{"Dataset"}}
		}, `{"data":{"intent":"frames","headline":"1 frames.","table":{"columns":["Dataset"],"rows":[]},"confidence":"exact","engine":"deterministic","charged":["nightlights"],"plan":{"agg":"profile","format":"answer","join":"and","readAs":"read as: an overview","register":"plain"}}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			engine := &sumEngine{extra: tt.extra}
			store := &memStore{balance: 5, datasets: []memDataset{insightStore(0).datasets[3]}}
			s, _ := insightServer(t, store.fake(), nil, engine.answer)
			w := postInsight(s, `{"frameIds":["`+frameA+`"]}`, secretAskOnly, "")
			insightOK(t, w)
			if got := w.Body.String(); got != tt.want {
				t.Errorf("body\n got %s\nwant %s", got, tt.want)
			}
			if w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
				t.Errorf("Content-Length %s for %d bytes", w.Header().Get("Content-Length"), w.Body.Len())
			}
		})
	}
}

func TestServer_HandleFramesInsight_UnknownIDs(t *testing.T) {
	// Ids the grid does not hold reach the engine as unknown and are not
	// read; with none known the store is not read at all.
	store := insightStore(10).fake()
	engine := &sumEngine{}
	s, _ := insightServer(t, store, nil, engine.answer)
	d := insightOK(t, postInsight(s, `{"frameIds":["5","6","5"]}`, secretAskOnly, ""))
	if len(store.reads) != 0 || len(store.charges) != 0 {
		t.Errorf("reads %v, charges %v", store.reads, store.charges)
	}
	req := engine.requests()[0]
	if len(req.Frames) != 2 || req.Frames[0].Known || req.Frames[1].Known || req.Frames[1].ID != "6" {
		t.Errorf("frames %+v", req.Frames)
	}
	if d.Headline != "0 frames." || d.FrameIDs != nil || len(d.Facets) != 0 {
		t.Errorf("answer %+v", d)
	}
}

func TestServer_HandleFramesInsight_ServerErrors(t *testing.T) {
	errStore := errors.New("disk on fire")
	body := `{"frameIds":["` + frameA + `","` + frameB + `"]}`
	tests := []struct {
		name   string
		modify func(*fakeData)
		noData bool
		ctx    func() (context.Context, context.CancelFunc)
		cause  string // in the access log
	}{
		{name: "no store", noData: true, cause: "no dataset store"},
		{name: "Readable fails", modify: func(f *fakeData) {
			f.ReadableFn = func(state.Key) ([]state.Access, error) { return nil, errStore }
		}, cause: "disk on fire"},
		{name: "ReadFrames fails", modify: func(f *fakeData) {
			f.ReadFramesFn = func([]string, []uint64, bool, int) ([]bolt.FrameData, error) { return nil, errStore }
		}, cause: "disk on fire"},
		{name: "attributes do not parse", modify: func(f *fakeData) {
			f.ReadFramesFn = func([]string, []uint64, bool, int) ([]bolt.FrameData, error) {
				return []bolt.FrameData{{Frame: mustID(frameA), Datasets: []bolt.DatasetFrame{{Dataset: "admin", Attrs: []byte(`{"state":}`)}}}}, nil
			}
		}, cause: "do not parse"},
		{name: "unknown dataset", modify: func(f *fakeData) {
			f.ReadFramesFn = func([]string, []uint64, bool, int) ([]bolt.FrameData, error) {
				return []bolt.FrameData{{Frame: mustID(frameA), Datasets: []bolt.DatasetFrame{{Dataset: "secret", Attrs: []byte(`{}`)}}}}, nil
			}
		}, cause: "may not read"},
		{name: "Charge fails", modify: func(f *fakeData) {
			f.ChargeFn = func(string, string, string, []state.DatasetPrice, time.Time) ([]string, []string, error) {
				return nil, nil, errStore
			}
		}, cause: "disk on fire"},
		{name: "Charge answers wrongly", modify: func(f *fakeData) {
			f.ChargeFn = func(string, string, string, []state.DatasetPrice, time.Time) ([]string, []string, error) {
				return []string{"population"}, nil, nil
			}
		}, cause: "broke its contract"},
		{name: "deadline before the charge", ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errBudgetSpent)
			return ctx, func() {}
		}, cause: "budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := insightStore(10)
			store := m.fake()
			if tt.modify != nil {
				tt.modify(store)
			}
			var ds DataStore = store
			if tt.noData {
				ds = nil
			}
			s, logs := insightServer(t, ds, nil, (&sumEngine{}).answer)
			r := newInsightRequest(body, secretAskOnly, "")
			if tt.ctx != nil {
				ctx, cancel := tt.ctx()
				defer cancel()
				r = r.WithContext(ctx)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			wantError(t, w, 500, codeInternal)
			line := accessLine(t, logs, w.Header().Get("X-Request-Id"))
			if cause, _ := line["error"].(string); !strings.Contains(cause, tt.cause) {
				t.Errorf("logged cause %q, want %q", cause, tt.cause)
			}
			if tt.name == "deadline before the charge" && len(store.charges) != 0 {
				t.Error("charged after the deadline")
			}
			if m.balance != 10 && tt.name != "Charge answers wrongly" {
				t.Errorf("balance %d", m.balance)
			}
		})
	}
}

func TestServer_HandleFramesInsight_RealEngine(t *testing.T) {
	// A few assertions on the real engine's answers through the handler.
	requireEngine(t)
	s, _ := insightServer(t, insightStore(10).fake(), nil, nil)
	ids := `["` + frameA + `","` + frameB + `","` + frameC + `"]`

	d := insightOK(t, postInsight(s, `{"frameIds":`+ids+`}`, secretAskOnly, "application/json"))
	if d.Intent != "frames" || len(d.Facets) == 0 || d.Facets[0] != (insight.Facet{Label: "Areas selected", Value: "3"}) {
		t.Errorf("profile %+v", d)
	}
	if d.Table == nil || !slices.Equal(d.Table.Columns, []string{"Dataset", "In selection", "In dataset"}) {
		t.Errorf("profile table %+v", d.Table)
	}
	if v := d.facet("Estimated population (2020)"); v != "6,035" && v != "6,034" && v != "6,034.5" {
		t.Errorf("population facet %q (facets %+v)", v, d.Facets)
	}
	if v := d.facet("State"); !strings.Contains(v, "Federal Capital Territory") || !strings.Contains(v, "Niger") {
		t.Errorf("state facet %q", v)
	}

	d = insightOK(t, postInsight(s, `{"frameIds":`+ids+`,"question":"What is the total population_2020?"}`, secretAskOnly, ""))
	if d.Intent != "frames_attribute" || d.Confidence != "exact" || !strings.Contains(d.Headline, "6,034.5") {
		t.Errorf("one measure %+v", d)
	}
	if d.Charged != nil {
		t.Errorf("population is not per query, yet charged %v", d.Charged)
	}

	d = insightOK(t, postInsight(s, `{"frameIds":`+ids+`,"question":"average night-time light radiance"}`, secretAskOnly, ""))
	if d.Intent != "frames_attribute" || !slices.Equal(d.Charged, []string{"nightlights"}) {
		t.Errorf("radiance %+v", d)
	}

	// Without credits nightlights is left out, and no figure of it remains.
	s0, _ := insightServer(t, insightStore(0).fake(), nil, nil)
	d = insightOK(t, postInsight(s0, `{"frameIds":`+ids+`,"question":"average night-time light radiance"}`, secretAskOnly, ""))
	if len(d.LeftOut) != 1 || d.LeftOut[0].ID != "nightlights" || d.Charged != nil {
		t.Errorf("left out %+v", d)
	}
	for _, src := range d.Sources {
		if src.LayerID == "nightlights" {
			t.Errorf("a left-out dataset is a source: %+v", d.Sources)
		}
	}

	d = insightOK(t, postInsight(s, `{"frameIds":["`+frameA+`","12"],"question":"how many residents live here"}`, secretAskOnly, ""))
	if d.Confidence != "partial" || !strings.Contains(d.Headline+d.Detail, "not found") {
		t.Errorf("partial with an unknown id %+v", d)
	}
	d = insightOK(t, postInsight(s, `{"frameIds":["5"]}`, secretAskOnly, ""))
	if d.Confidence != "unknown" {
		t.Errorf("no known frame %+v", d)
	}
}

// requireEngine fails a test of the real engine's answers when
// insight.Compute gives no headline: those tests would assert nothing.
func requireEngine(t testing.TB) {
	t.Helper()
	in := &insight.Input{Frames: insight.FrameSet{IDs: []uint64{1}, AreaKm2: []float64{1}}}
	if insight.Compute(plan.Parse("", nil), in).Headline == "" {
		t.Fatal("insight.Compute gave no headline")
	}
}

// FuzzDecodeInsightBody checks that no body makes the decoder panic or
// answer anything but invalid_body, invalid or too_long, and that a body it
// accepts is JSON and re-encodes to a body decoded to the same values.
func FuzzDecodeInsightBody(f *testing.F) {
	for _, seed := range []string{
		`{"frameIds":["419494487"]}`, // the smallest valid body
		`{"frameIds":["1","2","1"],"question":"How many people?","format":"report","register":"gis"}`, // every member
		`{"question":"\u00e9\ud834\udd1e","frameIds":["0001"]}`,                                       // escapes, surrogates, leading zeros
		`{"frameIds":["1"],"question":"\xff\xfe"}`,                                                    // invalid UTF-8 in a string
		`{"frameIds":[]}`,                       // empty list
		`{"frameIds":null,"question":1}`,        // wrong types
		`{"frameIds":["1"],"frameIds":["2"]}`,   // repeated member
		`{"FRAMEIDS":["1"]}`,                    // member case
		`{"frameIds":["1"]} x`,                  // trailing data
		`{"frameIds":["1"]`,                     // cut short
		`[{"frameIds":["1"]}]`,                  // not an object
		`{"frameIds":["18446744073709551616"]}`, // over 64 bits
		"",                                      // empty body
		` { "frameIds" : [ "1" , "2" ] } `,      // white space everywhere
		`{"frameIds":["1"],"format":"answer","register":"plain","question":""}`, // defaults given
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, err := decodeInsightBody(bytes.NewReader(body))
		var p insightParams
		if err == nil {
			p, err = raw.params()
		}
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || (ae.code != codeInvalidBody && ae.code != codeInvalid && ae.code != codeTooLong) || ae.message == "" {
				t.Fatalf("%q: error %v", body, err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted a body that is not JSON: %q", body)
		}
		if len(p.frameIDs) == 0 || len(p.frameIDs) > maxInsightFrames || (p.format != "answer" && p.format != "report") ||
			(p.register != "" && p.register != "plain" && p.register != "gis") {
			t.Fatalf("%q: accepted %+v", body, p)
		}
		// Re-encode the members present and decode again.
		m := map[string]any{"frameIds": raw.FrameIDs}
		for name, v := range map[string]*string{"question": raw.Question, "format": raw.Format, "register": raw.Register} {
			if v != nil {
				m[name] = *v
			}
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		raw2, err := decodeInsightBody(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("%q re-encoded as %s: %v", body, again, err)
		}
		p2, err := raw2.params()
		if err != nil || !slices.Equal(p2.frameIDs, p.frameIDs) || p2.question != p.question || p2.format != p.format || p2.register != p.register {
			t.Fatalf("%q -> %+v; re-encoded %s -> %+v, %v", body, p, again, p2, err)
		}
	})
}

// BenchmarkHandleInsight50 is a question about 50 frames with 6 datasets
// recording on each, through the whole Server: routing, auth, the real
// limiter with the insight bucket, decoding the body, the grid, the store's
// checks, converting every record, the real engine, one charge, encoding
// and logging. The store is a fake that returns prepared records, so the
// figure is the handler's and the engine's.
func BenchmarkHandleInsight50(b *testing.B) {
	ix := benchIndex(b)
	const secret = "svc_sk_BenchBenchBenchBenchBenchBench00"
	keys := digestKeys{state.Digest(secret): {ID: "key_bench", OrgID: "org_bench", Digest: state.Digest(secret),
		Caps: []state.Capability{state.CapFrameRead, state.CapAskQuery}}}
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
	m.datasets = slices.Delete(m.datasets, 4, 5) // paid_elsewhere: six datasets remain
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
				d.attrs[fr] = `{"facility_count":` + strconv.Itoa(k%3) + `}`
			case "nightlights":
				d.attrs[fr] = `{"radiance":` + strconv.FormatFloat(float64(k)*0.75, 'f', -1, 64) + `}`
			case "population":
				d.attrs[fr] = `{"population_2020":` + strconv.FormatFloat(1000+float64(k)*37.25, 'f', -1, 64) + `}`
			case "settlement":
				d.attrs[fr] = `{"settlement_class":"` + []string{"urban", "peri-urban", "rural"}[k%3] + `"}`
			}
		}
	}
	access, _ := m.Readable(state.Key{})
	names := make([]string, len(access))
	for i := range access {
		names[i] = access[i].Dataset.ID
	}
	prepared, _ := m.ReadFrames(names, frames, false, featureCap)
	store := preparedData{access: access, frames: prepared}
	s := New(Config{
		Frames:  func() FrameIndex { return ix },
		Keys:    func() KeyLookup { return keys },
		Logger:  slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Limiter: limiter.New(lc, limiter.NewMemory(lc), nil),
		Data:    store,
	})
	q, _ := json.Marshal(ids)
	for _, bench := range []struct{ name, question string }{
		{"profile", ""},
		{"measure", "What is the average night-time light radiance?"},
		{"rank", "Which frames have the most buildings?"},
	} {
		body := []byte(`{"frameIds":` + string(q) + `,"question":"` + bench.question + `"}`)
		b.Run(bench.name, func(b *testing.B) {
			w := &discardWriter{header: http.Header{}}
			r := benchRequest("/v1/frames/insight")
			r.Method = http.MethodPost
			br := bytes.NewReader(body)
			r.Body = io.NopCloser(br)
			s.ServeHTTP(w, r)
			if w.status != http.StatusOK {
				b.Fatalf("status %d", w.status)
			}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.header)
				w.status, w.n = 0, 0
				br.Reset(body)
				s.ServeHTTP(w, r)
			}
			if w.status != http.StatusOK {
				b.Fatalf("status %d", w.status)
			}
		})
	}
}
