package console

import (
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	orbmvt "github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/simplify"

	"frameindex/grid"
	"frameindex/mvt"
)

// Tests of the map's line tiles (explore_lines.go): the outline and the
// state and LGA boundary lines as vector tiles, decoded with orb's MVT
// decoder (and GDAL's MVT driver when installed), not with the encoder's
// own code.

// tileX and tileY are a longitude's and latitude's floored tile
// coordinates at zoom z in tile x, y (written here again, independently
// of ogc's projection).
func tileX(lon float64, z, x int) float64 {
	return math.Floor((lon+180)/360*4096*math.Exp2(float64(z))) - float64(x)*4096
}

func tileY(lat float64, z, y int) float64 {
	s := math.Sin(lat * math.Pi / 180)
	m := 0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)
	return math.Floor(m*4096*math.Exp2(float64(z))) - float64(y)*4096
}

// decodeTile decodes a tile that must hold one layer, named layer.
func decodeTile(t *testing.T, body []byte, layer string) *orbmvt.Layer {
	t.Helper()
	ls, err := orbmvt.Unmarshal(body)
	if err != nil {
		t.Fatalf("the tile does not decode: %v", err)
	}
	if len(ls) != 1 || ls[0].Name != layer || ls[0].Extent != 4096 || ls[0].Version != 2 {
		t.Fatalf("layers %+v, want one named %s of extent 4096", ls, layer)
	}
	return ls[0]
}

// linesOf returns the lines of a layer's features, which must be lines.
func linesOf(t *testing.T, l *orbmvt.Layer) orb.MultiLineString {
	t.Helper()
	var out orb.MultiLineString
	for _, f := range l.Features {
		switch g := f.Geometry.(type) {
		case orb.LineString:
			out = append(out, g)
		case orb.MultiLineString:
			out = append(out, g...)
		default:
			t.Fatalf("a %T in layer %s", g, l.Name)
		}
	}
	return out
}

func TestExplore_LineTiles(t *testing.T) {
	f, _ := exploreFixture(t)
	mo := f.signedIn("mo")
	mo.openExplore() // mints mo's key
	// The fixture's frames: a 4 x 4 block at (9.09, 7.41), two states and
	// two LGAs split down the middle.
	r0, c0 := grid.CellAt(9.09, 7.41)
	x9, y9 := mvt.TileOf(7.42, 9.08, 9)
	tile := func(layer string, z, x, y int) string {
		return "/console/explore/lines/" + layer + "/" + strconv.Itoa(z) + "/" + strconv.Itoa(y) + "/" + strconv.Itoa(x)
	}
	// The split, in tile coordinates.
	split := orb.LineString{{tileX(grid.Lon(c0+2), 9, x9), tileY(grid.Lat(r0), 9, y9)}, {tileX(grid.Lon(c0+2), 9, x9), tileY(grid.Lat(r0+4), 9, y9)}}
	for _, tc := range []struct {
		name   string
		path   string
		status int
		layer  string
	}{
		{"outline", tile("outline", 9, x9, y9), 200, "outline"},
		{"outline at zoom 5", tile("outline", 5, x9>>4, y9>>4), 200, "outline"},
		{"outline, far away", tile("outline", 9, 0, 0), 204, ""},
		{"state lines", tile("state", 9, x9, y9), 200, "state"},
		{"lga lines", tile("lga", 9, x9, y9), 200, "lga"},
		{"state lines at zoom 4", tile("state", 4, x9>>5, y9>>5), 200, "state"},
		{"lga lines, far away", tile("lga", 9, x9+3, y9), 204, ""},
		{"lga below zoom 7", tile("lga", 6, x9>>3, y9>>3), 404, ""},
		{"state below zoom 4", tile("state", 3, 4, 3), 404, ""},
		{"beyond zoom 9", tile("outline", 10, 2*x9, 2*y9), 404, ""},
		{"x outside the matrix", tile("outline", 9, 512, 0), 404, ""},
		{"y outside the matrix", tile("state", 9, 0, 512), 404, ""},
		{"ward lines", tile("ward", 9, x9, y9), 404, ""},
		{"not a number", "/console/explore/lines/outline/a/0/0", 404, ""},
		{"negative", "/console/explore/lines/outline/-1/0/0", 404, ""},
		{"huge", "/console/explore/lines/outline/123456789/0/0", 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := mo.get(tc.path)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.300s", res.StatusCode, tc.status, body)
			}
			if tc.status == 404 {
				if apiError(t, body) != "not_found" {
					t.Errorf("error %s", body)
				}
				return
			}
			if cc := res.Header.Get("Cache-Control"); cc != "private, max-age=300" {
				t.Errorf("Cache-Control %q", cc)
			}
			if tc.status == 204 {
				if body != "" {
					t.Errorf("204 with a body of %d bytes", len(body))
				}
				return
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/vnd.mapbox-vector-tile" {
				t.Errorf("Content-Type %q", ct)
			}
			l := decodeTile(t, []byte(body), tc.layer)
			if len(l.Features) != 1 {
				t.Fatalf("%d features", len(l.Features))
			}
			switch {
			case tc.layer == "outline":
				if _, ok := l.Features[0].Geometry.(orb.Polygon); !ok {
					t.Errorf("the outline is a %T", l.Features[0].Geometry)
				}
			case strings.Contains(tc.name, "zoom 4"):
				if len(linesOf(t, l)) == 0 {
					t.Error("no line")
				}
			default:
				// The split between the areas, once, on the frames'
				// edges (their floored tile coordinates).
				got := linesOf(t, l)
				if len(got) != 1 || !(got[0].Equal(split) || got[0].Equal(reversed(split))) {
					t.Errorf("lines %v, want %v", got, split)
				}
			}
		})
	}
	// Another organisation: the outline, not acme's boundary lines.
	rv := f.signedIn("rivo")
	rv.openExplore()
	if res, body := rv.get(tile("state", 9, x9, y9)); res.StatusCode != 404 || apiError(t, body) != "not_found" {
		t.Errorf("rival reads acme's state lines: %d %s", res.StatusCode, body)
	}
	if res, _ := rv.get(tile("outline", 9, x9, y9)); res.StatusCode != 200 {
		t.Errorf("rival's outline: %d", res.StatusCode)
	}
	// Without a key (never opened Explore): the boundary lines say what to
	// do; the outline is drawn.
	ada := f.signedIn("ada")
	if res, body := ada.get(tile("lga", 9, x9, y9)); res.StatusCode != 401 || !strings.Contains(body, "open Explore again") {
		t.Errorf("no key: %d %s", res.StatusCode, body)
	}
	if res, _ := ada.get(tile("outline", 9, x9, y9)); res.StatusCode != 200 {
		t.Errorf("outline without a key: %d", res.StatusCode)
	}
	// Signed out: the sign-in page.
	if res, _ := f.client().get(tile("outline", 9, x9, y9)); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/console/signin") {
		t.Errorf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
}

