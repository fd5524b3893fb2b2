package ogc_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/maptile"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

// tile requests a tile, with gzip when asked, and decodes it.
func (f *fixture) tile(t *testing.T, auth, path string, gz bool) (mvt.Layers, response) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://frames.example"+path, nil)
	req.Header.Set("Authorization", auth)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	r := response{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	if r.status != 200 {
		return nil, r
	}
	if got := r.header.Get("Content-Type"); got != "application/vnd.mapbox-vector-tile" {
		t.Fatalf("Content-Type %q", got)
	}
	body := r.body
	if gz {
		if r.header.Get("Content-Encoding") != "gzip" {
			t.Fatal("gzip accepted but not sent")
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	} else if r.header.Get("Content-Encoding") != "" {
		t.Fatal("gzip sent but not accepted")
	}
	if len(body) > 500<<10 {
		t.Fatalf("tile of %d bytes", len(body))
	}
	layers, err := mvt.Unmarshal(body)
	if err != nil {
		t.Fatalf("%s does not decode: %v", path, err)
	}
	return layers, r
}

// fid is a decoded feature id.
func fid(v any) uint64 {
	switch v := v.(type) {
	case uint64:
		return v
	case float64:
		return uint64(v)
	}
	return 0
}

// frameIDs returns the ids of the frames (or cells) of a layer.
func frameIDs(l *mvt.Layer) []uint64 {
	var out []uint64
	for _, f := range l.Features {
		out = append(out, fid(f.ID))
	}
	slices.Sort(out)
	return out
}

func TestServer_Tiles(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.store.AddCredits("acme", 100, "test", testNow); err != nil {
		t.Fatal(err)
	}
	auth := bearer(secretAcmeFull)
	// The fixture lies in tile 10/486/533 (Abuja), 8/121/133 and 7/60/66.
	t.Run("frames at zoom 10", func(t *testing.T) {
		for _, gz := range []bool{false, true} {
			layers, r := f.tile(t, auth, "/ogc/collections/frames/tiles/WebMercatorQuad/10/486/533", gz)
			if r.status != 200 || len(layers) != 1 || layers[0].Name != "frames" || layers[0].Extent != 4096 {
				t.Fatalf("%d %+v", r.status, layers)
			}
			// Every frame of the grid inside the tile is drawn, with its id.
			tb := maptile.New(533, 486, 10).Bound()
			box := grid.Box{MinLon: tb.Min[0], MinLat: tb.Min[1], MaxLon: tb.Max[0], MaxLat: tb.Max[1]}
			var want []uint64
			f.grid.Box(box, math.MaxInt, func(sh grid.Shape) bool {
				in := sh.Box.MinLon > box.MinLon && sh.Box.MaxLon < box.MaxLon && sh.Box.MinLat > box.MinLat && sh.Box.MaxLat < box.MaxLat
				if in {
					want = append(want, sh.ID)
				}
				return true
			})
			got := frameIDs(layers[0])
			for _, id := range want {
				if _, ok := slices.BinarySearch(got, id); !ok {
					t.Fatalf("frame %d is not in the tile (%d frames drawn, %d inside)", id, len(got), len(want))
				}
			}
			for _, ft := range layers[0].Features {
				if ft.Properties["frame_id"] != float64(fid(ft.ID)) {
					t.Fatalf("frame_id %v for id %v", ft.Properties["frame_id"], ft.ID)
				}
				if ft.Geometry.GeoJSONType() != "Polygon" {
					t.Fatalf("geometry %s", ft.Geometry.GeoJSONType())
				}
			}
		}
	})
	t.Run("population at zoom 10", func(t *testing.T) {
		layers, r := f.tile(t, auth, "/ogc/collections/population/tiles/WebMercatorQuad/10/486/533", true)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		for _, ft := range layers[0].Features {
			id := fid(ft.ID)
			row, col, _ := grid.RowCol(id)
			want := float64((row-R0)*100 + (col - C0))
			if id == grid.CellID(R0, C0) {
				want = 35.5
			}
			if ft.Properties["population_2020"] != want {
				t.Fatalf("frame %d: population %v, want %v", id, ft.Properties["population_2020"], want)
			}
		}
	})
	t.Run("merged cells below zoom 9", func(t *testing.T) {
		layers, _ := f.tile(t, auth, "/ogc/collections/frames/tiles/WebMercatorQuad/8/121/133", false)
		total := 0
		for _, ft := range layers[0].Features {
			total += int(ft.Properties["frames"].(float64))
			if ft.Properties["size"] != 2.0 {
				t.Fatalf("cell size %v at zoom 8", ft.Properties["size"])
			}
		}
		if total != f.grid.Len() {
			t.Fatalf("cells hold %d frames, want %d", total, f.grid.Len())
		}
		layers, _ = f.tile(t, auth, "/ogc/collections/population/tiles/WebMercatorQuad/7/60/66", false)
		sum, want := 0.0, 0.0
		for r := R0; r < 9720; r++ {
			for c := C0; c <= C1; c++ {
				if _, ok := f.grid.Shape(id(r, c)); ok {
					want += float64((r-R0)*100 + (c - C0))
				}
			}
		}
		want += 35.5
		for _, ft := range layers[0].Features {
			sum += ft.Properties["population_2020"].(float64)
			if ft.Properties["size"] != 4.0 {
				t.Fatalf("cell size %v at zoom 7", ft.Properties["size"])
			}
		}
		if sum != want {
			t.Fatalf("cells sum %v people, want %v", sum, want)
		}
		layers, _ = f.tile(t, auth, "/ogc/collections/admin/tiles/WebMercatorQuad/6/30/33", false)
		states := map[any]int{}
		for _, ft := range layers[0].Features {
			states[ft.Properties["state"]]++
		}
		if states["FCT"] == 0 || states["Niger"] == 0 || len(states) != 2 {
			t.Fatalf("states of the cells: %v", states)
		}
	})
	t.Run("features", func(t *testing.T) {
		layers, r := f.tile(t, auth, "/ogc/collections/roads-features/tiles/WebMercatorQuad/12/1943/2131", true)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if n := len(layers[0].Features); n != 3 {
			t.Fatalf("%d features, want the 3 of frame (9705, 22485)", n)
		}
		ft := layers[0].Features[0]
		if ft.Geometry.GeoJSONType() != "Point" || ft.Properties["kind"] != "junction" || ft.Properties["id"] != fmt.Sprintf("%d-0", id(9705, 22485)) {
			t.Fatalf("feature %+v", ft.Properties)
		}
		if got := ledger(t, f); len(got) != 1 || got[0][:8] != "roads -2" {
			t.Fatalf("ledger %v", got)
		}
	})
	t.Run("no tile", func(t *testing.T) {
		for _, p := range []string{"5/15/16", "17/0/0", "10/1024/0"} {
			f.get(t, auth, "/ogc/collections/frames/tiles/WebMercatorQuad/"+p).exception(t, 404, "not_found")
		}
		f.get(t, auth, "/ogc/collections/frames/tiles/WebMercatorQuad/x/0/0").exception(t, 400, "invalid")
		f.get(t, auth, "/ogc/collections/frames/tiles/WorldCRS84Quad/10/0/0").exception(t, 404, "not_found")
		r := f.get(t, auth, "/ogc/collections/frames/tiles/WebMercatorQuad/10/0/0")
		if r.status != 204 || len(r.body) != 0 {
			t.Fatalf("empty tile: %d %q", r.status, r.body)
		}
	})
}

func TestServer_TileMetadata(t *testing.T) {
	f := newFixture(t)
	auth := bearer(secretAcmeFull)
	var ts struct {
		Tilesets []struct {
			DataType string
			Links    []struct{ Href, Rel string }
		}
	}
	f.get(t, auth, "/ogc/collections/population/tiles").json(t, &ts)
	if len(ts.Tilesets) != 1 || ts.Tilesets[0].DataType != "vector" {
		t.Fatalf("tilesets %+v", ts)
	}
	var tset struct {
		Description string
		Limits      []struct {
			TileMatrix                                     string
			MinTileRow, MaxTileRow, MinTileCol, MaxTileCol int
		} `json:"tileMatrixSetLimits"`
		Links []struct {
			Href, Rel string
			Templated bool
		}
	}
	f.get(t, auth, "/ogc/collections/population/tiles/WebMercatorQuad").json(t, &tset)
	if len(tset.Limits) != 11 || tset.Limits[0].TileMatrix != "6" || tset.Description == "" {
		t.Fatalf("tileset %+v", tset)
	}
	for _, l := range tset.Limits {
		if l.TileMatrix == "10" && (l.MinTileRow > 486 || l.MaxTileRow < 486 || l.MinTileCol > 533 || l.MaxTileCol < 533) {
			t.Fatalf("limits at zoom 10 %+v leave out tile 486/533", l)
		}
	}
	templated := false
	for _, l := range tset.Links {
		templated = templated || l.Rel == "item" && l.Templated && l.Href == "http://frames.example/ogc/collections/population/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}"
	}
	if !templated {
		t.Fatalf("no tile template: %+v", tset.Links)
	}
	var tms struct {
		ID           string
		TileMatrices []struct {
			ID          string
			MatrixWidth int
		}
	}
	f.get(t, auth, "/ogc/tileMatrixSets/WebMercatorQuad").json(t, &tms)
	if tms.ID != "WebMercatorQuad" || len(tms.TileMatrices) != 25 || tms.TileMatrices[10].MatrixWidth != 1024 {
		t.Fatalf("tile matrix set %+v", tms)
	}
	f.get(t, auth, "/ogc/tileMatrixSets/Other").exception(t, 404, "not_found")
}

// A tile of frames that would exceed 500 KB (a dataset of many attributes)
// falls back to merged cells, and is charged once.
func TestServer_TileTooBigForFrames(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "frames.db"), bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, org := range []string{"acme", "rival"} {
		if _, err := st.AddOrg(state.Org{ID: org, Plan: "pro"}); err != nil {
			t.Fatal(err)
		}
	}
	st.AddCredits("acme", 10, "test", testNow)
	// 60 x 60 frames around Abuja, 30 number attributes of distinct values.
	var runs []grid.Run
	var recs []bolt.FrameRecord
	var attrs []state.Attribute
	for a := range 30 {
		attrs = append(attrs, state.Attribute{Name: fmt.Sprintf("a%02d", a), Type: state.TypeNumber, Aggregation: state.AggMean})
	}
	for r := 9690; r < 9750; r++ {
		runs = append(runs, grid.Run{Row: int32(r), Col0: 22460, Col1: 22519})
		for c := 22460; c < 22520; c++ {
			var b strings.Builder
			b.WriteByte('{')
			for a := range 30 {
				if a > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"a%02d":%d.%d`, a, r*1000+c, a)
			}
			b.WriteByte('}')
			recs = append(recs, bolt.FrameRecord{Frame: id(r, c), Attrs: []byte(b.String())})
		}
	}
	if _, err := st.ImportDataset(state.Dataset{ID: "wide", Owner: "rival", Price: 1, Attributes: attrs}, recs, testNow); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GrantLicence("acme", "wide", state.LicencePerQuery, testNow); err != nil {
		t.Fatal(err)
	}
	// The tile summarises about 1,500 frames: by the price rule, 16 credits.
	if _, _, err := st.AddCredits("acme", 100, "test", testNow); err != nil {
		t.Fatal(err)
	}
	f := newServer(st, index.NewLattice(runs))
	layers, r := f.tile(t, bearer(secretAcmeFull), "/ogc/collections/wide/tiles/WebMercatorQuad/10/486/533", false)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if size := layers[0].Features[0].Properties["size"]; size == nil || size.(float64) < 2 {
		t.Fatalf("a tile too big for frames holds size %v", size)
	}
	es, _ := st.Ledger("acme", 0)
	charges := 0
	for _, e := range es {
		if e.Kind == "charge" {
			charges++
			if e.Credits != -16 || e.Note != "1,505 frames read" {
				t.Errorf("charge %+v: want 16 credits for 1,505 frames read", e)
			}
		}
	}
	if charges != 1 {
		t.Fatalf("%d charges for one tile", charges)
	}
}
