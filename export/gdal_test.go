package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"frameindex/grid"
)

func needGDAL(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ogrinfo", "ogr2ogr"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("gdal-bin not installed: %s absent", tool)
		}
	}
}

// run runs a command and returns stdout and stderr.
func run(t *testing.T, name string, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// TestGDALReadsBack writes each format and reads it back with ogrinfo and
// ogr2ogr: feature count, field names and types, no warnings, and every
// geometry and value.
func TestGDALReadsBack(t *testing.T) {
	needGDAL(t)
	frames := testFrames()
	byID := map[string]Frame{}
	for _, f := range frames {
		byID[strconv.FormatUint(f.ID, 10)] = f
	}
	for _, ext := range Formats {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "grid"+ext)
			writeAll(t, path, Options{Columns: testCols}, frames)

			info, stderr := run(t, "ogrinfo", "-al", "-so", path)
			if stderr != "" {
				t.Errorf("ogrinfo warns: %s", stderr)
			}
			wants := []string{"Feature Count: 12", "Geometry: Polygon", "frame_id: String", "pop: Real", "name: String", "count: Integer64",
				"Extent: (7.000000, 8.975000) - (7.033333, 9.000000)"}
			if ext != ".geojsonl" {
				wants = append(wants, "Layer name: frames", `ID["EPSG",4326]`)
			}
			for _, w := range wants {
				if !strings.Contains(info, w) {
					t.Errorf("ogrinfo lacks %q:\n%s", w, info)
				}
			}

			out, stderr := run(t, "ogr2ogr", "-f", "GeoJSON", "-lco", "SIGNIFICANT_FIGURES=17", "/vsistdout/", path)
			if stderr != "" {
				t.Errorf("ogr2ogr warns: %s", stderr)
			}
			var fc struct{ Features []jsonFeature }
			decodeJSON(t, []byte(out), &fc)
			if len(fc.Features) != len(frames) {
				t.Fatalf("%d features, want %d", len(fc.Features), len(frames))
			}
			for _, f := range fc.Features {
				id, _ := f.Properties["frame_id"].(string)
				want, ok := byID[id]
				if !ok {
					t.Fatalf("unknown frame_id %v", f.Properties["frame_id"])
				}
				checkRing(t, f.Geometry.Coordinates, cellRing(want.ID), false, ext == ".geojsonl")
				got := map[string]any{}
				for k, v := range f.Properties {
					if k != "id" && v != nil { // GDAL omits unset fields; compare without nulls
						got[k] = v
					}
				}
				wp := map[string]any{}
				for k, v := range wantProps(want) {
					if v != nil {
						wp[k] = v
					}
				}
				if !equalProps(got, wp) {
					t.Errorf("frame %s: properties %v, want %v", id, got, wp)
				}
			}
		})
	}
}

// TestGPKGValid runs GDAL's GeoPackage validator when its Python bindings
// are installed.
func TestGPKGValid(t *testing.T) {
	needGDAL(t)
	script := "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil || exec.Command(py, "-c", "import osgeo").Run() != nil {
		t.Skip("python3-gdal absent: GDAL's validate_gpkg.py cannot run")
	}
	if _, err := os.Stat(script); err != nil {
		t.Skip("validate_gpkg.py absent")
	}
	for _, multi := range []bool{false, true} {
		t.Run(fmt.Sprint("multi=", multi), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "grid.gpkg")
			writeAll(t, path, Options{Columns: testCols, Multi: multi}, testFrames())
			out, stderr := run(t, py, script, path)
			if out != "" || stderr != "" {
				t.Errorf("validate_gpkg.py: %s%s", out, stderr)
			}
		})
	}
}

