package ogc

import (
	"encoding/json"
	"frameindex/origin"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

// latticeGrid is 40 x 40 cells around Abuja with ragged rows and a hole;
// polygonGrid is the same cells imported as polygons (and so indexed
// without the lattice's row order).
func testGrids(t testing.TB) (lattice, polygons *index.Index) {
	t.Helper()
	var runs []grid.Run
	var frames []grid.Frame
	for r := 9700; r < 9740; r++ {
		c0, c1 := 22480+(r%3), 22519-(r%5)
		for c := c0; c <= c1; c++ {
			if r >= 9715 && r < 9720 && c >= 22495 && c < 22500 {
				continue
			}
			runs = append(runs, grid.Run{Row: int32(r), Col0: int32(c), Col1: int32(c)})
			b := grid.CellBox(r, c)
			ring := grid.Ring{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}
			frames = append(frames, grid.Frame{ID: grid.CellID(r, c), Geom: grid.MultiPolygon{{ring}}})
		}
	}
	return index.NewLattice(runs), index.NewPolygons(frames)
}

// bruteForce lists the frames of g touching b from start on: the index's
// own answer for the whole box (what GET /v1/frames returns), less the
// frames before start.
func bruteForce(g Grid, b grid.Box, start uint64) []uint64 {
	var out []uint64
	g.Box(b, math.MaxInt, func(sh grid.Shape) bool {
		if sh.ID >= start {
			out = append(out, sh.ID)
		}
		return true
	})
	return out
}

var world = grid.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}

