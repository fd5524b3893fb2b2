package raster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// pattern is a deterministic pixel value that exercises a sample type's
// range, including negative values and large magnitudes.
func pattern(k sampleKind, band, x, y int) float64 {
	i := uint64(x*7919+y*104729+band*31337) * 2654435761
	switch k {
	case kU8:
		return float64(i % 256)
	case kI8:
		return float64(int64(i%256) - 128)
	case kU16:
		return float64(i % 65536)
	case kI16:
		return float64(int64(i%65536) - 32768)
	case kU32:
		return float64(i % (1 << 32))
	case kI32:
		return float64(int64(i%(1<<32)) - (1 << 31))
	case kU64:
		return float64(i % (1 << 52))
	case kI64:
		return float64(int64(i%(1<<52)) - (1 << 51))
	case kF32:
		return float64(float32(float64(int64(i%2000001)-1000000) / 1024))
	}
	return float64(int64(i%2000000001)-1000000000) / 3
}

func makeBands(k sampleKind, n, w, h int) [][]float64 {
	bands := make([][]float64, n)
	for b := range bands {
		bands[b] = make([]float64, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				bands[b][y*w+x] = pattern(k, b, x, y)
			}
		}
	}
	return bands
}

func openBytes(b []byte, name string) (*Raster, error) {
	return Open(bytes.NewReader(b), int64(len(b)), name)
}

func mustOpen(t testing.TB, b []byte) *Raster {
	t.Helper()
	r, err := openBytes(b, "test.tif")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return r
}

// readBand returns the decoded band (1-based) as one slice.
func readBand(t testing.TB, r *Raster, band int) []float64 {
	t.Helper()
	out := make([]float64, 0, r.Width()*r.Height())
	next := 0
	err := r.Rows(context.Background(), band, func(y int, vals []float64) error {
		if y != next {
			return fmt.Errorf("row %d arrived, want %d", y, next)
		}
		next++
		out = append(out, vals...)
		return nil
	})
	if err != nil {
		t.Fatalf("Rows: %v", err)
	}
	if next != r.Height() {
		t.Fatalf("Rows gave %d rows, want %d", next, r.Height())
	}
	return out
}

func sameValues(t *testing.T, got, want []float64, w int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		g, e := got[i], want[i]
		if g == e || math.IsNaN(g) && math.IsNaN(e) {
			continue
		}
		if bad++; bad <= 5 {
			t.Errorf("pixel (%d,%d) = %v, want %v", i%w, i/w, g, e)
		}
	}
	if bad > 5 {
		t.Errorf("... %d pixels differ in all", bad)
	}
}

func TestDecodeVariants(t *testing.T) {
	type tc struct {
		name string
		w, h int
		n    int // bands
		o    func(*encOpts)
	}
	var cases []tc
	kinds := []sampleKind{kU8, kI8, kU16, kI16, kU32, kI32, kU64, kI64, kF32, kF64}
	for _, k := range kinds {
		for _, comp := range []int{compNone, compDeflate, compDeflateOld, compPackBits} {
			preds := []int{predNone, predHorizontal}
			if k == kF32 || k == kF64 {
				preds = append(preds, predFloatingPnt)
			}
			if comp == compNone {
				preds = []int{predNone}
			}
			for _, pred := range preds {
				k, comp, pred := k, comp, pred
				cases = append(cases, tc{fmt.Sprintf("%s/comp%d/pred%d/strips", kindNames[k], comp, pred), 37, 23, 1, func(o *encOpts) {
					o.kind, o.comp, o.pred, o.rowsPerStrip = k, comp, pred, 5
				}})
				cases = append(cases, tc{fmt.Sprintf("%s/comp%d/pred%d/tiles-big-be", kindNames[k], comp, pred), 37, 23, 1, func(o *encOpts) {
					o.kind, o.comp, o.pred, o.tiled, o.tileW, o.tileH, o.big, o.be = k, comp, pred, true, 16, 16, true, true
				}})
			}
		}
		k := k
		cases = append(cases,
			tc{fmt.Sprintf("%s/chunky3/deflate-pred2/tiles", kindNames[k]), 41, 19, 3, func(o *encOpts) {
				o.kind, o.comp, o.pred, o.tiled, o.tileW, o.tileH = k, compDeflate, predHorizontal, true, 16, 32
			}},
			tc{fmt.Sprintf("%s/planar3/deflate/strips-be", kindNames[k]), 41, 19, 3, func(o *encOpts) {
				o.kind, o.comp, o.planar, o.rowsPerStrip, o.be = k, compDeflate, true, 4, true
			}},
		)
		if k == kF32 || k == kF64 {
			cases = append(cases,
				tc{fmt.Sprintf("%s/chunky2/pred3/strips", kindNames[k]), 29, 11, 2, func(o *encOpts) {
					o.kind, o.comp, o.pred, o.rowsPerStrip = k, compDeflate, predFloatingPnt, 3
				}},
				tc{fmt.Sprintf("%s/planar2/pred3/tiles-big", kindNames[k]), 29, 11, 2, func(o *encOpts) {
					o.kind, o.comp, o.pred, o.planar, o.tiled, o.tileW, o.tileH, o.big = k, compDeflate, predFloatingPnt, true, true, 16, 16, true
				}},
			)
		}
	}
	cases = append(cases, tc{"ifd-last", 20, 20, 1, func(o *encOpts) { o.ifdLast = true; o.comp = compDeflate }})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := defaultOpts()
			c.o(&o)
			bands := makeBands(o.kind, c.n, c.w, c.h)
			r := mustOpen(t, encodeTIFF(t, c.w, c.h, bands, o))
			if r.Width() != c.w || r.Height() != c.h || r.Bands() != c.n {
				t.Fatalf("size %d×%d×%d, want %d×%d×%d", r.Width(), r.Height(), r.Bands(), c.w, c.h, c.n)
			}
			for b := 1; b <= c.n; b++ {
				sameValues(t, readBand(t, r, b), bands[b-1], c.w)
			}
		})
	}
}

