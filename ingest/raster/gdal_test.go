package raster

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"frameindex/grid"
)

// The tests in this file use GDAL's command-line tools twice over: to
// re-encode rasters the way agencies receive them (LZW, Deflate, predictors,
// tiles, BigTIFF, big-endian, band-interleaved), which this reader must
// decode to the very values written; and as the oracle for aggregation,
// gdalwarp -r sum / average / mode onto the 1/120° lattice.

func needGDAL(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"gdal_translate", "gdalwarp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("gdal-bin not installed: %s absent", tool)
		}
	}
}

func runTool(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "GDAL_PAM_ENABLED=NO") // no .aux.xml side files
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func openFile(t testing.TB, path string) *Raster {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(f, st.Size(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return r
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGDALEncodings(t *testing.T) {
	needGDAL(t)
	dir := t.TempDir()
	w, h := 83, 61
	variants := []struct {
		name string
		kind sampleKind
		n    int
		co   []string
	}{
		{"float32 tiled LZW pred3", kF32, 1, []string{"TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=16", "COMPRESS=LZW", "PREDICTOR=3"}},
		{"float32 striped LZW", kF32, 1, []string{"COMPRESS=LZW", "BLOCKYSIZE=7"}},
		{"float32 striped Deflate pred3 BigTIFF", kF32, 1, []string{"COMPRESS=DEFLATE", "PREDICTOR=3", "BIGTIFF=YES"}},
		{"float32 big-endian LZW pred3", kF32, 1, []string{"COMPRESS=LZW", "PREDICTOR=3", "ENDIANNESS=BIG"}},
		{"float32 LZW pred2", kF32, 1, []string{"COMPRESS=LZW", "PREDICTOR=2"}},
		{"float64 tiled Deflate pred3", kF64, 1, []string{"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", "COMPRESS=DEFLATE", "PREDICTOR=3"}},
		{"int16 striped LZW pred2", kI16, 1, []string{"COMPRESS=LZW", "PREDICTOR=2", "BLOCKYSIZE=5"}},
		{"int16 tiled Deflate pred2 BigTIFF big-endian", kI16, 1, []string{"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=48", "COMPRESS=DEFLATE", "PREDICTOR=2", "BIGTIFF=YES", "ENDIANNESS=BIG"}},
		{"uint8 PackBits", kU8, 1, []string{"COMPRESS=PACKBITS"}},
		{"uint16 3 bands pixel-interleaved LZW pred2", kU16, 3, []string{"COMPRESS=LZW", "PREDICTOR=2", "INTERLEAVE=PIXEL"}},
		{"int32 3 bands band-interleaved tiled LZW", kI32, 3, []string{"COMPRESS=LZW", "INTERLEAVE=BAND", "TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16"}},
		{"float32 2 bands pixel-interleaved LZW pred3", kF32, 2, []string{"COMPRESS=LZW", "PREDICTOR=3", "INTERLEAVE=PIXEL"}},
		{"uint32 Deflate", kU32, 1, []string{"COMPRESS=DEFLATE", "PREDICTOR=2"}},
		{"int8", kI8, 1, []string{"COMPRESS=DEFLATE", "PIXELTYPE=SIGNEDBYTE"}},
		{"sparse tiles", kF32, 1, []string{"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", "SPARSE_OK=TRUE", "COMPRESS=LZW"}},
	}
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			bands := makeBands(v.kind, v.n, w, h)
			o := defaultOpts()
			o.kind, o.rowsPerStrip, o.nodata = v.kind, 9, "-99"
			if v.kind == kU8 || v.kind == kU16 || v.kind == kU32 {
				o.nodata = "99"
			}
			if v.name == "sparse tiles" { // a whole nodata tile, which GDAL leaves unwritten
				for y := 0; y < 32; y++ {
					for x := 0; x < 32; x++ {
						bands[0][y*w+x] = -99
					}
				}
			}
			src := filepath.Join(dir, fmt.Sprintf("src%d.tif", i))
			dst := filepath.Join(dir, fmt.Sprintf("dst%d.tif", i))
			writeFile(t, src, encodeTIFF(t, w, h, bands, o))
			args := []string{"-q"}
			for _, c := range v.co {
				args = append(args, "-co", c)
			}
			runTool(t, "gdal_translate", append(args, src, dst)...)
			r := openFile(t, dst)
			for b := 1; b <= v.n; b++ {
				want := make([]float64, len(bands[b-1]))
				for k, x := range bands[b-1] {
					want[k] = x
					if fmt.Sprint(x) == o.nodata {
						want[k] = math.NaN()
					}
				}
				sameValues(t, readBand(t, r, b), want, w)
			}
			if v.name == "sparse tiles" && !r.sparse(0) {
				t.Errorf("GDAL wrote the all-nodata tile; the sparse path is untested")
			}
		})
	}
}

