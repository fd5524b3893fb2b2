package ogc_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

var (
	benchOnce sync.Once
	benchFix  *fixture
	benchDir  string
	benchErr  error
	benchIDs  []uint64 // the frames the national population records something on, ascending
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchFix != nil {
		benchFix.store.Close()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// nationalFixture is the national grid (1.08 million frames) with a
// population on every frame, owned by acme, imported once per test binary
// (a few seconds).
func nationalFixture(b *testing.B) *fixture {
	b.Helper()
	runs := national(b)
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "ogc-bench-")
		if benchErr != nil {
			return
		}
		st, err := bolt.Open(filepath.Join(benchDir, "frames.db"), bolt.Options{Create: true})
		if benchErr = err; err != nil {
			return
		}
		if _, benchErr = st.AddOrg(state.Org{ID: "acme", Plan: "pro"}); benchErr != nil {
			return
		}
		ix := index.NewLattice(runs)
		var recs []bolt.FrameRecord
		ix.Box(ix.Bounds(), ix.Len(), func(sh grid.Shape) bool {
			row, col, _ := grid.RowCol(sh.ID)
			recs = append(recs, bolt.FrameRecord{Frame: sh.ID, Attrs: fmt.Appendf(nil, `{"population_2020":%d}`, (row*7+col*13)%5000)})
			benchIDs = append(benchIDs, sh.ID)
			return true
		})
		_, benchErr = st.ImportDataset(state.Dataset{ID: "population", Name: "Estimated population", Owner: "acme",
			Attributes: []state.Attribute{{Name: "population_2020", Label: "Estimated population", Type: state.TypeNumber, Aggregation: state.AggSum}}},
			recs, testNow)
		benchFix = newServer(st, ix)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchFix
}

// serve runs one request through the whole API server (authentication,
// middleware, the OGC call) and fails unless it answers want.
func serve(b *testing.B, h http.Handler, req *http.Request, want int) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != want {
		b.Fatalf("%s: %d %s", req.URL, w.Code, w.Body.Bytes())
	}
	return w
}

// BenchmarkItems is a page of 1,000 items of the national population
// collection (frames with their population) through the whole handler:
// the first page, page 500 (after frame 499,000, by its cursor), and the
// same for the grid's frames.
func BenchmarkItems(b *testing.B) {
	f := nationalFixture(b)
	cursor := strconv.FormatUint(benchIDs[499*1000-1], 10)
	for _, bc := range []struct{ name, target string }{
		{"population/page1", "/ogc/collections/population/items?limit=1000"},
		{"population/page500", "/ogc/collections/population/items?limit=1000&cursor=" + cursor},
		{"population/bbox-abuja", "/ogc/collections/population/items?limit=1000&bbox=7.2,8.9,7.6,9.2"},
		{"frames/page1", "/ogc/collections/frames/items?limit=1000"},
		{"frames/page500", "/ogc/collections/frames/items?limit=1000&cursor=" + cursor},
	} {
		b.Run(bc.name, func(b *testing.B) { benchGet(b, f, bc.target, false) })
	}
}

// BenchmarkTile is a zoom-10 tile over Abuja (1,936 frames) of the
// national population, with and without gzip, a zoom-7 tile of merged
// cells, and a zoom-10 tile of the grid's frames.
func BenchmarkTile(b *testing.B) {
	f := nationalFixture(b)
	for _, bc := range []struct {
		name, target string
		gzip         bool
	}{
		{"population/z10-abuja", "/ogc/collections/population/tiles/WebMercatorQuad/10/486/533", false},
		{"population/z10-abuja-gzip", "/ogc/collections/population/tiles/WebMercatorQuad/10/486/533", true},
		{"population/z7-merged", "/ogc/collections/population/tiles/WebMercatorQuad/7/60/66", true},
		{"frames/z10-abuja", "/ogc/collections/frames/tiles/WebMercatorQuad/10/486/533", true},
	} {
		b.Run(bc.name, func(b *testing.B) { benchGet(b, f, bc.target, bc.gzip) })
	}
}

// BenchmarkExtent is the first description of the national population
// after a start or an import: one scan of its 1.08 million records for the
// extent and numberMatched, kept until its next version.
func BenchmarkExtent(b *testing.B) {
	f := nationalFixture(b)
	req := httptest.NewRequest(http.MethodGet, "http://frames.example/ogc/collections/population", nil)
	req.Header.Set("Authorization", bearer(secretAcmeFull))
	b.ReportAllocs()
	for b.Loop() {
		fresh := newServer(f.store, f.grid) // an empty cache
		serve(b, fresh.h, req, 200)
	}
}

// benchGet measures GET target with the full key of acme, gzipped when
// gzip is set; its bytes are the answer's body.
func benchGet(b *testing.B, f *fixture, target string, gzip bool) {
	req := httptest.NewRequest(http.MethodGet, "http://frames.example"+target, nil)
	req.Header.Set("Authorization", bearer(secretAcmeFull))
	if gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	w := serve(b, f.h, req, 200)
	b.SetBytes(int64(w.Body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		serve(b, f.h, req, 200)
	}
}
