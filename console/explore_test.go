package console

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/area"
	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// fakeAPI stands in for the API's Behalf: it records each call and
// answers with a set status and body.
type fakeAPI struct {
	mu     sync.Mutex
	calls  []apiCall
	status int
	header http.Header
	body   string
}

type apiCall struct {
	key           state.Key
	method, path  string
	query, body   string
	cookie, auth  string
	contentType   string
	acceptEncGzip bool
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }

func (f *fakeAPI) ServeAs(w http.ResponseWriter, r *http.Request, key state.Key) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.calls = append(f.calls, apiCall{key: key, method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, body: string(b),
		cookie: r.Header.Get("Cookie"), auth: r.Header.Get("Authorization"), contentType: r.Header.Get("Content-Type"),
		acceptEncGzip: strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")})
	status, body := f.status, f.body
	for k, v := range f.header {
		w.Header()[k] = v
	}
	f.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func (f *fakeAPI) last(t *testing.T) apiCall {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		t.Fatal("the API was not called")
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeAPI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

const testOutline = `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Nigeria"},"geometry":{"type":"Polygon","coordinates":[[[7.40,9.00],[7.55,9.00],[7.55,9.10],[7.40,9.10],[7.40,9.00]]]}}]}`

// exploreFixture is the console fixture with a stand-in API behind the
// map, and datasets: "admin" (state, lga on a 4 x 4 block of frames, two
// states split down the middle) owned by acme, "pop" (a number) owned by
// acme.
func exploreFixture(t *testing.T) (*fixture, *fakeAPI) {
	t.Helper()
	f := newFixture(t, false, Config{Outline: []byte(testOutline)})
	api := &fakeAPI{body: `{"data":{}}`}
	f.con.Wrap(api)
	r0, c0 := grid.CellAt(9.09, 7.41)
	var admin, pop []bolt.FrameRecord
	for dr := 0; dr < 4; dr++ {
		for dc := 0; dc < 4; dc++ {
			id := grid.CellID(r0+dr, c0+dc)
			state, lga := "Kano", "Kano Municipal"
			if dc >= 2 {
				state, lga = "Kaduna", "Zaria"
			}
			admin = append(admin, bolt.FrameRecord{Frame: id, Attrs: []byte(fmt.Sprintf(`{"state":%q,"lga":%q}`, state, lga))})
			pop = append(pop, bolt.FrameRecord{Frame: id, Attrs: []byte(fmt.Sprintf(`{"people":%d}`, (dr*4+dc)*10))})
		}
	}
	attrs := []state.Attribute{{Name: "state", Label: "State", Type: state.TypeCategory, Aggregation: "mode"},
		{Name: "lga", Label: "LGA", Type: state.TypeCategory, Aggregation: "mode"}}
	if _, err := f.store.ImportDataset(state.Dataset{ID: "admin", Name: "Admin", Owner: "acme", Attributes: attrs}, admin, fixtureStart); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ImportDataset(state.Dataset{ID: "pop", Name: "Population", Owner: "acme",
		Attributes: []state.Attribute{{Name: "people", Label: "People", Type: state.TypeNumber, Aggregation: "sum"}}}, pop, fixtureStart); err != nil {
		t.Fatal(err)
	}
	return f, api
}

// consoleKeys returns the organisation's keys named "console: user".
func consoleKeys(t *testing.T, f *fixture, org, user string) []state.Key {
	t.Helper()
	keys, err := f.store.Keys(org)
	if err != nil {
		t.Fatal(err)
	}
	var out []state.Key
	for _, k := range keys {
		if k.Name == "console: "+user {
			out = append(out, k)
		}
	}
	return out
}

// apiError decodes an error envelope.
func apiError(t *testing.T, body string) string {
	t.Helper()
	var env struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" {
		t.Fatalf("not an error envelope: %v: %s", err, body)
	}
	return env.Error.Code
}

func TestExplore_PageMintsOneKey(t *testing.T) {
	f, _ := exploreFixture(t)
	res, _ := f.client().get("/console/explore")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/console/signin") {
		t.Fatalf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	for _, name := range []string{"mo", "ada", "olu"} { // every role
		t.Run(name, func(t *testing.T) {
			c := f.signedIn(name)
			// A GET never mints: the page is the form that does.
			for i := 0; i < 2; i++ {
				res, body := c.get("/console/explore")
				if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="explore-start"`) || strings.Contains(body, `id="map"`) {
					t.Fatalf("explore before a key: %d\n%.500s", res.StatusCode, body)
				}
			}
			if keys := consoleKeys(t, f, "acme", name); len(keys) != 0 {
				t.Fatalf("a GET minted %d keys", len(keys))
			}
			// Without the page's CSRF token the POST mints nothing.
			if res, _ := c.post("/console/explore/key", nil); res.StatusCode != http.StatusForbidden {
				t.Errorf("mint without a CSRF token: %d", res.StatusCode)
			}
			for i := 0; i < 2; i++ {
				res, body := c.openExplore()
				if res.StatusCode != http.StatusOK {
					t.Fatalf("explore: %d\n%s", res.StatusCode, body)
				}
				for _, want := range []string{`id="map"`, `value="pop|people"`, "console: " + name, "maplibre-gl-csp.js?v=", `aria-current="page">Explore`} {
					if !strings.Contains(body, want) {
						t.Errorf("page lacks %q", want)
					}
				}
			}
			keys := consoleKeys(t, f, "acme", name)
			if len(keys) != 1 || keys[0].Preset != "full" {
				t.Fatalf("console keys of %s: %+v", name, keys)
			}
			entries, err := f.store.AuditLog("acme", 0)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range entries {
				found = found || (e.Action == "key.mint" && e.Actor == name && e.Outcome == state.AuditOK)
			}
			if !found {
				t.Errorf("no audited key.mint by %s", name)
			}
		})
	}
	if logs := f.logs.String(); strings.Contains(logs, state.SecretPrefix) {
		t.Error("a secret reached the log")
	}
}

// exploreSession signs mo of acme in to the Explore fixture and returns
// mo's client, Explore key and the page's CSRF token.
func exploreSession(t *testing.T) (*fixture, *fakeAPI, *client, state.Key, string) {
	t.Helper()
	f, api := exploreFixture(t)
	c := f.signedIn("mo")
	c.openExplore()
	return f, api, c, consoleKeys(t, f, "acme", "mo")[0], c.csrf("/console/explore")
}

func TestExplore_CallsGoThroughTheAPI(t *testing.T) {
	f, api, c, key, csrf := exploreSession(t)
	tests := []struct {
		name      string
		method    string
		path      string
		body      string
		header    []string
		bare      bool // no Sec-Fetch-Site: not a browser that sends one
		status    int
		code      string // error code answered by the console itself
		wantPath  string
		wantQuery string
	}{
		{name: "tile", path: "/console/explore/tiles/frames/9/240/270", status: 200,
			wantPath: "/ogc/collections/frames/tiles/WebMercatorQuad/9/240/270"},
		{name: "dataset tile", path: "/console/explore/tiles/pop/12/1900/2200", status: 200,
			wantPath: "/ogc/collections/pop/tiles/WebMercatorQuad/12/1900/2200"},
		{name: "bad collection", path: "/console/explore/tiles/Bad!/9/1/2", status: 400, code: "invalid"},
		{name: "bad zoom", path: "/console/explore/tiles/frames/x/1/2", status: 400, code: "invalid"},
		{name: "point", path: "/console/explore/api/at?lat=9.05&lon=7.45&api_key=svc_sk_x", status: 200,
			wantPath: "/v1/frames/at", wantQuery: "lat=9.05&lon=7.45"},
		{name: "box", path: "/console/explore/api/frames?bbox=7,9,7.1,9.1&limit=50&x=1", status: 200,
			wantPath: "/v1/frames", wantQuery: "bbox=7%2C9%2C7.1%2C9.1&limit=50"},
		{name: "data", path: "/console/explore/api/data?ids=1,2", status: 200, wantPath: "/v1/frames/data", wantQuery: "ids=1%2C2"},
		{name: "question", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":["1"]}`,
			header: []string{"X-CSRF-Token", csrf, "Content-Type", "application/json"}, status: 200, wantPath: "/v1/frames/insight"},
		{name: "question without CSRF token", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":["1"]}`,
			header: []string{"Content-Type", "application/json"}, status: 403},
		{name: "question with a wrong CSRF token", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":["1"]}`,
			header: []string{"X-CSRF-Token", "nope", "Content-Type", "application/json"}, status: 403},
		{name: "question from another site", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":["1"]}`,
			header: []string{"X-CSRF-Token", csrf, "Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"}, status: 403},
		{name: "question too large", method: "POST", path: "/console/explore/api/insight", body: `{"question":"` + strings.Repeat("a", 300<<10) + `"}`,
			header: []string{"X-CSRF-Token", csrf, "Content-Type", "application/json"}, status: 400, code: "invalid_body"},
		{name: "an API key is refused", path: "/console/explore/api/at?lat=9&lon=7", header: []string{"Authorization", "Bearer svc_sk_x"}, status: 401},
		// A GET that may spend credits needs proof that the map's own page
		// sent it: a cookie alone (an <img> on another port of the host)
		// is refused before the API is called.
		{name: "tile with no proof of origin", path: "/console/explore/tiles/pop/12/1900/2200", bare: true, status: 403, code: "forbidden"},
		{name: "data with no proof of origin", path: "/console/explore/api/data?ids=1,2", bare: true, status: 403, code: "forbidden"},
		{name: "breaks with no proof of origin", path: "/console/explore/breaks?dataset=pop&attr=people", bare: true, status: 403, code: "forbidden"},
		{name: "tile from another port", path: "/console/explore/tiles/pop/12/1900/2200", header: []string{"Sec-Fetch-Site", "same-site"}, status: 403, code: "forbidden"},
		{name: "data from another site", path: "/console/explore/api/data?ids=1,2", header: []string{"Sec-Fetch-Site", "cross-site"}, status: 403, code: "forbidden"},
		{name: "data with a wrong token", path: "/console/explore/api/data?ids=1,2", bare: true, header: []string{"X-CSRF-Token", "nope"}, status: 403, code: "forbidden"},
		{name: "data with the page's token", path: "/console/explore/api/data?ids=1,2", bare: true, header: []string{"X-CSRF-Token", csrf}, status: 200,
			wantPath: "/v1/frames/data", wantQuery: "ids=1%2C2"},
		{name: "data typed in the address bar", path: "/console/explore/api/data?ids=1,2", header: []string{"Sec-Fetch-Site", "none"}, status: 200,
			wantPath: "/v1/frames/data", wantQuery: "ids=1%2C2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := api.count()
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			req, _ := http.NewRequest(method, f.srv.URL+tc.path, strings.NewReader(tc.body))
			if method == http.MethodGet && !tc.bare {
				req.Header.Set("Sec-Fetch-Site", "same-origin")
			}
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			res, body := c.do(req)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.300s", res.StatusCode, tc.status, body)
			}
			if tc.code != "" {
				if got := apiError(t, body); got != tc.code {
					t.Errorf("code %q, want %q", got, tc.code)
				}
			}
			if tc.wantPath == "" {
				if api.count() != before {
					t.Errorf("the API was called: %+v", api.last(t))
				}
				return
			}
			call := api.last(t)
			if call.path != tc.wantPath || call.query != tc.wantQuery || call.key.ID != key.ID {
				t.Errorf("API call %s %s?%s as %s, want %s?%s as %s", call.method, call.path, call.query, call.key.ID, tc.wantPath, tc.wantQuery, key.ID)
			}
			if call.cookie != "" || call.auth != "" {
				t.Errorf("the API got the browser's cookie %q or Authorization %q", call.cookie, call.auth)
			}
			if method == http.MethodPost && (call.body != tc.body || call.contentType != "application/json") {
				t.Errorf("the API got body %q (%s)", call.body, call.contentType)
			}
			if strings.Contains(tc.path, "/tiles/") && res.Header.Get("Cache-Control") != "private, max-age=300" {
				t.Errorf("tile Cache-Control %q", res.Header.Get("Cache-Control"))
			}
		})
	}
}

func TestExplore_RevokedKeyStopsTheMap(t *testing.T) {
	f, api := exploreFixture(t)
	c := f.signedIn("mo")
	c.openExplore()
	key := consoleKeys(t, f, "acme", "mo")[0]
	if _, err := f.store.RevokeKey(key.ID, fixtureStart); err != nil {
		t.Fatal(err)
	}
	before := api.count()
	res, body := c.get("/console/explore/api/data?ids=1")
	if res.StatusCode != http.StatusUnauthorized || apiError(t, body) != "invalid_key" || !strings.Contains(body, "open Explore again") {
		t.Fatalf("after revocation: %d %s", res.StatusCode, body)
	}
	if api.count() != before {
		t.Error("the API was called with a revoked key")
	}
	// Opening Explore again mints a new key, and the map works again.
	c.openExplore()
	if keys := consoleKeys(t, f, "acme", "mo"); len(keys) != 2 {
		t.Fatalf("%d console keys after reopening", len(keys))
	}
	if res, _ := c.get("/console/explore/api/data?ids=1"); res.StatusCode != http.StatusOK {
		t.Errorf("after reopening: %d", res.StatusCode)
	}
	if api.last(t).key.ID == key.ID {
		t.Error("the revoked key was used")
	}
	if _, ok := f.con.uses.Last(api.last(t).key.ID); !ok {
		t.Error("the Explore key's use was not recorded")
	}
}

// TestExplore_KeyBoundToMember: a key an administrator mints with the
// name "console: mo" is never the key mo's map runs on; the map's key is
// found by the member it was minted for.
func TestExplore_KeyBoundToMember(t *testing.T) {
	f, api := exploreFixture(t)
	planted, _, err := f.store.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Name: "console: mo", Now: fixtureStart.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	c := f.signedIn("mo")
	c.openExplore()
	if res, body := c.get("/console/explore/api/data?ids=1"); res.StatusCode != http.StatusOK {
		t.Fatalf("map: %d %s", res.StatusCode, body)
	}
	used := api.last(t).key
	if used.ID == planted.ID || used.Member != "mo" {
		t.Fatalf("mo's map ran on key %s (member %q); the planted look-alike is %s", used.ID, used.Member, planted.ID)
	}
	// Another member's map never takes mo's key either.
	other := f.signedIn("olu")
	other.openExplore()
	if res, _ := other.get("/console/explore/api/data?ids=1"); res.StatusCode != http.StatusOK || api.last(t).key.ID == used.ID || api.last(t).key.Member != "olu" {
		t.Fatalf("olu's map ran on %+v", api.last(t).key)
	}
}

func TestExplore_NoBasicChallenge(t *testing.T) {
	f, api := exploreFixture(t)
	api.status, api.body = http.StatusUnauthorized, `{"code":"invalid_key","description":"x"}`
	api.header = http.Header{"Www-Authenticate": {`Basic realm="frameindex"`}}
	c := f.signedIn("mo")
	c.openExplore()
	res, _ := c.get("/console/explore/tiles/frames/9/1/2")
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("tile: %d, WWW-Authenticate %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
}

func TestExplore_WithoutAPI(t *testing.T) {
	f := newFixture(t, false, Config{})
	c := f.signedIn("mo")
	if res, _ := c.get("/console/explore"); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("explore without an API: %d", res.StatusCode)
	}
	if res, body := c.get("/console/explore/lines/outline/0/0/0"); res.StatusCode != http.StatusNotFound || apiError(t, body) != "not_found" {
		t.Errorf("outline without one: %d", res.StatusCode)
	}
}

func TestExplore_Vendor(t *testing.T) {
	f, _ := exploreFixture(t)
	c := f.client() // no session needed: a library
	for _, tc := range []struct {
		path   string
		status int
		ctype  string
	}{
		{"/console/vendor/maplibre-gl/maplibre-gl-csp.js?v=" + vendorVersion(), 200, "text/javascript; charset=utf-8"},
		{"/console/vendor/maplibre-gl/maplibre-gl-csp-worker.js", 200, "text/javascript; charset=utf-8"},
		{"/console/vendor/maplibre-gl/maplibre-gl.css", 200, "text/css; charset=utf-8"},
		{"/console/vendor/maplibre-gl/LICENSE.txt", 200, "text/plain; charset=utf-8"},
		{"/console/vendor/maplibre-gl/nothing.js", 404, ""},
		{"/console/vendor/maplibre-gl/..%2fexplore.go", 404, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, _ := c.get(tc.path)
			if res.StatusCode != tc.status || (tc.ctype != "" && res.Header.Get("Content-Type") != tc.ctype) {
				t.Errorf("%d %s", res.StatusCode, res.Header.Get("Content-Type"))
			}
		})
	}
	if vendorVersion() == "" {
		t.Error("no vendored version")
	}
}

func TestExplore_BreaksPlaces(t *testing.T) {
	f, _ := exploreFixture(t)
	c := f.signedIn("mo")
	c.openExplore()
	tests := []struct {
		name   string
		path   string
		status int
		code   string
		want   []string
	}{
		{"breaks", "/console/explore/breaks?dataset=pop&attr=people", 200, "", []string{`"breaks":[`, `"max":150`, `"frames":16`, `"perFrame":true`}},
		{"breaks of a category", "/console/explore/breaks?dataset=admin&attr=state", 404, "not_found", nil},
		{"breaks of an unknown dataset", "/console/explore/breaks?dataset=nope&attr=x", 404, "not_found", nil},
		{"breaks without attr", "/console/explore/breaks?dataset=pop", 400, "invalid", nil},
		{"places", "/console/explore/places?q=kan", 200, "", []string{`"name":"Kano","kind":"State"`, `"name":"Kano Municipal","kind":"LGA","within":"Kano"`, `"frames":8`}},
		{"places, none", "/console/explore/places?q=lagos", 200, "", []string{`{"data":[]}`}},
		{"places, too short", "/console/explore/places?q=k", 400, "invalid", nil},
		{"places, too long", "/console/explore/places?q=" + strings.Repeat("k", 101), 400, "invalid", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, body := c.get(tc.path)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
			}
			if tc.code != "" && apiError(t, body) != tc.code {
				t.Errorf("code: %s", body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("answer lacks %s: %.400s", w, body)
				}
			}
		})
	}
	// Another organisation reads neither dataset.
	r := f.signedIn("rivo")
	r.openExplore()
	if res, body := r.get("/console/explore/breaks?dataset=pop&attr=people"); res.StatusCode != 404 {
		t.Errorf("rival reads acme's breaks: %d %s", res.StatusCode, body)
	}
	// Licensed per query, the colour steps (which summarise all 16 frames)
	// are refused, free or charged: the answer says what they would cost,
	// and no credit moves.
	if _, err := f.store.GrantLicence("rival", "pop", state.LicencePerQuery, fixtureStart); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.AddCredits("rival", 10, "test", fixtureStart); err != nil {
		t.Fatal(err)
	}
	res, body := r.get("/console/explore/breaks?dataset=pop&attr=people")
	if res.StatusCode != 403 || apiError(t, body) != "forbidden" || !strings.Contains(body, "licensed to your organisation per query") || strings.Contains(body, `"breaks"`) {
		t.Errorf("per-query breaks: %d %s", res.StatusCode, body)
	}
	if o, _ := f.store.Org("rival"); o.Credits != 10 {
		t.Errorf("per-query breaks moved credits: %d left", o.Credits)
	}
	// Without a key (never opened Explore) the calls say what to do.
	n := f.signedIn("ada")
	if res, body := n.get("/console/explore/places?q=kano"); res.StatusCode != 401 || !strings.Contains(body, "open Explore again") {
		t.Errorf("no key: %d %s", res.StatusCode, body)
	}
}

