package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/insight"
	"frameindex/limiter"
	"frameindex/state"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// loadOpenAPI loads and validates the embedded document and returns a router
// over it.
func loadOpenAPI(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPIDoc)
	if err != nil {
		t.Fatalf("loading openapi.json: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, router
}

// validateResponse checks a real response against the document: the status
// must be documented for the operation, and headers and body must match.
// When checkRequest is set, the request is validated too.
func validateResponse(t testing.TB, router routers.Router, r *http.Request, w *httptest.ResponseRecorder, checkRequest bool) error {
	t.Helper()
	route, params, err := router.FindRoute(r)
	if err != nil {
		t.Fatalf("no route for %s %s: %v", r.Method, r.URL, err)
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		AuthenticationFunc:    func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
	}
	reqIn := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	if checkRequest {
		if err := openapi3filter.ValidateRequest(context.Background(), reqIn); err != nil {
			t.Errorf("the request %s does not match the document: %v", r.URL, err)
		}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqIn,
		Status:                 w.Code,
		Header:                 w.Header(),
		Options:                opts,
	}
	in.SetBodyBytes(w.Body.Bytes())
	return openapi3filter.ValidateResponse(context.Background(), in)
}

func TestOpenAPI_Responses(t *testing.T) {
	_, router := loadOpenAPI(t)

	// A grid with lattice cells around Abuja plus two imported frames
	// (a Polygon with a hole and a MultiPolygon), and an index that panics
	// for one point.
	sq := func(x0, y0, x1, y1 float64) grid.Ring {
		return grid.Ring{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}
	}
	imported := map[uint64]grid.Shape{
		7: {ID: 7, Box: grid.Box{MinLon: 3, MinLat: 6, MaxLon: 4, MaxLat: 7}, Geom: grid.MultiPolygon{{sq(3, 6, 4, 7), sq(3.25, 6.25, 3.5, 6.5)}}},
		8: {ID: 8, Box: grid.Box{MinLon: 4, MinLat: 6, MaxLon: 6, MaxLat: 7}, Geom: grid.MultiPolygon{{sq(4, 6, 5, 7)}, {sq(5.5, 6, 6, 6.5)}}},
	}
	ix := &fakeIndex{
		AtFn: func(lat, lon float64) (grid.Shape, bool) {
			if lat == -1 {
				panic("test panic")
			}
			return abuja.At(lat, lon)
		},
		ShapeFn: func(id uint64) (grid.Shape, bool) {
			if sh, ok := imported[id]; ok {
				return sh, true
			}
			return abuja.Shape(id)
		},
		BoxFn: abuja.Box,
	}
	s, _ := testServer(t, ix)
	a := id(9710, 22487)

	tests := []struct {
		name   string
		target string
		secret string
		status int
		valid  bool // the request itself is valid by the document
	}{
		{"at 200", "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood, 200, true},
		{"at 400", "/v1/frames/at?lat=91&lon=7", secretGood, 400, false},
		{"at 400 missing", "/v1/frames/at?lat=9", secretGood, 400, false},
		{"at 401 unauthorized", "/v1/frames/at?lat=9&lon=7", "", 401, true},
		{"at 401 invalid_key", "/v1/frames/at?lat=9&lon=7", secretRevoked, 401, true},
		{"at 403", "/v1/frames/at?lat=9&lon=7", secretNoCap, 403, true},
		{"at 404", "/v1/frames/at?lat=0&lon=0", secretGood, 404, true},
		{"at 500", "/v1/frames/at?lat=-1&lon=0", secretGood, 500, true},
		{"frames 200 bbox", "/v1/frames?bbox=7.39,9.07,7.41,9.08", secretGood, 200, true},
		{"frames 200 truncated", "/v1/frames?bbox=7.39,9.07,7.41,9.08&limit=2", secretGood, 200, true},
		{"frames 200 empty", "/v1/frames?bbox=0,0,1,1", secretGood, 200, true},
		{"frames 200 ids", "/v1/frames?ids=" + a + ",5," + a + "&ids=8,7", secretGood, 200, true},
		{"frames 200 ids all unknown", "/v1/frames?ids=1,2", secretGood, 200, true},
		{"frames 400 invalid_bbox", "/v1/frames?bbox=5,0,4,1", secretGood, 400, true},
		{"frames 400 missing", "/v1/frames", secretGood, 400, true},
		{"frames 400 invalid", "/v1/frames?ids=x", secretGood, 400, false},
		{"frames 400 limit", "/v1/frames?bbox=1,2,3,4&limit=0", secretGood, 400, false},
		{"frames 401", "/v1/frames?bbox=1,2,3,4", "", 401, true},
		{"frames 403", "/v1/frames?bbox=1,2,3,4", secretNoCap, 403, true},
		{"frames 500", "/v1/frames?bbox=1,2,3,4", secretBroken, 500, true},
		{"openapi.json", "/openapi.json", "", 200, true},
		{"at 429", "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood + "!limited", 429, true},
		{"frames 429 invalid key", "/v1/frames?bbox=1,2,3,4", "svc_sk_nosuchkey!limited", 429, true},
	}
	// Requests whose secret ends in "!limited" go to a server whose buckets
	// are spent; the others to one whose buckets are not.
	refuse := &fakeLimiter{
		RequestFn: func(string, string, bool) (limiter.Decision, error) {
			return limiter.Decision{State: limiter.State{Limit: 120, Reset: time.Minute, RetryAfter: time.Second}}, nil
		},
		InvalidKeyFn: func([32]byte) (limiter.Decision, error) {
			return limiter.Decision{State: limiter.State{Limit: 5, Reset: time.Minute, RetryAfter: 12 * time.Second}}, nil
		},
	}
	allow := &fakeLimiter{
		RequestFn: func(string, string, bool) (limiter.Decision, error) {
			return limiter.Decision{Allowed: true, State: limiter.State{Limit: 120, Remaining: 119, Reset: time.Second}}, nil
		},
		InvalidKeyFn: func([32]byte) (limiter.Decision, error) {
			return limiter.Decision{Allowed: true, State: limiter.State{Limit: 5, Remaining: 4, Reset: 12 * time.Second}}, nil
		},
	}
	limited := New(Config{Frames: func() FrameIndex { return ix }, Keys: func() KeyLookup { return testKeys }, Limiter: refuse})
	metered := New(Config{Frames: func() FrameIndex { return ix }, Keys: func() KeyLookup { return testKeys }, Limiter: allow})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.target, nil)
			srv := http.Handler(s)
			secret, isLimited := strings.CutSuffix(tt.secret, "!limited")
			if isLimited {
				srv = limited
			} else if strings.HasPrefix(tt.target, "/v1/") && strings.Contains(tt.name, "200") {
				srv = metered // the same calls with rate-limit headers
			}
			if secret != "" {
				r.Header.Set("Authorization", "Bearer "+secret)
			}
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if err := validateResponse(t, router, r, w, tt.valid); err != nil {
				t.Errorf("the response does not match the document: %v\n%.500s", err, w.Body)
			}
		})
	}
}

