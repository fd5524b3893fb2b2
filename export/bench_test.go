package export

import (
	"path/filepath"
	"strconv"
	"testing"

	"frameindex/grid"
)

// benchmarkWrite writes 100,000 lattice cells (a 400 x 250 block in
// Nigeria) with a number and a text column per op.
func benchmarkWrite(b *testing.B, ext string) {
	const rows, cols = 250, 400
	r0, c0 := grid.CellAt(10.0, 5.0)
	names := make([]string, cols)
	for i := range names {
		names[i] = "ward " + strconv.Itoa(i)
	}
	opts := Options{Columns: []Column{{"population", Number}, {"ward", Text}}}
	b.ReportAllocs()
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		w, err := Create(filepath.Join(dir, "grid"+ext), opts)
		if err != nil {
			b.Fatal(err)
		}
		vals := make([]any, 2)
		for r := r0; r < r0+rows; r++ {
			for c := c0; c < c0+cols; c++ {
				vals[0], vals[1] = float64(r+c), names[c-c0]
				if err := w.Write(Frame{ID: grid.CellID(r, c), Values: vals}); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*cols*b.N)/b.Elapsed().Seconds(), "frames/s")
}

func BenchmarkWriteGPKG(b *testing.B)     { benchmarkWrite(b, ".gpkg") }
func BenchmarkWriteFGB(b *testing.B)      { benchmarkWrite(b, ".fgb") }
func BenchmarkWriteGeoJSONL(b *testing.B) { benchmarkWrite(b, ".geojsonl") }
