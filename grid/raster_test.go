package grid

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// runCells expands runs to cell ids (for small fixtures only).
func runCells(runs []Run) []uint64 {
	var ids []uint64
	for _, r := range runs {
		for c := r.Col0; c <= r.Col1; c++ {
			ids = append(ids, CellID(int(r.Row), int(c)))
		}
	}
	return ids
}

// bruteCells lists, in id order, the cells near m whose closed square
// intersects it, one IntersectsBox call per cell.
func bruteCells(m MultiPolygon) []uint64 {
	b := m.Bounds()
	r0, r1 := RowSpan(b.MinLat, b.MaxLat)
	c0, c1 := ColSpan(b.MinLon, b.MaxLon)
	var ids []uint64
	for r := max(r0-1, 0); r <= min(r1+1, Rows-1); r++ {
		for c := max(c0-1, 0); c <= min(c1+1, Cols-1); c++ {
			if m.IntersectsBox(CellBox(r, c)) {
				ids = append(ids, CellID(r, c))
			}
		}
	}
	return ids
}

// checkRuns fails unless runs are sorted by row then column, inside the
// lattice, and merged (no two runs of a row overlap or touch).
func checkRuns(t *testing.T, runs []Run) {
	t.Helper()
	for i, r := range runs {
		if r.Row < 0 || r.Row >= Rows || r.Col0 < 0 || r.Col1 >= Cols || r.Col0 > r.Col1 {
			t.Fatalf("run %d %+v outside the lattice", i, r)
		}
		if i > 0 {
			p := runs[i-1]
			if p.Row > r.Row || (p.Row == r.Row && p.Col1+1 >= r.Col0) {
				t.Fatalf("runs %d %+v and %d %+v not sorted and merged", i-1, p, i, r)
			}
		}
	}
}

// block returns the closed ring around the lattice cells rows r0..r1, cols c0..c1.
func block(r0, c0, r1, c1 int) Ring {
	return square(Box{Lon(c0), Lat(r1 + 1), Lon(c1 + 1), Lat(r0)})
}

func TestRasterizeCases(t *testing.T) {
	const R, C = 9700, 22400
	tests := []struct {
		name  string
		m     MultiPolygon
		count int
	}{
		{"empty", nil, 0},
		{"NaN", MultiPolygon{{{{math.NaN(), 1}, {2, 2}, {2, 1}, {math.NaN(), 1}}}}, 0},
		{"out of range", MultiPolygon{{{{0, 0}, {200, 0}, {0, 1}, {0, 0}}}}, 0},
		// One cell's own square touches its 8 neighbours too (closed squares).
		{"one cell", MultiPolygon{{block(R, C, R, C)}}, 9},
		{"3x4 block", MultiPolygon{{block(R, C, R+2, C+3)}}, 5 * 6},
		{"tiny inside one cell", MultiPolygon{{square(Box{Lon(C) + 0.001, Lat(R+1) + 0.001, Lon(C) + 0.002, Lat(R+1) + 0.002})}}, 1},
		// A 7x7 block with a 3x3 hole: the hole's middle cell touches no
		// edge and is out; the cells around it touch the hole's edges.
		{"block with hole", MultiPolygon{{block(R, C, R+6, C+6), block(R+2, C+2, R+4, C+4)}}, 9*9 - 1},
		// A hole of a single cell: no cell is wholly inside it.
		{"one-cell hole", MultiPolygon{{block(R, C, R+4, C+4), block(R+2, C+2, R+2, C+2)}}, 7 * 7},
		{"overlapping parts", MultiPolygon{{block(R, C, R+1, C+1)}, {block(R+1, C+1, R+2, C+2)}}, 5*5 - 2},
		{"point ring", MultiPolygon{{{{Lon(C) + 0.001, Lat(R+1) + 0.001}}}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := Rasterize(tc.m)
			checkRuns(t, runs)
			got := runCells(runs)
			if len(got) != tc.count {
				t.Fatalf("Rasterize gives %d cells, want %d: %v", len(got), tc.count, runs)
			}
			if tc.count > 0 {
				if want := bruteCells(tc.m); !slices.Equal(got, want) {
					t.Fatalf("Rasterize %v\nbrute force %v", got, want)
				}
			}
		})
	}
}

func TestRasterizeAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	total := 0
	for i := 0; i < 300; i++ {
		cx := 3 + rng.Float64()*10
		cy := 4 + rng.Float64()*9
		size := (1 + rng.Float64()*6) / CellsPerDegree // 1 to 7 cells across
		outer := starRing(rng, cx, cy, size*0.6, size, 3+rng.IntN(12), i%2 == 0)
		p := Polygon{outer}
		if i%3 != 0 {
			p = append(p, starRing(rng, cx, cy, size*0.1, size*0.5, 3+rng.IntN(8), i%2 == 1))
		}
		if i%4 == 0 {
			// Snap every vertex to the lattice (corners and lines exactly):
			// edges run along grid lines and through corners.
			for _, r := range p {
				for k := range r {
					row, col := CellAt(r[k][1], r[k][0])
					if rng.IntN(2) == 0 {
						r[k] = Point{Lon(col), Lat(row)}
					} else {
						r[k] = Point{(Lon(col) + Lon(col+1)) / 2, Lat(row)}
					}
				}
			}
		}
		m := MultiPolygon{p}
		if i%5 == 0 {
			m = append(m, Polygon{starRing(rng, cx+size, cy, size*0.3, size*0.8, 5, true)})
		}
		runs := Rasterize(m)
		checkRuns(t, runs)
		got, want := runCells(runs), bruteCells(m)
		if !slices.Equal(got, want) {
			t.Fatalf("polygon %d: Rasterize %d cells, brute force %d\nrasterize %v\nbrute     %v\npolygon %v",
				i, len(got), len(want), got, want, m)
		}
		total += len(got)
	}
	if total < 5000 {
		t.Fatalf("only %d cells compared; the fixtures are too small", total)
	}
}

func TestRasterizeNigeria(t *testing.T) {
	m := readNGAGeometries(t, "nga_country.geojson")[0]
	runs := Rasterize(m)
	checkRuns(t, runs)
	n := 0
	for _, r := range runs {
		n += r.Len()
	}
	// gdal_rasterize -at finds 1,086,885 (SOURCES.md); ours must be within 0.1%.
	const gdal = 1086885
	if d := math.Abs(float64(n-gdal)) / gdal; d > 0.001 {
		t.Fatalf("Nigeria: %d cells, gdal_rasterize -at %d (off by %.3f%%)", n, gdal, d*100)
	}
	// Rows and columns of the bounding box in SOURCES.md: 1155 x 1439 from
	// lon 2.691667, lat 13.891667.
	r0, _ := CellAt(13.891666666666667, 0)
	if runs[0].Row != int32(r0) || runs[len(runs)-1].Row != int32(r0+1154) {
		t.Fatalf("rows %d..%d, want %d..%d", runs[0].Row, runs[len(runs)-1].Row, r0, r0+1154)
	}
	// Spot check: a sample of cells against IntersectsBox.
	rng := rand.New(rand.NewPCG(13, 14))
	in := map[uint64]bool{}
	for _, id := range runCellsSample(runs, rng, 2000) {
		in[id] = true
	}
	for id := range in {
		row, col, _ := RowCol(id)
		if !m.IntersectsBox(CellBox(row, col)) {
			t.Fatalf("cell %d rasterized but does not touch the outline", id)
		}
	}
	t.Logf("Nigeria: %d cells in %d runs (gdal -at %d)", n, len(runs), gdal)
}

// runCellsSample returns k random cells of the runs.
func runCellsSample(runs []Run, rng *rand.Rand, k int) []uint64 {
	var ids []uint64
	for i := 0; i < k; i++ {
		r := runs[rng.IntN(len(runs))]
		ids = append(ids, CellID(int(r.Row), int(r.Col0)+rng.IntN(r.Len())))
	}
	return ids
}

func BenchmarkRasterizeNigeria(b *testing.B) {
	m := readNGAGeometries(b, "nga_country.geojson")[0]
	b.ReportAllocs()
	for b.Loop() {
		Rasterize(m)
	}
}

