package console

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/mvt"
	"frameindex/state"
)

// BenchmarkExploreTile: the web application's share of a map tile: the
// session check, the Explore key read and the hand-over to the API (a
// stand-in that answers at once).
func BenchmarkExploreTile(b *testing.B) {
	store, err := bolt.Open(filepath.Join(b.TempDir(), "frames.db"), bolt.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	if _, err := store.AddOrg(state.Org{ID: "acme", Plan: state.PlanPro}); err != nil {
		b.Fatal(err)
	}
	_, otp, err := store.AddUser(state.NewUser{Name: "mo", Email: "mo@example.ng", Org: "acme", Role: state.RoleMember, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.ChangePassword("mo", otp, passwords["mo"], time.Now()); err != nil {
		b.Fatal(err)
	}
	token, _, err := store.CreateSession("mo", "acme", "127.0.0.1", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	con := New(Config{Ops: &admin.Ops{Store: store}, FlushEvery: time.Hour})
	defer con.Close()
	con.Wrap(&fakeAPI{body: "x"})
	if _, _, err := store.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Name: consoleKeyName("mo"), Member: "mo"}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/console/explore/tiles/frames/9/%d/270", i%512), nil)
		r.AddCookie(&http.Cookie{Name: cookieSession, Value: token})
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		w := httptest.NewRecorder()
		con.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkPlaceSearch: a search among 10,000 places.
func BenchmarkPlaceSearch(b *testing.B) {
	pd := &placeData{}
	for i := range 10000 {
		p := place{Name: fmt.Sprintf("Place %d Ward", i), Kind: "Ward"}
		pd.places = append(pd.places, p)
		pd.lower = append(pd.lower, strings.ToLower(p.Name))
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(pd.search("place 12", 12)) == 0 {
			b.Fatal("nothing found")
		}
	}
}

// syntheticBoundaries returns the lines between areas of about size x
// size frames with wavy edges, over Nigeria's box of the lattice (1,439 x
// 1,155 frames): size 40 gives about a thousand areas (Nigeria has 774
// LGAs), 200 about forty (37 states).
func syntheticBoundaries(size int) []orb.LineString {
	r0, c0 := grid.CellAt(13.89, 2.69)
	r1, c1 := grid.CellAt(4.27, 14.68)
	names := map[[2]int]string{}
	e := newEdges()
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			u := float64(r-r0) + 9*math.Sin(float64(c)/23) + 5*math.Sin(float64(c)/7)
			v := float64(c-c0) + 9*math.Sin(float64(r)/17) + 5*math.Sin(float64(r)/5)
			k := [2]int{int(math.Floor(u / float64(size))), int(math.Floor(v / float64(size)))}
			n, ok := names[k]
			if !ok {
				n = fmt.Sprint(k)
				names[k] = n
			}
			e.add(r, c, n)
		}
	}
	return e.lines()
}

// BenchmarkExploreLinesTile: a line tile (search, projection, clipping,
// encoding), over the tiles of Nigeria's box at each zoom, for
// LGA-sized and state-sized areas and the outline, and as served (from
// the cache of encoded tiles); B/tile is the mean size of the tiles that
// hold something.
func BenchmarkExploreLinesTile(b *testing.B) {
	lga := newLineSet(syntheticBoundaries(40), lineMinZoom["lga"])
	state := newLineSet(syntheticBoundaries(200), lineMinZoom["state"])
	outline, err := newOutlineSet(nigeriaOutline(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		layer string
		z     int
		tile  func(lineTile) ([]byte, error)
	}{
		{"lga", 7, lga.tile}, {"lga", 9, lga.tile},
		{"state", 4, state.tile}, {"state", 6, state.tile}, {"state", 9, state.tile},
		{"outline", 4, outline.tile}, {"outline", 6, outline.tile}, {"outline", 9, outline.tile},
		// As served: from the cache once encoded.
		{"lga-cached", 7, func(t lineTile) ([]byte, error) {
			tb, err := lga.cache.get(t, lga.tile)
			if tb == nil {
				return nil, err
			}
			return tb.data, err
		}},
	} {
		b.Run(fmt.Sprintf("%s/z%d", bc.layer, bc.z), func(b *testing.B) {
			x0, y0 := mvt.TileOf(2.69, 13.89, bc.z)
			x1, y1 := mvt.TileOf(14.68, 4.27, bc.z)
			var tiles []lineTile
			for x := x0; x <= x1; x++ {
				for y := y0; y <= y1; y++ {
					tiles = append(tiles, lineTile{bc.layer, bc.z, x, y})
				}
			}
			bytes, n := 0, 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				data, err := bc.tile(tiles[i%len(tiles)])
				if err != nil {
					b.Fatal(err)
				}
				if len(data) > 0 {
					bytes += len(data)
					n++
				}
			}
			if n > 0 {
				b.ReportMetric(float64(bytes)/float64(n), "B/tile")
			}
		})
	}
}
