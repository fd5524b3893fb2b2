package e2e

// Questions about areas (issue 23) on the national demo with real
// boundaries: the 37 state and 774 LGA polygons and the OpenStreetMap
// health facilities of ../shared/data/nga, imported through the CLI. Every
// figure is computed here, independently of the server's code: frames
// from the boundary polygons (a frame is in a zone when its centre is,
// as zones are imported) with orb, partial frames from orb's clipping,
// values from the data call, distances by haversine from the facilities'
// own file.

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/planar"

	"frameindex/grid"
)

// ngaDir is ../shared/data/nga from the repository root (or
// $FRAMEINDEX_TEST_NGA, for a worktree elsewhere); the test skips when it
// is absent.
func ngaDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FRAMEINDEX_TEST_NGA")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "shared", "data", "nga")
	}
	if _, err := os.Stat(filepath.Join(dir, "nga_lgas.geojson")); err != nil {
		t.Skipf("Nigerian boundaries absent: %v", err)
	}
	return dir
}

// areaAnswer is what the area tests read of an answer.
type areaAnswer struct {
	Headline   string   `json:"headline"`
	Confidence string   `json:"confidence"`
	FrameIDs   []string `json:"frameIds"`
	Charged    []string `json:"charged"`
	Area       *struct {
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
	Plan json.RawMessage `json:"plan"`
}

func (s *server) askArea(t *testing.T, key, area, question string) (areaAnswer, apiResponse) {
	t.Helper()
	q, _ := json.Marshal(question)
	_, r := s.ask(t, key, `{"area":`+area+`,"question":`+string(q)+`}`)
	var a areaAnswer
	if r.Status == 200 {
		if err := json.Unmarshal(r.Data, &a); err != nil {
			t.Fatal(err)
		}
	}
	return a, r
}

// feature collection helpers

func loadCollection(t *testing.T, path string) *geojson.FeatureCollection {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := geojson.UnmarshalFeatureCollection(b)
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

func findFeature(t *testing.T, fc *geojson.FeatureCollection, props map[string]string) orb.Geometry {
	t.Helper()
next:
	for _, f := range fc.Features {
		for k, v := range props {
			if f.Properties.MustString(k, "") != v {
				continue next
			}
		}
		return f.Geometry
	}
	t.Fatalf("no feature %v", props)
	return nil
}

func contains(g orb.Geometry, p orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return planar.PolygonContains(g, p)
	case orb.MultiPolygon:
		return planar.MultiPolygonContains(g, p)
	}
	return false
}

// framesInZone are the grid frames whose centre lies in g: how a zones
// import assigns a polygon's properties.
func framesInZone(g orb.Geometry) []string {
	b := g.Bound()
	r0, c0 := grid.CellAt(b.Max[1], b.Min[0])
	r1, c1 := grid.CellAt(b.Min[1], b.Max[0])
	var ids []string
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			cb := grid.CellBox(r, c)
			if contains(g, orb.Point{(cb.MinLon + cb.MaxLon) / 2, (cb.MinLat + cb.MaxLat) / 2}) {
				ids = append(ids, strconv.FormatUint(grid.CellID(r, c), 10))
			}
		}
	}
	return ids
}

// fractions are the frames a drawn shape covers and the fraction of each
// inside it, from orb's clipping (planar in degrees, which differs from
// the ellipsoid by under 3e-5 of a frame).
func fractions(g orb.Polygon) map[string]float64 {
	b := g.Bound()
	r0, c0 := grid.CellAt(b.Max[1], b.Min[0])
	r1, c1 := grid.CellAt(b.Min[1], b.Max[0])
	out := map[string]float64{}
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			cb := grid.CellBox(r, c)
			bound := orb.Bound{Min: orb.Point{cb.MinLon, cb.MinLat}, Max: orb.Point{cb.MaxLon, cb.MaxLat}}
			in := clip.Polygon(bound, g.Clone())
			if in == nil {
				continue
			}
			if f := planar.Area(in) / ((cb.MaxLon - cb.MinLon) * (cb.MaxLat - cb.MinLat)); f > 1e-9 {
				out[strconv.FormatUint(grid.CellID(r, c), 10)] = f
			}
		}
	}
	return out
}

