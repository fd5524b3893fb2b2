package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"frameindex/grid"
	"frameindex/index"
)

// frameData is the data of GET /v1/frames/at.
type frameData struct {
	ID       string `json:"id"`
	Geometry struct {
		Type        string         `json:"type"`
		Coordinates [][][2]float64 `json:"coordinates"`
	} `json:"geometry"`
	BBox []float64 `json:"bbox"`
}

// collection is the data of GET /v1/frames.
type collection struct {
	Type     string `json:"type"`
	Features []struct {
		Type       string    `json:"type"`
		ID         string    `json:"id"`
		BBox       []float64 `json:"bbox"`
		Geometry   struct{ Type string }
		Properties struct {
			ID string `json:"id"`
		} `json:"properties"`
	} `json:"features"`
	Truncated  *bool    `json:"truncated"`
	UnknownIDs []string `json:"unknownIds"`
}

func (c collection) ids() []string {
	ids := make([]string, len(c.Features))
	for i, f := range c.Features {
		ids[i] = f.ID
	}
	return ids
}

func id(row, col int) string { return strconv.FormatUint(grid.CellID(row, col), 10) }

func TestServer_HandleFramesAt(t *testing.T) {
	s, _ := testServer(t, abuja)
	tests := []struct {
		name   string
		query  string
		wantID string
		bbox   []float64
	}{
		{"Abuja", "lat=9.0765&lon=7.3986", "419494487", []float64{7.3916667, 9.075, 7.4, 9.0833333}},
		// A point on the corner of four cells belongs to the one east and south of it.
		{"corner goes east and south", "lat=9.075&lon=7.4", "419537688", []float64{7.4, 9.0666667, 7.4083333, 9.075}},
		{"exponent and plus sign", "lat=%2B0.90765e1&lon=739.86E-2", "419494487", []float64{7.3916667, 9.075, 7.4, 9.0833333}},
		{"other parameters ignored", "lat=9.0765&lon=7.3986&foo=bar&lon2=x", "419494487", []float64{7.3916667, 9.075, 7.4, 9.0833333}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(s, "/v1/frames/at?"+tt.query, secretGood)
			env := decode(t, w)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
				t.Errorf("Content-Length = %q, body is %d bytes", w.Header().Get("Content-Length"), w.Body.Len())
			}
			var f frameData
			if err := json.Unmarshal(env.Data, &f); err != nil {
				t.Fatal(err)
			}
			if f.ID != tt.wantID {
				t.Errorf("id = %s, want %s", f.ID, tt.wantID)
			}
			if !slices.Equal(f.BBox, tt.bbox) {
				t.Errorf("bbox = %v, want %v", f.BBox, tt.bbox)
			}
			b := tt.bbox
			ring := [][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[0], b[1]}}
			if f.Geometry.Type != "Polygon" || len(f.Geometry.Coordinates) != 1 || !slices.Equal(f.Geometry.Coordinates[0], ring) {
				t.Errorf("geometry = %+v, want Polygon %v", f.Geometry, ring)
			}
		})
	}
}

