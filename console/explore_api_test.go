package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/handlers"
	"frameindex/limiter"
	"frameindex/ogc"
	"frameindex/state"
)

// rect is a lattice grid of rows r0..r1 and columns c0..c1, a stand-in
// for *index.Index.
type rect struct{ r0, r1, c0, c1 int }

func (g rect) has(row, col int) bool { return row >= g.r0 && row <= g.r1 && col >= g.c0 && col <= g.c1 }

func (g rect) At(lat, lon float64) (grid.Shape, bool) {
	row, col := grid.CellAt(lat, lon)
	if !g.has(row, col) {
		return grid.Shape{}, false
	}
	return grid.LatticeShape(grid.CellID(row, col)), true
}

func (g rect) Shape(id uint64) (grid.Shape, bool) {
	row, col, ok := grid.RowCol(id)
	if !ok || !g.has(row, col) {
		return grid.Shape{}, false
	}
	return grid.LatticeShape(id), true
}

func (g rect) Box(b grid.Box, limit int, fn func(grid.Shape) bool) bool {
	r0, r1 := grid.RowSpan(b.MinLat, b.MaxLat)
	c0, c1 := grid.ColSpan(b.MinLon, b.MaxLon)
	n := 0
	for row := max(r0, g.r0); row <= min(r1, g.r1); row++ {
		for col := max(c0, g.c0); col <= min(c1, g.c1); col++ {
			if n == limit {
				return true
			}
			if !fn(grid.LatticeShape(grid.CellID(row, col))) {
				return false
			}
			n++
		}
	}
	return false
}

func (g rect) Bounds() grid.Box {
	return grid.Box{MinLon: grid.Lon(g.c0), MaxLon: grid.Lon(g.c1 + 1), MinLat: grid.Lat(g.r1 + 1), MaxLat: grid.Lat(g.r0)}
}

func (g rect) Len() int { return (g.r1 - g.r0 + 1) * (g.c1 - g.c0 + 1) }

// TestExplore_RealAPI: the map's calls through the real API handlers:
// answers, the spec's errors for bad input, and the key's rate limit.
func TestExplore_RealAPI(t *testing.T) {
	f := newFixture(t, false, Config{})
	r0, c0 := grid.CellAt(9.09, 7.41)
	g := rect{r0: r0, r1: r0 + 19, c0: c0, c1: c0 + 19}
	var recs []bolt.FrameRecord
	for i := 0; i < 4; i++ {
		recs = append(recs, bolt.FrameRecord{Frame: grid.CellID(r0, c0+i), Attrs: []byte(fmt.Sprintf(`{"people":%d}`, 10*i+5))})
	}
	if _, err := f.store.ImportDataset(state.Dataset{ID: "pop", Name: "Population", Owner: "acme",
		Attributes: []state.Attribute{{Name: "people", Label: "People", Type: state.TypeNumber, Aggregation: "sum"}}}, recs, fixtureStart); err != nil {
		t.Fatal(err)
	}
	lim := limiter.Config{Key: limiter.Limit{PerMinute: 1, Burst: 14}, Org: limiter.Limit{PerMinute: 600, Burst: 900},
		Insight: limiter.Limit{PerMinute: 20, Burst: 30}, Invalid: limiter.Limit{PerMinute: 5, Burst: 5}}
	api := handlers.New(handlers.Config{
		Frames:  func() handlers.FrameIndex { return g },
		Now:     f.clock.Now,
		Limiter: limiter.New(lim, limiter.NewMemory(lim), f.clock.Now),
		Data:    f.store,
		OGC:     ogc.New(ogc.Config{Store: f.store, Grid: func() ogc.Grid { return g }, Now: f.clock.Now}),
	})
	f.con.Wrap(api)
	c := f.signedIn("mo")
	c.openExplore()
	csrf := c.csrf("/console/explore")
	frame := fmt.Sprint(grid.CellID(r0, c0+1))
	ids := make([]string, 51)
	for i := range ids {
		ids[i] = `"` + fmt.Sprint(grid.CellID(r0+1, c0+i%20)+uint64(i/20)*grid.Cols) + `"`
	}
	tests := []struct {
		name   string
		method string
		path   string
		body   string
		status int
		code   string
		want   string
	}{
		{name: "point", path: "/console/explore/api/at?lat=9.09&lon=7.41", status: 200, want: `"bbox":[`},
		{name: "point, bad latitude", path: "/console/explore/api/at?lat=north&lon=7.41", status: 400, code: "invalid_point"},
		{name: "point outside", path: "/console/explore/api/at?lat=4&lon=3", status: 404, code: "not_found"},
		{name: "data", path: "/console/explore/api/data?ids=" + frame, status: 200, want: `"people":15`},
		{name: "data without ids", path: "/console/explore/api/data", status: 400, code: "invalid"},
		{name: "box", path: "/console/explore/api/frames?bbox=7.41,9.07,7.42,9.08&limit=3", status: 200, want: `"truncated":true`},
		{name: "box, bad bbox", path: "/console/explore/api/frames?bbox=1,2,3", status: 400, code: "invalid_bbox"},
		{name: "question", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":["` + frame + `"],"question":"How many people live here?"}`, status: 200, want: `"headline":`},
		{name: "question, 51 frames", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":[` + strings.Join(ids, ",") + `]}`, status: 400, code: "invalid"},
		{name: "question, unknown field", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":["1"],"colour":"red"}`, status: 400, code: "invalid_body"},
		{name: "question, bad format", method: "POST", path: "/console/explore/api/insight", body: `{"frameIds":["1"],"format":"poem"}`, status: 400, code: "invalid"},
		{name: "tile", path: "/console/explore/tiles/pop/12/1930/2132", status: 0},
		{name: "tile below zoom 6", path: "/console/explore/tiles/pop/5/15/16", status: 404, code: "not_found"},
		{name: "tile of another's dataset", path: "/console/explore/tiles/nope/9/241/266", status: 404, code: "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			req, _ := http.NewRequest(method, f.srv.URL+tc.path, strings.NewReader(tc.body))
			if method == http.MethodPost {
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("X-CSRF-Token", csrf) // as the page's script sends every call
			res, body := c.do(req)
			if tc.status == 0 { // a tile: 200 or 204 as the tile holds frames or not
				if res.StatusCode != 200 && res.StatusCode != 204 {
					t.Fatalf("status %d: %.300s", res.StatusCode, body)
				}
				return
			}
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.300s", res.StatusCode, tc.status, body)
			}
			if tc.code != "" {
				var env struct {
					Error struct{ Code string } `json:"error"`
					Code  string                `json:"code"` // an OGC exception
				}
				json.Unmarshal([]byte(body), &env)
				if env.Error.Code != tc.code && env.Code != tc.code {
					t.Errorf("code: %s, want %s", body, tc.code)
				}
			}
			if !strings.Contains(body, tc.want) {
				t.Errorf("answer lacks %s: %.300s", tc.want, body)
			}
			if res.Header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id: not answered by the API")
			}
		})
	}
	// The key's burst (14) is spent: the next call is refused as the
	// API refuses it.
	var last *http.Response
	for range 3 {
		last, _ = c.get("/console/explore/api/at?lat=9.09&lon=7.41")
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Errorf("after the burst: %d, Retry-After %q", last.StatusCode, last.Header.Get("Retry-After"))
	}
}
