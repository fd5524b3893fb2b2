package raster

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// smooth is a terrain-like float32 field (for realistic compression).
func smooth(w, h int) []float64 {
	v := make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			f := 300 + 120*math.Sin(float64(x)/53)*math.Cos(float64(y)/71) + 15*math.Sin(float64(x*y)/9000)
			v[y*w+x] = float64(float32(math.Round(f*100) / 100))
		}
	}
	return v
}

// benchRaster is 1°×1° at 3 arc-seconds (1200×1200 pixels), aligned.
const benchN = 1200

func benchFrames(b *testing.B, data []byte, agg Aggregation) {
	r, err := openBytes(data, "bench.tif")
	if err != nil {
		b.Fatal(err)
	}
	px := float64(r.Width() * r.Height())
	b.SetBytes(int64(r.Width() * r.Height() * r.bytesPS))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		err := r.Frames(context.Background(), 1, agg, func(uint64, float64) error { n++; return nil })
		if err != nil || n == 0 {
			b.Fatal(err, n)
		}
	}
	b.ReportMetric(px*float64(b.N)/b.Elapsed().Seconds(), "pixels/s")
}

func benchOpts() encOpts {
	o := defaultOpts()
	o.x0, o.y0, o.dx, o.dy, o.nodata = 7, 10, 1.0/1200, 1.0/1200, "-9999"
	return o
}

// BenchmarkFrames decodes and aggregates a 1200×1200 float32 raster. The
// LZW case (the brief's reference) needs GDAL to make the file.
func BenchmarkFrames(b *testing.B) {
	vals := smooth(benchN, benchN)
	b.Run("deflate-pred3-strips/sum", func(b *testing.B) {
		o := benchOpts()
		o.comp, o.pred, o.rowsPerStrip = compDeflate, predFloatingPnt, 1
		benchFrames(b, encodeTIFF(b, benchN, benchN, [][]float64{vals}, o), Sum)
	})
	b.Run("uncompressed-strips/mean", func(b *testing.B) {
		o := benchOpts()
		o.rowsPerStrip = 2
		benchFrames(b, encodeTIFF(b, benchN, benchN, [][]float64{vals}, o), Mean)
	})
	b.Run("unaligned-1/1000-deflate/mean", func(b *testing.B) {
		o := benchOpts()
		o.comp, o.rowsPerStrip, o.x0, o.dx, o.dy = compDeflate, 4, 7.0003, 1.0/1000, 1.0/1000
		benchFrames(b, encodeTIFF(b, benchN, benchN, [][]float64{vals}, o), Mean)
	})
	b.Run("classes-uint8-deflate/mode", func(b *testing.B) {
		cls := make([]float64, len(vals))
		for i, v := range vals {
			cls[i] = float64(int(v/40) % 8)
		}
		o := benchOpts()
		o.kind, o.comp, o.pred, o.rowsPerStrip, o.nodata = kU8, compDeflate, predHorizontal, 8, "255"
		benchFrames(b, encodeTIFF(b, benchN, benchN, [][]float64{cls}, o), Mode)
	})
	for _, lzw := range []struct {
		name string
		co   []string
	}{
		{"lzw-pred3-tiled/sum", []string{"COMPRESS=LZW", "PREDICTOR=3", "TILED=YES"}},
		{"lzw-strips/sum", []string{"COMPRESS=LZW"}},
	} {
		b.Run(lzw.name, func(b *testing.B) {
			if _, err := exec.LookPath("gdal_translate"); err != nil {
				b.Skip("gdal-bin not installed: gdal_translate absent")
			}
			dir := b.TempDir()
			src, dst := filepath.Join(dir, "src.tif"), filepath.Join(dir, "lzw.tif")
			writeFile(b, src, encodeTIFF(b, benchN, benchN, [][]float64{vals}, benchOpts()))
			args := []string{"-q"}
			for _, c := range lzw.co {
				args = append(args, "-co", c)
			}
			runTool(b, "gdal_translate", append(args, src, dst)...)
			data, err := os.ReadFile(dst)
			if err != nil {
				b.Fatal(err)
			}
			benchFrames(b, data, Sum)
		})
	}
}

// BenchmarkAggregateAligned times the aggregation alone on decoded rows.
func BenchmarkAggregateAligned(b *testing.B) {
	vals := smooth(benchN, 10)
	o := benchOpts()
	r := mustOpen(b, encodeTIFF(b, benchN, 10, [][]float64{vals}, o))
	b.SetBytes(int64(benchN * 10 * 4))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a, err := r.newAggregator(Sum, func(uint64, float64) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		for y := 0; y < 10; y++ {
			if err := a.addRow(y, vals[y*benchN:(y+1)*benchN]); err != nil {
				b.Fatal(err)
			}
		}
		if err := a.finish(); err != nil {
			b.Fatal(err)
		}
	}
}