// reversed returns a copy of l backwards.
func reversed(l orb.LineString) orb.LineString {
	r := slices.Clone(l)
	slices.Reverse(r)
	return r
}

func TestParseLineTile(t *testing.T) {
	for _, tc := range []struct {
		layer, z, y, x string
		ok             bool
	}{
		{"outline", "0", "0", "0", true},
		{"outline", "9", "511", "511", true},
		{"outline", "10", "0", "0", false},
		{"outline", "9", "512", "0", false},
		{"outline", "9", "0", "512", false},
		{"state", "4", "7", "8", true},
		{"state", "3", "3", "4", false},
		{"lga", "7", "60", "66", true},
		{"lga", "6", "30", "33", false},
		{"ward", "9", "0", "0", false},
		{"", "9", "0", "0", false},
		{"outline", "", "0", "0", false},
		{"outline", "+1", "0", "0", false},
		{"outline", "1.0", "0", "0", false},
		{"outline", "09", "0", "0", true}, // leading zeros are still the number
		{"outline", "99999999", "0", "0", false},
	} {
		t.Run(strings.Join([]string{tc.layer, tc.z, tc.y, tc.x}, "/"), func(t *testing.T) {
			lt, ok := parseLineTile(tc.layer, tc.z, tc.y, tc.x)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v (%+v)", ok, tc.ok, lt)
			}
			z, _ := strconv.Atoi(tc.z)
			xx, _ := strconv.Atoi(tc.x)
			yy, _ := strconv.Atoi(tc.y)
			if ok && lt != (lineTile{tc.layer, z, xx, yy}) {
				t.Errorf("%+v", lt)
			}
		})
	}
}