// circle is a ring of 2,048 vertices at radiusKm great-circle distance
// (R = 6371.0088 km) from (lon, lat): within 2e-6 of the circle's area.
func circle(lon, lat, radiusKm float64) orb.Polygon {
	const n = 2048
	d := radiusKm / 6371.0088
	p1, l1 := lat*math.Pi/180, lon*math.Pi/180
	var r orb.Ring
	for i := 0; i <= n; i++ {
		brg := -2 * math.Pi * float64(i%n) / n
		p2 := math.Asin(math.Sin(p1)*math.Cos(d) + math.Cos(p1)*math.Sin(d)*math.Cos(brg))
		l2 := l1 + math.Atan2(math.Sin(brg)*math.Sin(d)*math.Cos(p1), math.Cos(d)-math.Sin(p1)*math.Sin(p2))
		r = append(r, orb.Point{l2 * 180 / math.Pi, p2 * 180 / math.Pi})
	}
	return orb.Polygon{r}
}

func haversine(lon1, lat1, lon2, lat2 float64) float64 {
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	h := math.Pow(math.Sin((p2-p1)/2), 2) + math.Cos(p1)*math.Cos(p2)*math.Pow(math.Sin((lon2-lon1)*math.Pi/360), 2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(h))
}

func near(got *float64, want, rel float64) bool {
	return got != nil && math.Abs(*got-want) <= rel*math.Max(math.Abs(want), 1)
}