func TestServer_HandleFramesAt_Errors(t *testing.T) {
	s, _ := testServer(t, abuja)
	tests := []struct {
		name      string
		query     string
		status    int
		code      string
		fragments []string
	}{
		{"no query", "", 400, codeInvalidPoint, []string{"lat is required"}},
		{"no lon", "lat=9", 400, codeInvalidPoint, []string{"lon is required"}},
		{"no lat", "lon=7", 400, codeInvalidPoint, []string{"lat is required"}},
		{"lat not a number", "lat=abc&lon=7", 400, codeInvalidPoint, []string{"lat must be a decimal number", `got "abc"`}},
		{"lon not a number", "lat=9&lon=seven", 400, codeInvalidPoint, []string{"lon must be a decimal number", `"seven"`}},
		{"lat empty", "lat=&lon=7", 400, codeInvalidPoint, []string{"lat", `got ""`}},
		{"lat above 90", "lat=90.0001&lon=7", 400, codeInvalidPoint, []string{"lat must be between -90 and 90", `"90.0001"`}},
		{"lat below -90", "lat=-91&lon=7", 400, codeInvalidPoint, []string{"lat must be between -90 and 90"}},
		{"lon above 180", "lat=9&lon=180.5", 400, codeInvalidPoint, []string{"lon must be between -180 and 180"}},
		{"lon below -180", "lat=9&lon=-1e3", 400, codeInvalidPoint, []string{"lon must be between -180 and 180"}},
		{"NaN", "lat=NaN&lon=7", 400, codeInvalidPoint, []string{"lat must be a decimal number"}},
		{"Inf", "lat=9&lon=Inf", 400, codeInvalidPoint, []string{"lon must be a decimal number"}},
		{"overflow", "lat=1e400&lon=7", 400, codeInvalidPoint, []string{"lat must be a decimal number"}},
		{"hex float", "lat=0x1p3&lon=7", 400, codeInvalidPoint, []string{"lat must be a decimal number"}},
		{"underscore", "lat=9&lon=1_0", 400, codeInvalidPoint, []string{"lon must be a decimal number"}},
		{"spaces", "lat=+9&lon=7", 400, codeInvalidPoint, []string{"lat must be a decimal number", `" 9"`}},
		{"comma decimal", "lat=9,5&lon=7", 400, codeInvalidPoint, []string{"lat must be a decimal number"}},
		{"lat twice", "lat=9&lat=9&lon=7", 400, codeInvalidPoint, []string{"lat must be given once; got 2"}},
		{"lon twice", "lat=9&lon=7&lon=8", 400, codeInvalidPoint, []string{"lon must be given once"}},
		{"bad escape", "lat=9%zz&lon=7", 400, codeInvalidPoint, []string{"lat is not valid URL encoding"}},
		{"semicolon is no separator", "lat=9;lon=7", 400, codeInvalidPoint, []string{"lat must be a decimal number"}},
		{"outside the grid", "lat=0&lon=0", 404, codeNotFound, []string{"no frame at lat 0, lon 0: the point is outside the grid"}},
		{"just outside the grid", "lat=9.0765&lon=7.5", 404, codeNotFound, []string{"lat 9.0765, lon 7.5"}},
		{"poles in range", "lat=-90&lon=180", 404, codeNotFound, []string{"outside the grid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(s, "/v1/frames/at?"+tt.query, secretGood)
			wantError(t, w, tt.status, tt.code, tt.fragments...)
		})
	}
}

