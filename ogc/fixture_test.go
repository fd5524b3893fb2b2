package ogc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"frameindex/origin"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/handlers"
	"frameindex/index"
	"frameindex/ogc"
	"frameindex/state"
)

// The test grid: rows R0..R1 and columns C0..C1 around Abuja (lat 9.0765,
// lon 7.3986 is row 9710, column 22487), a lattice of 30 x 30 frames less
// a hole of 4 x 4 in the middle.
const (
	R0, R1 = 9700, 9729
	C0, C1 = 22480, 22509
)

func gridRuns() []grid.Run {
	var runs []grid.Run
	for r := R0; r <= R1; r++ {
		if r >= 9712 && r <= 9715 {
			runs = append(runs, grid.Run{Row: int32(r), Col0: C0, Col1: 22491}, grid.Run{Row: int32(r), Col0: 22496, Col1: C1})
			continue
		}
		runs = append(runs, grid.Run{Row: int32(r), Col0: C0, Col1: C1})
	}
	return runs
}

func id(row, col int) uint64 { return grid.CellID(row, col) }

var testNow = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// Keys of the fixture, by secret.
const (
	secretAcmeFull     = "svc_sk_AcmeFullAcmeFullAcmeFullAcme01"
	secretAcmeAnalyst  = "svc_sk_AcmeAnalystAcmeAnalystAcmeA02"
	secretAcmeNarrow   = "svc_sk_AcmeNarrowAcmeNarrowAcmeNar03"
	secretRivalFull    = "svc_sk_RivalFullRivalFullRivalFull04"
	secretAcmeNoFrames = "svc_sk_AcmeNoFramesAcmeNoFramesAc05"
)

var fixtureKeys = map[string]state.Key{
	secretAcmeFull:     {ID: "key_acmefull", OrgID: "acme", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead}},
	secretAcmeAnalyst:  {ID: "key_acmeanalyst", OrgID: "acme", Caps: []state.Capability{state.CapFrameRead, state.CapAskQuery}},
	secretAcmeNarrow:   {ID: "key_acmenarrow", OrgID: "acme", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead}, Datasets: []string{"population"}},
	secretRivalFull:    {ID: "key_rivalfull", OrgID: "rival", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead}},
	secretAcmeNoFrames: {ID: "key_acmenoframes", OrgID: "acme", Caps: []state.Capability{state.CapAskQuery}},
}

type keyring map[string]state.Key

func (k keyring) Lookup(secret string, _ time.Time) (state.Key, error) {
	if key, ok := k[secret]; ok {
		return key, nil
	}
	return state.Key{}, state.ErrUnknownKey
}

// fixture is a store with datasets, the grid, and the API server with the
// OGC calls mounted, as cli/serve.go wires them.
type fixture struct {
	store *bolt.Store
	grid  *index.Index
	h     http.Handler
	logs  *bytes.Buffer
}