func TestOpenAPI_RejectsWrongBodies(t *testing.T) {
	// The validation above would pass vacuously if the document allowed
	// anything; these bodies break it and must be refused.
	_, router := loadOpenAPI(t)
	s, _ := testServer(t, abuja)
	tests := []struct {
		name, target string
		status       int
		tamper       func(string) string
	}{
		{"truncated false", "/v1/frames?bbox=7.39,9.07,7.41,9.08&limit=2", 200,
			func(b string) string { return strings.Replace(b, `"truncated":true`, `"truncated":false`, 1) }},
		{"null unknownIds", "/v1/frames?ids=1", 200,
			func(b string) string { return strings.Replace(b, `"unknownIds":["1"]`, `"unknownIds":null`, 1) }},
		{"numeric id", "/v1/frames/at?lat=9.0765&lon=7.3986", 200,
			func(b string) string { return strings.Replace(b, `"id":"419494487"`, `"id":419494487`, 1) }},
		{"bbox of three", "/v1/frames/at?lat=9.0765&lon=7.3986", 200,
			func(b string) string { return strings.Replace(b, `,9.0833333]}}`, `]}}`, 1) }},
		{"data and error", "/v1/frames/at?lat=9.0765&lon=7.3986", 200,
			func(b string) string {
				return strings.Replace(b, `}}`, `},"error":{"code":"internal","message":"x"}}`, 1)
			}},
		{"wrong code for the status", "/v1/frames/at?lat=91&lon=7", 400,
			func(b string) string { return strings.Replace(b, codeInvalidPoint, codeInvalidBBox, 1) }},
		{"unknown code", "/v1/frames?bbox=1,2,3,4", 401,
			func(b string) string { return strings.Replace(b, codeUnauthorized, "nope", 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.target, nil)
			if tt.status != 401 {
				r.Header.Set("Authorization", "Bearer "+secretGood)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if err := validateResponse(t, router, r, w, false); err != nil {
				t.Fatalf("the untampered response fails: %v", err)
			}
			body := tt.tamper(w.Body.String())
			if body == w.Body.String() {
				t.Fatalf("tamper changed nothing in %s", body)
			}
			w.Body.Reset()
			w.Body.WriteString(body)
			if err := validateResponse(t, router, r, w, false); err == nil {
				t.Errorf("a wrong body passed: %s", body)
			}
		})
	}
}

func TestOpenAPI_RequiresRequestID(t *testing.T) {
	_, router := loadOpenAPI(t)
	s, _ := testServer(t, abuja)
	r := httptest.NewRequest(http.MethodGet, "/v1/frames/at?lat=9.0765&lon=7.3986", nil)
	r.Header.Set("Authorization", "Bearer "+secretGood)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	w.Header().Del("X-Request-Id")
	if err := validateResponse(t, router, r, w, false); err == nil {
		t.Error("a response without X-Request-Id passed")
	}
}

func TestOpenAPI_Document(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
		t.Errorf("openapi %s, version %s", doc.OpenAPI, doc.Info.Version)
	}
	// The code enum is exactly the codes of the table in errors.go.
	var raw struct {
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Error struct {
							Properties struct {
								Code struct {
									Enum []string `json:"enum"`
								} `json:"code"`
							} `json:"properties"`
						} `json:"error"`
					} `json:"properties"`
				} `json:"Error"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &raw); err != nil {
		t.Fatal(err)
	}
	enum := slices.Sorted(slices.Values(raw.Components.Schemas.Error.Properties.Error.Properties.Code.Enum))
	var codes []string
	for c := range codeStatus {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	if !slices.Equal(enum, codes) {
		t.Errorf("Error.code enum %v, errors.go codes %v", enum, codes)
	}
	// Every route of the server is in the document, with its method.
	for _, route := range []string{"/v1/frames/at", "/v1/frames", "/v1/frames/data", "/openapi.json"} {
		if p := doc.Paths.Value(route); p == nil || p.Get == nil {
			t.Errorf("%s GET is not documented", route)
		}
	}
	if doc.Paths.Value("/openapi.json").Get.Security == nil || len(*doc.Paths.Value("/openapi.json").Get.Security) != 0 {
		t.Error("/openapi.json should need no key")
	}
	if _, ok := doc.Components.SecuritySchemes["bearerAuth"]; !ok {
		t.Error("no bearer security scheme")
	}
}

// allowAll and refuseAll are limiters that let every request through with
// headers, and refuse every request.
var (
	allowAll = &fakeLimiter{
		RequestFn: func(string, string, bool) (limiter.Decision, error) {
			return limiter.Decision{Allowed: true, State: limiter.State{Limit: 120, Remaining: 119, Reset: time.Second}}, nil
		},
		InvalidKeyFn: func([32]byte) (limiter.Decision, error) {
			return limiter.Decision{Allowed: true, State: limiter.State{Limit: 5, Remaining: 4, Reset: 12 * time.Second}}, nil
		},
	}
	refuseAll = &fakeLimiter{
		RequestFn: func(string, string, bool) (limiter.Decision, error) {
			return limiter.Decision{State: limiter.State{Limit: 120, Reset: time.Minute, RetryAfter: time.Second}}, nil
		},
		InvalidKeyFn: func([32]byte) (limiter.Decision, error) {
			return limiter.Decision{State: limiter.State{Limit: 5, Reset: time.Minute, RetryAfter: 12 * time.Second}}, nil
		},
	}
)

// dataDocServer is a data-call server over the abuja grid and testStore
// with the given balance and limiter (nil: unmetered); noStore leaves
// Config.Data nil.
func dataDocServer(balance int64, lim RateLimiter, noStore bool) *Server {
	cfg := Config{Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return dataKeys }, Limiter: lim}
	if !noStore {
		cfg.Data = testStore(balance).fake()
	}
	return New(cfg)
}

func TestOpenAPI_DataResponses(t *testing.T) {
	_, router := loadOpenAPI(t)
	many := make([]string, 101)
	for i := range many {
		many[i] = "1"
	}
	// A frame where dataset "many" holds 250 features, to show the cap.
	capped := id(9700, 22480)
	capStore := func() *Server {
		md := memDataset{access: state.Access{Dataset: state.Dataset{ID: "many", Name: "Many"}},
			features: map[uint64][]string{mustID(capped): slices.Repeat([]string{clinicFeat}, 250)}}
		return New(Config{Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return dataKeys },
			Limiter: allowAll, Data: (&memStore{datasets: []memDataset{md}}).fake()})
	}
	tests := []struct {
		name   string
		srv    func() *Server
		target string
		secret string
		status int
		want   string // a fragment of the body
		valid  bool   // the request itself is valid by the document
	}{
		{"200 features and charged", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=" + frameB + "," + frameA + "&ids=" + frameC, secretFeatures, 200, `"charged":["paid"]`, true},
		{"200 leftOut", func() *Server { return dataDocServer(0, allowAll, false) },
			"/v1/frames/data?ids=" + frameB, secretFeatures, 200, `"leftOut":[{"id":"paid"`, true},
		{"200 no feature.read", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=" + frameB + "," + frameC, secretGood, 200, `"featureCount":2`, true},
		{"200 unknown ids", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=" + frameOut + ",6," + frameOut, secretFeatures, 200, `{"id":"6","datasets":[]}`, true},
		{"200 truncated", capStore, "/v1/frames/data?ids=" + capped, secretFeatures, 200, `"featureCount":250,"featuresTruncated":true`, true},
		{"200 unmetered", func() *Server { return dataDocServer(10, nil, false) },
			"/v1/frames/data?ids=" + frameA, secretFeatures, 200, `"datasets":[{"id":"admin"`, true},
		{"400 missing", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data", secretGood, 400, `"code":"invalid"`, false},
		{"400 malformed", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=1,x", secretGood, 400, `"code":"invalid"`, false},
		{"400 over 100", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=" + strings.Join(many, ","), secretGood, 400, `"code":"invalid"`, true},
		{"401 unauthorized", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=1", "", 401, `"code":"unauthorized"`, true},
		{"401 invalid_key", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=1", secretExpired, 401, `"code":"invalid_key"`, true},
		{"403", func() *Server { return dataDocServer(10, allowAll, false) },
			"/v1/frames/data?ids=1", secretAskOnly, 403, `"code":"insufficient_scope"`, true},
		{"429", func() *Server { return dataDocServer(10, refuseAll, false) },
			"/v1/frames/data?ids=1", secretGood, 429, `"code":"rate_limited"`, true},
		{"500", func() *Server { return dataDocServer(10, nil, true) },
			"/v1/frames/data?ids=1", secretGood, 500, `"code":"internal"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.target, nil)
			if tt.secret != "" {
				r.Header.Set("Authorization", "Bearer "+tt.secret)
			}
			w := httptest.NewRecorder()
			tt.srv().ServeHTTP(w, r)
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.want) {
				t.Fatalf("status %d, want %d with %s: %.500s", w.Code, tt.status, tt.want, w.Body)
			}
			if err := validateResponse(t, router, r, w, tt.valid); err != nil {
				t.Errorf("the response does not match the document: %v\n%.500s", err, w.Body)
			}
		})
	}
}