func TestServer_HandleFrames_BBox(t *testing.T) {
	s, _ := testServer(t, abuja)
	// Centres of cells, and a shared corner, as query text.
	midLon := func(col int) string { return fmtNum(grid.Lon(col) + 1.0/240) }
	midLat := func(row int) string { return fmtNum(grid.Lat(row) - 1.0/240) }
	box := func(minLon, minLat, maxLon, maxLat string) string {
		return "bbox=" + minLon + "," + minLat + "," + maxLon + "," + maxLat
	}
	four := box(midLon(22487), midLat(9712), midLon(22488), midLat(9711))
	corner := fmtNum(grid.Lon(22488)) + "," + fmtNum(grid.Lat(9712))

	tests := []struct {
		name      string
		query     string
		ids       []string
		truncated bool
	}{
		{"four cells in ascending id order", four,
			[]string{id(9711, 22487), id(9711, 22488), id(9712, 22487), id(9712, 22488)}, false},
		{"limit below the count truncates", four + "&limit=3",
			[]string{id(9711, 22487), id(9711, 22488), id(9712, 22487)}, true},
		{"limit equal to the count", four + "&limit=4",
			[]string{id(9711, 22487), id(9711, 22488), id(9712, 22487), id(9712, 22488)}, false},
		{"limit with leading zeros", four + "&limit=0001", []string{id(9711, 22487)}, true},
		{"a point inside one cell", box(midLon(22487), midLat(9711), midLon(22487), midLat(9711)),
			[]string{id(9711, 22487)}, false},
		{"a shared corner touches four cells", "bbox=" + corner + "," + corner,
			[]string{id(9711, 22487), id(9711, 22488), id(9712, 22487), id(9712, 22488)}, false},
		{"a line along a row", box(midLon(22498), midLat(9719), "7.5", midLat(9719)),
			[]string{id(9719, 22498), id(9719, 22499)}, false},
		{"spaces around numbers", "bbox=" + strings.ReplaceAll(strings.TrimPrefix(four, "bbox="), ",", "+,+"),
			[]string{id(9711, 22487), id(9711, 22488), id(9712, 22487), id(9712, 22488)}, false},
		{"outside the grid", "bbox=0,0,1,1", []string{}, false},
		{"the whole world", "bbox=-180,-90,180,90&limit=2", []string{id(9700, 22480), id(9700, 22481)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(s, "/v1/frames?"+tt.query, secretGood)
			env := decode(t, w)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			var c collection
			if err := json.Unmarshal(env.Data, &c); err != nil {
				t.Fatal(err)
			}
			if c.Type != "FeatureCollection" {
				t.Errorf("type = %q", c.Type)
			}
			if got := c.ids(); !slices.Equal(got, tt.ids) {
				t.Errorf("ids = %v, want %v", got, tt.ids)
			}
			if tt.truncated != (c.Truncated != nil) || (c.Truncated != nil && !*c.Truncated) {
				t.Errorf("truncated = %v, want %v (absent when false)", c.Truncated, tt.truncated)
			}
			if c.UnknownIDs != nil {
				t.Errorf("unknownIds present on a bbox query: %v", c.UnknownIDs)
			}
			if !strings.Contains(w.Body.String(), `"features":[`) {
				t.Errorf("features is not an array: %s", w.Body)
			}
			for _, f := range c.Features {
				if f.Type != "Feature" || f.Properties.ID != f.ID || f.Geometry.Type != "Polygon" || len(f.BBox) != 4 {
					t.Errorf("malformed feature %+v", f)
				}
			}
		})
	}
}

func TestServer_HandleFrames_IDs(t *testing.T) {
	s, _ := testServer(t, abuja)
	a, b, c := id(9700, 22480), id(9700, 22481), id(9719, 22499)
	tests := []struct {
		name    string
		query   string
		ids     []string
		unknown []string
	}{
		{"one id", "ids=" + a, []string{a}, nil},
		{"order kept, duplicates once, unknown listed", "ids=" + c + "," + a + "," + b + "," + a + ",999,999", []string{c, a, b}, []string{"999"}},
		{"repeated parameter joined", "ids=" + c + "&ids=" + a + "," + b + "&ids=" + c, []string{c, a, b}, nil},
		{"leading zeros are the same id", "ids=" + a + ",000" + a, []string{a}, nil},
		{"all unknown", "ids=1,2,1", []string{}, []string{"1", "2"}},
		{"largest id", "ids=18446744073709551615", []string{}, []string{"18446744073709551615"}},
		{"100 ids", "ids=" + strings.Repeat(a+",", 99) + b, []string{a, b}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(s, "/v1/frames?"+tt.query, secretGood)
			env := decode(t, w)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			var col collection
			if err := json.Unmarshal(env.Data, &col); err != nil {
				t.Fatal(err)
			}
			if got := col.ids(); !slices.Equal(got, tt.ids) {
				t.Errorf("ids = %v, want %v", got, tt.ids)
			}
			if !slices.Equal(col.UnknownIDs, tt.unknown) {
				t.Errorf("unknownIds = %v, want %v", col.UnknownIDs, tt.unknown)
			}
			if tt.unknown == nil && strings.Contains(w.Body.String(), "unknownIds") {
				t.Errorf("unknownIds present with no unknown id: %s", w.Body)
			}
			if col.Truncated != nil {
				t.Errorf("truncated present on an ids query")
			}
		})
	}
}

