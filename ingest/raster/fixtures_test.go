package raster

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The LZW fixtures in testdata were made by GDAL from the test encoder's
// output (see TestWriteFixtures), so that LZW decoding is tested without
// GDAL installed. Each holds makeBands(kind, bands, 83, 61), nodata "-99"
// (signed) or "99" (unsigned).
var lzwFixtures = []struct {
	file  string
	kind  sampleKind
	bands int
	co    []string
}{
	{"lzw_f32_tiled_pred3.tif", kF32, 1, []string{"COMPRESS=LZW", "PREDICTOR=3", "TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=16"}},
	{"lzw_i16_strips_pred2_be.tif", kI16, 1, []string{"COMPRESS=LZW", "PREDICTOR=2", "ENDIANNESS=BIG", "BLOCKYSIZE=5"}},
	{"lzw_u16_3bands_bigtiff.tif", kU16, 3, []string{"COMPRESS=LZW", "PREDICTOR=2", "INTERLEAVE=PIXEL", "BIGTIFF=YES", "TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16"}},
	{"lzw_f64_planar_pred3.tif", kF64, 2, []string{"COMPRESS=LZW", "PREDICTOR=3", "INTERLEAVE=BAND", "BLOCKYSIZE=8"}},
}

const fixW, fixH = 83, 61

func fixtureNodata(k sampleKind) string {
	if k == kU8 || k == kU16 || k == kU32 || k == kU64 {
		return "99"
	}
	return "-99"
}

// TestWriteFixtures regenerates testdata when RASTER_WRITE_FIXTURES=1.
func TestWriteFixtures(t *testing.T) {
	if os.Getenv("RASTER_WRITE_FIXTURES") != "1" {
		t.Skip("set RASTER_WRITE_FIXTURES=1 to regenerate testdata with GDAL")
	}
	needGDAL(t)
	dir := t.TempDir()
	for i, f := range lzwFixtures {
		o := defaultOpts()
		o.kind, o.nodata = f.kind, fixtureNodata(f.kind)
		src := filepath.Join(dir, fmt.Sprintf("src%d.tif", i))
		writeFile(t, src, encodeTIFF(t, fixW, fixH, makeBands(f.kind, f.bands, fixW, fixH), o))
		args := []string{"-q"}
		for _, c := range f.co {
			args = append(args, "-co", c)
		}
		runTool(t, "gdal_translate", append(args, src, filepath.Join("testdata", f.file))...)
	}
}

func TestLZWFixtures(t *testing.T) {
	for _, f := range lzwFixtures {
		t.Run(f.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			r := mustOpen(t, b)
			want := makeBands(f.kind, f.bands, fixW, fixH)
			for band := 1; band <= f.bands; band++ {
				sameValues(t, readBand(t, r, band), nanAt(want[band-1], f.kind), fixW)
			}
		})
	}
}

// nanAt returns vals with the fixture nodata value as NaN.
func nanAt(vals []float64, k sampleKind) []float64 {
	out := make([]float64, len(vals))
	nd := fixtureNodata(k)
	for i, v := range vals {
		out[i] = v
		if fmt.Sprint(v) == nd {
			out[i] = nan()
		}
	}
	return out
}