// Datasets of the fixture:
//
//	population  acme's: population_2020 (number, sum) on every frame of
//	            rows R0..9719, (row-R0)*100+(col-C0) people; 35.5 on the
//	            first frame
//	admin       acme's: state (category) on rows 9720..R1
//	secrets     rival's, private: code (text) on the first frame
//	roads       rival's features: 3 points on frame (9705, 22485), 1 on
//	            (9725, 22500); licensed to acme per query at 2 credits
//	lights      rival's: radiance (number, mean) on 10 frames of row 9701;
//	            licensed to acme per query at 1 credit
//
// acme starts with creditsAcme credits.
const creditsAcme = 5

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "frames.db"), bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, org := range []string{"acme", "rival"} {
		if _, err := st.AddOrg(state.Org{ID: org, Plan: "pro"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := st.AddCredits("acme", creditsAcme, "test", testNow); err != nil {
		t.Fatal(err)
	}
	var pop, admin []bolt.FrameRecord
	for r := R0; r <= R1; r++ {
		for c := C0; c <= C1; c++ {
			if r >= 9712 && r <= 9715 && c > 22491 && c < 22496 {
				continue
			}
			switch {
			case r == R0 && c == C0:
				pop = append(pop, bolt.FrameRecord{Frame: id(r, c), Attrs: []byte(`{"population_2020":35.5}`)})
			case r < 9720:
				pop = append(pop, bolt.FrameRecord{Frame: id(r, c), Attrs: fmt.Appendf(nil, `{"population_2020":%d}`, (r-R0)*100+(c-C0))})
			default:
				state := "FCT"
				if c > 22495 {
					state = "Niger"
				}
				admin = append(admin, bolt.FrameRecord{Frame: id(r, c), Attrs: fmt.Appendf(nil, `{"state":%q}`, state)})
			}
		}
	}
	point := func(n int, lon, lat float64) []byte {
		return fmt.Appendf(nil, `{"type":"Feature","id":"road-%d","properties":{"n":%d,"kind":"junction"},"geometry":{"type":"Point","coordinates":[%.6f,%.6f]}}`, n, n, lon, lat)
	}
	f1, f2 := grid.CellBox(9705, 22485), grid.CellBox(9725, 22500)
	roads := []bolt.FrameRecord{
		{Frame: id(9705, 22485), Features: [][]byte{point(0, f1.MinLon+0.001, f1.MinLat+0.001), point(1, f1.MinLon+0.002, f1.MinLat+0.002), point(2, f1.MinLon+0.003, f1.MinLat+0.003)}},
		{Frame: id(9725, 22500), Features: [][]byte{point(3, f2.MinLon+0.004, f2.MinLat+0.004)}},
	}
	var lights []bolt.FrameRecord
	for c := C0; c < C0+10; c++ {
		lights = append(lights, bolt.FrameRecord{Frame: id(9701, c), Attrs: fmt.Appendf(nil, `{"radiance":%d.25}`, c-C0)})
	}
	for _, ds := range []struct {
		d    state.Dataset
		recs []bolt.FrameRecord
	}{
		{state.Dataset{ID: "population", Name: "Estimated population", Owner: "acme", Attributes: []state.Attribute{
			{Name: "population_2020", Label: "Estimated population", Unit: "people", Year: 2020, Type: state.TypeNumber, Aggregation: state.AggSum}}}, pop},
		{state.Dataset{ID: "admin", Name: "Administrative areas", Owner: "acme", Attributes: []state.Attribute{
			{Name: "state", Label: "State", Type: state.TypeCategory, Aggregation: state.AggMode}}}, admin},
		{state.Dataset{ID: "secrets", Name: "Rival secrets", Owner: "rival", Attributes: []state.Attribute{
			{Name: "code", Type: state.TypeText}}}, []bolt.FrameRecord{{Frame: id(R0, C0), Attrs: []byte(`{"code":"RIVAL-ONLY"}`)}}},
		{state.Dataset{ID: "roads", Name: "Roads", Owner: "rival", Price: 2}, roads},
		{state.Dataset{ID: "lights", Name: "Night lights", Owner: "rival", Price: 1, Attributes: []state.Attribute{
			{Name: "radiance", Type: state.TypeNumber, Aggregation: state.AggMean}}}, lights},
	} {
		if _, err := st.ImportDataset(ds.d, ds.recs, testNow); err != nil {
			t.Fatalf("import %s: %v", ds.d.ID, err)
		}
	}
	for _, ds := range []string{"roads", "lights"} {
		if _, err := st.GrantLicence("acme", ds, state.LicencePerQuery, testNow); err != nil {
			t.Fatal(err)
		}
	}
	ix := index.NewLattice(gridRuns())
	return newServer(st, ix)
}

func newServer(st *bolt.Store, ix *index.Index) *fixture {
	f := &fixture{store: st, grid: ix, logs: &bytes.Buffer{}}
	f.h = handlers.New(handlers.Config{
		Frames: func() handlers.FrameIndex { return ix },
		Keys:   func() handlers.KeyLookup { return keyring(fixtureKeys) },
		Data:   st,
		Now:    func() time.Time { return testNow },
		OGC: ogc.New(ogc.Config{Store: st, Now: func() time.Time { return testNow },
			Grid: func() ogc.Grid { return ix }, Origin: testOrigin}),
	})
	return f
}

// response is a recorded answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// get requests target with the given Authorization header value ("" for
// none).
func (f *fixture) get(t testing.TB, auth, target string) response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://frames.example"+target, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	return response{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

func bearer(secret string) string { return "Bearer " + secret }

// json decodes the body into v, failing the test when it is not JSON.
func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("status %d, body is not JSON: %v\n%s", r.status, err, r.body)
	}
}