func TestServer_HandleFrames_Errors(t *testing.T) {
	s, _ := testServer(t, abuja)
	tests := []struct {
		name      string
		query     string
		code      string
		fragments []string
	}{
		{"neither bbox nor ids", "", codeInvalidBBox, []string{"bbox is required"}},
		{"only limit", "limit=5", codeInvalidBBox, []string{"bbox is required"}},
		{"bbox empty", "bbox=", codeInvalidBBox, []string{"bbox is empty"}},
		{"three numbers", "bbox=1,2,3", codeInvalidBBox, []string{"four comma-separated numbers", "got 3 values"}},
		{"five numbers", "bbox=1,2,3,4,5", codeInvalidBBox, []string{"got 5 values"}},
		{"empty number", "bbox=1,,3,4", codeInvalidBBox, []string{"bbox minLat must be a decimal number", `got ""`}},
		{"not a number", "bbox=1,2,x,4", codeInvalidBBox, []string{"bbox maxLon must be a decimal number", `"x"`}},
		{"NaN", "bbox=NaN,2,3,4", codeInvalidBBox, []string{"bbox minLon must be a decimal number"}},
		{"infinity", "bbox=1,2,3,Infinity", codeInvalidBBox, []string{"bbox maxLat must be a decimal number"}},
		{"hex", "bbox=0x1,2,3,4", codeInvalidBBox, []string{"bbox minLon must be a decimal number"}},
		{"lon out of range", "bbox=-181,2,3,4", codeInvalidBBox, []string{"bbox minLon must be between -180 and 180"}},
		{"lat out of range", "bbox=1,2,3,90.5", codeInvalidBBox, []string{"bbox maxLat must be between -90 and 90"}},
		{"west east swapped", "bbox=5,2,4,4", codeInvalidBBox, []string{"minLon (5) is east of maxLon (4)", "antimeridian"}},
		{"south north swapped", "bbox=1,5,3,4", codeInvalidBBox, []string{"minLat (5) is north of maxLat (4)"}},
		{"bbox twice", "bbox=1,2,3,4&bbox=1,2,3,4", codeInvalidBBox, []string{"bbox must be given once; got 2"}},
		{"bbox bad escape", "bbox=1,2,3,4%", codeInvalidBBox, []string{"bbox is not valid URL encoding"}},
		{"limit zero", "bbox=1,2,3,4&limit=0", codeInvalid, []string{"limit must be a whole number from 1 to 5000", `"0"`}},
		{"limit negative", "bbox=1,2,3,4&limit=-3", codeInvalid, []string{"limit must be a whole number"}},
		{"limit fraction", "bbox=1,2,3,4&limit=2.5", codeInvalid, []string{"limit must be a whole number"}},
		{"limit empty", "bbox=1,2,3,4&limit=", codeInvalid, []string{"limit must be a whole number"}},
		{"limit twice", "bbox=1,2,3,4&limit=2&limit=3", codeInvalid, []string{"limit must be given once"}},
		{"bbox and ids", "bbox=1,2,3,4&ids=1", codeInvalid, []string{"either bbox or ids, not both"}},
		{"limit with ids", "ids=1&limit=2", codeInvalid, []string{"limit applies to bbox queries only"}},
		{"ids empty", "ids=", codeInvalid, []string{"ids is empty"}},
		{"ids empty entry", "ids=1,,2", codeInvalid, []string{"ids has an empty entry", `"1,,2"`}},
		{"ids trailing comma", "ids=1,2,", codeInvalid, []string{"ids has an empty entry"}},
		{"ids empty repeat", "ids=1&ids=", codeInvalid, []string{"ids has an empty entry"}},
		{"ids not digits", "ids=1,abc", codeInvalid, []string{`ids entry "abc" is not a frame id`}},
		{"ids negative", "ids=-1", codeInvalid, []string{`ids entry "-1" is not a frame id`}},
		{"ids space", "ids=1,+2", codeInvalid, []string{`ids entry " 2" is not a frame id`}},
		{"ids 21 digits", "ids=000000000000000000001", codeInvalid, []string{"1 to 20 digits"}},
		{"ids over uint64", "ids=18446744073709551616", codeInvalid, []string{"at most 18446744073709551615"}},
		{"101 ids", "ids=" + strings.Repeat("1,", 100) + "1", codeInvalid, []string{"ids lists 101 ids; at most 100"}},
		{"101 ids repeated", "ids=" + strings.Repeat("1,", 50) + "1&ids=" + strings.Repeat("2,", 49) + "2", codeInvalid, []string{"at most 100"}},
		{"ids bad escape", "ids=%G1", codeInvalid, []string{"ids is not valid URL encoding"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(s, "/v1/frames?"+tt.query, secretGood)
			status := http.StatusBadRequest
			wantError(t, w, status, tt.code, tt.fragments...)
		})
	}
}