func TestQuantileBreaks(t *testing.T) {
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		return v
	}
	tests := []struct {
		name string
		vals []float64
		want []float64
	}{
		{"none", nil, []float64{}},
		{"one value", []float64{5}, []float64{}},
		{"all equal", []float64{3, 3, 3, 3}, []float64{}},
		{"1 to 600", seq(600), []float64{100, 200, 300, 400, 500}},
		{"rounded to two digits", []float64{1234, 2345, 3456, 4567, 5678, 6789, 7890}, []float64{2300, 3500, 4600, 5700, 6800}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := quantileBreaks(tc.vals, 6, false)
			if fmt.Sprint(got.Breaks) != fmt.Sprint(tc.want) {
				t.Errorf("breaks %v, want %v", got.Breaks, tc.want)
			}
		})
	}
}

func TestPlaceSearch(t *testing.T) {
	pd := &placeData{places: []place{{Name: "Kano", Kind: "LGA"}, {Name: "Kano", Kind: "State"}, {Name: "Kano Municipal", Kind: "LGA"},
		{Name: "Dala Kano Ward", Kind: "Ward"}, {Name: "Lagos", Kind: "State"}}}
	for _, p := range pd.places {
		pd.lower = append(pd.lower, strings.ToLower(p.Name))
	}
	var got []string
	for _, p := range pd.search("KANO", 10) {
		got = append(got, p.Name+"/"+p.Kind)
	}
	want := "Kano/State Kano/LGA Kano Municipal/LGA Dala Kano Ward/Ward"
	if strings.Join(got, " ") != want {
		t.Errorf("search: %v, want %s", got, want)
	}
	if n := len(pd.search("kano", 2)); n != 2 {
		t.Errorf("limit: %d", n)
	}
	var nilData *placeData
	if r := nilData.search("x", 3); r == nil || len(r) != 0 {
		t.Errorf("nil index: %v", r)
	}
}