func TestOpenAPI_RejectsWrongDataBodies(t *testing.T) {
	// The data schemas must refuse these breaches of docs/contract.md §3.
	_, router := loadOpenAPI(t)
	target := "/v1/frames/data?ids=" + frameB + "," + frameOut
	tests := []struct {
		name    string
		balance int64
		tamper  func(string) string
	}{
		{"datasets null", 10, func(b string) string { return strings.Replace(b, `"datasets":[]`, `"datasets":null`, 1) }},
		{"datasets missing", 10, func(b string) string { return strings.Replace(b, `,"datasets":[]`, ``, 1) }},
		{"numeric frame id", 10, func(b string) string {
			return strings.Replace(b, `{"id":"`+frameOut+`"`, `{"id":`+frameOut, 1)
		}},
		{"featuresTruncated false", 10, func(b string) string {
			return strings.Replace(b, `"featureCount":2`, `"featureCount":2,"featuresTruncated":false`, 1)
		}},
		{"featureCount zero", 10, func(b string) string { return strings.Replace(b, `"featureCount":2`, `"featureCount":0`, 1) }},
		{"attribute null", 10, func(b string) string { return strings.Replace(b, `"score":0.125`, `"score":null`, 1) }},
		{"attribute object", 10, func(b string) string { return strings.Replace(b, `"score":0.125`, `"score":{"v":1}`, 1) }},
		{"entry with only a name", 10, func(b string) string {
			return strings.Replace(b, `,"attributes":`+paidAttrs, ``, 1)
		}},
		{"unknown member", 10, func(b string) string { return strings.Replace(b, `"charged":`, `"cost":1,"charged":`, 1) }},
		{"empty charged", 10, func(b string) string { return strings.Replace(b, `"charged":["paid"]`, `"charged":[]`, 1) }},
		{"null charged", 10, func(b string) string { return strings.Replace(b, `"charged":["paid"]`, `"charged":null`, 1) }},
		{"empty feature collection", 10, func(b string) string {
			return strings.Replace(b, `"features":[`+clinicFeat+`,`+clinicFeat+`]`, `"features":[]`, 1)
		}},
		{"feature of another type", 10, func(b string) string { return strings.Replace(b, `{"type":"Feature"`, `{"type":"Point"`, 1) }},
		{"unknown reason", 0, func(b string) string { return strings.Replace(b, reasonInsufficientCredits, "no_money", 1) }},
		{"leftOut without name", 0, func(b string) string { return strings.Replace(b, `"name":"Paid \"scores\"",`, ``, 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, target, nil)
			r.Header.Set("Authorization", "Bearer "+secretFeatures)
			w := httptest.NewRecorder()
			dataDocServer(tt.balance, nil, false).ServeHTTP(w, r)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if err := validateResponse(t, router, r, w, false); err != nil {
				t.Fatalf("the untampered response fails: %v", err)
			}
			body := tt.tamper(w.Body.String())
			if body == w.Body.String() {
				t.Fatalf("tamper changed nothing in %s", body)
			}
			w.Body.Reset()
			w.Body.WriteString(body)
			if err := validateResponse(t, router, r, w, false); err == nil {
				t.Errorf("a wrong body passed: %s", body)
			}
		})
	}
}