// A grid of 100 x 100 cells holds more than the 5,000-frame cap.
var big = rectGrid{r0: 9000, r1: 9099, c0: 22000, c1: 22099}

func TestServer_HandleFrames_Cap(t *testing.T) {
	s, _ := testServer(t, big)
	tests := []struct {
		name      string
		query     string
		n         int
		truncated bool
	}{
		{"default limit is 5000", "bbox=-180,-90,180,90", 5000, true},
		{"limit 5000", "bbox=-180,-90,180,90&limit=5000", 5000, true},
		{"limit above 5000 is clamped", "bbox=-180,-90,180,90&limit=5001", 5000, true},
		{"huge limit is clamped", "bbox=-180,-90,180,90&limit=99999999999999999999999999", 5000, true},
		{"limit 1", "bbox=-180,-90,180,90&limit=1", 1, true},
		// Rows 9000..9049: exactly 5,000 cells, so nothing is left out.
		{"exactly 5000 cells", "bbox=-180," + fmtNum(grid.Lat(9050)+1.0/240) + ",180,90", 5000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(s, "/v1/frames?"+tt.query, secretGood)
			env := decode(t, w)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %.300s", w.Code, w.Body)
			}
			var c collection
			if err := json.Unmarshal(env.Data, &c); err != nil {
				t.Fatal(err)
			}
			if len(c.Features) != tt.n {
				t.Fatalf("%d features, want %d", len(c.Features), tt.n)
			}
			prev := uint64(0)
			for i, f := range c.Features {
				v, err := strconv.ParseUint(f.ID, 10, 64)
				if err != nil || (i > 0 && v <= prev) || f.Properties.ID != f.ID {
					t.Fatalf("feature %d: id %q after %d, properties.id %q", i, f.ID, prev, f.Properties.ID)
				}
				prev = v
			}
			if tt.truncated != (c.Truncated != nil && *c.Truncated) {
				t.Errorf("truncated = %v, want %v", c.Truncated, tt.truncated)
			}
			if tt.n == 5000 && w.Header().Get("Content-Length") != "" {
				t.Errorf("a 5,000-feature body was not streamed: Content-Length %s", w.Header().Get("Content-Length"))
			}
			if i := strings.Index(w.Body.String(), `"truncated"`); tt.truncated && i < strings.LastIndex(w.Body.String(), `"properties"`) {
				t.Errorf("truncated comes before the last feature")
			}
		})
	}
}

