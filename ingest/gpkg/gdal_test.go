package gpkg

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// dataDir is /work/shared/data/nga, found from the repository root.
func dataDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nga")
	if _, err := os.Stat(filepath.Join(dir, "nga_lgas.geojson")); err != nil {
		t.Skipf("Nigerian test data absent: %v", err)
	}
	return dir
}

func needOGR(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("ogr2ogr"); err != nil {
		t.Skip("gdal-bin not installed: ogr2ogr absent")
	}
}

var (
	fixtureMu  sync.Mutex
	fixtureDir string
	fixtures   = map[string]string{}
)

// ogrFixture runs ogr2ogr once per name (args follow "-f GPKG OUT") and
// returns the output path; the files live in one temp dir for the run.
func ogrFixture(t testing.TB, name string, args ...string) string {
	t.Helper()
	needOGR(t)
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if p, ok := fixtures[name]; ok {
		return p
	}
	if fixtureDir == "" {
		d, err := os.MkdirTemp("", "gpkg-test-")
		if err != nil {
			t.Fatal(err)
		}
		fixtureDir = d
	}
	out := filepath.Join(fixtureDir, name)
	for _, step := range strings.Split(strings.Join(args, " "), " ;; ") {
		cmd := exec.Command("ogr2ogr", append([]string{"-f", "GPKG", out}, strings.Fields(step)...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ogr2ogr %s: %v\n%s", step, err, b)
		}
	}
	fixtures[name] = out
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

type geoFeature struct {
	Geometry *struct {
		Type        string
		Coordinates json.RawMessage
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

func readGeoJSON(t *testing.T, path string) []geoFeature {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct{ Features []geoFeature }
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	return fc.Features
}

// TestAgainstGeoJSONOriginals converts the Nigerian LGA polygons and health
// facility points to GeoPackage with ogr2ogr and checks that the reader
// gives back the original features: same count, order, properties, and
// coordinates within the 7-decimal rounding (rings possibly reversed, as
// RFC 7946 winding asks).
func TestAgainstGeoJSONOriginals(t *testing.T) {
	dir := dataDir(t)
	for _, name := range []string{"nga_lgas", "nga_health_facilities_osm"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(dir, name+".geojson")
			path := ogrFixture(t, name+".gpkg", src)
			want := readGeoJSON(t, src)
			r, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Layer() != name {
				t.Errorf("layer %q", r.Layer())
			}
			got := readAll(t, r)
			if len(got) != len(want) {
				t.Fatalf("%d features, want %d", len(got), len(want))
			}
			bad := 0
			for i, f := range got {
				var g geoFeature
				if err := json.Unmarshal(f.JSON, &g); err != nil {
					t.Fatalf("feature %d: %v\n%s", i, err, f.JSON)
				}
				if f.FID != int64(i+1) {
					t.Errorf("feature %d: fid %d", i, f.FID)
				}
				if err := sameFeature(g, want[i]); err != nil {
					bad++
					if bad <= 3 {
						t.Errorf("feature %d: %v", i, err)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d features differ", bad, len(got))
			}
		})
	}
}

func sameFeature(got, want geoFeature) error {
	if !reflect.DeepEqual(got.Properties, want.Properties) {
		return fmt.Errorf("properties %v, want %v", got.Properties, want.Properties)
	}
	if got.Geometry == nil || want.Geometry == nil {
		if got.Geometry != want.Geometry {
			return fmt.Errorf("geometry %v, want %v", got.Geometry, want.Geometry)
		}
		return nil
	}
	if got.Geometry.Type != want.Geometry.Type {
		return fmt.Errorf("geometry type %s, want %s", got.Geometry.Type, want.Geometry.Type)
	}
	var g, w any
	json.Unmarshal(got.Geometry.Coordinates, &g)
	json.Unmarshal(want.Geometry.Coordinates, &w)
	return sameCoords(g, w, 0)
}

// sameCoords compares nested coordinate arrays within 1e-7 degrees; a ring
// (depth where members are positions, in a Polygon) may be reversed.
func sameCoords(g, w any, depth int) error {
	ga, ok1 := g.([]any)
	wa, ok2 := w.([]any)
	if !ok1 || !ok2 {
		return fmt.Errorf("shape differs at depth %d", depth)
	}
	if len(ga) != len(wa) {
		return fmt.Errorf("%d members at depth %d, want %d", len(ga), depth, len(wa))
	}
	if len(ga) > 0 {
		if _, isNum := ga[0].(float64); isNum {
			for i := range ga {
				if math.Abs(ga[i].(float64)-wa[i].(float64)) > 1e-7 {
					return fmt.Errorf("coordinate %v, want %v", ga, wa)
				}
			}
			return nil
		}
		if pos, ok := ga[0].([]any); ok && len(pos) > 0 {
			if _, isNum := pos[0].(float64); isNum && len(ga) >= 4 {
				// a ring or line: forwards or backwards
				if err := sameSeq(ga, wa, false); err == nil {
					return nil
				}
				return sameSeq(ga, wa, true)
			}
		}
	}
	for i := range ga {
		if err := sameCoords(ga[i], wa[i], depth+1); err != nil {
			return err
		}
	}
	return nil
}

func sameSeq(g, w []any, reverse bool) error {
	for i := range g {
		j := i
		if reverse {
			j = len(w) - 1 - i
		}
		if err := sameCoords(g[i], w[j], 99); err != nil {
			return err
		}
	}
	return nil
}

func TestMultiLayerFile(t *testing.T) {
	dir := dataDir(t)
	path := ogrFixture(t, "multi.gpkg",
		filepath.Join(dir, "nga_lgas.geojson")+" -nln lgas ;; -update "+filepath.Join(dir, "nga_health_facilities_osm.geojson")+" -nln health")
	_, err := Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), `2 feature layers ("health", "lgas")`) {
		t.Fatalf("no layer named: %v", err)
	}
	_, err = Open(path, Options{Layer: "wards"})
	if err == nil || !strings.Contains(err.Error(), `no feature layer "wards"; the layers are "health", "lgas"`) {
		t.Fatalf("missing layer: %v", err)
	}
	r, err := Open(path, Options{Layer: "health"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Layers(); !reflect.DeepEqual(got, []string{"health", "lgas"}) {
		t.Errorf("layers %v", got)
	}
	if n := len(readAll(t, r)); n != 4385 {
		t.Errorf("%d health features", n)
	}
}

func TestUTMLayer(t *testing.T) {
	dir := dataDir(t)
	path := ogrFixture(t, "utm.gpkg", filepath.Join(dir, "nga_health_facilities_osm.geojson")+" -t_srs EPSG:32632 -nln utm")
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "32632") {
		t.Fatalf("nil hook: %v, want a refusal naming EPSG 32632", err)
	}
	var calls int
	r, err := Open(path, Options{Transform: func(id int, org string, code int, def string) (func(x, y float64) (float64, float64), error) {
		calls++
		if id != 32632 || !strings.EqualFold(org, "EPSG") || code != 32632 || !strings.Contains(def, "UTM zone 32N") {
			t.Errorf("hook got %d %q %d %.60q", id, org, code, def)
		}
		return func(x, y float64) (float64, float64) { return x / 1e5, y / 1e5 }, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if calls != 1 {
		t.Errorf("hook called %d times", calls)
	}
	fs := readAll(t, r)
	if len(fs) != 4385 {
		t.Errorf("%d features", len(fs))
	}
	// Easting of Nigeria in zone 32 is 0..1.6e6 m, northing 0.4e6..1.6e6 m.
	var g geoFeature
	json.Unmarshal(fs[0].JSON, &g)
	var c []float64
	json.Unmarshal(g.Geometry.Coordinates, &c)
	if len(c) != 2 || c[0] < -10 || c[0] > 20 || c[1] < 4 || c[1] > 16 {
		t.Errorf("transformed point %v", c)
	}
}
