package raster

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"

	"frameindex/grid"
)

// cell is a frame's width in degrees.
const cell = 1.0 / grid.CellsPerDegree

// eachOverlap calls fn, in scan order, for every valid (not NaN) pixel of
// a w x h raster of dx x dy degree pixels from the corner (x0, y0) and
// every frame it overlaps, with the overlap's area in square degrees.
// Overlaps thinner than 1e-9 of a frame are rounding and left out.
func eachOverlap(w, h int, vals []float64, x0, y0, dx, dy float64, fn func(v float64, id uint64, area float64)) {
	const tiny = 1e-9 / grid.CellsPerDegree
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := vals[y*w+x]
			if math.IsNaN(v) {
				continue
			}
			west, east := x0+float64(x)*dx, x0+float64(x+1)*dx
			north, south := y0-float64(y)*dy, y0-float64(y+1)*dy
			r0, r1 := int((90-north)*grid.CellsPerDegree)-1, int((90-south)*grid.CellsPerDegree)+1
			c0, c1 := int((west+180)*grid.CellsPerDegree)-1, int((east+180)*grid.CellsPerDegree)+1
			for row := max(r0, 0); row <= min(r1, grid.Rows-1); row++ {
				for col := max(c0, 0); col <= min(c1, grid.Cols-1); col++ {
					b := grid.CellBox(row, col)
					ox := math.Min(east, b.MaxLon) - math.Max(west, b.MinLon)
					oy := math.Min(north, b.MaxLat) - math.Max(south, b.MinLat)
					if ox > tiny && oy > tiny {
						fn(v, grid.CellID(row, col), ox*oy)
					}
				}
			}
		}
	}
}

// bruteFrames aggregates by the definition, independently of the package's
// span tables: every pixel against every frame it may touch, overlap areas
// computed in degrees.
func bruteFrames(w, h int, vals []float64, x0, y0, dx, dy float64, agg Aggregation) map[uint64]float64 {
	type acc struct{ s, a float64 }
	sums := map[uint64]*acc{}
	modes := map[uint64]map[float64]float64{}
	eachOverlap(w, h, vals, x0, y0, dx, dy, func(v float64, id uint64, area float64) {
		switch agg {
		case Sum, Mean:
			a := sums[id]
			if a == nil {
				a = &acc{}
				sums[id] = a
			}
			a.s += v * area
			a.a += area
		case Mode:
			if modes[id] == nil {
				modes[id] = map[float64]float64{}
			}
			modes[id][v] += area
		}
	})
	out := map[uint64]float64{}
	for id, a := range sums {
		if agg == Sum {
			out[id] = a.s / (dx * dy)
		} else {
			out[id] = a.s / a.a
		}
	}
	for id, m := range modes {
		best, bestA := math.Inf(1), -1.0
		for v, a := range m {
			if a > bestA*(1+1e-9) || math.Abs(a-bestA) <= bestA*1e-9 && v < best {
				best, bestA = v, a
			}
		}
		out[id] = best
	}
	return out
}

// collect runs Frames and checks the emission order.
func collect(t testing.TB, r *Raster, band int, agg Aggregation, opts ...Option) map[uint64]float64 {
	t.Helper()
	out := map[uint64]float64{}
	var last uint64
	first := true
	err := r.Frames(context.Background(), band, agg, func(id uint64, v float64) error {
		if !first && id <= last {
			return fmt.Errorf("frame %d emitted after %d", id, last)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("frame %d: value %v", id, v)
		}
		first, last = false, id
		out[id] = v
		return nil
	}, opts...)
	if err != nil {
		t.Fatalf("Frames: %v", err)
	}
	return out
}