// TestExplore_ConcurrentFirstUse: requests racing on a person's first use
// mint one key.
func TestExplore_ConcurrentFirstUse(t *testing.T) {
	f, _ := exploreFixture(t)
	c := f.signedIn("mo")
	_, page := c.get("/console/explore")
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token on the page")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := c.http.PostForm(f.srv.URL+"/console/explore/key", url.Values{"csrf": {m[1]}})
			if err == nil {
				res.Body.Close()
			}
		})
	}
	wg.Wait()
	if keys := consoleKeys(t, f, "acme", "mo"); len(keys) != 1 {
		t.Errorf("%d console keys", len(keys))
	}
}

func TestNaturalLess(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Ward 2", "Ward 10", true},
		{"Ward 10", "Ward 2", false},
		{"Ward 02", "Ward 2", false},
		{"Abuja", "Abuja Ward 1", true},
		{"Kano", "Kaduna", false},
		{"a1b2", "a1b10", true},
		{"", "a", true},
		{"a", "a", false},
	}
	for _, tc := range tests {
		t.Run(tc.a+"<"+tc.b, func(t *testing.T) {
			if got := naturalLess(tc.a, tc.b); got != tc.want {
				t.Errorf("naturalLess(%q, %q) = %v", tc.a, tc.b, got)
			}
		})
	}
}

