package raster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errEnough = errors.New("enough")

// FuzzOpen feeds arbitrary bytes to Open and, when they open as a raster of
// modest size, to Frames with each aggregation and to Rows. Nothing may
// panic; errors are expected.
func FuzzOpen(f *testing.F) {
	seed := func(w, h int, o encOpts, n int) {
		f.Add(encodeTIFF(f, w, h, makeBands(o.kind, n, w, h), o))
	}
	o := defaultOpts()
	seed(5, 4, o, 1)
	o.comp, o.pred, o.rowsPerStrip, o.nodata = compDeflate, predFloatingPnt, 2, "-1"
	seed(6, 5, o, 1)
	o = defaultOpts()
	o.kind, o.comp, o.pred, o.tiled, o.tileW, o.tileH, o.big, o.be = kI16, compDeflate, predHorizontal, true, 16, 16, true, true
	seed(20, 17, o, 2)
	o = defaultOpts()
	o.kind, o.comp, o.planar, o.matrix, o.pointRaster = kU8, compPackBits, true, true, true
	seed(7, 3, o, 3)
	o = defaultOpts()
	o.dx, o.dy = 0.3, 0.2
	seed(3, 3, o, 1)
	for _, fx := range lzwFixtures {
		if b, err := os.ReadFile(filepath.Join("testdata", fx.file)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := openBytes(data, "fuzz.tif")
		if err != nil {
			return
		}
		_ = r.Describe()
		b := r.Bounds()
		frames := (b.MaxLon - b.MinLon) * (b.MaxLat - b.MinLat) * 14400
		if r.Width()*r.Height() > 1<<20 || frames > 1<<22 {
			return // a valid but large raster: fine, but too slow to fuzz
		}
		ctx := context.Background()
		for _, agg := range []Aggregation{Sum, Mean, Mode} {
			n := 0
			_ = r.Frames(ctx, 1+int(data[len(data)-1])%r.Bands(), agg, func(uint64, float64) error {
				if n++; n > 1<<16 {
					return errEnough
				}
				return nil
			}, WithWorkers(2))
		}
		_ = r.Rows(ctx, r.Bands(), func(int, []float64) error { return nil })
	})
}

// FuzzFrames aggregates small rasters with arbitrary georeferencing and
// checks the invariants of each aggregation: ascending ids, finite values,
// Sum keeps the total of a raster inside the world, a Mean lies between
// the pixel values, a Mode is one of them.
func FuzzFrames(f *testing.F) {
	const cell = 1.0 / 120
	f.Add(3.0, 10.0, cell/10, cell/10, uint8(20), uint8(10), uint8(0), uint64(1))
	f.Add(3.0+1.0/291, 10.0, 1.0/97, 1.0/97, uint8(30), uint8(17), uint8(1), uint64(2))
	f.Add(2.999, 10.001, 1.0/50, 1.0/60, uint8(7), uint8(5), uint8(2), uint64(3))
	f.Add(179.99, 0.005, cell/7, cell/3, uint8(40), uint8(9), uint8(0), uint64(4))
	f.Add(-180.0, 90.0, 0.5, 0.25, uint8(3), uint8(3), uint8(1), uint64(5))
	f.Fuzz(func(t *testing.T, x0, y0, dx, dy float64, w8, h8, aggSel uint8, seed uint64) {
		w, h := int(w8)%48+1, int(h8)%48+1
		vals := make([]float64, w*h)
		lo, hi, total, abs := math.Inf(1), math.Inf(-1), 0.0, 0.0
		classes := map[float64]bool{}
		agg := []Aggregation{Sum, Mean, Mode}[int(aggSel)%3]
		for i := range vals {
			seed = seed*6364136223846793005 + 1442695040888963407
			v := float64(int64(seed>>40)%2001-1000) / 8
			if agg == Mode {
				v = float64(seed >> 61)
			}
			if seed>>32%17 == 0 {
				v = -9999
			} else {
				lo, hi, total, abs = math.Min(lo, v), math.Max(hi, v), total+v, abs+math.Abs(v)
				classes[v] = true
			}
			vals[i] = v
		}
		o := defaultOpts()
		o.x0, o.y0, o.dx, o.dy, o.nodata, o.comp, o.rowsPerStrip = x0, y0, dx, dy, "-9999", compDeflate, 3
		r, err := openBytes(encodeTIFF(t, w, h, [][]float64{vals}, o), "fuzz.tif")
		if err != nil {
			return
		}
		b := r.Bounds()
		if (math.Min(b.MaxLon, 180)-math.Max(b.MinLon, -180))*(math.Min(b.MaxLat, 90)-math.Max(b.MinLat, -90))*14400 > 1<<16 {
			return // too many frames to fuzz quickly
		}
		var last uint64
		n, sum := 0, 0.0
		err = r.Frames(context.Background(), 1, agg, func(id uint64, v float64) error {
			if n > 0 && id <= last {
				return fmt.Errorf("frame %d after %d", id, last)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("frame %d: %v", id, v)
			}
			tol := 1e-9 * math.Max(1, math.Max(math.Abs(lo), math.Abs(hi)))
			switch agg {
			case Mean:
				if v < lo-tol || v > hi+tol {
					return fmt.Errorf("frame %d: mean %v outside [%v, %v]", id, v, lo, hi)
				}
			case Mode:
				if !classes[v] {
					return fmt.Errorf("frame %d: mode %v is no pixel's value", id, v)
				}
			}
			last, n, sum = id, n+1, sum+v
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), "more than the") {
			t.Fatal(err)
		}
		inside := b.MinLon >= -180 && b.MaxLon <= 180 && b.MinLat >= -90 && b.MaxLat <= 90
		if err == nil && agg == Sum && inside && math.Abs(sum-total) > 1e-9*math.Max(abs, 1) {
			t.Fatalf("frames total %v, pixels total %v (%s)", sum, total, r.Describe())
		}
	})
}
