package crs

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// minna33WKT is how ESRI software writes Minna / UTM zone 33N, which has no
// EPSG code; gdaltransform takes it as the source system.
const minna33WKT = `PROJCS["Minna_UTM_Zone_33N",GEOGCS["GCS_Minna",DATUM["D_Minna",SPHEROID["Clarke_1880_RGS",6378249.145,293.465]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",15.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`

func needGDAL(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("gdaltransform")
	if err != nil {
		t.Skip("gdal-bin not installed: gdaltransform absent")
	}
	return p
}

// gdalTransform runs gdaltransform from src to EPSG:4326 (lon, lat output).
func gdalTransform(t testing.TB, src string, pts [][2]float64) [][2]float64 {
	t.Helper()
	bin := needGDAL(t)
	var in bytes.Buffer
	for _, p := range pts {
		fmt.Fprintf(&in, "%.6f %.6f\n", p[0], p[1])
	}
	cmd := exec.Command(bin, "-s_srs", src, "-t_srs", "EPSG:4326", "-output_xy")
	cmd.Stdin = &in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("gdaltransform -s_srs %s: %v: %s", src, err, errb.String())
	}
	var res [][2]float64
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			t.Fatalf("gdaltransform output %q", sc.Text())
		}
		x, err1 := strconv.ParseFloat(f[0], 64)
		y, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("gdaltransform output %q", sc.Text())
		}
		res = append(res, [2]float64{x, y})
	}
	if len(res) != len(pts) {
		t.Fatalf("gdaltransform gave %d points for %d", len(res), len(pts))
	}
	return res
}

// nigeriaGrid is a grid of points over Nigeria's bounding box (2.6°E-14.7°E,
// 4.2°N-13.9°N) in the system's own coordinates, made by projecting a
// longitude/latitude grid forward with the system's projection.
func nigeriaGrid(s *System, step float64) [][2]float64 {
	var pts [][2]float64
	for lat := 4.2; lat <= 13.9; lat += step {
		for lon := 2.6; lon <= 14.7; lon += step {
			if s.proj == nil {
				pts = append(pts, [2]float64{lon, lat})
				continue
			}
			x, y := s.proj.forward(lon*math.Pi/180, lat*math.Pi/180)
			pts = append(pts, [2]float64{x, y})
		}
	}
	return pts
}

// metres returns the ground distance between two lon/lat points, good to a
// fraction of a percent at these distances.
func metres(lon1, lat1, lon2, lat2 float64) float64 {
	dy := (lat2 - lat1) * 110574
	dx := (lon2 - lon1) * 111320 * math.Cos(lat1*math.Pi/180)
	return math.Hypot(dx, dy)
}

// TestAgainstGDAL compares ToWGS84 with gdaltransform's default
// transformation on a grid across Nigeria in every projected system.
func TestAgainstGDAL(t *testing.T) {
	needGDAL(t)
	tests := []struct {
		src  string
		code int
		tol  float64 // metres
	}{
		{"EPSG:32631", 32631, 0.01},
		{"EPSG:32632", 32632, 0.01},
		{"EPSG:32633", 32633, 0.01},
		{"EPSG:26331", 26331, 1},
		{"EPSG:26332", 26332, 1},
		{minna33WKT, 26333, 1},
		{"EPSG:26391", 26391, 1},
		{"EPSG:26392", 26392, 1},
		{"EPSG:26393", 26393, 1},
		{"EPSG:4263", 4263, 1},
	}
	for _, tc := range tests {
		name := tc.src
		if tc.code == 26333 {
			name = "Minna_UTM_Zone_33N"
		}
		t.Run(name, func(t *testing.T) {
			s, err := FromEPSG(tc.code)
			if err != nil {
				t.Fatal(err)
			}
			pts := nigeriaGrid(s, 0.1)
			want := gdalTransform(t, tc.src, pts)
			worst, bad := 0.0, 0
			for i, p := range pts {
				lon, lat := s.ToWGS84(p[0], p[1])
				d := metres(lon, lat, want[i][0], want[i][1])
				if d > worst {
					worst = d
				}
				if d > tc.tol {
					if bad < 5 {
						t.Errorf("(%.3f, %.3f): got %.9f %.9f, gdaltransform %.9f %.9f: %.3f m apart (%s)",
							p[0], p[1], lon, lat, want[i][0], want[i][1], d, s.Transformation(p[0], p[1]))
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d points differ by more than %g m", bad, len(pts), tc.tol)
			}
			t.Logf("%s: %d points, largest difference from gdaltransform %.2g m", s, len(pts), worst)
		})
	}
}

// TestTOWGS84AgainstGDAL checks that a WKT1 TOWGS84 clause and a WKT2
// BOUNDCRS are applied as GDAL applies them: one Helmert transformation
// everywhere.
func TestTOWGS84AgainstGDAL(t *testing.T) {
	needGDAL(t)
	for _, f := range []string{"testdata/wkt/towgs84.wkt1", "testdata/wkt/bound.wkt2"} {
		t.Run(f, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := FromWKT(string(b))
			if err != nil {
				t.Fatal(err)
			}
			pts := nigeriaGrid(s, 0.5)
			want := gdalTransform(t, f, pts)
			worst := 0.0
			for i, p := range pts {
				lon, lat := s.ToWGS84(p[0], p[1])
				worst = math.Max(worst, metres(lon, lat, want[i][0], want[i][1]))
			}
			if worst > 0.001 {
				t.Fatalf("largest difference from gdaltransform %.3g m", worst)
			}
		})
	}
}