func TestWalkFrames_MatchesBruteForce(t *testing.T) {
	lat, poly := testGrids(t)
	if !isLattice(lat) || isLattice(poly) {
		t.Fatal("isLattice cannot tell the grids apart")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	bounds := lat.Bounds()
	for i := range 300 {
		// Boxes on and off grid lines, inside and around the grid.
		pick := func(lo, hi float64) float64 {
			v := lo - 0.05 + rng.Float64()*(hi-lo+0.1)
			if rng.IntN(3) == 0 {
				v = math.Round(v*grid.CellsPerDegree) / grid.CellsPerDegree
			}
			return v
		}
		x0, x1 := pick(bounds.MinLon, bounds.MaxLon), pick(bounds.MinLon, bounds.MaxLon)
		y0, y1 := pick(bounds.MinLat, bounds.MaxLat), pick(bounds.MinLat, bounds.MaxLat)
		b := grid.Box{MinLon: min(x0, x1), MaxLon: max(x0, x1), MinLat: min(y0, y1), MaxLat: max(y0, y1)}
		all := bruteForce(lat, b, 0)
		start := uint64(0)
		if len(all) > 0 && i%2 == 1 {
			start = all[rng.IntN(len(all))] + uint64(rng.IntN(2))
		} else if i%5 == 0 {
			start = grid.CellID(9700+rng.IntN(40), 22470+rng.IntN(60))
		}
		for _, g := range []Grid{lat, poly} {
			want := bruteForce(g, b, start)
			var got []uint64
			walkFrames(g, isLattice(g), b, start, func(sh grid.Shape) bool {
				got = append(got, sh.ID)
				return true
			})
			if !slices.Equal(got, want) {
				t.Fatalf("box %+v from %d, lattice %v: walk gives %d frames, brute force %d\n%v\n%v", b, start, isLattice(g), len(got), len(want), got, want)
			}
			// The ranges of a dataset scan cover the same frames.
			ranges, test := recordRanges(g, isLattice(g), b, start)
			got = got[:0]
			for _, id := range bruteForce(g, world, 0) {
				in := slices.ContainsFunc(ranges, func(r bolt.IDRange) bool { return id >= r.From && id <= r.To })
				if sh, _ := g.Shape(id); in && (!test || touches(sh, b)) {
					got = append(got, id)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("box %+v from %d, lattice %v: ranges %v cover %d frames, want %d", b, start, isLattice(g), ranges, len(got), len(want))
			}
		}
	}
}

func TestWalkFrames_Stops(t *testing.T) {
	lat, _ := testGrids(t)
	n := 0
	walkFrames(lat, true, lat.Bounds(), 0, func(grid.Shape) bool { n++; return n < 7 })
	if n != 7 {
		t.Fatalf("walk went on after fn said stop: %d calls", n)
	}
	walkFrames(lat, true, lat.Bounds(), grid.MaxID+1, func(grid.Shape) bool { t.Fatal("a frame after the last id"); return false })
}

func TestParseItemsQuery(t *testing.T) {
	tests := []struct {
		name     string
		query    string
		features bool
		want     itemsQuery
		code     string // error code, "" for none
	}{
		{"defaults", "", false, itemsQuery{limit: 1000}, ""},
		{"bbox", "bbox=7.1,9,7.2,9.1", false, itemsQuery{hasBox: true, box: grid.Box{MinLon: 7.1, MinLat: 9, MaxLon: 7.2, MaxLat: 9.1}, limit: 1000}, ""},
		{"bbox with heights", "bbox=7.1,9,0,7.2,9.1,100", false, itemsQuery{hasBox: true, box: grid.Box{MinLon: 7.1, MinLat: 9, MaxLon: 7.2, MaxLat: 9.1}, limit: 1000}, ""},
		{"bbox beyond the world is clipped", "bbox=-200,-95,200,95", false, itemsQuery{hasBox: true, box: grid.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}, limit: 1000}, ""},
		{"bbox spaces", "bbox=7.1,+9,7.2,9.1", false, itemsQuery{hasBox: true, box: grid.Box{MinLon: 7.1, MinLat: 9, MaxLon: 7.2, MaxLat: 9.1}, limit: 1000}, ""},
		{"bbox three", "bbox=1,2,3", false, itemsQuery{}, codeInvalidBBox},
		{"bbox five", "bbox=1,2,3,4,5", false, itemsQuery{}, codeInvalidBBox},
		{"bbox not a number", "bbox=a,2,3,4", false, itemsQuery{}, codeInvalidBBox},
		{"bbox NaN", "bbox=NaN,2,3,4", false, itemsQuery{}, codeInvalidBBox},
		{"bbox Inf", "bbox=1,2,Inf,4", false, itemsQuery{}, codeInvalidBBox},
		{"bbox hex", "bbox=0x1p3,2,9,4", false, itemsQuery{}, codeInvalidBBox},
		{"bbox across the antimeridian", "bbox=170,0,-170,10", false, itemsQuery{}, codeInvalidBBox},
		{"bbox upside down", "bbox=1,10,2,0", false, itemsQuery{}, codeInvalidBBox},
		{"bbox twice", "bbox=1,2,3,4&bbox=1,2,3,4", false, itemsQuery{}, codeInvalidBBox},
		{"limit", "limit=10", false, itemsQuery{limit: 10}, ""},
		{"limit leading zeros", "limit=007", false, itemsQuery{limit: 7}, ""},
		{"limit lowered", "limit=20000", false, itemsQuery{limit: 10000}, ""},
		{"limit huge", "limit=99999999999999999999999", false, itemsQuery{limit: 10000}, ""},
		{"limit zero", "limit=0", false, itemsQuery{}, codeInvalid},
		{"limit negative", "limit=-1", false, itemsQuery{}, codeInvalid},
		{"limit empty", "limit=", false, itemsQuery{}, codeInvalid},
		{"limit decimal", "limit=1.5", false, itemsQuery{}, codeInvalid},
		{"cursor", "cursor=433102007", false, itemsQuery{limit: 1000, hasCursor: true, after: 433102007}, ""},
		{"cursor bad", "cursor=abc", false, itemsQuery{}, codeInvalid},
		{"cursor too big", "cursor=99999999999999999999", false, itemsQuery{}, codeInvalid},
		{"feature cursor", "cursor=433102007-3", true, itemsQuery{limit: 1000, hasCursor: true, from: bolt.FeatureKey{Frame: 433102007, Seq: 3}}, ""},
		{"feature cursor without seq", "cursor=433102007", true, itemsQuery{}, codeInvalid},
		{"unknown parameters are ignored", "f=json&foo=bar", false, itemsQuery{limit: 1000}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := parseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseItemsQuery(q, tc.features)
			if tc.code != "" {
				var e *Error
				if !asError(err, &e) || e.Code != tc.code || e.Status != http.StatusBadRequest {
					t.Fatalf("error %v, want code %s", err, tc.code)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := parseQuery("a=%zz"); err == nil {
		t.Fatal("bad URL encoding accepted")
	}
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}

func TestTileCoords(t *testing.T) {
	tests := []struct {
		z, y, x string
		ok      bool
		status  int
	}{
		{"10", "486", "533", true, 0},
		{"0", "0", "0", true, 0},
		{"2", "4", "0", false, 404},
		{"2", "0", "4", false, 404},
		{"25", "0", "0", false, 404},
		{"a", "0", "0", false, 400},
		{"10", "-1", "0", false, 400},
		{"10", "1.5", "0", false, 400},
	}
	for _, tc := range tests {
		_, _, _, err := tileCoords(tc.z, tc.y, tc.x)
		var e *Error
		if tc.ok != (err == nil) || !tc.ok && (!asError(err, &e) || e.Status != tc.status) {
			t.Errorf("%s/%s/%s: %v", tc.z, tc.y, tc.x, err)
		}
	}
}

func TestAttrLayout(t *testing.T) {
	d := &state.Dataset{Attributes: []state.Attribute{
		{Name: "population_2020", Type: state.TypeNumber}, {Name: "state", Type: state.TypeCategory}, {Name: "density", Type: state.TypeNumber}}}
	l := newAttrLayout(d)
	tests := []struct{ attrs, want string }{
		{`{"population_2020":1200,"state":"Kano","density":1.5}`, `"population_2020":1200.0,"state":"Kano","density":1.5`},
		{`{"state":"Kano"}`, `"population_2020":null,"state":"Kano","density":null`},
		{`{"density":-3,"population_2020":1e3}`, `"population_2020":1e3,"state":null,"density":-3.0`},
		{``, `"population_2020":null,"state":null,"density":null`},
		{`{"st\u0061te":"Lagos"}`, `"population_2020":null,"state":"Lagos","density":null`},
	}
	for _, tc := range tests {
		got := string(l.appendAttrs(nil, []byte(tc.attrs)))
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.attrs, got, tc.want)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte("{"+got+"}"), &v); err != nil {
			t.Errorf("%s: not JSON: %v", got, err)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"", false}, {"gzip", true}, {"deflate, gzip;q=1.0", true}, {"gzip;q=0", false}, {"GZIP", true},
		{"*", true}, {"br", false}, {"gzip; q=0.000", false}, {"gzip;q=0.5", true},
	} {
		r, _ := http.NewRequest("GET", "/", nil)
		if tc.header != "" {
			r.Header.Set("Accept-Encoding", tc.header)
		}
		if got := acceptsGzip(r); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		vars          map[string]string
		ok            bool
	}{
		{"/collections", "/collections", nil, true},
		{"/collections", "/collections/", nil, false},
		{"/collections/{collectionId}", "/collections/population", map[string]string{"collectionId": "population"}, true},
		{"/collections/{collectionId}", "/collections/", nil, false},
		{"/collections/{collectionId}/items/{featureId}", "/collections/a/items/1-2", map[string]string{"collectionId": "a", "featureId": "1-2"}, true},
		{"/collections/{collectionId}/items", "/collections/a/items/1", nil, false},
	}
	for _, tc := range tests {
		vars, ok := match(tc.pattern, tc.path)
		if ok != tc.ok || ok && !reflect.DeepEqual(vars, tc.vars) {
			t.Errorf("%s ~ %s: %v %v", tc.pattern, tc.path, vars, ok)
		}
	}
	// Every pattern handed to the mounting server routes to its handler.
	s := New(Config{})
	for _, p := range s.Patterns() {
		path := strings.TrimPrefix(p, "GET ")
		path = strings.NewReplacer("{$}", "", "{collectionId}", "c", "{featureId}", "1", "{tileMatrixSetId}", "WebMercatorQuad",
			"{tileMatrix}", "1", "{tileRow}", "0", "{tileCol}", "0").Replace(path)
		u, _ := url.Parse(path)
		rest := strings.TrimPrefix(u.Path, Prefix)
		found := rest == "" || rest == "/"
		for _, rt := range s.routes[1:] {
			if _, ok := match(rt.path, rest); ok {
				found = true
			}
		}
		if !found {
			t.Errorf("pattern %s routes nowhere", p)
		}
	}
}

// TestLinks_ForgedHost: the links of an answer name this server as its
// origin says, whatever Host and X-Forwarded-Host the request carries.
func TestLinks_ForgedHost(t *testing.T) {
	pub, _ := origin.New("https://maps.example.gov.ng", "127.0.0.1:8080")
	for _, tc := range []struct {
		base *origin.Base
		want string
	}{
		{nil, "http://localhost/ogc/conformance"},
		{pub, "https://maps.example.gov.ng/ogc/conformance"},
	} {
		s := New(Config{Origin: tc.base})
		r := httptest.NewRequest(http.MethodGet, "http://evil.example/ogc", nil)
		r.Header.Set("X-Forwarded-Host", "evil.example")
		r.Header.Set("X-Forwarded-Proto", "https")
		w := httptest.NewRecorder()
		if err := s.ServeKeyed(w, r, state.Key{ID: "k1", OrgID: "acme"}, "req-1"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(w.Body.String(), tc.want) || strings.Contains(w.Body.String(), "evil.example") {
			t.Errorf("%v: %d %.300s", tc.base.Public(), w.Code, w.Body)
		}
	}
}