// compareFrames compares frame values to rel relative error, measured
// against the larger of the value and scale (the pixels' magnitude, since a
// mean of large values of either sign can be near 0).
func compareFrames(t *testing.T, got, want map[uint64]float64, rel, scale float64) {
	t.Helper()
	bad := 0
	for id, w := range want {
		g, ok := got[id]
		if !ok || math.Abs(g-w) > rel*math.Max(scale, math.Abs(w)) {
			if bad++; bad <= 5 {
				row, col, _ := grid.RowCol(id)
				t.Errorf("frame %d (row %d col %d): got %v (present %v), want %v", id, row, col, g, ok, w)
			}
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			if bad++; bad <= 5 {
				row, col, _ := grid.RowCol(id)
				t.Errorf("frame %d (row %d col %d): got %v, want no value", id, row, col, g)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d frames differ in all (%d got, %d want)", bad, len(got), len(want))
	}
}

func TestFramesAgainstDefinition(t *testing.T) {
	tests := []struct {
		name           string
		w, h           int
		x0, y0, dx, dy float64
		point          bool
		classes        bool
	}{
		{"aligned 3 arc-seconds", 40, 30, 3 + 5*cell, 10 - 7*cell, cell / 10, cell / 10, false, false},
		{"aligned 15 arc-seconds", 9, 7, 7, 9, cell / 2, cell / 2, false, false},
		{"aligned pixel is point", 40, 30, 3, 10, cell / 10, cell / 10, true, false},
		{"unaligned 1/97", 23, 17, 3 + 1.0/97/3, 10 - 1.0/97/3, 1.0 / 97, 1.0 / 97, false, false},
		{"unaligned offset 3 arc-seconds", 35, 26, 3 + cell/30, 10 - cell/7, cell / 10, cell / 10, false, false},
		{"large pixels 1/50", 7, 5, 3.001, 9.999, 1.0 / 50, 1.0 / 50, false, false},
		{"very large pixels", 3, 2, 2.95, 10.02, 0.07, 0.05, false, false},
		{"non-square", 30, 20, 3.0004, 10, 1.0 / 1000, 1.0 / 700, false, false},
		{"across the antimeridian", 30, 10, 180 - 15*cell/10 - 0.0001, -10, cell / 10, cell / 10, false, false},
		{"over the north pole", 10, 10, 0, 90 + 3*cell/7, cell / 7, cell / 7, false, false},
		{"aligned classes", 40, 30, 3 + 5*cell, 10 - 7*cell, cell / 10, cell / 10, false, true},
		{"unaligned classes", 23, 17, 3 + 1.0/97/3, 10 - 1.0/97/3, 1.0 / 97, 1.0 / 97, false, true},
		{"large pixel classes", 7, 5, 3.001, 9.999, 1.0 / 50, 1.0 / 50, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals := make([]float64, tt.w*tt.h)
			for i := range vals {
				if tt.classes {
					vals[i] = float64((i*7 + i/tt.w*3) % 4)
				} else {
					vals[i] = pattern(kF32, 0, i%tt.w, i/tt.w)
				}
				if i%13 == 5 {
					vals[i] = -9999
				}
			}
			// A nodata corner: a whole frame's worth when the pixels are small.
			for y := 0; y < min(tt.h/3, 10); y++ {
				for x := 0; x < min(tt.w/3, 10); x++ {
					vals[y*tt.w+x] = -9999
				}
			}
			o := defaultOpts()
			o.x0, o.y0, o.dx, o.dy, o.pointRaster, o.nodata = tt.x0, tt.y0, tt.dx, tt.dy, tt.point, "-9999"
			o.comp, o.pred, o.rowsPerStrip = compDeflate, predFloatingPnt, 3
			r := mustOpen(t, encodeTIFF(t, tt.w, tt.h, [][]float64{vals}, o))
			missing := make([]float64, len(vals))
			for i, v := range vals {
				missing[i] = v
				if v == -9999 {
					missing[i] = math.NaN()
				}
			}
			aggs := []Aggregation{Sum, Mean}
			if tt.classes {
				aggs = []Aggregation{Mode}
			}
			for _, agg := range aggs {
				t.Run(agg.String(), func(t *testing.T) {
					want := bruteFrames(tt.w, tt.h, missing, tt.x0, tt.y0, tt.dx, tt.dy, agg)
					if len(want) == 0 {
						t.Fatal("test case covers no frame")
					}
					compareFrames(t, collect(t, r, 1, agg), want, 1e-9, 1000)
				})
			}
		})
	}
}

// TestSumKeepsTotal checks that Sum preserves the raster total for a raster
// well inside the world, whatever the alignment.
func TestSumKeepsTotal(t *testing.T) {
	for _, d := range []float64{1.0 / 1200, 1.0 / 97, 1.0 / 50, 0.3} {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			w, h := 31, 17
			bands := makeBands(kF32, 1, w, h)
			o := defaultOpts()
			o.x0, o.y0, o.dx, o.dy = 3+d/3, 10-d/5, d, d
			r := mustOpen(t, encodeTIFF(t, w, h, bands, o))
			total := 0.0
			for _, v := range bands[0] {
				total += v
			}
			got := 0.0
			for _, v := range collect(t, r, 1, Sum) {
				got += v
			}
			if math.Abs(got-total) > 1e-9*math.Abs(total) {
				t.Fatalf("frames total %v, raster total %v", got, total)
			}
		})
	}
}

