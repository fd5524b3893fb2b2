package index

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tidwall/rtree"

	"frameindex/grid"
)

var (
	nationalOnce sync.Once
	nationalRuns []grid.Run
)

// national returns the runs of the national grid: the lattice cells
// touching Nigeria's real outline when ../../shared/data/nga is present,
// else a generated blob of the same size (about 1,155 rows x 1,439 columns,
// 1.1 million cells).
func national(b *testing.B) []grid.Run {
	b.Helper()
	nationalOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "nga", "nga_country.geojson"))
		if err == nil {
			err = grid.ReadFeatures(bytes.NewReader(raw), func(_ int, f grid.InFeature) error {
				m, err := grid.ParseGeometry(f.Geometry)
				if err == nil {
					nationalRuns = grid.Rasterize(m)
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			return
		}
		if !errors.Is(err, os.ErrNotExist) {
			b.Fatal(err)
		}
		// An ellipse-like blob with a ragged edge, several runs a row.
		rng := rand.New(rand.NewPCG(31, 32))
		r0, c0 := grid.CellAt(13.89, 2.69)
		for i := 0; i < 1155; i++ {
			y := float64(i)/1155*2 - 1
			half := int(719 * (1 - 0.6*y*y))
			mid := c0 + 720
			gap := rng.IntN(40)
			nationalRuns = append(nationalRuns,
				grid.Run{Row: int32(r0 + i), Col0: int32(mid - half), Col1: int32(mid - gap - 1)},
				grid.Run{Row: int32(r0 + i), Col0: int32(mid + gap), Col1: int32(mid + half)})
		}
	})
	return nationalRuns
}

// pointsIn returns n random points in b.
func pointsIn(b grid.Box, n int) []grid.Point {
	rng := rand.New(rand.NewPCG(33, 34))
	pts := make([]grid.Point, n)
	for i := range pts {
		pts[i] = grid.Point{b.MinLon + rng.Float64()*(b.MaxLon-b.MinLon), b.MinLat + rng.Float64()*(b.MaxLat-b.MinLat)}
	}
	return pts
}

func BenchmarkAt(b *testing.B) {
	ix := NewLattice(national(b))
	pts := pointsIn(ix.Bounds(), 4096)
	b.ReportAllocs()
	i, found := 0, 0
	for b.Loop() {
		p := pts[i&4095]
		if _, ok := ix.At(p[1], p[0]); ok {
			found++
		}
		i++
	}
	if found == 0 {
		b.Fatal("no point found a frame")
	}
}

// BenchmarkAtRTreeRuns is the alternative the per-row table replaced: the
// runs as R-tree rectangles, searched at the cell's centre.
func BenchmarkAtRTreeRuns(b *testing.B) {
	runs := grid.MergeRuns(national(b))
	var tr rtree.RTreeG[int32]
	for i, r := range runs {
		tr.Insert([2]float64{float64(r.Col0), float64(r.Row)}, [2]float64{float64(r.Col1), float64(r.Row)}, int32(i))
	}
	pts := pointsIn(NewLattice(runs).Bounds(), 4096)
	b.ReportAllocs()
	i, found := 0, 0
	for b.Loop() {
		p := pts[i&4095]
		row, col := grid.CellAt(p[1], p[0])
		q := [2]float64{float64(col), float64(row)}
		tr.Search(q, q, func(_, _ [2]float64, _ int32) bool {
			found++
			return false
		})
		i++
	}
	if found == 0 {
		b.Fatal("no point found a frame")
	}
}

// boxesOf returns n boxes of side cells x cells around random cells of the
// grid, all inside its bounds.
func boxesOf(ix *Index, n, cells int) []grid.Box {
	pts := pointsIn(ix.Bounds(), 50*n)
	var boxes []grid.Box
	side := float64(cells) / grid.CellsPerDegree
	for _, p := range pts {
		b := grid.Box{MinLon: p[0] - side/2, MinLat: p[1] - side/2, MaxLon: p[0] + side/2, MaxLat: p[1] + side/2}
		count := 0
		ix.Box(b, 6000, func(grid.Shape) bool { count++; return true })
		if count >= 5000 {
			boxes = append(boxes, b)
		}
		if len(boxes) == n {
			break
		}
	}
	return boxes
}

func BenchmarkBox5000(b *testing.B) { benchBox5000(b, NewLattice(national(b))) }

// benchBox5000 measures Box with a limit of 5,000 over boxes of ix of 72 x
// 72 cells or a little more: over 5,000 frames.
func benchBox5000(b *testing.B, ix *Index) {
	boxes := boxesOf(ix, 64, 72)
	if len(boxes) == 0 {
		b.Fatal("no box with 5,000 frames")
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		n := 0
		ix.Box(boxes[i%len(boxes)], 5000, func(s grid.Shape) bool { n++; return true })
		if n != 5000 {
			b.Fatalf("%d frames", n)
		}
		i++
	}
}

func BenchmarkBoxCountry(b *testing.B) {
	ix := NewLattice(national(b))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if !ix.Box(ix.Bounds(), 5000, func(s grid.Shape) bool { n++; return true }) || n != 5000 {
			b.Fatalf("%d frames", n)
		}
	}
}

func BenchmarkNewLattice(b *testing.B) {
	runs := national(b)
	b.ReportAllocs()
	for b.Loop() {
		NewLattice(runs)
	}
}

// polygonFrames returns about n square polygon frames: a block of lattice
// cells near Abuja.
func polygonFrames(n int) []grid.Frame {
	side := 1
	for side*side < n {
		side++
	}
	r0, c0 := grid.CellAt(9.5, 7)
	var runs []grid.Run
	for r := 0; r < side; r++ {
		runs = append(runs, grid.Run{Row: int32(r0 + r), Col0: int32(c0), Col1: int32(c0 + side - 1)})
	}
	return squares(cellsOf(runs))
}

func BenchmarkAtPolygons(b *testing.B) {
	ix := NewPolygons(polygonFrames(100000))
	pts := pointsIn(ix.Bounds(), 4096)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pts[i&4095]
		if _, ok := ix.At(p[1], p[0]); !ok {
			b.Fatalf("no frame at %v", p)
		}
		i++
	}
}

func BenchmarkBoxPolygons5000(b *testing.B) { benchBox5000(b, NewPolygons(polygonFrames(100000))) }

func BenchmarkNewPolygons100k(b *testing.B) {
	frames := polygonFrames(100000)
	b.ReportAllocs()
	for b.Loop() {
		NewPolygons(frames)
	}
}
