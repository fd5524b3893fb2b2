package ogc_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"frameindex/grid"
	"frameindex/index"
)

func TestServer_Landing(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/ogc", "/ogc/"} {
		r := f.get(t, bearer(secretAcmeFull), path)
		var lp struct {
			Links []struct{ Href, Rel, Type string }
		}
		r.json(t, &lp)
		rels := map[string]string{}
		for _, l := range lp.Links {
			rels[l.Rel] = l.Href + " " + l.Type
		}
		if r.status != 200 || rels["service-desc"] != "http://frames.example/ogc/api application/vnd.oai.openapi+json;version=3.0" ||
			rels["data"] != "http://frames.example/ogc/collections application/json" || rels["conformance"] == "" {
			t.Fatalf("%s: %d %v", path, r.status, rels)
		}
		if r.header.Get("X-Request-Id") == "" {
			t.Fatal("no request id: the call did not go through the middleware")
		}
	}
	r := f.get(t, bearer(secretAcmeFull), "/ogc/conformance")
	var cc struct{ ConformsTo []string }
	r.json(t, &cc)
	for _, want := range []string{"ogcapi-features-1/1.0/conf/core", "ogcapi-features-1/1.0/conf/geojson", "ogcapi-features-1/1.0/conf/oas30", "ogcapi-tiles-1/1.0/conf/mvt"} {
		if !slices.ContainsFunc(cc.ConformsTo, func(c string) bool { return strings.HasSuffix(c, want) }) {
			t.Errorf("conformance lacks %s", want)
		}
	}
	r = f.get(t, bearer(secretAcmeFull), "/ogc/api")
	if r.status != 200 || r.header.Get("Content-Type") != "application/vnd.oai.openapi+json;version=3.0" || !strings.Contains(string(r.body), `"openapi": "3.0`) {
		t.Fatalf("api: %d %s", r.status, r.header.Get("Content-Type"))
	}
}

type collectionsDoc struct {
	Collections []struct {
		ID     string `json:"id"`
		Title  string `json:"title"`
		Extent struct {
			Spatial struct {
				BBox [][]float64 `json:"bbox"`
			} `json:"spatial"`
		} `json:"extent"`
		Links []struct{ Href, Rel, Type string }
	} `json:"collections"`
}

func (c collectionsDoc) ids() []string {
	var out []string
	for _, x := range c.Collections {
		out = append(out, x.ID)
	}
	return out
}

func TestServer_Collections(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, secret string
		want         []string
	}{
		{"own, licensed and features", secretAcmeFull, []string{"frames", "admin", "lights", "population", "roads-features"}},
		{"without feature.read", secretAcmeAnalyst, []string{"frames", "admin", "lights", "population"}},
		{"narrowed", secretAcmeNarrow, []string{"frames", "population"}},
		{"another organisation", secretRivalFull, []string{"frames", "lights", "roads-features", "secrets"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.get(t, bearer(tc.secret), "/ogc/collections")
			var doc collectionsDoc
			r.json(t, &doc)
			if r.status != 200 || !slices.Equal(doc.ids(), tc.want) {
				t.Fatalf("%d: %v, want %v", r.status, doc.ids(), tc.want)
			}
		})
	}
	r := f.get(t, bearer(secretAcmeFull), "/ogc/collections/population")
	var c struct {
		ID     string
		Extent struct{ Spatial struct{ BBox [][]float64 } }
		Links  []struct{ Href, Rel, Type string }
	}
	r.json(t, &c)
	want := grid.CellBox(R0, C0).Union(grid.CellBox(9719, C1))
	if bb := c.Extent.Spatial.BBox; len(bb) != 1 || math.Abs(bb[0][0]-want.MinLon) > 1e-7 || math.Abs(bb[0][1]-want.MinLat) > 1e-7 ||
		math.Abs(bb[0][2]-want.MaxLon) > 1e-7 || math.Abs(bb[0][3]-want.MaxLat) > 1e-7 {
		t.Fatalf("population extent %v, want %+v", bb, want)
	}
	rels := map[string]string{}
	for _, l := range c.Links {
		rels[l.Rel] = l.Type
	}
	for rel, typ := range map[string]string{"items": "application/geo+json", "describedby": "application/schema+json", "describedBy": "application/schema+json",
		"http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector": "application/json"} {
		if rels[rel] != typ {
			t.Errorf("link %s: %q, want %q", rel, rels[rel], typ)
		}
	}

	t.Run("refusals", func(t *testing.T) {
		f.get(t, bearer(secretAcmeFull), "/ogc/collections/secrets").exception(t, 404, "not_found")
		f.get(t, bearer(secretAcmeFull), "/ogc/collections/secrets/items").exception(t, 404, "not_found")
		f.get(t, bearer(secretAcmeFull), "/ogc/collections/nope").exception(t, 404, "not_found")
		f.get(t, bearer(secretAcmeNarrow), "/ogc/collections/admin").exception(t, 404, "not_found")
		desc := f.get(t, bearer(secretAcmeAnalyst), "/ogc/collections/roads-features").exception(t, 403, "insufficient_scope")
		if !strings.Contains(desc, "feature.read") {
			t.Fatalf("403 does not name the capability: %s", desc)
		}
		// A private dataset's values never reach another organisation.
		for _, p := range []string{"/ogc/collections", "/ogc/collections/frames/items?limit=10000", "/ogc/collections/population/items"} {
			if r := f.get(t, bearer(secretAcmeFull), p); strings.Contains(string(r.body), "RIVAL-ONLY") || strings.Contains(string(r.body), "secrets") {
				t.Fatalf("%s shows rival's private dataset", p)
			}
		}
	})
}