func TestMergeRuns(t *testing.T) {
	tests := []struct {
		name string
		in   []Run
		want []Run
	}{
		{"empty", nil, nil},
		{"sorts and merges", []Run{{5, 10, 12}, {4, 1, 2}, {5, 13, 14}, {5, 1, 3}, {5, 2, 4}},
			[]Run{{4, 1, 2}, {5, 1, 4}, {5, 10, 14}}},
		{"keeps a gap", []Run{{1, 1, 2}, {1, 4, 5}}, []Run{{1, 1, 2}, {1, 4, 5}}},
		{"drops and clamps", []Run{{-1, 0, 1}, {Rows, 0, 1}, {2, 5, 4}, {3, -5, 2}, {3, Cols - 2, Cols + 5}},
			[]Run{{3, 0, 2}, {3, Cols - 2, Cols - 1}}},
		{"contained", []Run{{1, 1, 10}, {1, 3, 4}}, []Run{{1, 1, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got := MergeRuns(tc.in)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("MergeRuns = %v, want %v", got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Fatalf("MergeRuns modified its input")
			}
		})
	}
}

func TestDetectLattice(t *testing.T) {
	cell := func(row, col int) Frame {
		return Frame{ID: CellID(row, col), Geom: MultiPolygon{cellPolygon(row, col)}}
	}
	rotated := cell(10, 21)
	r := rotated.Geom[0][0]
	rotated.Geom = MultiPolygon{{Ring{r[2], r[3], r[0], r[1], r[2]}}}
	clockwise := cell(10, 22)
	r = clockwise.Geom[0][0]
	clockwise.Geom = MultiPolygon{{Ring{r[0], r[3], r[2], r[1], r[0]}}}
	decimals := cell(10, 23)
	decimals.Geom = MultiPolygon{{square(Box{
		dec(t, string(AppendCoord(nil, Lon(23)))), dec(t, string(AppendCoord(nil, Lat(11)))),
		dec(t, string(AppendCoord(nil, Lon(24)))), dec(t, string(AppendCoord(nil, Lat(10)))),
	})}}
	bowtie := cell(10, 20)
	r = bowtie.Geom[0][0]
	bowtie.Geom = MultiPolygon{{Ring{r[0], r[2], r[1], r[3], r[0]}}}
	shifted := cell(10, 20)
	shifted.Geom = MultiPolygon{{square(Box{Lon(20) + 2e-7, Lat(11), Lon(21), Lat(10)})}}
	withHole := cell(10, 20)
	withHole.Geom = MultiPolygon{{square(CellBox(10, 20)), square(Box{Lon(20) + 0.001, Lat(11) + 0.001, Lon(20) + 0.002, Lat(11) + 0.002})}}
	twoParts := cell(10, 20)
	twoParts.Geom = append(twoParts.Geom, cellPolygon(10, 20))
	wrongID := cell(10, 20)
	wrongID.ID++

	tests := []struct {
		name   string
		frames []Frame
		runs   []Run
		ok     bool
	}{
		{"empty", nil, nil, false},
		{"cells in any order", []Frame{cell(11, 5), cell(10, 20), cell(10, 19), cell(11, 7), cell(11, 6), rotated, clockwise, decimals},
			[]Run{{10, 19, 23}, {11, 5, 7}}, true},
		{"duplicate id", []Frame{cell(10, 20), cell(10, 20)}, nil, false},
		{"corners crossed", []Frame{bowtie}, nil, false},
		{"off by 2e-7", []Frame{shifted}, nil, false},
		{"with a hole", []Frame{withHole}, nil, false},
		{"two parts", []Frame{twoParts}, nil, false},
		{"id of another cell", []Frame{wrongID}, nil, false},
		{"id beyond the lattice", []Frame{{ID: MaxID + 1, Geom: MultiPolygon{cellPolygon(0, 0)}}}, nil, false},
		{"one bad among good", []Frame{cell(10, 20), cell(10, 21), shifted}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, ok := DetectLattice(tc.frames)
			if ok != tc.ok || !slices.Equal(runs, tc.runs) {
				t.Fatalf("DetectLattice = %v, %v; want %v, %v", runs, ok, tc.runs, tc.ok)
			}
		})
	}
}