func TestEdgesLines(t *testing.T) {
	type cell struct {
		row, col int
		v        string
	}
	pt := func(row, col int) orb.Point { return orb.Point{grid.Lon(col), grid.Lat(row)} }
	for _, tc := range []struct {
		name  string
		cells []cell
		want  []orb.LineString
	}{
		{
			// a | a | b over a | b | b: one staircase line, the steps
			// joined; row 13 is not adjacent to row 11.
			"staircase",
			[]cell{{10, 5, "a"}, {10, 6, "a"}, {10, 7, "b"}, {11, 5, "a"}, {11, 6, "b"}, {11, 7, "b"}, {13, 5, "c"}},
			[]orb.LineString{{pt(10, 7), pt(11, 7), pt(11, 6), pt(12, 6)}},
		},
		{
			// b inside a ring of a: a closed loop around it.
			"enclave",
			[]cell{{0, 0, "a"}, {0, 1, "a"}, {0, 2, "a"}, {1, 0, "a"}, {1, 1, "b"}, {1, 2, "a"}, {2, 0, "a"}, {2, 1, "a"}, {2, 2, "a"}},
			[]orb.LineString{{pt(1, 1), pt(1, 2), pt(2, 2), pt(2, 1), pt(1, 1)}},
		},
		{
			// a | b over c | c: a T, the stem ending on the bar.
			"junction",
			[]cell{{5, 5, "a"}, {5, 6, "b"}, {6, 5, "c"}, {6, 6, "c"}},
			[]orb.LineString{{pt(6, 5), pt(6, 7)}, {pt(5, 6), pt(6, 6)}},
		},
		{"nothing", []cell{{5, 5, "a"}, {5, 6, "a"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEdges()
			for _, c := range tc.cells {
				e.add(c.row, c.col, c.v)
			}
			got := e.lines()
			if len(got) != len(tc.want) {
				t.Fatalf("lines %v, want %v", got, tc.want)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					if sameLine(g, w) {
						found = true
					}
				}
				if !found {
					t.Errorf("no line %v in %v", w, got)
				}
			}
		})
	}
}

// sameLine reports whether a and b are the same line, either way round
// and, for closed loops, from any start.
func sameLine(a, b orb.LineString) bool {
	if len(a) != len(b) {
		return false
	}
	if a.Equal(b) || a.Equal(reversed(b)) {
		return true
	}
	if len(a) < 2 || a[0] != a[len(a)-1] || b[0] != b[len(b)-1] {
		return false
	}
	ring := b[:len(b)-1]
	for s := range ring {
		r := append(slices.Clone(ring[s:]), ring[:s]...)
		r = append(r, r[0])
		if a.Equal(r) || a.Equal(reversed(r)) {
			return true
		}
	}
	return false
}

// TestLineSet_Clipping: lines crossing a tile are cut at its buffer (64
// units beyond each edge); a line within the buffer is drawn, one beyond
// it is not.
func TestLineSet_Clipping(t *testing.T) {
	const z = 8
	x, y := mvt.TileOf(7.5, 9.0, z)
	b := mvt.Bounds(z, x, y, 0)
	unit := (b.Max[0] - b.Min[0]) / 4096 // degrees of longitude a tile unit
	midLat := (b.Min[1] + b.Max[1]) / 2
	midLon := (b.Min[0] + b.Max[0]) / 2
	for _, tc := range []struct {
		name  string
		line  orb.LineString
		check func(t *testing.T, got orb.MultiLineString)
	}{
		{"across west to east", orb.LineString{{b.Min[0] - 1, midLat}, {b.Max[0] + 1, midLat}}, func(t *testing.T, got orb.MultiLineString) {
			yy := tileY(midLat, z, y)
			want := orb.LineString{{-64, yy}, {4160, yy}}
			if len(got) != 1 || !(got[0].Equal(want) || got[0].Equal(reversed(want))) {
				t.Errorf("got %v, want %v", got, want)
			}
		}},
		{"across north to south", orb.LineString{{midLon, b.Max[1] + 1}, {midLon, b.Min[1] - 1}}, func(t *testing.T, got orb.MultiLineString) {
			xx := tileX(midLon, z, x)
			if len(got) != 1 || len(got[0]) != 2 || got[0][0] != (orb.Point{xx, -64}) || got[0][1] != (orb.Point{xx, 4160}) {
				t.Errorf("got %v", got)
			}
		}},
		{"in and out again", orb.LineString{{b.Min[0] - 1, midLat}, {midLon, midLat}, {midLon, b.Max[1] + 1}}, func(t *testing.T, got orb.MultiLineString) {
			if len(got) != 1 || len(got[0]) != 3 {
				t.Fatalf("got %v", got)
			}
			for _, p := range got[0] {
				if p[0] < -64 || p[0] > 4160 || p[1] < -64 || p[1] > 4160 {
					t.Errorf("point %v outside the tile and its buffer", p)
				}
			}
		}},
		{"in the buffer", orb.LineString{{b.Min[0] - 30*unit, midLat}, {b.Min[0] - 20*unit, midLat + 0.01}}, func(t *testing.T, got orb.MultiLineString) {
			if len(got) != 1 || got[0][0][0] > -19 || got[0][0][0] < -31 {
				t.Errorf("got %v", got)
			}
		}},
		{"beyond the buffer", orb.LineString{{b.Min[0] - 100*unit, midLat}, {b.Min[0] - 80*unit, midLat + 0.01}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls := newLineSet([]orb.LineString{tc.line}, 0)
			data, err := ls.tile(lineTile{"lga", z, x, y})
			if err != nil {
				t.Fatal(err)
			}
			if tc.check == nil {
				if data != nil {
					t.Fatalf("a tile of %d bytes for a line beyond the buffer", len(data))
				}
				return
			}
			if data == nil {
				t.Fatal("no tile")
			}
			tc.check(t, linesOf(t, decodeTile(t, data, "lga")))
		})
	}
}