// A place has the frames a question about it counts: when a newer
// boundary dataset records a level (here states, under the alias adm1_en)
// the place search reads that level from it alone, as questions do
// (area.LevelSources), instead of adding up every dataset that names the
// place; a level only the older dataset records (LGAs) still comes from it.
func TestExplore_PlacesFromWhereQuestionsReadThem(t *testing.T) {
	f, _ := exploreFixture(t)
	r0, c0 := grid.CellAt(9.09, 7.41)
	var rec []bolt.FrameRecord
	for dr := 0; dr < 4; dr++ {
		rec = append(rec, bolt.FrameRecord{Frame: grid.CellID(r0+dr, c0), Attrs: []byte(`{"adm1_en":"Kano","ward":"Dala"}`)})
	}
	attrs := []state.Attribute{{Name: "adm1_en", Label: "State", Type: state.TypeCategory, Aggregation: "mode"},
		{Name: "ward", Label: "Ward", Type: state.TypeCategory, Aggregation: "mode"}}
	if _, err := f.store.ImportDataset(state.Dataset{ID: "bounds", Name: "Boundaries", Owner: "acme", Attributes: attrs}, rec, fixtureStart.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c := f.signedIn("mo")
	c.openExplore()
	res, body := c.get("/console/explore/places?q=kano")
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	var got struct{ Data []place }
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	frames := map[string]int{}
	for _, p := range got.Data {
		frames[p.Name+"/"+p.Kind+"/"+p.Within] = p.Frames
	}
	// The LGA is still said to be in Kano, from the older dataset's own
	// state column.
	want := map[string]int{"Kano/State/": 4, "Kano Municipal/LGA/Kano": 8}
	if !maps.Equal(frames, want) {
		t.Errorf("places %v, want %v", frames, want)
	}
	// What the questions read: the same sources.
	readable, err := f.store.Readable(consoleKeys(t, f, "acme", "mo")[0])
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, l := range area.LevelSources(readable) {
		srcs = append(srcs, l.Kind+"="+l.Dataset.ID+"."+l.Attr)
	}
	if w := "state=bounds.adm1_en lga=admin.lga ward=bounds.ward"; strings.Join(srcs, " ") != w {
		t.Errorf("level sources %v, want %s", srcs, w)
	}
}