// TestAlignedCellValues spells out a 3 arc-second case by hand.
func TestAlignedCellValues(t *testing.T) {
	w, h := 20, 10 // 2 frames side by side
	vals := make([]float64, w*h)
	for i := range vals {
		if i%w < 10 {
			vals[i] = 1 // west frame: all ones
		} else {
			vals[i] = float64(i % 3) // east frame: 0,1,2 pattern
		}
	}
	for x := 10; x < 20; x++ {
		vals[x] = -1 // east frame's first row is nodata
	}
	o := defaultOpts()
	o.x0, o.y0, o.dx, o.dy, o.nodata, o.kind = 7, 9, cell/10, cell/10, "-1", kI16
	r := mustOpen(t, encodeTIFF(t, w, h, [][]float64{vals}, o))
	row, col := grid.CellAt(9-cell/2, 7+cell/2)
	west, east := grid.CellID(row, col), grid.CellID(row, col+1)
	var eastSum float64
	counts := map[float64]int{}
	for y := 1; y < h; y++ {
		for x := 10; x < 20; x++ {
			eastSum += vals[y*w+x]
			counts[vals[y*w+x]]++
		}
	}
	mode := 0.0
	for v, n := range counts {
		if n > counts[mode] || n == counts[mode] && v < mode {
			mode = v
		}
	}
	for _, c := range []struct {
		agg        Aggregation
		west, east float64
	}{{Sum, 100, eastSum}, {Mean, 1, eastSum / 90}, {Mode, 1, mode}} {
		got := collect(t, r, 1, c.agg)
		if len(got) != 2 || got[west] != c.west || math.Abs(got[east]-c.east) > 1e-12 {
			t.Errorf("%v: got %v, want %d=%v %d=%v", c.agg, got, west, c.west, east, c.east)
		}
	}
}

func TestModeTies(t *testing.T) {
	// One frame of 2×2 pixels: two 5s and two 3s; the tie goes to 3.
	vals := []float64{5, 3, 3, 5}
	o := defaultOpts()
	o.x0, o.y0, o.dx, o.dy = 7, 9, cell/2, cell/2
	r := mustOpen(t, encodeTIFF(t, 2, 2, [][]float64{vals}, o))
	got := collect(t, r, 1, Mode)
	for _, v := range got {
		if v != 3 {
			t.Fatalf("mode %v, want 3", v)
		}
	}
}

func TestWorkersAgree(t *testing.T) {
	w, h := 333, 101
	o := defaultOpts()
	o.tiled, o.tileW, o.tileH, o.comp, o.pred = true, 64, 32, compDeflate, predFloatingPnt
	o.x0, o.dx, o.dy = 3.0001, 1.0/1111, 1.0/999
	r := mustOpen(t, encodeTIFF(t, w, h, makeBands(kF32, 1, w, h), o))
	one := collect(t, r, 1, Mean, WithWorkers(1))
	four := collect(t, r, 1, Mean, WithWorkers(4))
	ids := make([]uint64, 0, len(one))
	for id := range one {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if len(one) != len(four) {
		t.Fatalf("%d vs %d frames", len(one), len(four))
	}
	for _, id := range ids {
		if one[id] != four[id] {
			t.Fatalf("frame %d: %v vs %v", id, one[id], four[id])
		}
	}
}

func nan() float64 { return math.NaN() }