// nigeriaOutline reads the repository's outline of Nigeria.
func nigeriaOutline(t testing.TB) []byte {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "nigeria-outline.geojson"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOutlineSet_Bins: a tile of the outline cut from its bin covers the
// same area as one cut from the whole outline of its zoom.
func TestOutlineSet_Bins(t *testing.T) {
	raw := nigeriaOutline(t)
	o, err := newOutlineSet(raw)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := newOutlineSet(raw)
	if err != nil {
		t.Fatal(err)
	}
	area := func(data []byte) float64 {
		if data == nil {
			return 0
		}
		l := decodeTile(t, data, "outline")
		a := 0.0
		for _, f := range l.Features {
			switch g := f.Geometry.(type) {
			case orb.Polygon:
				a += polygonArea(g)
			case orb.MultiPolygon:
				for _, p := range g {
					a += polygonArea(p)
				}
			}
		}
		return a
	}
	tiles := 0
	for _, z := range []int{6, 7, 9} {
		// The whole outline of zoom z, as the tiles below zoom 6 use it.
		dp := simplify.DouglasPeucker(zoomTolerance(z))
		whole.zooms[z] = nil
		for _, p := range mustPolygons(t, raw) {
			s := dp.Polygon(p.Clone())
			if len(s) > 0 && len(s[0]) >= 4 {
				whole.zooms[z] = append(whole.zooms[z], outlinePolygon{poly: s, bound: s.Bound()})
			}
		}
		whole.bins[z] = nil
		x0, y0 := mvt.TileOf(2.6, 13.95, z)
		x1, y1 := mvt.TileOf(14.75, 4.2, z)
		step := max(1, (x1-x0)/12)
		for x := x0; x <= x1; x += step {
			for y := y0; y <= y1; y += step {
				lt := lineTile{"outline", z, x, y}
				a, err := o.tile(lt)
				if err != nil {
					t.Fatal(err)
				}
				w, err := wholeTile(whole, lt)
				if err != nil {
					t.Fatal(err)
				}
				ga, wa := area(a), area(w)
				if math.Abs(ga-wa) > 0.002*math.Max(ga, wa)+64 {
					t.Errorf("tile %d/%d/%d: area %.0f from its bin, %.0f from the whole outline", z, x, y, ga, wa)
				}
				if wa > 0 {
					tiles++
				}
			}
		}
	}
	if tiles < 20 {
		t.Errorf("only %d tiles compared", tiles)
	}
}

// wholeTile is outlineSet.tile without the bins.
func wholeTile(o *outlineSet, t lineTile) ([]byte, error) {
	var mp orb.MultiPolygon
	for _, p := range o.zooms[t.z] {
		mp = append(mp, p.poly)
	}
	vt := mvt.New(t.layer, t.z, t.x, t.y)
	if !vt.Add(mp) {
		return nil, nil
	}
	return vt.Encode()
}

// mustPolygons returns the polygons of a GeoJSON FeatureCollection.
func mustPolygons(t *testing.T, raw []byte) []orb.Polygon {
	fc, err := geojson.UnmarshalFeatureCollection(raw)
	if err != nil {
		t.Fatal(err)
	}
	var polys []orb.Polygon
	for _, f := range fc.Features {
		switch g := f.Geometry.(type) {
		case orb.Polygon:
			polys = append(polys, g)
		case orb.MultiPolygon:
			polys = append(polys, g...)
		}
	}
	return polys
}

func polygonArea(p orb.Polygon) float64 {
	a := 0.0
	for i, r := range p {
		s := 0.0
		for j := range r {
			q, n := r[j], r[(j+1)%len(r)]
			s += q[0]*n[1] - n[0]*q[1]
		}
		if i == 0 {
			a += math.Abs(s) / 2
		} else {
			a -= math.Abs(s) / 2
		}
	}
	return a
}

var ogrPoint = regexp.MustCompile(`(-?[0-9.]+) (-?[0-9.]+)`)

// TestLineTile_GDAL: GDAL's MVT driver reads a line tile, and puts its
// line where the frames' edge is (in EPSG:3857, within a tile unit).
func TestLineTile_GDAL(t *testing.T) {
	ogrinfo, err := exec.LookPath("ogrinfo")
	if err != nil {
		t.Skip("gdal-bin not installed: ogrinfo absent")
	}
	// A vertical edge west of column c0, rows r0 to r0+10, in the middle
	// of a tile of zoom 9.
	const z = 9
	x, y := mvt.TileOf(7.5, 9.0, z)
	mid := mvt.Bounds(z, x, y, 0).Center()
	r0, c0 := grid.CellAt(mid[1], mid[0])
	e := newEdges()
	for r := r0; r < r0+10; r++ {
		e.add(r, c0-1, "a")
		e.add(r, c0, "b")
	}
	ls := newLineSet(e.lines(), 7)
	lon := grid.Lon(c0)
	data, err := ls.tile(lineTile{"lga", z, x, y})
	if err != nil || data == nil {
		t.Fatalf("tile: %v (%d bytes)", err, len(data))
	}
	// GDAL reads z, x and y from the path.
	dir := filepath.Join(t.TempDir(), strconv.Itoa(z), strconv.Itoa(x))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, strconv.Itoa(y)+".pbf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ogrinfo, "-ro", "-al", "-q", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, out)
	}
	s := string(out)
	i := strings.Index(s, "LINESTRING")
	if !strings.Contains(s, "Layer name: lga") || i < 0 {
		t.Fatalf("ogrinfo:\n%s", s)
	}
	const r = 6378137.0
	wantX := lon * math.Pi / 180 * r
	unit := 2 * math.Pi * r / (4096 * math.Exp2(z)) // metres a tile unit
	pts := ogrPoint.FindAllStringSubmatch(s[i:], -1)
	if len(pts) != 2 {
		t.Fatalf("points %v in:\n%s", pts, s)
	}
	var ys []float64
	for _, p := range pts {
		px, _ := strconv.ParseFloat(p[1], 64)
		py, _ := strconv.ParseFloat(p[2], 64)
		if math.Abs(px-wantX) > 1.5*unit {
			t.Errorf("x %.1f, want %.1f (a tile unit is %.1f m)", px, wantX, unit)
		}
		ys = append(ys, py)
	}
	merc := func(lat float64) float64 { return r * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)) }
	slices.Sort(ys)
	if math.Abs(ys[0]-merc(grid.Lat(r0+10))) > 1.5*unit || math.Abs(ys[1]-merc(grid.Lat(r0))) > 1.5*unit {
		t.Errorf("y %v, want %.1f and %.1f", ys, merc(grid.Lat(r0+10)), merc(grid.Lat(r0)))
	}
}