func TestNoData(t *testing.T) {
	tests := []struct {
		name   string
		kind   sampleKind
		nodata string
		set    float64 // value written at the nodata pixels
		valid  float64 // a value next to nodata that must stay valid
	}{
		{"int16", kI16, "-9999", -9999, -9998},
		{"uint8", kU8, "255", 255, 254},
		{"float32 max", kF32, "-3.4028234663852886e+38", -math.MaxFloat32, -3.4e38},
		{"float32 decimal", kF32, "-9999.9", float64(float32(-9999.9)), -9999.8},
		{"float64", kF64, "1e20", 1e20, 1.0001e20},
		{"nan", kF32, "nan", math.NaN(), 0},
		{"int band fractional nodata", kI16, "0.5", 7, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := defaultOpts()
			o.kind, o.nodata = tt.kind, tt.nodata
			w, h := 4, 3
			vals := make([]float64, w*h)
			for i := range vals {
				vals[i] = float64(i)
			}
			vals[1], vals[5], vals[6] = tt.set, tt.set, tt.valid
			r := mustOpen(t, encodeTIFF(t, w, h, [][]float64{vals}, o))
			if _, ok := r.NoData(); !ok {
				t.Fatal("NoData: not set")
			}
			got := readBand(t, r, 1)
			wantNaN := !(tt.name == "int band fractional nodata")
			if math.IsNaN(got[1]) != wantNaN || math.IsNaN(got[5]) != wantNaN {
				t.Errorf("nodata pixels read as %v, %v; want NaN: %v", got[1], got[5], wantNaN)
			}
			if math.IsNaN(got[6]) {
				t.Errorf("valid pixel %v read as missing", tt.valid)
			}
		})
	}
}

func TestSparseChunks(t *testing.T) {
	for _, nd := range []string{"", "-1"} {
		t.Run("nodata="+nd, func(t *testing.T) {
			o := defaultOpts()
			o.tiled, o.tileW, o.tileH, o.comp, o.nodata = true, 16, 16, compDeflate, nd
			o.sparse = map[int]bool{1: true}
			w, h := 32, 20
			bands := makeBands(kF32, 1, w, h)
			r := mustOpen(t, encodeTIFF(t, w, h, bands, o))
			got := readBand(t, r, 1)
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					g := got[y*w+x]
					switch {
					case x >= 16 && y < 16 && nd == "" && g != 0:
						t.Fatalf("sparse tile pixel (%d,%d) = %v, want 0", x, y, g)
					case x >= 16 && y < 16 && nd != "" && !math.IsNaN(g):
						t.Fatalf("sparse tile pixel (%d,%d) = %v, want missing", x, y, g)
					case !(x >= 16 && y < 16) && g != bands[0][y*w+x]:
						t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, g, bands[0][y*w+x])
					}
				}
			}
		})
	}
}

// TestTallStrip checks a strip taller than a block: it is decoded in pieces
// through one open stream, never whole.
func TestTallStrip(t *testing.T) {
	old := stripBlockGoal
	stripBlockGoal = 8 * 50 * 7 // 7 rows of 50 pixels
	defer func() { stripBlockGoal = old }()
	for _, comp := range []int{compNone, compDeflate, compPackBits} {
		t.Run(compressionName(comp), func(t *testing.T) {
			o := defaultOpts()
			o.comp, o.rowsPerStrip = comp, 30
			w, h := 50, 64
			bands := makeBands(kF32, 1, w, h)
			r := mustOpen(t, encodeTIFF(t, w, h, bands, o))
			sameValues(t, readBand(t, r, 1), bands[0], w)
		})
	}
}