// insightDocServer is a question-call server over the abuja grid and
// insightStore with the given balance and limiter (nil: unmetered), and the
// given engine (nil: the real one); noStore leaves Config.Data nil.
func insightDocServer(balance int64, lim RateLimiter, engine func(engineCall) insight.Insight, noStore bool) *Server {
	cfg := Config{Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return dataKeys }, Limiter: lim}
	if !noStore {
		cfg.Data = insightStore(balance).fake()
	}
	s := New(cfg)
	if engine != nil {
		s.compute = computeOf(engine)
	}
	return s
}

// fullEngine answers with every member of the Insight the engine fills.
func fullEngine(req engineCall) insight.Insight {
	res := (&sumEngine{}).answer(req)
	res.Intent, res.Detail = "frames_rank", "Ranked by Estimated population."
	res.Table = &insight.Table{Columns: []string{"Frame", "Estimated population"}, Rows: [][]string{{"1", "1,234"}, {"2", ""}}}
	res.Sources = append(res.Sources, insight.Source{LayerID: "population", LayerName: "Estimated population", Attribute: "population_2020", Label: "Estimated population"})
	res.FollowUps = []string{"Which frame has the most buildings?", "Profile these frames"}
	res.Retrieval, res.Register, res.Format = "lexical", "gis", "report"
	return res
}