// TestSpatialIndexQueries writes a 150 x 150 block (four index levels in
// FlatGeobuf) and asks GDAL for a window: the count must match the cells
// the window touches. GDAL answers through the index of each format.
func TestSpatialIndexQueries(t *testing.T) {
	needGDAL(t)
	r0, c0 := grid.CellAt(10.0, 5.0)
	var frames []Frame
	for r := r0; r < r0+150; r++ {
		for c := c0; c < c0+150; c++ {
			frames = append(frames, Frame{ID: grid.CellID(r, c)})
		}
	}
	// a window with its edges inside cells: columns c0+20..c0+26, rows
	// r0+39..r0+42 (rows count southwards)
	minLon, maxLon := grid.Lon(c0+20)+0.001, grid.Lon(c0+26)+0.001
	minLat, maxLat := grid.Lat(r0+43)+0.001, grid.Lat(r0+40)+0.001
	spat := []string{strconv.FormatFloat(minLon, 'f', -1, 64), strconv.FormatFloat(minLat, 'f', -1, 64),
		strconv.FormatFloat(maxLon, 'f', -1, 64), strconv.FormatFloat(maxLat, 'f', -1, 64)}
	for _, ext := range []string{".gpkg", ".fgb"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big"+ext)
			writeAll(t, path, Options{}, frames)
			if ext == ".fgb" {
				b, _ := os.ReadFile(path)
				checkFGBIndex(t, b, len(frames))
			}
			out, stderr := run(t, "ogrinfo", append([]string{"-al", "-q", "-spat"}, append(spat, path)...)...)
			if stderr != "" {
				t.Errorf("ogrinfo warns: %s", stderr)
			}
			if n := strings.Count(out, "OGRFeature("); n != 28 {
				t.Errorf("%d features in the window, want 28", n)
			}
			ids := map[string]bool{}
			for _, line := range strings.Split(out, "\n") {
				if i := strings.Index(line, "frame_id (String) = "); i >= 0 {
					ids[strings.TrimSpace(line[i+len("frame_id (String) = "):])] = true
				}
			}
			for r := r0 + 39; r <= r0+42; r++ {
				for c := c0 + 20; c <= c0+26; c++ {
					if id := strconv.FormatUint(grid.CellID(r, c), 10); !ids[id] {
						t.Errorf("cell %s missing from the window", id)
					}
				}
			}
		})
	}
	t.Run("fgb index is used", func(t *testing.T) {
		py, err := exec.LookPath("/usr/bin/python3")
		if err != nil || exec.Command(py, "-c", "import osgeo").Run() != nil {
			t.Skip("python3-gdal absent")
		}
		path := filepath.Join(t.TempDir(), "idx.fgb")
		writeAll(t, path, Options{}, frames[:100])
		out, _ := run(t, py, "-c", `import sys
from osgeo import ogr
ds = ogr.Open(sys.argv[1])
l = ds.GetLayer(0)
print(l.TestCapability(ogr.OLCFastSpatialFilter), l.TestCapability(ogr.OLCFastFeatureCount))`, path)
		if strings.TrimSpace(out) != "True True" {
			t.Errorf("FastSpatialFilter, FastFeatureCount: %s", out)
		}
	})
}

// TestGDALMultiPolygons: imported frames with a hole and with two parts
// come back from every format as GDAL reads them.
func TestGDALMultiPolygons(t *testing.T) {
	needGDAL(t)
	outer := grid.Ring{{7, 9}, {7.1, 9}, {7.1, 9.1}, {7, 9.1}, {7, 9}}
	hole := grid.Ring{{7.02, 9.02}, {7.02, 9.04}, {7.04, 9.04}, {7.04, 9.02}, {7.02, 9.02}}
	other := grid.Ring{{8, 9}, {8.1, 9}, {8.1, 9.1}, {8, 9}}
	frames := []Frame{{ID: 1, Geom: grid.MultiPolygon{{outer, hole}}}, {ID: 2, Geom: grid.MultiPolygon{{outer}, {other}}}, {ID: 3}}
	want := map[string]string{
		"1": "[[[[7,9],[7.1,9],[7.1,9.1],[7,9.1],[7,9]],[[7.02,9.02],[7.02,9.04],[7.04,9.04],[7.04,9.02],[7.02,9.02]]]]",
		"2": "[[[[7,9],[7.1,9],[7.1,9.1],[7,9.1],[7,9]]],[[[8,9],[8.1,9],[8.1,9.1],[8,9]]]]",
		"3": "[[[[-179.975,89.9916667],[-179.9666667,89.9916667],[-179.9666667,90],[-179.975,90],[-179.975,89.9916667]]]]",
	}
	for _, ext := range Formats {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m"+ext)
			writeAll(t, path, Options{Multi: true}, frames)
			out, stderr := run(t, "ogr2ogr", "-f", "GeoJSON", "-lco", "COORDINATE_PRECISION=7", "/vsistdout/", path)
			if stderr != "" {
				t.Errorf("ogr2ogr warns: %s", stderr)
			}
			var fc struct{ Features []jsonFeature }
			decodeJSON(t, []byte(out), &fc)
			if len(fc.Features) != 3 {
				t.Fatalf("%d features", len(fc.Features))
			}
			for _, f := range fc.Features {
				id, _ := f.Properties["frame_id"].(string)
				var c any // float64s, so 7.0 prints as 7
				if err := json.Unmarshal(f.Geometry.Coordinates, &c); err != nil {
					t.Fatal(err)
				}
				got, _ := json.Marshal(c)
				if f.Geometry.Type != "MultiPolygon" || string(got) != want[id] {
					t.Errorf("frame %s: %s %s, want %s", id, f.Geometry.Type, got, want[id])
				}
			}
		})
	}
}