func TestGeoreferencing(t *testing.T) {
	const d = 1.0 / 1200
	tests := []struct {
		name string
		o    func(*encOpts)
		want [4]float64 // minLon, minLat, maxLon, maxLat
	}{
		{"tiepoint", func(o *encOpts) {}, [4]float64{3, 10 - 10*d, 3 + 20*d, 10}},
		{"matrix", func(o *encOpts) { o.matrix = true }, [4]float64{3, 10 - 10*d, 3 + 20*d, 10}},
		// PixelIsPoint: the encoder writes the first pixel's centre; GDAL
		// (and this package) move the corner back by half a pixel.
		{"pixel is point", func(o *encOpts) { o.pointRaster = true }, [4]float64{3, 10 - 10*d, 3 + 20*d, 10}},
		{"no model type, datum WGS 84", func(o *encOpts) {
			o.geoKeys = []uint16{1, 1, 0, 2, keyGeographicType, 0, 1, userDefined, keyGeodeticDatum, 0, 1, datumWGS84}
		}, [4]float64{3, 10 - 10*d, 3 + 20*d, 10}},
		{"EPSG:4979", func(o *encOpts) {
			o.geoKeys = []uint16{1, 1, 0, 2, keyModelType, 0, 1, modelGeographic, keyGeographicType, 0, 1, epsgWGS84_3D}
		}, [4]float64{3, 10 - 10*d, 3 + 20*d, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := defaultOpts()
			tt.o(&o)
			r := mustOpen(t, encodeTIFF(t, 20, 10, makeBands(kF32, 1, 20, 10), o))
			b := r.Bounds()
			got := [4]float64{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-12 {
					t.Fatalf("Bounds = %v, want %v", got, tt.want)
				}
			}
			if s := r.Describe(); !strings.Contains(s, "aligned to the frame lattice") || !strings.Contains(s, "test.tif") {
				t.Errorf("Describe = %q", s)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	good := func() encOpts { o := defaultOpts(); o.comp = compDeflate; o.rowsPerStrip = 2; return o }
	enc := func(o encOpts) []byte { return encodeTIFF(t, 20, 10, makeBands(kF32, 1, 20, 10), o) }
	patchTag := func(b []byte, tag uint16, v uint16) []byte {
		// classic little-endian files from the encoder: find the entry and set its inline SHORT
		b = bytes.Clone(b)
		n := int(b[8]) | int(b[9])<<8
		for i := 0; i < n; i++ {
			e := b[10+12*i:]
			if uint16(e[0])|uint16(e[1])<<8 == tag {
				e[8], e[9] = byte(v), byte(v>>8)
				return b
			}
		}
		t.Fatalf("tag %d not found", tag)
		return nil
	}
	valid := enc(good())
	tests := []struct {
		name  string
		data  []byte
		open  bool     // the error comes from Open (else from Frames)
		wants []string // substrings of the error
	}{
		{"empty", nil, true, []string{"bad.tif", "not a TIFF"}},
		{"not tiff", []byte("PK\x03\x04 zip file, not a tiff"), true, []string{"not a TIFF"}},
		{"truncated header", valid[:6], true, []string{"not a TIFF"}},
		{"truncated in directory", valid[:40], true, []string{"beyond the end", "truncated"}},
		{"truncated pixel data", valid[:len(valid)-30], true, []string{"strip 4", "past the end of the file", "truncated"}},
		{"JPEG compression", patchTag(valid, tagCompression, 7), true, []string{"compression 7 (JPEG) is not supported", "gdal_translate"}},
		{"ZSTD compression", patchTag(valid, tagCompression, 50000), true, []string{"ZSTD"}},
		{"12-bit samples", func() []byte { o := good(); o.kind = kU16; return patchTag(enc(o), tagBitsPerSample, 12) }(), true, []string{"12-bit samples"}},
		{"16-bit float", patchTag(valid, tagBitsPerSample, 16), true, []string{"16-bit floating-point"}},
		{"complex", patchTag(valid, tagSampleFormat, 6), true, []string{"SampleFormat 6"}},
		{"predictor 3 on ints", func() []byte {
			o := good()
			o.kind = kI16
			o.pred = predHorizontal
			return patchTag(enc(o), tagPredictor, 3)
		}(), true, []string{"floating-point predictor", "int16"}},
		{"missing georeferencing", func() []byte { o := good(); o.noGeoref = true; return enc(o) }(), true, []string{"no georeferencing"}},
		{"rotated", func() []byte { o := good(); o.matrix, o.shear = true, 0.0001; return enc(o) }(), true, []string{"rotated or sheared", "gdalwarp"}},
		{"projected UTM", func() []byte {
			o := good()
			o.geoKeys = []uint16{1, 1, 0, 2, keyModelType, 0, 1, modelProjected, keyProjectedCSType, 0, 1, 32632}
			return enc(o)
		}(), true, []string{"EPSG:32632", "reproject it to EPSG:4326 first, e.g. gdalwarp -t_srs EPSG:4326"}},
		{"user projected", func() []byte {
			o := good()
			o.geoKeys = []uint16{1, 1, 0, 2, keyModelType, 0, 1, modelProjected, keyProjectedCSType, 0, 1, userDefined}
			return enc(o)
		}(), true, []string{"user-defined projected", "gdalwarp -t_srs EPSG:4326"}},
		{"Minna datum", func() []byte {
			o := good()
			o.geoKeys = []uint16{1, 1, 0, 2, keyModelType, 0, 1, modelGeographic, keyGeographicType, 0, 1, 4263}
			return enc(o)
		}(), true, []string{"EPSG:4263 is not WGS 84", "gdalwarp -t_srs EPSG:4326"}},
		{"no geokeys", func() []byte { o := good(); o.noGeoKeys = true; return enc(o) }(), true, []string{"coordinate reference system is unknown", "-a_srs EPSG:4326"}},
		{"bottom-up", func() []byte { o := good(); o.matrix, o.dy = true, -o.dy; return enc(o) }(), true, []string{"bottom-up"}},
		{"outside world", func() []byte { o := good(); o.x0 = 500; return enc(o) }(), true, []string{"outside the world"}},
		{"bad nodata", func() []byte { o := good(); o.nodata = "none"; return enc(o) }(), true, []string{"GDAL_NODATA", "none"}},
		{"corrupt deflate", func() []byte {
			b := bytes.Clone(valid)
			// The first strip's data follows the directory; spoil its zlib header.
			r := mustOpen(t, b)
			b[r.offsets[0]] ^= 0xff
			return b
		}(), false, []string{"strip 0", "zlib header"}},
		{"corrupt deflate body", func() []byte {
			b := bytes.Clone(valid)
			r := mustOpen(t, b)
			for i := r.offsets[3] + 2; i < r.offsets[3]+r.counts[3]; i++ {
				b[i] = 0xff
			}
			return b
		}(), false, []string{"strip 3, row 0", "Deflate data"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := openBytes(tt.data, "bad.tif")
			if !tt.open {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				err = r.Frames(context.Background(), 1, Sum, func(uint64, float64) error { return nil })
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tt.wants, "bad.tif") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestBandRange(t *testing.T) {
	r := mustOpen(t, encodeTIFF(t, 4, 4, makeBands(kU8, 2, 4, 4), defaultOpts()))
	for _, b := range []int{0, 3} {
		err := r.Frames(context.Background(), b, Mean, func(uint64, float64) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "2 band(s)") {
			t.Errorf("band %d: error %v", b, err)
		}
	}
}

func TestCancelAndEmitError(t *testing.T) {
	o := defaultOpts()
	o.rowsPerStrip = 1
	w, h := 120, 300
	r := mustOpen(t, encodeTIFF(t, w, h, makeBands(kF32, 1, w, h), o))
	t.Run("emit error", func(t *testing.T) {
		stop := errors.New("stop here")
		n := 0
		err := r.Frames(context.Background(), 1, Sum, func(uint64, float64) error {
			if n++; n == 5 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 5 {
			t.Fatalf("err %v after %d emits", err, n)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		err := r.Frames(ctx, 1, Mean, func(uint64, float64) error {
			if n++; n == 3 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
		if n > 3+12 { // at most the rest of the lattice row being emitted
			t.Fatalf("%d emits after cancel", n)
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := r.Frames(ctx, 1, Mode, func(uint64, float64) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("progress", func(t *testing.T) {
		last := 0
		err := r.Frames(context.Background(), 1, Sum, func(uint64, float64) error { return nil },
			WithProgress(func(done, rows int) {
				if done <= last || rows != h {
					t.Errorf("progress %d/%d after %d", done, rows, last)
				}
				last = done
			}), WithWorkers(1))
		if err != nil || last != h {
			t.Fatalf("err %v, progress ended at %d", err, last)
		}
	})
}

func TestParseAggregation(t *testing.T) {
	for _, s := range []string{"sum", "MEAN", " mode "} {
		a, err := ParseAggregation(s)
		if err != nil || !strings.EqualFold(a.String(), strings.TrimSpace(s)) {
			t.Errorf("%q: %v %v", s, a, err)
		}
	}
	if _, err := ParseAggregation("median"); err == nil {
		t.Error("median accepted")
	}
}