func TestServer_Items(t *testing.T) {
	f := newFixture(t)
	auth := bearer(secretAcmeFull)

	t.Run("frames: paging a box yields the index's frames", func(t *testing.T) {
		boxes := []string{"7.3512,9.0234,7.4123,9.0871", "7.35,9.0,7.45,9.1", "7.38,9.05,7.381,9.051", "0,0,1,1"}
		for _, bb := range boxes {
			var b grid.Box
			fmt.Sscanf(strings.ReplaceAll(bb, ",", " "), "%g %g %g %g", &b.MinLon, &b.MinLat, &b.MaxLon, &b.MaxLat)
			var want []string
			f.grid.Box(b, math.MaxInt, func(sh grid.Shape) bool {
				want = append(want, strconv.FormatUint(sh.ID, 10))
				return true
			})
			for _, limit := range []int{7, 100, 10000} {
				got, pages := f.pages(t, auth, fmt.Sprintf("/ogc/collections/frames/items?bbox=%s&limit=%d", bb, limit))
				if !slices.Equal(got, want) {
					t.Fatalf("bbox %s limit %d: %d frames, want %d", bb, limit, len(got), len(want))
				}
				if wantPages := max(1, (len(want)+limit-1)/limit); pages != wantPages {
					t.Fatalf("bbox %s limit %d: %d pages, want %d", bb, limit, pages, wantPages)
				}
			}
		}
	})
	t.Run("frames: the whole grid with numberMatched", func(t *testing.T) {
		r := f.get(t, auth, "/ogc/collections/frames/items?limit=50")
		var fc featureCollection
		r.json(t, &fc)
		if fc.NumberMatched == nil || *fc.NumberMatched != f.grid.Len() || fc.NumberReturned != 50 || r.header.Get("Content-Type") != "application/geo+json" {
			t.Fatalf("numberMatched %v, returned %d, type %s", fc.NumberMatched, fc.NumberReturned, r.header.Get("Content-Type"))
		}
		got, _ := f.pages(t, auth, "/ogc/collections/frames/items?limit=333")
		if len(got) != f.grid.Len() || !slices.IsSortedFunc(got, func(a, b string) int { return cmpID(a, b) }) {
			t.Fatalf("%d frames, want %d in ascending order", len(got), f.grid.Len())
		}
		// With a box, numberMatched is left out (counting would cost a walk).
		r = f.get(t, auth, "/ogc/collections/frames/items?bbox=7.35,9.0,7.45,9.1")
		fc = featureCollection{}
		r.json(t, &fc)
		if fc.NumberMatched != nil {
			t.Fatal("numberMatched with a bbox")
		}
	})
	t.Run("a page is stable and the same at any depth", func(t *testing.T) {
		a := f.get(t, auth, "/ogc/collections/population/items?limit=5&cursor="+strconv.FormatUint(id(9710, 22490), 10))
		b := f.get(t, auth, "/ogc/collections/population/items?limit=5&cursor="+strconv.FormatUint(id(9710, 22490), 10))
		var fa, fb featureCollection
		a.json(t, &fa)
		b.json(t, &fb)
		want := []string{fmt.Sprint(id(9710, 22491)), fmt.Sprint(id(9710, 22492))}
		if !slices.Equal(fa.ids(), fb.ids()) || !slices.Equal(fa.ids()[:2], want) {
			t.Fatalf("after a cursor: %v / %v", fa.ids(), fb.ids())
		}
		next := fa.link("next")
		if !strings.Contains(next, "cursor="+fa.ids()[4]) || !strings.Contains(next, "limit=5") {
			t.Fatalf("next link %s", next)
		}
	})
	t.Run("dataset: frames with attributes, numbers as numbers", func(t *testing.T) {
		got, _ := f.pages(t, auth, "/ogc/collections/population/items?limit=97")
		n := 0
		for r := R0; r < 9720; r++ {
			for c := C0; c <= C1; c++ {
				if _, ok := f.grid.Shape(id(r, c)); ok {
					n++
				}
			}
		}
		if len(got) != n {
			t.Fatalf("%d items, want %d (frames with a population)", len(got), n)
		}
		r := f.get(t, auth, "/ogc/collections/population/items?limit=3")
		body := string(r.body)
		for _, want := range []string{
			fmt.Sprintf(`"id":%d,"geometry":{"type":"Polygon"`, id(R0, C0)),
			fmt.Sprintf(`"properties":{"frame_id":%d,"population_2020":35.5}`, id(R0, C0)),
			fmt.Sprintf(`"properties":{"frame_id":%d,"population_2020":1.0}`, id(R0, C0+1)),
		} {
			if !strings.Contains(body, want) {
				t.Fatalf("page lacks %s:\n%s", want, body)
			}
		}
		var fc featureCollection
		r.json(t, &fc)
		if fc.NumberMatched == nil || *fc.NumberMatched != n {
			t.Fatalf("numberMatched %v, want %d", fc.NumberMatched, n)
		}
		r = f.get(t, auth, "/ogc/collections/admin/items?limit=2&bbox=7.47,9.0,7.5,9.1")
		fc = featureCollection{}
		r.json(t, &fc)
		if len(fc.Features) != 2 || fc.Features[0].Properties["state"] != "Niger" {
			t.Fatalf("admin: %s", r.body)
		}
	})
	t.Run("dataset: a box", func(t *testing.T) {
		b := grid.Box{MinLon: 7.36, MinLat: 9.02, MaxLon: 7.41, MaxLat: 9.12}
		var want []string
		f.grid.Box(b, math.MaxInt, func(sh grid.Shape) bool {
			if row, _, _ := grid.RowCol(sh.ID); row < 9720 {
				want = append(want, strconv.FormatUint(sh.ID, 10))
			}
			return true
		})
		got, _ := f.pages(t, auth, "/ogc/collections/population/items?limit=10&bbox=7.36,9.02,7.41,9.12")
		if !slices.Equal(got, want) {
			t.Fatalf("%d items, want %d", len(got), len(want))
		}
	})
	t.Run("features", func(t *testing.T) {
		// roads is licensed per query at 2 credits a page.
		if _, _, err := f.store.AddCredits("acme", 100, "test", testNow); err != nil {
			t.Fatal(err)
		}
		got, pages := f.pages(t, auth, "/ogc/collections/roads-features/items?limit=2")
		want := []string{fmt.Sprintf("%d-0", id(9705, 22485)), fmt.Sprintf("%d-1", id(9705, 22485)), fmt.Sprintf("%d-2", id(9705, 22485)), fmt.Sprintf("%d-0", id(9725, 22500))}
		if !slices.Equal(got, want) || pages != 2 {
			t.Fatalf("%v in %d pages, want %v", got, pages, want)
		}
		r := f.get(t, auth, "/ogc/collections/roads-features/items?limit=1")
		for _, w := range []string{`"geometry":{"type":"Point"`, fmt.Sprintf(`"frame_id":%d,"source_id":"road-0","n":0,"kind":"junction"`, id(9705, 22485))} {
			if !strings.Contains(string(r.body), w) {
				t.Fatalf("feature lacks %s: %s", w, r.body)
			}
		}
		got, _ = f.pages(t, auth, "/ogc/collections/roads-features/items?bbox=7.49,8.95,7.52,8.97")
		if !slices.Equal(got, want[3:]) {
			t.Fatalf("features in a box: %v", got)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		for _, q := range []string{"bbox=1,2,3", "bbox=3,0,1,1", "bbox=a,b,c,d"} {
			f.get(t, auth, "/ogc/collections/frames/items?"+q).exception(t, 400, "invalid_bbox")
		}
		for _, q := range []string{"limit=0", "limit=x", "cursor=x", "limit=1&limit=2"} {
			f.get(t, auth, "/ogc/collections/frames/items?"+q).exception(t, 400, "invalid")
		}
		f.get(t, auth, "/ogc/collections/roads-features/items?cursor=12").exception(t, 400, "invalid")
		r := f.get(t, auth, "/ogc/collections/frames/items?limit=99999")
		var fc featureCollection
		r.json(t, &fc)
		if r.status != 200 || fc.NumberReturned != f.grid.Len() {
			t.Fatalf("limit above 10,000: %d, %d items", r.status, fc.NumberReturned)
		}
	})
}

// cmpID compares decimal ids numerically.
func cmpID(a, b string) int {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func TestServer_Item(t *testing.T) {
	f := newFixture(t)
	auth := bearer(secretAcmeFull)
	tests := []struct {
		name, path string
		status     int
		contains   string
	}{
		{"a frame", fmt.Sprintf("/ogc/collections/frames/items/%d", id(9701, 22481)), 200, fmt.Sprintf(`"properties":{"frame_id":%d}`, id(9701, 22481))},
		{"a frame of a dataset", fmt.Sprintf("/ogc/collections/population/items/%d", id(9701, 22481)), 200, `"population_2020":101.0`},
		{"a feature", fmt.Sprintf("/ogc/collections/roads-features/items/%d-1", id(9705, 22485)), 200, `"n":1`},
		{"a frame in the hole", fmt.Sprintf("/ogc/collections/frames/items/%d", id(9713, 22493)), 404, ""},
		{"a frame the dataset records nothing on", fmt.Sprintf("/ogc/collections/population/items/%d", id(9725, 22485)), 404, ""},
		{"not an id", "/ogc/collections/frames/items/abc", 404, ""},
		{"a feature past the last", fmt.Sprintf("/ogc/collections/roads-features/items/%d-3", id(9705, 22485)), 404, ""},
		{"a feature id without its sequence", fmt.Sprintf("/ogc/collections/roads-features/items/%d", id(9705, 22485)), 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.get(t, auth, tc.path)
			if tc.status != 200 {
				r.exception(t, tc.status, "not_found")
				return
			}
			if r.status != 200 || !strings.Contains(string(r.body), tc.contains) || !strings.Contains(string(r.body), `"rel":"collection"`) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
}

// ledger returns acme's charges: "dataset credits requestId" lines.
func ledger(t *testing.T, f *fixture) []string {
	t.Helper()
	es, err := f.store.Ledger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Kind == "charge" {
			out = append(out, fmt.Sprintf("%s %d %s", e.Dataset, e.Credits, e.RequestID))
		}
	}
	return out
}

func TestServer_PerQueryCharges(t *testing.T) {
	f := newFixture(t)
	auth := bearer(secretAcmeFull)
	// lights: 1 credit a page that carries its values; acme has 5.
	r := f.get(t, auth, "/ogc/collections/lights/items?limit=4")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if got := ledger(t, f); len(got) != 1 || got[0] != "lights -1 "+r.header.Get("X-Request-Id") {
		t.Fatalf("ledger %v after one page (request %s)", got, r.header.Get("X-Request-Id"))
	}
	// The second and last page: one more credit; a box it records nothing
	// in costs nothing.
	var fc featureCollection
	r.json(t, &fc)
	f.get(t, auth, strings.TrimPrefix(fc.link("next"), "http://frames.example"))
	f.get(t, auth, "/ogc/collections/lights/items?bbox=7.45,9.0,7.5,9.02")
	if got := ledger(t, f); len(got) != 2 {
		t.Fatalf("ledger %v", got)
	}
	// roads: 2 credits a page; 3 left: one page, then refused.
	if r := f.get(t, auth, "/ogc/collections/roads-features/items"); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	desc := f.get(t, auth, "/ogc/collections/roads-features/items").exception(t, 402, "insufficient_credits")
	if !strings.Contains(desc, "roads") || !strings.Contains(desc, "nothing was charged") {
		t.Fatalf("402 says %q", desc)
	}
	// An item takes the last credit; then items and tiles are refused.
	if r := f.get(t, auth, fmt.Sprintf("/ogc/collections/lights/items/%d", id(9701, C0+3))); r.status != 200 {
		t.Fatalf("item: %d %s", r.status, r.body)
	}
	f.get(t, auth, fmt.Sprintf("/ogc/collections/lights/items/%d", id(9701, C0+3))).exception(t, 402, "insufficient_credits")
	f.get(t, auth, "/ogc/collections/lights/tiles/WebMercatorQuad/12/1943/2131").exception(t, 402, "insufficient_credits")
	// Everything else keeps working.
	for _, p := range []string{"/ogc/collections/population/items?limit=5", "/ogc/collections/frames/items?limit=5", "/ogc/collections", "/ogc/collections/lights"} {
		if r := f.get(t, auth, p); r.status != 200 {
			t.Fatalf("%s: %d after the credits ran out", p, r.status)
		}
	}
	if got := ledger(t, f); len(got) != 4 {
		t.Fatalf("ledger %v, want 4 charges (lights twice, roads, the item)", got)
	}
	if org, err := f.store.Org("acme"); err != nil || org.Credits != 0 {
		t.Fatalf("balance %d, %v", org.Credits, err)
	}
}

func TestServer_Authentication(t *testing.T) {
	f := newFixture(t)
	basic := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	tests := []struct {
		name, auth, path string
		status           int
		code             string
	}{
		{"bearer", bearer(secretAcmeFull), "/ogc/collections", 200, ""},
		{"basic, key as password", basic("qgis", secretAcmeFull), "/ogc/collections", 200, ""},
		{"basic, empty user name", basic("", secretAcmeFull), "/ogc/collections", 200, ""},
		{"basic, key as user name", basic(secretAcmeFull, ""), "/ogc/collections", 200, ""},
		{"no key", "", "/ogc/collections", 401, "unauthorized"},
		{"basic, wrong key", basic("qgis", "svc_sk_nosuchkey"), "/ogc/collections", 401, "invalid_key"},
		{"basic, no key", basic("qgis", ""), "/ogc/collections", 401, "invalid_key"},
		{"basic, not base64", "Basic !!!", "/ogc/collections", 401, "invalid_key"},
		{"basic, no colon", "Basic " + base64.StdEncoding.EncodeToString([]byte(secretAcmeFull)), "/ogc/collections", 401, "invalid_key"},
		{"no frame.read", bearer(secretAcmeNoFrames), "/ogc/collections", 403, "insufficient_scope"},
		{"unknown path, no key", "", "/ogc/nothing", 404, "not_found"},
		{"unknown collection path", "", "/ogc/collections/a/b/c", 404, "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.get(t, tc.auth, tc.path)
			if tc.status == 200 {
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			r.exception(t, tc.status, tc.code)
			if tc.status == 401 {
				if ch := strings.Join(r.header.Values("WWW-Authenticate"), ", "); !strings.Contains(ch, "Bearer") || !strings.Contains(ch, "Basic") {
					t.Fatalf("challenge %q", ch)
				}
			}
		})
	}
	// Basic is read under /ogc only.
	req := httptest.NewRequest(http.MethodGet, "http://frames.example/v1/frames/at?lat=9.07&lon=7.39", nil)
	req.Header.Set("Authorization", basic("qgis", secretAcmeFull))
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	if w.Code != 401 || !strings.Contains(w.Body.String(), `"error":{"code":"invalid_key"`) {
		t.Fatalf("/v1 with Basic: %d %s", w.Code, w.Body)
	}
	// Another method is 405 with Allow, as an OGC exception.
	req = httptest.NewRequest(http.MethodPost, "http://frames.example/ogc/collections", nil)
	w = httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	r := response{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	r.exception(t, 405, "method_not_allowed")
	if r.header.Get("Allow") == "" {
		t.Fatal("405 without Allow")
	}
}

func TestServer_SchemaAndQueryables(t *testing.T) {
	f := newFixture(t)
	auth := bearer(secretAcmeFull)
	var schema struct {
		Properties struct {
			Properties struct {
				Properties map[string]struct{ Type, Title string }
			}
		}
	}
	r := f.get(t, auth, "/ogc/collections/population/schema")
	r.json(t, &schema)
	ps := schema.Properties.Properties.Properties
	if r.header.Get("Content-Type") != "application/schema+json" || ps["frame_id"].Type != "integer" || ps["population_2020"].Type != "number" ||
		ps["population_2020"].Title != "Estimated population" {
		t.Fatalf("schema %s", r.body)
	}
	var q struct {
		Properties map[string]struct{ Type string }
	}
	r = f.get(t, auth, "/ogc/collections/admin/queryables")
	r.json(t, &q)
	if q.Properties["state"].Type != "string" || q.Properties["frame_id"].Type != "integer" {
		t.Fatalf("queryables %s", r.body)
	}
}

func TestServer_HEAD(t *testing.T) {
	f := newFixture(t)
	req := httptest.NewRequest(http.MethodHead, "http://frames.example/ogc/collections", nil)
	req.Header.Set("Authorization", bearer(secretAcmeFull))
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("HEAD: %d", w.Code)
	}
}

// The same collections over the grid imported as polygons (no row order):
// pages still follow each other, in ascending id, and match the index.
func TestServer_PolygonGrid(t *testing.T) {
	f := newFixture(t)
	var frames []grid.Frame
	f.grid.Box(f.grid.Bounds(), math.MaxInt, func(sh grid.Shape) bool {
		b := sh.Box
		frames = append(frames, grid.Frame{ID: sh.ID, Geom: grid.MultiPolygon{{{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}}}})
		return true
	})
	p := newServer(f.store, index.NewPolygons(frames))
	auth := bearer(secretAcmeFull)
	for _, tc := range []struct{ path, bbox string }{
		{"/ogc/collections/frames/items", "7.3612,9.0234,7.4123,9.0871"},
		{"/ogc/collections/population/items", "7.3612,9.0234,7.4123,9.0871"},
		{"/ogc/collections/frames/items", ""},
	} {
		target := tc.path + "?limit=13"
		if tc.bbox != "" {
			target += "&bbox=" + tc.bbox
		}
		got, _ := p.pages(t, auth, target)
		want, _ := f.pages(t, auth, target)
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Fatalf("%s: %d items on polygons, %d on the lattice", target, len(got), len(want))
		}
	}
	layers, r := p.tile(t, auth, "/ogc/collections/population/tiles/WebMercatorQuad/7/60/66", false)
	if r.status != 200 || len(layers[0].Features) == 0 || layers[0].Features[0].Properties["size"] != nil {
		t.Fatalf("a zoom-7 tile of a polygon grid: %d, want frames unmerged", r.status)
	}
}

// Requests in parallel share the extent cache and the buffer pools safely
// (run with -race).
func TestServer_Parallel(t *testing.T) {
	f := newFixture(t)
	f.store.AddCredits("acme", 1000, "test", testNow)
	paths := []string{"/ogc/collections", "/ogc/collections/population/items?limit=50", "/ogc/collections/admin/items",
		"/ogc/collections/population/tiles/WebMercatorQuad/10/486/533", "/ogc/collections/lights/items", "/ogc/collections/roads-features/items"}
	want := make([][]byte, len(paths))
	for i, p := range paths {
		want[i] = f.get(t, bearer(secretAcmeFull), p).body
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				k := (g + i) % len(paths)
				r := f.get(t, bearer(secretAcmeFull), paths[k])
				if r.status != 200 || !strings.Contains(paths[k], "tiles") && !bytes.Equal(stripTime(r.body), stripTime(want[k])) {
					t.Errorf("%s: %d, a different answer in parallel", paths[k], r.status)
					return
				}
			}
		}()
	}
	wg.Wait()
}

var timeStamp = regexp.MustCompile(`"timeStamp":"[^"]*"`)

func stripTime(b []byte) []byte { return timeStamp.ReplaceAll(b, nil) }
