package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

// areaFixture is a 20 x 20 lattice at 11° N: state Gamma holds LGA Alpha
// (the western half) and Beta (the eastern), and a ward of Beta called
// Gamma makes "Gamma" name two places. Population is 1 + the frame's
// position; "lights" (radiance 2 on every frame) is another
// organisation's, licensed per query.
type areaFixture struct {
	store *bolt.Store
	ix    *index.Index
	srv   *Server
	pop   map[uint64]float64
	lga   map[uint64]string
}

const (
	areaSecret = "svc_sk_area"
	areaRow    = 9480 // lat 11.0
	areaCol    = 22620
)

func newAreaFixture(t *testing.T) *areaFixture {
	t.Helper()
	s, err := bolt.Open(filepath.Join(t.TempDir(), "f.db"), bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, o := range []string{"o", "m"} {
		if _, err := s.AddOrg(state.Org{ID: o, Name: o, Plan: state.PlanPro, Created: now}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.AddCredits("o", 10, "test", now); err != nil {
		t.Fatal(err)
	}
	var runs []grid.Run
	for r := 0; r < 20; r++ {
		runs = append(runs, grid.Run{Row: int32(areaRow + r), Col0: areaCol, Col1: areaCol + 19})
	}
	f := &areaFixture{store: s, ix: index.NewLattice(runs), pop: map[uint64]float64{}, lga: map[uint64]string{}}
	var admin, pop, lights []bolt.FrameRecord
	for p := 0; p < f.ix.Len(); p++ {
		id := f.ix.IDAt(p)
		_, col, _ := grid.RowCol(id)
		lga, ward := "Alpha", "Alpha Ward 1"
		if col >= areaCol+10 {
			lga, ward = "Beta", "Gamma"
		}
		f.pop[id], f.lga[id] = float64(1+p), lga
		admin = append(admin, bolt.FrameRecord{Frame: id, Attrs: fmt.Appendf(nil, `{"state":"Gamma","lga":%q,"ward":%q}`, lga, ward)})
		pop = append(pop, bolt.FrameRecord{Frame: id, Attrs: fmt.Appendf(nil, `{"population_2020":%d}`, 1+p)})
		lights = append(lights, bolt.FrameRecord{Frame: id, Attrs: []byte(`{"radiance":2}`)})
	}
	cat := func(n, l string) state.Attribute {
		return state.Attribute{Name: n, Label: l, Type: state.TypeCategory, Aggregation: state.AggMode}
	}
	for _, d := range []struct {
		ds   state.Dataset
		recs []bolt.FrameRecord
	}{
		{state.Dataset{ID: "admin", Name: "Admin", Owner: "o", Attributes: []state.Attribute{cat("state", "State"), cat("lga", "Local government area"), cat("ward", "Ward")}}, admin},
		{state.Dataset{ID: "pop", Name: "Population", Owner: "o", Attributes: []state.Attribute{{Name: "population_2020", Label: "Estimated population",
			Unit: "people", Type: state.TypeNumber, Aggregation: state.AggSum, Year: 2020}}}, pop},
		{state.Dataset{ID: "lights", Name: "Night lights", Owner: "m", Price: 1, Attributes: []state.Attribute{{Name: "radiance", Label: "Night-time light radiance",
			Type: state.TypeNumber, Aggregation: state.AggMean}}}, lights},
	} {
		if _, err := s.ImportDataset(d.ds, d.recs, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.GrantLicence("o", "lights", state.LicencePerQuery, now); err != nil {
		t.Fatal(err)
	}
	keys := &fakeKeys{LookupFn: func(secret string, _ time.Time) (state.Key, error) {
		if secret == areaSecret {
			return state.Key{ID: "key_area", OrgID: "o", Caps: []state.Capability{state.CapAskQuery, state.CapFrameRead}}, nil
		}
		return state.Key{}, state.ErrUnknownKey
	}}
	f.srv = New(Config{
		Frames: func() FrameIndex { return f.ix },
		Keys:   func() KeyLookup { return keys },
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Now:    func() time.Time { return now },
		Data:   s,
	})
	return f
}

// areaData is what these tests read of an answer.
type areaData struct {
	Headline   string   `json:"headline"`
	Confidence string   `json:"confidence"`
	FrameIDs   []string `json:"frameIds"`
	Charged    []string `json:"charged"`
	Area       struct {
		Name       string  `json:"name"`
		Kind       string  `json:"kind"`
		Parent     string  `json:"parent"`
		FrameCount int     `json:"frameCount"`
		Km2        float64 `json:"km2"`
		Partial    bool    `json:"partial"`
	} `json:"area"`
	Result struct {
		Value  *float64 `json:"value"`
		Groups []struct {
			Key   string   `json:"key"`
			Value *float64 `json:"value"`
		} `json:"groups"`
	} `json:"result"`
}

func (f *areaFixture) ask(t *testing.T, body string) areaData {
	t.Helper()
	w := postInsight(f.srv, body, areaSecret, "application/json")
	if w.Code != 200 {
		t.Fatalf("%s: %d %s", body, w.Code, w.Body)
	}
	var env struct{ Data areaData }
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

func TestServer_HandleFramesInsight_Area(t *testing.T) {
	f := newAreaFixture(t)
	var alpha, all float64
	for id, p := range f.pop {
		all += p
		if f.lga[id] == "Alpha" {
			alpha += p
		}
	}
	d := f.ask(t, `{"area":{"place":"alpha lga"},"question":"How many people live here?"}`)
	if d.Area.Name != "Alpha" || d.Area.Kind != "lga" || d.Area.Parent != "Gamma" || d.Area.FrameCount != 200 ||
		d.FrameIDs != nil || d.Result.Value == nil || *d.Result.Value != alpha {
		t.Errorf("Alpha: %+v %v (want %v people)", d.Area, d.Result.Value, alpha)
	}
	// The place the question names; a breakdown of the state by LGA.
	d = f.ask(t, `{"area":{"inQuestion":true},"question":"How many people live in Gamma State?"}`)
	if d.Area.Name != "Gamma" || d.Area.Kind != "state" || *d.Result.Value != all {
		t.Errorf("Gamma State: %+v %v (want %v)", d.Area, d.Result.Value, all)
	}
	d = f.ask(t, `{"area":{"place":"Gamma","kind":"state"},"question":"population by LGA"}`)
	if len(d.Result.Groups) != 2 || d.Result.Groups[0].Key != "Beta" || *d.Result.Groups[0].Value != all-alpha || *d.Result.Groups[1].Value != alpha {
		t.Errorf("by LGA: %+v", d.Result.Groups)
	}
	// A box over half of each of the columns it crosses: partial frames.
	west := grid.Lon(areaCol)
	north := grid.Lat(areaRow)
	cell := 1.0 / 120
	body := fmt.Sprintf(`{"area":{"bbox":[%v,%v,%v,%v]},"question":"total population"}`, west+cell/2, north-4*cell, west+3.5*cell, north)
	d = f.ask(t, body)
	want, km2 := 0.0, 0.0
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			id := grid.CellID(areaRow+r, areaCol+c)
			w := 1.0
			if c == 0 || c == 3 {
				w = 0.5
			}
			want += w * f.pop[id]
			b := grid.CellBox(areaRow+r, areaCol+c)
			km2 += w * cellKm2Sphere(b)
		}
	}
	if !d.Area.Partial || d.Area.FrameCount != 16 || len(d.FrameIDs) != 16 || math.Abs(*d.Result.Value-want) > 1e-6*want ||
		math.Abs(d.Area.Km2-km2)/km2 > 0.01 {
		t.Errorf("box: %+v %v; want 16 frames, %v people, about %v km²", d.Area, *d.Result.Value, want, km2)
	}
	// Charges: a per-query dataset read over an area is charged once, by
	// the one price rule: its price per started 100 frames read (lights
	// records every frame).
	before, _ := f.store.Org("o")
	d = f.ask(t, `{"area":{"place":"Beta"},"question":"average night-time light radiance"}`)
	after, _ := f.store.Org("o")
	price := int64(d.Area.FrameCount+99) / 100
	if len(d.Charged) != 1 || d.Charged[0] != "lights" || after.Credits != before.Credits-price || price < 1 {
		t.Errorf("lights: charged %v, credits %d -> %d, want %d less for %d frames", d.Charged, before.Credits, after.Credits, price, d.Area.FrameCount)
	}
	d = f.ask(t, `{"area":{"place":"Beta"},"question":"How many people live here?"}`)
	if again, _ := f.store.Org("o"); len(d.Charged) != 0 || again.Credits != after.Credits {
		t.Errorf("population over Beta charged %v", d.Charged)
	}
}

// cellKm2Sphere is a cell's area on a sphere of the authalic radius: a
// check of the ellipsoidal figure to 1 %.
func cellKm2Sphere(b grid.Box) float64 {
	const r = 6371.0072
	return r * r * (b.MaxLon - b.MinLon) * math.Pi / 180 * (math.Sin(b.MaxLat*math.Pi/180) - math.Sin(b.MinLat*math.Pi/180))
}

// TestServer_HandleFramesInsight_AreaPlaceOutside: a place named outside
// the area makes the answer partial, without a figure.
func TestServer_HandleFramesInsight_AreaPlaceOutside(t *testing.T) {
	f := newAreaFixture(t)
	// An area question naming a place outside the area is partial.
	d := f.ask(t, `{"area":{"place":"Alpha"},"question":"How many people live in Beta?"}`)
	if d.Confidence != "partial" || d.Result.Value != nil {
		t.Errorf("Beta asked over Alpha: %s %v (%s)", d.Confidence, d.Result.Value, d.Headline)
	}
}

func TestServer_HandleFramesInsight_AreaErrors(t *testing.T) {
	f := newAreaFixture(t)
	for _, c := range []struct {
		body   string
		status int
		code   string
		frag   string
	}{
		{`{"question":"How many people live in Alpha?"}`, 400, "invalid", "frameIds is required"},
		{`{"frameIds":["1"],"area":{"place":"Alpha"}}`, 400, "invalid", "not both"},
		{`{"area":{"place":"Alpha"},"colour":"red"}`, 400, "invalid_body", `unknown member "colour"`},
		{`{"area":{"place":"Alpha","colour":"red"}}`, 400, "invalid", `area has an unknown member "colour"`},
		{`{"area":{"place":"Alpha",}}`, 400, "invalid_body", "not valid JSON"},
		{`{"area":null}`, 400, "invalid", "must be an object"},
		{`{"area":{"place":"Gamma"},"question":"total population"}`, 400, "invalid", "Gamma (State"},
		{`{"area":{"place":"Atlantis"},"question":"total population"}`, 404, "not_found", "Atlantis"},
		{`{"area":{"place":"Alpha","kind":"town"}}`, 400, "invalid", "kinds are state, lga, ward"},
		{`{"area":{"around":[8.5,11],"radiusKm":150}}`, 400, "invalid", "at most 100"},
		{`{"area":{"bbox":[0,0,1,1]},"question":"total population"}`, 404, "not_found", "covers no frame"},
		{`{"area":{"inQuestion":true},"question":"total population"}`, 400, "invalid", "names no place"},
	} {
		w := postInsight(f.srv, c.body, areaSecret, "application/json")
		wantError(t, w, c.status, c.code, c.frag)
	}
}

// TestOpenAPI_AreaResponses validates area requests and their answers and
// refusals against the OpenAPI document.
func TestOpenAPI_AreaResponses(t *testing.T) {
	_, router := loadOpenAPI(t)
	f := newAreaFixture(t)
	for _, body := range []string{
		`{"area":{"place":"Alpha"},"question":"How many people live here?"}`,
		`{"area":{"place":"Gamma","kind":"state"},"question":"population by LGA"}`,
		`{"area":{"bbox":[8.5,10.9,8.52,11]},"question":"total population"}`,
		`{"area":{"around":[8.55,10.95],"radiusKm":1.5},"question":"average night-time light radiance"}`,
		`{"area":{"place":"Gamma"},"question":"total population"}`,
		`{"area":{"place":"Atlantis"}}`,
	} {
		r := newInsightRequest(body, areaSecret, "application/json")
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, newInsightRequest(body, areaSecret, "application/json"))
		if err := validateResponse(t, router, r, w, true); err != nil {
			t.Errorf("%s: %d %s\n%v", body, w.Code, w.Body, err)
		}
	}
}