func TestServer_HandleFrames_ImportedGeometry(t *testing.T) {
	// An imported frame with a hole, and one made of two polygons.
	sq := func(x0, y0, x1, y1 float64) grid.Ring {
		return grid.Ring{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}
	}
	shapes := map[uint64]grid.Shape{
		7: {ID: 7, Box: grid.Box{MinLon: 3, MinLat: 6, MaxLon: 4, MaxLat: 7},
			Geom: grid.MultiPolygon{{sq(3, 6, 4, 7), sq(3.25, 6.25, 3.5, 6.5)}}},
		8: {ID: 8, Box: grid.Box{MinLon: 4, MinLat: 6, MaxLon: 6, MaxLat: 7},
			Geom: grid.MultiPolygon{{sq(4, 6, 5, 7)}, {sq(5.5, 6, 6, 6.5)}}},
	}
	ix := &fakeIndex{ShapeFn: func(id uint64) (grid.Shape, bool) { sh, ok := shapes[id]; return sh, ok }}
	s, _ := testServer(t, ix)
	w := get(s, "/v1/frames?ids=8,7", secretGood)
	env := decode(t, w)
	var c struct {
		Features []struct {
			ID       string
			BBox     []float64
			Geometry struct {
				Type        string
				Coordinates json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(env.Data, &c); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, typ, coords string
		bbox            []float64
	}{
		{"8", "MultiPolygon", "[[[[4,6],[5,6],[5,7],[4,7],[4,6]]],[[[5.5,6],[6,6],[6,6.5],[5.5,6.5],[5.5,6]]]]", []float64{4, 6, 6, 7}},
		{"7", "Polygon", "[[[3,6],[4,6],[4,7],[3,7],[3,6]],[[3.25,6.25],[3.5,6.25],[3.5,6.5],[3.25,6.5],[3.25,6.25]]]", []float64{3, 6, 4, 7}},
	}
	if len(c.Features) != len(want) {
		t.Fatalf("%d features: %s", len(c.Features), w.Body)
	}
	for i, f := range c.Features {
		if f.ID != want[i].id || f.Geometry.Type != want[i].typ || string(f.Geometry.Coordinates) != want[i].coords || !slices.Equal(f.BBox, want[i].bbox) {
			t.Errorf("feature %d = %s %s %s %v, want %+v", i, f.ID, f.Geometry.Type, f.Geometry.Coordinates, f.BBox, want[i])
		}
	}
}

func TestServer_HandleFrames_ContextDone(t *testing.T) {
	// The walk stops when the request context is done: before the first
	// chunk the answer is an internal envelope; after it the connection is
	// aborted, so a cut body never looks whole.
	tests := []struct {
		name        string
		cancelAfter int // features emitted before the client goes
		wantAbort   bool
	}{
		{"before anything was sent", 10, false},
		{"after the first chunk", 400, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			emitted := 0
			ix := &fakeIndex{BoxFn: func(b grid.Box, limit int, fn func(grid.Shape) bool) bool {
				for i := range 5000 {
					if i == tt.cancelAfter {
						cancel()
					}
					emitted++
					if !fn(grid.LatticeShape(grid.CellID(9000, 22000+i))) {
						return false
					}
				}
				return false
			}}
			s, logs := testServer(t, ix)
			r := httptest.NewRequest(http.MethodGet, "/v1/frames?bbox=1,2,3,4", nil).WithContext(ctx)
			r.Header.Set("Authorization", "Bearer "+secretGood)
			w := httptest.NewRecorder()
			aborted := func() (aborted bool) {
				defer func() {
					if v := recover(); v != nil {
						if v != http.ErrAbortHandler {
							t.Fatalf("panic %v", v)
						}
						aborted = true
					}
				}()
				s.ServeHTTP(w, r)
				return false
			}()
			if aborted != tt.wantAbort {
				t.Fatalf("aborted = %v, want %v", aborted, tt.wantAbort)
			}
			if emitted >= 5000 || emitted > tt.cancelAfter+ctxEvery+1 {
				t.Errorf("the walk went on for %d features after the cancel at %d", emitted, tt.cancelAfter)
			}
			line := accessLine(t, logs, w.Header().Get("X-Request-Id"))
			if msg, _ := line["error"].(string); line["level"] != "INFO" || line["code"] != codeInternal || !strings.Contains(msg, "canceled") {
				t.Errorf("access line = %v, want INFO, internal, context canceled", line)
			}
			if tt.wantAbort {
				if w.Code != http.StatusOK || line["aborted"] != true {
					t.Errorf("status %d, aborted %v", w.Code, line["aborted"])
				}
				return
			}
			wantError(t, w, http.StatusInternalServerError, codeInternal)
		})
	}
}

func TestServer_NoGrid(t *testing.T) {
	s := New(Config{Keys: func() KeyLookup { return testKeys }})
	for _, target := range []string{"/v1/frames/at?lat=1&lon=1", "/v1/frames?bbox=1,2,3,4", "/v1/frames?ids=1"} {
		t.Run(target, func(t *testing.T) {
			env := wantError(t, get(s, target, secretGood), http.StatusInternalServerError, codeInternal)
			if env.Error.Message != internalMessage {
				t.Errorf("message %q reveals more than the vague one", env.Error.Message)
			}
		})
	}
}

func TestFeatureStream_WriteError(t *testing.T) {
	// A write that fails (client gone) stops the walk with errClientGone.
	fw := &failingWriter{header: http.Header{}}
	fs := featureStream{w: fw, ctx: context.Background()}
	n := 0
	for fs.add(grid.LatticeShape(grid.CellID(9000, 22000+n))) {
		n++
		if n > 10000 {
			t.Fatal("the stream never stopped")
		}
	}
	if !errors.Is(fs.err, errClientGone) || !fs.sent {
		t.Fatalf("err = %v, sent = %v", fs.err, fs.sent)
	}
	if fw.status != http.StatusOK {
		t.Errorf("status %d", fw.status)
	}
}

type failingWriter struct {
	header http.Header
	status int
}

func (f *failingWriter) Header() http.Header         { return f.header }
func (f *failingWriter) WriteHeader(s int)           { f.status = s }
func (f *failingWriter) Write(p []byte) (int, error) { return 0, errors.New("broken pipe") }

func TestServer_RealIndexMatchesFake(t *testing.T) {
	// The handler tests run on rectGrid; the same queries on *index.Index
	// over the same cells must give the same bodies.
	var runs []grid.Run
	for row := abuja.r0; row <= abuja.r1; row++ {
		runs = append(runs, grid.Run{Row: int32(row), Col0: int32(abuja.c0), Col1: int32(abuja.c1)})
	}
	ix := index.NewLattice(runs)
	if ix.Len() != len(runs)*(abuja.c1-abuja.c0+1) {
		t.Fatalf("index holds %d frames", ix.Len())
	}
	fake, _ := testServer(t, abuja)
	srv, _ := testServer(t, ix)
	for _, target := range []string{
		"/v1/frames/at?lat=9.0765&lon=7.3986",
		"/v1/frames/at?lat=9.075&lon=7.4",
		"/v1/frames/at?lat=0&lon=0",
		"/v1/frames?bbox=7.39,9.07,7.41,9.08",
		"/v1/frames?bbox=7.39,9.07,7.41,9.08&limit=3",
		"/v1/frames?bbox=" + fmtNum(grid.Lon(22488)) + "," + fmtNum(grid.Lat(9712)) + "," + fmtNum(grid.Lon(22488)) + "," + fmtNum(grid.Lat(9712)),
		"/v1/frames?bbox=-180,-90,180,90",
		"/v1/frames?bbox=0,0,1,1",
		"/v1/frames?ids=" + id(9719, 22499) + ",5," + id(9700, 22480),
	} {
		t.Run(target, func(t *testing.T) {
			want, got := get(fake, target, secretGood), get(srv, target, secretGood)
			if got.Code != want.Code || got.Body.String() != want.Body.String() {
				t.Errorf("index.Index: %d %.300s\nrectGrid:    %d %.300s", got.Code, got.Body, want.Code, want.Body)
			}
		})
	}
}