// exception checks an OGC exception answer.
func (r response) exception(t testing.TB, status int, code string) string {
	t.Helper()
	var e struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	}
	r.json(t, &e)
	if r.status != status || e.Code != code || e.Description == "" {
		t.Fatalf("got %d %s %q, want %d %s\n%s", r.status, e.Code, e.Description, status, code, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("exception Content-Type %q", ct)
	}
	return e.Description
}

// featureCollection is an items answer.
type featureCollection struct {
	Type     string `json:"type"`
	Features []struct {
		Type       string          `json:"type"`
		ID         json.RawMessage `json:"id"`
		Geometry   json.RawMessage `json:"geometry"`
		Properties map[string]any  `json:"properties"`
	} `json:"features"`
	NumberReturned int  `json:"numberReturned"`
	NumberMatched  *int `json:"numberMatched"`
	Links          []struct {
		Href, Rel, Type string
	} `json:"links"`
}

func (fc featureCollection) link(rel string) string {
	for _, l := range fc.Links {
		if l.Rel == rel {
			return l.Href
		}
	}
	return ""
}

// ids returns the features' ids as text.
func (fc featureCollection) ids() []string {
	var out []string
	for _, f := range fc.Features {
		var n json.Number
		if err := json.Unmarshal(f.ID, &n); err == nil {
			out = append(out, n.String())
			continue
		}
		var s string
		json.Unmarshal(f.ID, &s)
		out = append(out, s)
	}
	return out
}

// pages follows next links from target and returns every feature id and
// the number of pages.
func (f *fixture) pages(t testing.TB, auth, target string) ([]string, int) {
	t.Helper()
	var all []string
	n := 0
	for target != "" {
		r := f.get(t, auth, target)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", target, r.status, r.body)
		}
		var fc featureCollection
		r.json(t, &fc)
		if fc.NumberReturned != len(fc.Features) {
			t.Fatalf("numberReturned %d for %d features", fc.NumberReturned, len(fc.Features))
		}
		all = append(all, fc.ids()...)
		n++
		target = ""
		if next := fc.link("next"); next != "" {
			target = next[len("http://frames.example"):]
		}
		if n > 10000 {
			t.Fatal("paging does not end")
		}
	}
	return all, n
}

// readAll drains and closes a body.
func readAll(t testing.TB, rc io.ReadCloser) []byte {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	nationalOnce sync.Once
	nationalRuns []grid.Run
	nationalErr  error
)

// national returns the runs of the national grid: the lattice cells
// touching Nigeria's outline as the demo builds it (testdata of the
// repository).
func national(tb testing.TB) []grid.Run {
	tb.Helper()
	nationalOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "nigeria-outline.geojson"))
		if err != nil {
			nationalErr = err
			return
		}
		nationalErr = grid.ReadFeatures(bytes.NewReader(raw), func(_ int, f grid.InFeature) error {
			m, err := grid.ParseGeometry(f.Geometry)
			if err == nil {
				nationalRuns = append(nationalRuns, grid.Rasterize(m)...)
			}
			return err
		})
	})
	if nationalErr != nil {
		if errors.Is(nationalErr, os.ErrNotExist) {
			tb.Skipf("the national outline is absent: %v", nationalErr)
		}
		tb.Fatal(nationalErr)
	}
	return nationalRuns
}

// testOrigin names the test server as serve --public-url would.
var testOrigin = func() *origin.Base {
	b, err := origin.New("http://frames.example", "127.0.0.1:8080")
	if err != nil {
		panic(err)
	}
	return b
}()