// lattice returns the gdalwarp arguments for the lattice window covering
// the box, and the window's first row and column.
func lattice(b grid.Box) (args []string, row0, col0 int) {
	c0, c1 := int(math.Floor((b.MinLon+180)*grid.CellsPerDegree)), int(math.Ceil((b.MaxLon+180)*grid.CellsPerDegree))
	r0, r1 := int(math.Floor((90-b.MaxLat)*grid.CellsPerDegree)), int(math.Ceil((90-b.MinLat)*grid.CellsPerDegree))
	f := func(v float64) string { return fmt.Sprintf("%.17g", v) }
	return []string{"-te", f(grid.Lon(c0)), f(grid.Lat(r1)), f(grid.Lon(c1)), f(grid.Lat(r0)),
		"-ts", fmt.Sprint(c1 - c0), fmt.Sprint(r1 - r0)}, r0, c0
}

// gdalFrames runs gdalwarp onto the lattice and reads the result back with
// this package's reader: frame id → value, NaN cells left out.
func gdalFrames(t *testing.T, src, dst, method string, b grid.Box) map[uint64]float64 {
	t.Helper()
	win, row0, col0 := lattice(b)
	args := append([]string{"-q", "-overwrite", "-r", method, "-ot", "Float64", "-dstnodata", "nan", "-t_srs", "EPSG:4326"}, win...)
	runTool(t, "gdalwarp", append(args, src, dst)...)
	r := openFile(t, dst)
	out := map[uint64]float64{}
	err := r.Rows(context.Background(), 1, func(y int, vals []float64) error {
		for x, v := range vals {
			if !math.IsNaN(v) {
				out[grid.CellID(row0+y, col0+x)] = v
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// warpGrids are the pixel grids the gdalwarp oracles compare on: w x h
// pixels of dx x dy degrees from the corner (x0, y0), PixelIsPoint when
// point is set.
var warpGrids = []struct {
	name           string
	w, h           int
	x0, y0, dx, dy float64
	point          bool
}{
	{"aligned 3 arc-seconds", 120, 90, 3 + 17*cell, 10 - 5*cell, cell / 10, cell / 10, false},
	{"unaligned 1/97 offset a third", 61, 47, 3 + 1.0/97/3, 10 - 1.0/97/3, 1.0 / 97, 1.0 / 97, false},
	{"pixels larger than a frame 1/50", 23, 19, 3 + 1.0/50/3, 10 - 1.0/50/7, 1.0 / 50, 1.0 / 50, false},
	{"non-square PixelIsPoint", 50, 40, 3.0002, 9.9997, 1.0 / 1000, 1.0 / 700, true},
}

func TestGDALWarpOracle(t *testing.T) {
	needGDAL(t)
	dir := t.TempDir()
	encodings := []struct {
		name string
		kind sampleKind
		co   []string
	}{
		{"float32 tiled LZW pred3", kF32, []string{"TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32", "COMPRESS=LZW", "PREDICTOR=3"}},
		{"int16 striped Deflate pred2 BigTIFF", kI16, []string{"COMPRESS=DEFLATE", "PREDICTOR=2", "BIGTIFF=YES"}},
	}
	n := 0
	for _, g := range warpGrids {
		for _, e := range encodings {
			t.Run(g.name+"/"+e.name, func(t *testing.T) {
				n++
				vals := make([]float64, g.w*g.h)
				for i := range vals {
					vals[i] = math.Round(pattern(kI16, 0, i%g.w, i/g.w) / 100) // -328..327
					if i%11 == 3 {
						vals[i] = -99
					}
				}
				o := defaultOpts()
				o.kind, o.nodata, o.rowsPerStrip = e.kind, "-99", 4
				o.x0, o.y0, o.dx, o.dy, o.pointRaster = g.x0, g.y0, g.dx, g.dy, g.point
				src := filepath.Join(dir, fmt.Sprintf("src%d.tif", n))
				enc := filepath.Join(dir, fmt.Sprintf("enc%d.tif", n))
				writeFile(t, src, encodeTIFF(t, g.w, g.h, [][]float64{vals}, o))
				args := []string{"-q"}
				for _, c := range e.co {
					args = append(args, "-co", c)
				}
				runTool(t, "gdal_translate", append(args, src, enc)...)
				r := openFile(t, enc)
				for _, agg := range []Aggregation{Sum, Mean} {
					method := map[Aggregation]string{Sum: "sum", Mean: "average"}[agg]
					want := gdalFrames(t, enc, filepath.Join(dir, fmt.Sprintf("warp%d-%s.tif", n, method)), method, r.Bounds())
					got := collect(t, r, 1, agg)
					if agg == Sum {
						dropSlivers(t, got, want)
					} else {
						dropBorderMeans(t, r.Bounds(), got, want)
					}
					compareFrames(t, got, want, 1e-6, 1)
				}
			})
		}
	}
}

// dropBorderMeans leaves out of the comparison the frames that the raster
// covers only partly and where gdalwarp -r average differs. GDAL 3.6 weighs
// the first source pixel of such a frame by 1 - (frame edge - pixel index)
// in source pixel units, which exceeds 1 when the frame edge lies outside
// the raster, as if the pixel also covered the part of the frame beyond the
// raster's edge; Mean weighs by the true overlap. (gdalwarp -r sum agrees
// with Sum on those frames.) Frames inside the raster must agree.
func dropBorderMeans(t *testing.T, b grid.Box, got, want map[uint64]float64) {
	t.Helper()
	const eps = 1e-9
	n, differ := 0, 0
	for id, v := range want {
		row, col, _ := grid.RowCol(id)
		c := grid.CellBox(row, col)
		if c.MinLon >= b.MinLon-eps && c.MaxLon <= b.MaxLon+eps && c.MinLat >= b.MinLat-eps && c.MaxLat <= b.MaxLat+eps {
			continue
		}
		if g, ok := got[id]; ok {
			delete(got, id)
			if math.Abs(g-v) > 1e-6*math.Max(1, math.Abs(v)) {
				differ++
			}
		}
		delete(want, id)
		n++
	}
	t.Logf("%d border frames left out; %d of them differ from gdalwarp -r average", n, differ)
}

// dropSlivers removes from want the frames gdalwarp -r sum gives a value
// near 0 that this package leaves out: where a pixel edge lies exactly on a
// lattice line, GDAL's floating-point arithmetic leaves an overlap of ~1e-13
// of a pixel with the next frame and sums it; this package takes edges
// within 1e-9 of a frame width of a lattice line as on it. (gdalwarp -r
// average drops those frames too.)
func dropSlivers(t *testing.T, got, want map[uint64]float64) {
	t.Helper()
	n := 0
	for id, v := range want {
		if _, ok := got[id]; !ok && math.Abs(v) < 1e-9 {
			delete(want, id)
			n++
		}
	}
	if n > 0 {
		t.Logf("%d frames with a sliver sum below 1e-9 in gdalwarp's output left out", n)
	}
}

// TestGDALWarpModeOracle compares Mode with gdalwarp -r mode. GDAL 3.6
// counts every source pixel touching a frame once, whatever its overlap
// (ties: the value first reaching the top count in scan order); Mode weighs
// pixels by overlap area (ties: the smallest value), as specified. The two
// agree on aligned rasters; elsewhere about one frame in ten differs.
func TestGDALWarpModeOracle(t *testing.T) {
	needGDAL(t)
	dir := t.TempDir()
	for i, g := range warpGrids {
		if g.point {
			continue // the classes below are drawn for area pixels
		}
		t.Run(g.name, func(t *testing.T) {
			vals := make([]float64, g.w*g.h)
			for k := range vals {
				x, y := k%g.w, k/g.w
				// Patches of classes with some speckle, so that most frames
				// have a clear majority.
				vals[k] = float64((x/7+y/5)%5 + 1)
				if (x*31+y*17)%23 == 0 {
					vals[k] = float64((x+y)%5 + 1)
				}
				if (x*7+y*3)%29 == 0 {
					vals[k] = 0 // nodata
				}
			}
			o := defaultOpts()
			o.kind, o.nodata, o.comp, o.pred = kU8, "0", compDeflate, predHorizontal
			o.x0, o.y0, o.dx, o.dy = g.x0, g.y0, g.dx, g.dy
			src := filepath.Join(dir, fmt.Sprintf("cls%d.tif", i))
			writeFile(t, src, encodeTIFF(t, g.w, g.h, [][]float64{vals}, o))
			r := openFile(t, src)
			want := gdalFrames(t, src, filepath.Join(dir, fmt.Sprintf("mode%d.tif", i)), "mode", r.Bounds())
			got := collect(t, r, 1, Mode)
			missing := make([]float64, len(vals))
			for k, v := range vals {
				missing[k] = v
				if v == 0 {
					missing[k] = math.NaN()
				}
			}
			// gdalwarp is exactly the pixel-count model...
			compareFrames(t, gdalCountMode(g.w, g.h, missing, g.x0, g.y0, g.dx, g.dy), want, 0, 1)
			// ...this package is exactly the area-weighted definition...
			compareFrames(t, got, bruteFrames(g.w, g.h, missing, g.x0, g.y0, g.dx, g.dy, Mode), 0, 1)
			// ...and both agree when whole pixels tile each frame.
			differ := 0
			for id, v := range want {
				if got[id] != v {
					differ++
				}
			}
			t.Logf("%d of %d frames' modes differ from gdalwarp -r mode", differ, len(want))
			if g.dx == cell/10 && differ > 0 {
				t.Errorf("aligned raster: %d of %d frames' modes differ from gdalwarp -r mode", differ, len(want))
			}
		})
	}
}

// gdalCountMode is gdalwarp 3.6's -r mode as we understand it: every valid
// source pixel that overlaps the frame counts once, and the value that
// first reaches the highest count, scanning pixels row by row, wins.
func gdalCountMode(w, h int, vals []float64, x0, y0, dx, dy float64) map[uint64]float64 {
	type st struct {
		counts map[float64]int
		best   float64
		max    int
	}
	cells := map[uint64]*st{}
	eachOverlap(w, h, vals, x0, y0, dx, dy, func(v float64, id uint64, _ float64) {
		s := cells[id]
		if s == nil {
			s = &st{counts: map[float64]int{}}
			cells[id] = s
		}
		s.counts[v]++
		if s.counts[v] > s.max {
			s.best, s.max = v, s.counts[v]
		}
	})
	out := map[uint64]float64{}
	for id, s := range cells {
		out[id] = s.best
	}
	return out
}

func TestGDALCoordinateSystems(t *testing.T) {
	needGDAL(t)
	dir := t.TempDir()
	asc := filepath.Join(dir, "a.asc")
	writeFile(t, asc, []byte("ncols 4\nnrows 3\nxllcorner 3\nyllcorner 9\ncellsize 0.01\nNODATA_value -9999\n1 2 3 4\n5 6 7 8\n9 10 -9999 12\n"))
	tests := []struct {
		srs  string
		want string // "" accepted, else a part of the error
	}{
		{"EPSG:4326", ""},
		{"OGC:CRS84", ""},
		{"EPSG:4979", ""},
		{"+proj=longlat +datum=WGS84 +no_defs", ""},
		{"EPSG:32632", "projected CRS EPSG:32632, not longitude/latitude; reproject it to EPSG:4326 first, e.g. gdalwarp -t_srs EPSG:4326"},
		{"EPSG:26331", "EPSG:26331"}, // Minna / Nigeria East Belt
		{"EPSG:4263", "EPSG:4263 is not WGS 84"},
		{"+proj=longlat +ellps=GRS80 +no_defs", "not known to be WGS 84"},
		{"+proj=utm +zone=31 +ellps=clrk80 +units=m", "user-defined projected CRS, not"},
	}
	for i, tt := range tests {
		t.Run(tt.srs, func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("crs%d.tif", i))
			runTool(t, "gdal_translate", "-q", "-a_srs", tt.srs, asc, out)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			r, err := openBytes(b, out)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("accepted: %s", r.Describe())
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
	t.Run("PixelIsPoint bounds match gdalinfo", func(t *testing.T) {
		out := filepath.Join(dir, "point.tif")
		runTool(t, "gdal_translate", "-q", "-a_srs", "EPSG:4326", "-mo", "AREA_OR_POINT=Point", asc, out)
		r := openFile(t, out)
		cmd := exec.Command("gdalinfo", out)
		text, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		// "Origin = (3.000000000000000,9.029999999999999)" is the corner GDAL uses.
		var ox, oy float64
		i := strings.Index(string(text), "Origin = (")
		if i < 0 {
			t.Fatalf("no origin in gdalinfo output:\n%s", text)
		}
		if _, err := fmt.Sscanf(string(text[i:]), "Origin = (%g,%g)", &ox, &oy); err != nil {
			t.Fatal(err)
		}
		b := r.Bounds()
		if math.Abs(b.MinLon-ox) > 1e-12 || math.Abs(b.MaxLat-oy) > 1e-12 {
			t.Fatalf("corner (%v, %v), gdalinfo says (%v, %v)", b.MinLon, b.MaxLat, ox, oy)
		}
		if !strings.Contains(string(text), "AREA_OR_POINT=Point") {
			t.Fatalf("GDAL did not write a PixelIsPoint raster:\n%s", text)
		}
	})
	t.Run("rotated", func(t *testing.T) {
		vrt := filepath.Join(dir, "rot.vrt")
		out := filepath.Join(dir, "rot.tif")
		runTool(t, "gdal_translate", "-q", "-of", "VRT", "-a_srs", "EPSG:4326", asc, vrt)
		b, err := os.ReadFile(vrt)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		i, j := strings.Index(s, "<GeoTransform>"), strings.Index(s, "</GeoTransform>")
		s = s[:i] + "<GeoTransform>3, 0.01, 0.001, 9.03, 0.001, -0.01" + s[j:]
		writeFile(t, vrt, []byte(s))
		runTool(t, "gdal_translate", "-q", vrt, out)
		b, err = os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := openBytes(b, out); err == nil || !strings.Contains(err.Error(), "rotated or sheared") {
			t.Fatalf("error %v", err)
		}
	})
}