// TestTileCache: a tile is encoded once, gzipped from 1 KB; an empty one
// is not kept.
func TestTileCache(t *testing.T) {
	var c tileCache
	calls := 0
	enc := func(lt lineTile) ([]byte, error) {
		calls++
		if lt.x == 0 {
			return nil, nil
		}
		return []byte(strings.Repeat("line", lt.x)), nil
	}
	for _, tc := range []struct {
		name  string
		tile  lineTile
		calls int
		gz    bool
		empty bool
	}{
		{"small", lineTile{"lga", 9, 10, 1}, 1, false, false},
		{"small again", lineTile{"lga", 9, 10, 1}, 1, false, false},
		{"large", lineTile{"lga", 9, 500, 1}, 2, true, false},
		{"large again", lineTile{"lga", 9, 500, 1}, 2, true, false},
		{"empty", lineTile{"lga", 9, 0, 1}, 3, false, true},
		{"empty again", lineTile{"lga", 9, 0, 1}, 4, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := c.get(tc.tile, enc)
			if err != nil {
				t.Fatal(err)
			}
			if calls != tc.calls || (tb == nil) != tc.empty || (!tc.empty && (tb.gz != nil) != tc.gz) {
				t.Errorf("calls %d, tile %+v", calls, tb)
			}
		})
	}
}