func TestOpenAPI_InsightResponses(t *testing.T) {
	doc, router := loadOpenAPI(t)
	if p := doc.Paths.Value("/v1/frames/insight"); p == nil || p.Post == nil || p.Get != nil {
		t.Fatal("POST /v1/frames/insight is not documented (alone)")
	}
	ids := `["` + frameA + `","` + frameB + `","5"]`
	sum := (&sumEngine{}).answer
	tests := []struct {
		name   string
		srv    func() *Server
		body   string
		secret string
		status int
		want   string // a fragment of the body
		valid  bool   // the request itself is valid by the document
	}{
		{"200 charged", func() *Server { return insightDocServer(10, allowAll, sum, false) },
			`{"frameIds":` + ids + `}`, secretAskOnly, 200, `"charged":["nightlights"]`, true},
		{"200 leftOut", func() *Server { return insightDocServer(0, allowAll, sum, false) },
			`{"frameIds":` + ids + `,"question":"radiance"}`, secretAskOnly, 200, `"leftOut":[{"id":"nightlights"`, true},
		{"200 every member", func() *Server { return insightDocServer(10, allowAll, fullEngine, false) },
			`{"frameIds":` + ids + `,"format":"report","register":"gis"}`, secretAskOnly, 200, `"register":"gis"`, true},
		{"200 unmetered", func() *Server { return insightDocServer(10, nil, sum, false) },
			`{"frameIds":["5"]}`, secretAskOnly, 200, `"engine":"deterministic"`, true},
		{"200 real engine profile", func() *Server { return insightDocServer(10, allowAll, nil, false) },
			`{"frameIds":` + ids + `}`, secretAskOnly, 200, `"engine":"deterministic"`, true},
		{"200 real engine measure", func() *Server { return insightDocServer(10, allowAll, nil, false) },
			`{"frameIds":` + ids + `,"question":"total population_2020"}`, secretAskOnly, 200, `"engine":"deterministic"`, true},
		{"200 real engine unsupported", func() *Server { return insightDocServer(10, allowAll, nil, false) },
			`{"frameIds":` + ids + `,"question":"what is the weather"}`, secretAskOnly, 200, `"engine":"deterministic"`, true},
		{"200 real engine left out", func() *Server { return insightDocServer(0, allowAll, nil, false) },
			`{"frameIds":` + ids + `,"question":"mean radiance"}`, secretAskOnly, 200, `"engine":"deterministic"`, true},
		{"400 invalid_body", func() *Server { return insightDocServer(10, allowAll, sum, false) },
			`{"frameIds":["1"],"colour":"red"}`, secretAskOnly, 400, `"code":"invalid_body"`, false},
		{"400 invalid", func() *Server { return insightDocServer(10, allowAll, sum, false) },
			`{"frameIds":[]}`, secretAskOnly, 400, `"code":"invalid"`, false},
		{"400 too_long", func() *Server { return insightDocServer(10, allowAll, sum, false) },
			`{"frameIds":["1"],"question":"` + strings.Repeat("é", 1001) + `"}`, secretAskOnly, 400, `"code":"too_long"`, false},
		{"401 unauthorized", func() *Server { return insightDocServer(10, allowAll, sum, false) },
			`{"frameIds":["1"]}`, "", 401, `"code":"unauthorized"`, true},
		{"401 invalid_key", func() *Server { return insightDocServer(10, allowAll, sum, false) },
			`{"frameIds":["1"]}`, secretRevoked, 401, `"code":"invalid_key"`, true},
		{"403", func() *Server { return insightDocServer(10, allowAll, sum, false) },
			`{"frameIds":["1"]}`, secretFeatures, 403, `"code":"insufficient_scope"`, true},
		{"429", func() *Server { return insightDocServer(10, refuseAll, sum, false) },
			`{"frameIds":["1"]}`, secretAskOnly, 429, `"code":"rate_limited"`, true},
		{"500", func() *Server { return insightDocServer(10, allowAll, sum, true) },
			`{"frameIds":["1"]}`, secretAskOnly, 500, `"code":"internal"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.name, "real engine") {
				requireEngine(t)
			}
			w := postInsight(tt.srv(), tt.body, tt.secret, "application/json")
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.want) {
				t.Fatalf("status %d, want %d with %s: %.500s", w.Code, tt.status, tt.want, w.Body)
			}
			r := newInsightRequest(tt.body, tt.secret, "application/json") // the body again, to validate
			if err := validateResponse(t, router, r, w, tt.valid); err != nil {
				t.Errorf("the response does not match the document: %v\n%.800s", err, w.Body)
			}
		})
	}
}

func TestOpenAPI_RejectsWrongInsightBodies(t *testing.T) {
	// The Insight schema must refuse these breaches of the spec's table.
	_, router := loadOpenAPI(t)
	body := `{"frameIds":["` + frameA + `","` + frameB + `"]}`
	tests := []struct {
		name    string
		balance int64
		tamper  func(string) string
	}{
		{"no engine", 10, func(b string) string { return strings.Replace(b, `,"engine":"deterministic"`, ``, 1) }},
		{"unknown engine", 10, func(b string) string { return strings.Replace(b, `"engine":"deterministic"`, `"engine":"gpt"`, 1) }},
		{"no headline", 10, func(b string) string { return strings.Replace(b, `"headline":"2 frames.",`, ``, 1) }},
		{"empty headline", 10, func(b string) string { return strings.Replace(b, `"headline":"2 frames."`, `"headline":""`, 1) }},
		{"unknown intent", 10, func(b string) string { return strings.Replace(b, `"intent":"frames_rank"`, `"intent":"chat"`, 1) }},
		{"unknown confidence", 10, func(b string) string { return strings.Replace(b, `"confidence":"exact"`, `"confidence":"high"`, 1) }},
		{"format answer", 10, func(b string) string {
			return strings.Replace(b, `"engine":"deterministic"`, `"format":"answer","engine":"deterministic"`, 1)
		}},
		{"unknown register", 10, func(b string) string { return strings.Replace(b, `"register":"gis"`, `"register":"expert"`, 1) }},
		{"unknown retrieval", 10, func(b string) string { return strings.Replace(b, `"retrieval":"lexical"`, `"retrieval":"vector"`, 1) }},
		{"null detail", 10, func(b string) string {
			return strings.Replace(b, `"detail":"Ranked by Estimated population."`, `"detail":null`, 1)
		}},
		{"empty detail", 10, func(b string) string {
			return strings.Replace(b, `"detail":"Ranked by Estimated population."`, `"detail":""`, 1)
		}},
		{"empty followUps", 10, func(b string) string {
			return strings.Replace(b, `"followUps":["Which frame has the most buildings?","Profile these frames"]`, `"followUps":[]`, 1)
		}},
		{"facet without value", 10, func(b string) string { return strings.Replace(b, `,"value":"312"`, ``, 1) }},
		{"facet with a number", 10, func(b string) string { return strings.Replace(b, `"value":"312"`, `"value":312`, 1) }},
		{"table without rows", 10, func(b string) string { return strings.Replace(b, `,"rows":[["1","1,234"],["2",""]]`, ``, 1) }},
		{"numeric cell", 10, func(b string) string { return strings.Replace(b, `["1","1,234"]`, `["1",1234]`, 1) }},
		{"source without name", 10, func(b string) string {
			return strings.Replace(b, `{"layerId":"buildings","layerName":"Buildings"}`, `{"layerId":"buildings"}`, 1)
		}},
		{"numeric frame id", 10, func(b string) string { return strings.Replace(b, `"frameIds":["`+frameA+`"`, `"frameIds":[`+frameA, 1) }},
		{"unknown member", 10, func(b string) string { return strings.Replace(b, `"engine":`, `"cost":1,"engine":`, 1) }},
		{"empty charged", 10, func(b string) string { return strings.Replace(b, `"charged":["nightlights"]`, `"charged":[]`, 1) }},
		{"leftOut reason", 0, func(b string) string { return strings.Replace(b, reasonInsufficientCredits, "no_money", 1) }},
		{"data and error", 10, func(b string) string {
			return strings.Replace(b, `}}`+"\n", `},"error":{"code":"internal","message":"x"}}`, 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := postInsight(insightDocServer(tt.balance, nil, fullEngine, false), body, secretAskOnly, "application/json")
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			r := newInsightRequest(body, secretAskOnly, "application/json")
			if err := validateResponse(t, router, r, w, true); err != nil {
				t.Fatalf("the untampered response fails: %v", err)
			}
			tampered := tt.tamper(w.Body.String())
			if tampered == w.Body.String() {
				t.Fatalf("tamper changed nothing in %s", tampered)
			}
			w.Body.Reset()
			w.Body.WriteString(tampered)
			if err := validateResponse(t, router, newInsightRequest(body, secretAskOnly, "application/json"), w, false); err == nil {
				t.Errorf("a wrong body passed: %s", tampered)
			}
		})
	}
}

func TestOpenAPI_RejectsWrongInsightRequests(t *testing.T) {
	// The request schema describes the body rules: these bodies, refused
	// by the server, are refused by the document too.
	_, router := loadOpenAPI(t)
	s := insightDocServer(10, nil, (&sumEngine{}).answer, false)
	for _, body := range []string{
		`{"frameIds":["1"],"colour":"red"}`,
		`{"frameIds":[]}`,
		`{"frameIds":` + idsJSON(51) + `}`,
		`{"frameIds":["x"]}`,
		`{"frameIds":[1]}`,
		`{"question":"no ids"}`,
		`{"frameIds":["1"],"question":"` + strings.Repeat("é", 1001) + `"}`,
		`{"frameIds":["1"],"format":"poem"}`,
		`{"frameIds":["1"],"register":"GIS"}`,
		`{"frameIds":["1"],"question":null}`,
	} {
		w := postInsight(s, body, secretAskOnly, "application/json")
		if w.Code != 400 {
			t.Errorf("%.60s: status %d", body, w.Code)
			continue
		}
		route, params, err := router.FindRoute(newInsightRequest(body, secretAskOnly, "application/json"))
		if err != nil {
			t.Fatal(err)
		}
		in := &openapi3filter.RequestValidationInput{Request: newInsightRequest(body, secretAskOnly, "application/json"),
			PathParams: params, Route: route, Options: &openapi3filter.Options{
				AuthenticationFunc: func(context.Context, *openapi3filter.AuthenticationInput) error { return nil }}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err == nil {
			t.Errorf("%.60s: the document accepts a body the server refuses", body)
		}
	}
}