// TestE2E_Areas asks about places, a ring, a polygon with a hole, a
// state by LGA and coverage, with figures worked out here.
func TestE2E_Areas(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the demo builds the national grid")
	}
	nga := ngaDir(t)
	data := filepath.Join(t.TempDir(), "demo.db")
	srv := startServer(t, "demo", "--data", data, "--addr", "127.0.0.1:0",
		"--limit-insight-burst", "0", "--limit-key-burst", "0", "--limit-org-burst", "0")
	key := secretRe.FindString(srv.stdout.String())
	if key == "" {
		t.Fatalf("demo printed no key:\n%s", srv.stdout)
	}
	// Real boundaries and facilities, through the CLI while it serves:
	// LGAs first, then states, so that states come from the state file.
	mustCLI(t, "import", "--data", data, "--dataset", "lgas", "--owner", "demo", "--name", "LGA boundaries",
		"--zones", filepath.Join(nga, "nga_lgas.geojson"), "--take", "lga_name:lga,state_name:state",
		"--attr", "lga:category:mode", "--attr", "state:category:mode")
	mustCLI(t, "import", "--data", data, "--dataset", "states", "--owner", "demo", "--name", "State boundaries",
		"--zones", filepath.Join(nga, "nga_states.geojson"), "--take", "state_name:state", "--attr", "state:category:mode")
	mustCLI(t, "import", "--data", data, "--dataset", "osm_health", "--owner", "demo", "--name", "OpenStreetMap health facilities",
		"--features", filepath.Join(nga, "nga_health_facilities_osm.geojson"), "--count", "osm_facility_count",
		"--attr", "osm_facility_count:number:sum:facilities::Health facilities", "--outside", "skip")
	// A key that reads the population, the real boundaries and the OSM
	// facilities: "health facility" can only mean those.
	var m struct {
		Secret string `json:"secret"`
	}
	out := mustCLI(t, "key", "mint", "--data", data, "--org", "demo", "--preset", "full", "--datasets", "population,lgas,states,osm_health,nightlights", "--json")
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	rkey := m.Secret

	lgas := loadCollection(t, filepath.Join(nga, "nga_lgas.geojson"))
	states := loadCollection(t, filepath.Join(nga, "nga_states.geojson"))
	pop := func(fs []qFrame) map[string]qFrame {
		out := map[string]qFrame{}
		for _, f := range fs {
			out[f.id] = f
		}
		return out
	}
	total := func(ids []string, byID map[string]qFrame, w map[string]float64) float64 {
		s := 0.0
		for _, id := range ids {
			f := 1.0
			if w != nil {
				f = w[id]
			}
			s += f * byID[id].num["population_2020"]
		}
		return s
	}

	t.Run("places", func(t *testing.T) {
		for _, c := range []struct {
			area  string
			props map[string]string
			fc    *geojson.FeatureCollection
		}{
			{`{"place":"Kano State"}`, map[string]string{"state_name": "Kano"}, states},
			{`{"place":"Federal Capital Territory"}`, map[string]string{"state_name": "Federal Capital Territory"}, states},
			{`{"place":"FCT"}`, map[string]string{"state_name": "Federal Capital Territory"}, states},
			{`{"place":"Dala","kind":"lga"}`, map[string]string{"lga_name": "Dala"}, lgas},
			{`{"place":"port harcourt"}`, map[string]string{"lga_name": "Port-Harcourt"}, lgas},
			{`{"place":"Nassarawa LGA"}`, map[string]string{"lga_name": "Nassarawa", "state_name": "Kano"}, lgas},
		} {
			ids := framesInZone(findFeature(t, c.fc, c.props))
			want := total(ids, pop(loadFrames(t, srv, rkey, ids)), nil)
			a, r := srv.askArea(t, rkey, c.area, "How many people live here?")
			if r.Status != 200 || a.Area == nil {
				t.Fatalf("%s: %d %+v", c.area, r.Status, r.Error)
			}
			if a.Area.FrameCount != len(ids) || !near(a.Result.Value, want, 1e-9) {
				t.Errorf("%s: %d frames, %v people; want %d frames, %.1f people (%s)", c.area, a.Area.FrameCount, deref(a.Result.Value), len(ids), want, a.Headline)
			}
			if len(ids) > 50 && a.FrameIDs != nil {
				t.Errorf("%s: frameIds listed for %d frames", c.area, len(ids))
			}
		}
		// A ward of the demo's approximate admin: its frames from the
		// data call over a box around Kano.
		box := srv.get(t, key, "/v1/frames?bbox=8.3,11.8,8.75,12.2")
		var col collection
		json.Unmarshal(box.Data, &col)
		var ids []string
		for _, f := range col.Features {
			ids = append(ids, f.ID)
		}
		// The ward of the frame at Kano's centre, whose frames must all lie
		// inside the box (none on its edge) for the count to be whole.
		frames := loadFrames(t, srv, key, ids)
		r0, c0 := grid.CellAt(12.2, 8.3)
		r1, c1 := grid.CellAt(11.8, 8.75)
		rc, cc := grid.CellAt(12.0, 8.52)
		centre := strconv.FormatUint(grid.CellID(rc, cc), 10)
		name := ""
		for _, f := range frames {
			if f.id == centre {
				name = f.cat["ward"]
			}
		}
		var ward []string
		for _, f := range frames {
			if f.cat["ward"] != name {
				continue
			}
			ward = append(ward, f.id)
			n, _ := strconv.ParseUint(f.id, 10, 64)
			r, c, _ := grid.RowCol(n)
			if r == r0 || r == r1 || c == c0 || c == c1 {
				t.Fatalf("ward %q reaches the edge of the box: widen it", name)
			}
		}
		if name == "" || len(ward) == 0 {
			t.Fatal("no ward at Kano's centre")
		}
		wq, _ := json.Marshal(map[string]string{"place": name})
		a, r := srv.askArea(t, key, string(wq), "total population")
		if r.Status != 200 || a.Area == nil || a.Area.FrameCount != len(ward) || !near(a.Result.Value, total(ward, pop(frames), nil), 1e-9) {
			t.Errorf("ward: %d %+v %+v; want %d frames", r.Status, r.Error, a.Area, len(ward))
		}
	})

	t.Run("ambiguous and unknown", func(t *testing.T) {
		_, r := srv.askArea(t, rkey, `{"place":"Obi"}`, "total population")
		if r.Status != 400 || r.Error.Code != "invalid" || !strings.Contains(r.Error.Message, "Benue") || !strings.Contains(r.Error.Message, "Nasarawa") {
			t.Errorf("Obi: %d %+v", r.Status, r.Error)
		}
		_, r = srv.askArea(t, rkey, `{"place":"Nasarawa"}`, "total population")
		if r.Status != 400 || r.Error.Code != "invalid" || !strings.Contains(r.Error.Message, "State") || !strings.Contains(r.Error.Message, "LGA") {
			t.Errorf("Nasarawa: %d %+v", r.Status, r.Error)
		}
		a, r := srv.askArea(t, rkey, `{"place":"Obi, Benue"}`, "total population")
		if r.Status != 200 || a.Area == nil || a.Area.Parent != "Benue" {
			t.Errorf("Obi, Benue: %d %+v %+v", r.Status, r.Error, a.Area)
		}
		_, r = srv.askArea(t, rkey, `{"place":"Atlantis"}`, "total population")
		if r.Status != 404 || r.Error.Code != "not_found" {
			t.Errorf("Atlantis: %d %+v", r.Status, r.Error)
		}
		_, r = srv.ask(t, rkey, `{"question":"How many people live in Dala?"}`)
		if r.Status != 400 || r.Error.Code != "invalid" {
			t.Errorf("no frameIds nor area: %d %+v", r.Status, r.Error)
		}
		_, r = srv.ask(t, rkey, `{"frameIds":["1"],"area":{"place":"Dala"}}`)
		if r.Status != 400 || r.Error.Code != "invalid" {
			t.Errorf("both: %d %+v", r.Status, r.Error)
		}
		_, r = srv.ask(t, rkey, `{"area":{"place":"Dala"},"colour":"red"}`)
		if r.Status != 400 || r.Error.Code != "invalid_body" {
			t.Errorf("unknown member: %d %+v", r.Status, r.Error)
		}
	})

	t.Run("ring across an LGA border", func(t *testing.T) {
		// Dala and Fagge meet near Kano's old city.
		lon, lat := 8.5167, 12.0167
		ring := circle(lon, lat, 3)
		w := fractions(ring)
		var ids []string
		for id := range w {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		byID := pop(loadFrames(t, srv, rkey, ids))
		a, r := srv.askArea(t, rkey, `{"around":[8.5167,12.0167],"radiusKm":3}`, "How many people live here?")
		if r.Status != 200 || a.Area == nil || !a.Area.Partial {
			t.Fatalf("ring: %d %+v %+v", r.Status, r.Error, a.Area)
		}
		if want := total(ids, byID, w); !near(a.Result.Value, want, 1e-3) {
			t.Errorf("ring: %v people, want %.1f", deref(a.Result.Value), want)
		}
		groups := map[string]float64{}
		for _, id := range ids {
			groups[byID[id].cat["lga"]] += w[id] * byID[id].num["population_2020"]
		}
		if len(groups) < 2 {
			t.Fatalf("the ring should cross an LGA border: %v", groups)
		}
		a, r = srv.askArea(t, rkey, `{"around":[8.5167,12.0167],"radiusKm":3}`, "population by LGA")
		checkGroups(t, "ring by LGA", a, r, groups, 1e-3)
	})

	t.Run("polygon with a hole", func(t *testing.T) {
		poly := orb.Polygon{
			{{8.40, 11.90}, {8.60, 11.92}, {8.58, 12.10}, {8.47, 12.04}, {8.42, 12.08}, {8.40, 11.90}},
			{{8.48, 11.97}, {8.50, 12.02}, {8.53, 11.98}, {8.48, 11.97}},
		}
		w := fractions(orb.Polygon{poly[0]})
		for id, f := range fractions(orb.Polygon{poly[1]}) {
			w[id] -= f
		}
		var ids []string
		for id, f := range w {
			if f > 1e-9 {
				ids = append(ids, id)
			}
		}
		want := total(ids, pop(loadFrames(t, srv, rkey, ids)), w)
		g, _ := json.Marshal(geojson.NewGeometry(poly))
		a, r := srv.askArea(t, rkey, `{"geometry":`+string(g)+`}`, "total population")
		if r.Status != 200 || !near(a.Result.Value, want, 1e-3) {
			t.Errorf("polygon: %d %+v %v people, want %.1f", r.Status, r.Error, deref(a.Result.Value), want)
		}
	})

	t.Run("state by LGA", func(t *testing.T) {
		ids := framesInZone(findFeature(t, states, map[string]string{"state_name": "Kano"}))
		byID := pop(loadFrames(t, srv, rkey, ids))
		groups := map[string]float64{}
		for _, id := range ids {
			if l := byID[id].cat["lga"]; l != "" {
				groups[l] += byID[id].num["population_2020"]
			}
		}
		a, r := srv.askArea(t, rkey, `{"place":"Kano","kind":"state"}`, "population by LGA")
		checkGroups(t, "Kano by LGA", a, r, groups, 1e-9)
	})

	t.Run("coverage", func(t *testing.T) {
		hf := loadCollection(t, filepath.Join(nga, "nga_health_facilities_osm.geojson"))
		var pts []orb.Point
		for _, f := range hf.Features {
			pts = append(pts, f.Geometry.(orb.Point))
		}
		ids := framesInZone(findFeature(t, lgas, map[string]string{"lga_name": "Gwarzo"}))
		byID := pop(loadFrames(t, srv, rkey, ids))
		for _, km := range []float64{2, 5, 10} {
			beyond := 0.0
			for _, id := range ids {
				n, _ := strconv.ParseUint(id, 10, 64)
				row, col, _ := grid.RowCol(n)
				b := grid.CellBox(row, col)
				cx, cy := (b.MinLon+b.MaxLon)/2, (b.MinLat+b.MaxLat)/2
				d := math.Inf(1)
				for _, p := range pts {
					d = math.Min(d, haversine(cx, cy, p[0], p[1]))
				}
				if d > km {
					beyond += byID[id].num["population_2020"]
				}
			}
			q := "How many people live more than " + strconv.FormatFloat(km, 'f', -1, 64) + " km from a health facility?"
			a, r := srv.askArea(t, rkey, `{"place":"Gwarzo"}`, q)
			if r.Status != 200 || !near(a.Result.Value, beyond, 1e-9) {
				t.Errorf("%s: %d %+v %v, want %.1f (%s)", q, r.Status, r.Error, deref(a.Result.Value), beyond, a.Headline)
			}
		}
	})

	t.Run("charges", func(t *testing.T) {
		mustCLI(t, "org", "credits", "demo", "--data", data, "--add", "5", "--note", "area questions")
		before := credits(t, data)
		a, r := srv.askArea(t, rkey, `{"place":"Dala","kind":"lga"}`, "average night-time light radiance")
		if r.Status != 200 || !slices.Contains(a.Charged, "nightlights") {
			t.Fatalf("nightlights over Dala: %d %+v charged %v: %s\n%s", r.Status, r.Error, a.Charged, a.Headline, r.Data)
		}
		if after := credits(t, data); after != before-1 {
			t.Errorf("credits %d -> %d; one per-query read costs 1", before, after)
		}
		a, _ = srv.askArea(t, rkey, `{"place":"Dala","kind":"lga"}`, "How many people live here?")
		if len(a.Charged) != 0 || credits(t, data) != before-1 {
			t.Errorf("a question not reading nightlights was charged %v", a.Charged)
		}
	})
	// The operator's CLI through the running server.
	out = mustCLI(t, "ask", "--data", data, "--place", "Dala", "--kind", "lga", "How many people live here?")
	if !strings.Contains(out, "Area: Dala (LGA, Kano)") {
		t.Errorf("ask: %s", out)
	}
}

func credits(t *testing.T, data string) int64 {
	t.Helper()
	var o struct {
		Credits int64 `json:"credits"`
	}
	out := mustCLI(t, "org", "show", "demo", "--data", data, "--json")
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("org show: %v\n%s", err, out)
	}
	return o.Credits
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// checkGroups compares a breakdown's rows with figures worked out here:
// the same groups, each figure within rel.
func checkGroups(t *testing.T, what string, a areaAnswer, r apiResponse, want map[string]float64, rel float64) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("%s: %d %+v", what, r.Status, r.Error)
	}
	got := map[string]*float64{}
	for _, g := range a.Result.Groups {
		got[g.Key] = g.Value
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d groups, want %d (%s)", what, len(got), len(want), a.Headline)
	}
	for k, v := range want {
		if !near(got[k], v, rel) {
			t.Errorf("%s: %s = %v, want %.2f", what, k, deref(got[k]), v)
		}
	}
}
