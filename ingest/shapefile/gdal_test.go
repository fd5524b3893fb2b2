package shapefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

func needOGR(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("ogr2ogr"); err != nil {
		t.Skip("gdal-bin not installed: ogr2ogr absent")
	}
}

// ngaData returns a file of the shared Nigerian test data, skipping the
// test when the data is absent.
func ngaData(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found: test data absent")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "data", "nga", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("test data %s absent", p)
	}
	return p
}

func ogr2ogr(t testing.TB, args ...string) {
	t.Helper()
	out, err := exec.Command("ogr2ogr", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ogr2ogr %v: %v\n%s", args, err, out)
	}
}

// gjFeature is a decoded GeoJSON feature: properties in order, geometry as
// polygons → rings → points (points and lines are one-ring polygons).
type gjFeature struct {
	keys  []string
	props []any
	geom  [][][]pt
	gtype string
}

func decodeFeature(t testing.TB, raw []byte) gjFeature {
	t.Helper()
	var f struct {
		Properties json.RawMessage `json:"properties"`
		Geometry   *struct {
			Type        string          `json:"type"`
			Coordinates json.RawMessage `json:"coordinates"`
		} `json:"geometry"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var out gjFeature
	dec := json.NewDecoder(bytes.NewReader(f.Properties))
	dec.UseNumber()
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			k, _ := dec.Token()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			out.keys = append(out.keys, k.(string))
			out.props = append(out.props, v)
		}
	}
	if f.Geometry == nil {
		return out
	}
	out.gtype = f.Geometry.Type
	toPts := func(c [][]float64) []pt {
		r := make([]pt, len(c))
		for i, p := range c {
			r[i] = pt{p[0], p[1]}
		}
		return r
	}
	c := f.Geometry.Coordinates
	switch f.Geometry.Type {
	case "Point":
		var p []float64
		json.Unmarshal(c, &p)
		out.geom = [][][]pt{{{{p[0], p[1]}}}}
	case "MultiPoint", "LineString":
		var p [][]float64
		json.Unmarshal(c, &p)
		out.geom = [][][]pt{{toPts(p)}}
	case "Polygon", "MultiLineString":
		var p [][][]float64
		json.Unmarshal(c, &p)
		var poly [][]pt
		for _, r := range p {
			poly = append(poly, toPts(r))
		}
		out.geom = [][][]pt{poly}
	case "MultiPolygon":
		var p [][][][]float64
		json.Unmarshal(c, &p)
		for _, pp := range p {
			var poly [][]pt
			for _, r := range pp {
				poly = append(poly, toPts(r))
			}
			out.geom = append(out.geom, poly)
		}
	}
	return out
}

func signedArea(r []pt) float64 {
	a := 0.0
	for i := 0; i+1 < len(r); i++ {
		a += r[i].x*r[i+1].y - r[i+1].x*r[i].y
	}
	return a
}

// canonical orients exteriors counter-clockwise and holes clockwise and
// sorts polygons and holes by their first point, so that geometries from
// different writers compare point by point. It reports whether the input
// already had RFC 7946 winding.
func canonical(g [][][]pt) ([][][]pt, bool) {
	rfc := true
	out := make([][][]pt, len(g))
	for i, poly := range g {
		out[i] = make([][]pt, len(poly))
		for j, r := range poly {
			r = append([]pt(nil), r...)
			if a := signedArea(r); len(r) > 3 && ((j == 0 && a < 0) || (j > 0 && a > 0)) {
				rfc = false
				for x, y := 0, len(r)-1; x < y; x, y = x+1, y-1 {
					r[x], r[y] = r[y], r[x]
				}
			}
			out[i][j] = r
		}
		holes := out[i][1:]
		sort.Slice(holes, func(a, b int) bool { return less(holes[a][0], holes[b][0]) })
	}
	sort.Slice(out, func(a, b int) bool { return less(out[a][0][0], out[b][0][0]) })
	return out, rfc
}

func less(a, b pt) bool {
	if a.x != b.x {
		return a.x < b.x
	}
	return a.y < b.y
}

// geomDiff returns the largest coordinate difference (degrees) between two
// canonical geometries and how many points differ by more than tol, or an
// error when their structure differs.
func geomDiff(a, b [][][]pt, tol float64) (worst float64, over, n int, err error) {
	if len(a) != len(b) {
		return 0, 0, 0, fmt.Errorf("%d polygons/parts, want %d", len(a), len(b))
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return 0, 0, 0, fmt.Errorf("part %d: %d rings, want %d", i, len(a[i]), len(b[i]))
		}
		for j := range a[i] {
			if len(a[i][j]) != len(b[i][j]) {
				return 0, 0, 0, fmt.Errorf("part %d ring %d: %d points, want %d", i, j, len(a[i][j]), len(b[i][j]))
			}
			for k := range a[i][j] {
				d := math.Max(math.Abs(a[i][j][k].x-b[i][j][k].x), math.Abs(a[i][j][k].y-b[i][j][k].y))
				worst = math.Max(worst, d)
				if d > tol {
					over++
				}
				n++
			}
		}
	}
	return worst, over, n, nil
}

func readFeatures(t testing.TB, p string, opts Options) []gjFeature {
	t.Helper()
	texts, err := readAll(t, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	fs := make([]gjFeature, len(texts))
	for i, s := range texts {
		fs[i] = decodeFeature(t, []byte(s))
	}
	return fs
}

func readGeoJSONFile(t testing.TB, p string) []gjFeature {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct{ Features []json.RawMessage }
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	fs := make([]gjFeature, len(fc.Features))
	for i, f := range fc.Features {
		fs[i] = decodeFeature(t, f)
	}
	return fs
}

// sameValue compares a property read from the shapefile with the original
// GeoJSON value: text equal (empty text reads as null), numbers equal to
// 1e-9 relative, integers kept integers.
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case string:
		if w == "" {
			return got == nil
		}
		return got == w
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return false
		}
		if _, err := w.Int64(); err == nil {
			_, err2 := g.Int64()
			return err2 == nil && g == w
		}
		gf, _ := g.Float64()
		wf, _ := w.Float64()
		return math.Abs(gf-wf) <= 1e-9*math.Max(1, math.Abs(wf))
	}
	return false
}

// TestAgainstOGR writes shapefiles from the Nigerian GeoJSON with ogr2ogr
// in several coordinate systems and compares what Reader returns with the
// original and with GDAL's own reading of the same shapefile.
func TestAgainstOGR(t *testing.T) {
	needOGR(t)
	lgas := ngaData(t, "nga_lgas.geojson")
	health := ngaData(t, "nga_health_facilities_osm.geojson")
	tests := []struct {
		name, src, srs string
		lco            []string
		tolOrig        float64 // degrees, against the original
		maxOver        float64 // fraction of points allowed beyond tolOrig
		zip            bool
	}{
		{"lgas EPSG:32632", lgas, "EPSG:32632", []string{"-lco", "ENCODING=UTF-8"}, 1e-6, 0, false},
		// Minna: GDAL picks the datum transformation per point by area of
		// use, tested in WGS 84 when writing and in projected coordinates
		// when reading, so near the edges of those areas its own round trip
		// changes datum transformation and moves points by up to ~10 m
		// (0.1-0.5% of the LGA vertices). Reader matches GDAL's reading.
		{"lgas EPSG:26332", lgas, "EPSG:26332", []string{"-lco", "ENCODING=UTF-8"}, 1e-5, 0.01, false},
		{"lgas EPSG:26392", lgas, "EPSG:26392", []string{"-lco", "ENCODING=UTF-8"}, 1e-5, 0.01, false},
		{"health EPSG:4326 UTF-8", health, "EPSG:4326", []string{"-lco", "ENCODING=UTF-8"}, 1e-7, 0, false},
		{"health EPSG:4326 zipped", health, "EPSG:4326", []string{"-lco", "ENCODING=UTF-8"}, 1e-7, 0, true},
		{"health EPSG:32631 default encoding", health, "EPSG:32631", nil, 1e-6, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			shp := filepath.Join(dir, "shp", "layer.shp")
			os.MkdirAll(filepath.Dir(shp), 0o755)
			args := append([]string{"-f", "ESRI Shapefile", "-t_srs", tc.srs}, tc.lco...)
			ogr2ogr(t, append(args, shp, tc.src)...)
			back := filepath.Join(dir, "back.geojson")
			ogr2ogr(t, "-f", "GeoJSON", "-t_srs", "EPSG:4326", "-lco", "COORDINATE_PRECISION=12", back, shp)

			path := shp
			if tc.zip {
				path = filepath.Join(dir, "layer.zip")
				zipDir(t, filepath.Dir(shp), path, "nga/")
			}
			got := readFeatures(t, path, Options{})
			orig := readGeoJSONFile(t, tc.src)
			oracle := readGeoJSONFile(t, back)
			if len(got) != len(orig) || len(got) != len(oracle) {
				t.Fatalf("%d features, original has %d, GDAL reads %d", len(got), len(orig), len(oracle))
			}
			var worstOrig, worstGDAL float64
			over, points := 0, 0
			for i := range got {
				g, rfc := canonical(got[i].geom)
				if !rfc {
					t.Fatalf("feature %d: winding is not RFC 7946", i)
				}
				o, _ := canonical(orig[i].geom)
				b, _ := canonical(oracle[i].geom)
				w, ov, n, err := geomDiff(g, o, tc.tolOrig)
				if err != nil {
					t.Fatalf("feature %d against the original: %v", i, err)
				}
				worstOrig, over, points = math.Max(worstOrig, w), over+ov, points+n
				w, _, _, err = geomDiff(g, b, 1e-7)
				if err != nil {
					t.Fatalf("feature %d against GDAL's reading: %v", i, err)
				}
				worstGDAL = math.Max(worstGDAL, w)

				// Properties: same order and values as GDAL reads them, and
				// as the original where the shapefile could hold it.
				if len(got[i].props) != len(oracle[i].props) || len(got[i].props) != len(orig[i].props) {
					t.Fatalf("feature %d: %d properties, GDAL %d, original %d", i, len(got[i].props), len(oracle[i].props), len(orig[i].props))
				}
				for k := range got[i].props {
					if got[i].keys[k] != oracle[i].keys[k] {
						t.Fatalf("feature %d property %d named %q, GDAL %q", i, k, got[i].keys[k], oracle[i].keys[k])
					}
					if !sameValue(got[i].props[k], oracle[i].props[k]) {
						t.Errorf("feature %d %s = %#v, GDAL reads %#v", i, got[i].keys[k], got[i].props[k], oracle[i].props[k])
					}
					if s, ok := orig[i].props[k].(string); ok && tc.lco == nil && !isLatin1(s) {
						continue // not representable in GDAL's default ISO-8859-1
					}
					if !sameValue(got[i].props[k], orig[i].props[k]) {
						t.Errorf("feature %d %s = %#v, original %#v", i, got[i].keys[k], got[i].props[k], orig[i].props[k])
					}
				}
			}
			if worstGDAL > 1e-7 {
				t.Errorf("largest difference from GDAL's reading %.2g°", worstGDAL)
			}
			if worstOrig > 2e-4 {
				t.Errorf("largest difference from the original %.2g°", worstOrig)
			}
			if float64(over) > tc.maxOver*float64(points) {
				t.Errorf("%d of %d points differ from the original by more than %g°", over, points, tc.tolOrig)
			}
			t.Logf("%d features, %d points: largest difference from the original %.2g° (%d beyond %g°), from GDAL's reading %.2g°",
				len(got), points, worstOrig, over, tc.tolOrig, worstGDAL)
		})
	}
}

func isLatin1(s string) bool {
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}
