package index

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"frameindex/grid"
)

// square returns the closed counter-clockwise ring around b.
func square(b grid.Box) grid.Ring {
	return grid.Ring{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}
}

// star returns a closed simple ring of n vertices around (cx, cy).
func star(rng *rand.Rand, cx, cy, rMin, rMax float64, n int) grid.Ring {
	r := make(grid.Ring, 0, n+1)
	for k := 0; k < n; k++ {
		a := 2 * math.Pi * float64(k) / float64(n)
		rad := rMin + rng.Float64()*(rMax-rMin)
		r = append(r, grid.Point{cx + rad*math.Cos(a), cy + rad*math.Sin(a)})
	}
	return append(r, r[0])
}

// cellsOf expands runs to ascending cell ids.
func cellsOf(runs []grid.Run) []uint64 {
	var ids []uint64
	for _, r := range grid.MergeRuns(runs) {
		for c := r.Col0; c <= r.Col1; c++ {
			ids = append(ids, grid.CellID(int(r.Row), int(c)))
		}
	}
	return ids
}

// squares returns one polygon frame per lattice cell: the polygon kind's
// view of the same grid.
func squares(ids []uint64) []grid.Frame {
	frames := make([]grid.Frame, len(ids))
	for i, id := range ids {
		frames[i] = grid.Frame{ID: id, Geom: grid.MultiPolygon{{square(grid.LatticeShape(id).Box)}}}
	}
	return frames
}

// fixtureRuns is a lattice grid of a few hundred cells around Abuja made of
// random star polygons with holes (so rows have several runs), plus a
// scatter of single cells.
func fixtureRuns(rng *rand.Rand) []grid.Run {
	var runs []grid.Run
	for i := 0; i < 4; i++ {
		cx, cy := 7.4+rng.Float64()*0.15, 9+rng.Float64()*0.15
		p := grid.Polygon{star(rng, cx, cy, 0.03, 0.08, 9), star(rng, cx, cy, 0.005, 0.02, 5)}
		runs = append(runs, grid.Rasterize(grid.MultiPolygon{p})...)
	}
	for i := 0; i < 30; i++ {
		row, col := grid.CellAt(9+rng.Float64()*0.2, 7.4+rng.Float64()*0.2)
		runs = append(runs, grid.Run{Row: int32(row), Col0: int32(col), Col1: int32(col)})
	}
	return runs
}

// randomBox returns a box near area: random, on grid lines, degenerate
// (point or line), or reaching outside it.
func randomBox(rng *rand.Rand, area grid.Box, kind int) grid.Box {
	w, h := area.MaxLon-area.MinLon, area.MaxLat-area.MinLat
	lon := func() float64 { return area.MinLon - w*0.2 + rng.Float64()*w*1.4 }
	lat := func() float64 { return area.MinLat - h*0.2 + rng.Float64()*h*1.4 }
	onLine := func(v float64, lonAxis bool) float64 {
		if lonAxis {
			_, c := grid.CellAt(0, v)
			return grid.Lon(c)
		}
		r, _ := grid.CellAt(v, 0)
		return grid.Lat(r)
	}
	x0, x1, y0, y1 := lon(), lon(), lat(), lat()
	switch kind % 6 {
	case 1: // edges exactly on grid lines
		x0, x1, y0, y1 = onLine(x0, true), onLine(x1, true), onLine(y0, false), onLine(y1, false)
	case 2: // a point, half the time on a lattice corner
		x1, y1 = x0, y0
		if rng.IntN(2) == 0 {
			x0, y0 = onLine(x0, true), onLine(y0, false)
			x1, y1 = x0, y0
		}
	case 3: // a horizontal line, on a grid line half the time
		if rng.IntN(2) == 0 {
			y0 = onLine(y0, false)
		}
		y1 = y0
	case 4: // a vertical line
		if rng.IntN(2) == 0 {
			x0 = onLine(x0, true)
		}
		x1 = x0
	case 5: // wide: reaches well past the area on some sides
		x0 -= w * rng.Float64()
		y1 += h * rng.Float64()
	}
	return grid.Box{MinLon: min(x0, x1), MinLat: min(y0, y1), MaxLon: max(x0, x1), MaxLat: max(y0, y1)}
}

// boxIDs runs ix.Box and returns the ids it gave and truncated.
func boxIDs(ix *Index, b grid.Box, limit int) ([]uint64, bool) {
	var ids []uint64
	tr := ix.Box(b, limit, func(s grid.Shape) bool {
		ids = append(ids, s.ID)
		return true
	})
	return ids, tr
}

// checkBox compares ix.Box with want (every frame touching b, ascending)
// at several limits.
func checkBox(t *testing.T, ix *Index, b grid.Box, want []uint64) {
	t.Helper()
	got, tr := boxIDs(ix, b, math.MaxInt)
	if tr || !slices.Equal(got, want) {
		t.Fatalf("Box(%+v) = %v (truncated %v), brute force %v", b, got, tr, want)
	}
	n := len(want)
	for _, limit := range []int{n, n - 1, n / 2, 1, 0, -3} {
		got, tr := boxIDs(ix, b, limit)
		wantN := min(max(limit, 0), n)
		if !slices.Equal(got, want[:wantN]) || tr != (n > max(limit, 0)) {
			t.Fatalf("Box(%+v, limit %d) = %v (truncated %v), want %v (truncated %v)",
				b, limit, got, tr, want[:wantN], n > max(limit, 0))
		}
	}
}

func bruteLatticeBox(cells []uint64, b grid.Box) []uint64 {
	var out []uint64
	for _, id := range cells {
		if grid.LatticeShape(id).Box.Intersects(b) {
			out = append(out, id)
		}
	}
	return out
}

func TestLatticeAndPolygonsAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	runs := fixtureRuns(rng)
	cells := cellsOf(runs)
	if len(cells) < 300 {
		t.Fatalf("fixture has only %d cells", len(cells))
	}
	lat := NewLattice(runs)
	poly := NewPolygons(squares(cells))
	if lat.Len() != len(cells) || poly.Len() != len(cells) {
		t.Fatalf("Len: lattice %d, polygons %d, want %d", lat.Len(), poly.Len(), len(cells))
	}
	var want grid.Box
	for i, id := range cells {
		if i == 0 {
			want = grid.LatticeShape(id).Box
		}
		want = want.Union(grid.LatticeShape(id).Box)
	}
	if lat.Bounds() != want || poly.Bounds() != want {
		t.Fatalf("Bounds: lattice %+v, polygons %+v, want %+v", lat.Bounds(), poly.Bounds(), want)
	}
	area := lat.Bounds()
	nonEmpty := 0
	for i := 0; i < 600; i++ {
		b := randomBox(rng, area, i)
		want := bruteLatticeBox(cells, b)
		if len(want) > 0 {
			nonEmpty++
		}
		t.Run("", func(t *testing.T) {
			checkBox(t, lat, b, want)
			checkBox(t, poly, b, want)
		})
	}
	if nonEmpty < 300 {
		t.Fatalf("only %d of 600 boxes held frames", nonEmpty)
	}

	// Points: random, and exactly on lattice lines and corners.
	member := map[uint64]bool{}
	for _, id := range cells {
		member[id] = true
	}
	found := 0
	for i := 0; i < 5000; i++ {
		lon := area.MinLon - 0.01 + rng.Float64()*(area.MaxLon-area.MinLon+0.02)
		la := area.MinLat - 0.01 + rng.Float64()*(area.MaxLat-area.MinLat+0.02)
		row, col := grid.CellAt(la, lon)
		switch i % 3 {
		case 1:
			lon = grid.Lon(col)
		case 2:
			lon, la = grid.Lon(col), grid.Lat(row)
		}
		row, col = grid.CellAt(la, lon)
		id := grid.CellID(row, col)
		s1, ok1 := lat.At(la, lon)
		s2, ok2 := poly.At(la, lon)
		if ok1 != member[id] || (ok1 && s1.ID != id) {
			t.Fatalf("lattice At(%v, %v) = %d, %v; cell %d member %v", la, lon, s1.ID, ok1, id, member[id])
		}
		if ok1 != ok2 || s1.ID != s2.ID {
			t.Fatalf("At(%v, %v): lattice %d %v, polygons %d %v", la, lon, s1.ID, ok1, s2.ID, ok2)
		}
		if ok1 {
			found++
			if s1.Geom != nil || s1.Box != grid.LatticeShape(id).Box {
				t.Fatalf("lattice At shape %+v, want LatticeShape(%d)", s1, id)
			}
			if s2.Box != s1.Box || len(s2.Geom) != 1 {
				t.Fatalf("polygon At shape %+v, lattice %+v", s2, s1)
			}
		}
	}
	if found < 500 {
		t.Fatalf("only %d points found a frame", found)
	}
}

func TestAtEdgesAndCorners(t *testing.T) {
	// A 2x2 block of cells with its north-west cell at (9708, 22452), the
	// corner lon 7.1, lat 9.1.
	const R, C = 9708, 22452
	runs := []grid.Run{{Row: R, Col0: C, Col1: C + 1}, {Row: R + 1, Col0: C, Col1: C + 1}}
	lat := NewLattice(runs)
	poly := NewPolygons(squares(cellsOf(runs)))
	mid := func(a, b float64) float64 { return (a + b) / 2 }
	tests := []struct {
		name     string
		lat, lon float64
		row, col int // -1: no frame
	}{
		{"NW corner of the block", grid.Lat(R), grid.Lon(C), R, C},
		{"inner corner", grid.Lat(R + 1), grid.Lon(C + 1), R + 1, C + 1},
		{"inner vertical line", mid(grid.Lat(R), grid.Lat(R+1)), grid.Lon(C + 1), R, C + 1},
		{"inner horizontal line", grid.Lat(R + 1), mid(grid.Lon(C), grid.Lon(C+1)), R + 1, C},
		{"west edge of block", grid.Lat(R + 1), grid.Lon(C), R + 1, C},
		{"north edge of block", grid.Lat(R), mid(grid.Lon(C+1), grid.Lon(C+2)), R, C + 1},
		{"east edge of block: the next cell, absent", mid(grid.Lat(R), grid.Lat(R+1)), grid.Lon(C + 2), -1, -1},
		{"south edge of block: absent", grid.Lat(R + 2), mid(grid.Lon(C), grid.Lon(C+1)), -1, -1},
		{"SE corner of block: absent", grid.Lat(R + 2), grid.Lon(C + 2), -1, -1},
		{"NE corner of block: absent", grid.Lat(R), grid.Lon(C + 2), -1, -1},
		{"just inside the east edge", mid(grid.Lat(R), grid.Lat(R+1)), grid.Lon(C+2) - 1e-9, R, C + 1},
		{"latitude out of range", 91, 7.1, -1, -1},
		{"longitude out of range", 9.1, -180.5, -1, -1},
		{"NaN", math.NaN(), 7.1, -1, -1},
		{"infinite", 9.1, math.Inf(1), -1, -1},
	}
	// Only the lattice snaps: decimal text on a grid line ("7.1") is on
	// the line there, while the polygon squares (made of Lon(c), which is
	// not the double nearest 7.1) see it a hair west; and a point 1 ulp
	// inside an edge is on the edge for the lattice only.
	latticeOnly := []struct {
		name     string
		lat, lon float64
		row, col int
	}{
		{"decimal corner 9.1, 7.1", 9.1, 7.1, R, C},
		{"1 ulp west of the block's east edge snaps onto it", mid(grid.Lat(R), grid.Lat(R+1)), math.Nextafter(grid.Lon(C+2), 0), -1, -1},
	}
	for _, tc := range latticeOnly {
		s, ok := lat.At(tc.lat, tc.lon)
		if ok != (tc.row >= 0) || (ok && s.ID != grid.CellID(tc.row, tc.col)) {
			t.Fatalf("%s: lattice At = %d, %v", tc.name, s.ID, ok)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for kind, ix := range map[string]*Index{"lattice": lat, "polygons": poly} {
				s, ok := ix.At(tc.lat, tc.lon)
				if tc.row < 0 {
					if ok {
						t.Fatalf("%s At(%v, %v) = %d, want none", kind, tc.lat, tc.lon, s.ID)
					}
					continue
				}
				if want := grid.CellID(tc.row, tc.col); !ok || s.ID != want {
					t.Fatalf("%s At(%v, %v) = %d, %v; want %d", kind, tc.lat, tc.lon, s.ID, ok, want)
				}
			}
		})
	}
}

func TestWorldEdges(t *testing.T) {
	// Cells in the corners of the world: the poles and the antimeridian.
	runs := []grid.Run{
		{Row: 0, Col0: 0, Col1: 1}, {Row: 0, Col0: grid.Cols - 1, Col1: grid.Cols - 1},
		{Row: grid.Rows - 1, Col0: 0, Col1: 0}, {Row: grid.Rows - 1, Col0: grid.Cols - 2, Col1: grid.Cols - 1},
	}
	lat := NewLattice(runs)
	cells := cellsOf(runs)
	poly := NewPolygons(squares(cells))
	boxes := []grid.Box{
		{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90},
		{MinLon: -1000, MinLat: -1000, MaxLon: 1000, MaxLat: 1000},
		{MinLon: 180, MinLat: 89.99, MaxLon: 200, MaxLat: 100},
		{MinLon: -200, MinLat: -100, MaxLon: -180, MaxLat: -90},
		{MinLon: 179.9, MinLat: -90, MaxLon: 180, MaxLat: -90},
		{MinLon: -180, MinLat: 90, MaxLon: -180, MaxLat: 90},
		{MinLon: 181, MinLat: 0, MaxLon: 190, MaxLat: 1},
		{MinLon: 0, MinLat: 91, MaxLon: 1, MaxLat: 95},
		{MinLon: math.Inf(-1), MinLat: math.Inf(-1), MaxLon: math.Inf(1), MaxLat: math.Inf(1)},
	}
	for _, b := range boxes {
		w := grid.Box{MinLon: max(b.MinLon, -180), MinLat: max(b.MinLat, -90), MaxLon: min(b.MaxLon, 180), MaxLat: min(b.MaxLat, 90)}
		want := bruteLatticeBox(cells, w)
		if b.MaxLon < -180 || b.MinLon > 180 || b.MaxLat < -90 || b.MinLat > 90 {
			want = nil
		}
		t.Run("", func(t *testing.T) {
			checkBox(t, lat, b, want)
			checkBox(t, poly, b, want)
		})
	}
	points := []struct {
		lat, lon float64
		id       uint64
		ok       bool
	}{
		{90, -180, 0, true},
		{90, 180, 0, true}, // lon 180 is column 0
		{90, 179.999, grid.Cols - 1, true},
		{-90, -180, grid.CellID(grid.Rows-1, 0), true},
		{-90, 180, grid.CellID(grid.Rows-1, 0), true},
		{-90, 179.995, grid.CellID(grid.Rows-1, grid.Cols-1), true},
		{0, 0, 0, false},
	}
	for _, p := range points {
		for kind, ix := range map[string]*Index{"lattice": lat, "polygons": poly} {
			s, ok := ix.At(p.lat, p.lon)
			if ok != p.ok || (ok && s.ID != p.id) {
				// The kinds differ on the world's edges: the lattice takes
				// lon 180 as column 0 and lat -90 as the last row, while
				// polygon squares follow the half-open rule (their east
				// edge at 180 and south edge at -90 are outside them).
				if kind == "polygons" && (p.lon == 180 || p.lat == -90) && !ok {
					continue
				}
				t.Fatalf("%s At(%v, %v) = %d, %v; want %d, %v", kind, p.lat, p.lon, s.ID, ok, p.id, p.ok)
			}
		}
	}
}

func TestShape(t *testing.T) {
	runs := []grid.Run{{Row: 100, Col0: 5, Col1: 9}, {Row: 102, Col0: 1, Col1: 1}}
	lat := NewLattice(runs)
	frames := squares(cellsOf(runs))
	poly := NewPolygons(frames)
	tests := []struct {
		name string
		id   uint64
		ok   bool
	}{
		{"first", grid.CellID(100, 5), true},
		{"last of run", grid.CellID(100, 9), true},
		{"lone cell", grid.CellID(102, 1), true},
		{"before run", grid.CellID(100, 4), false},
		{"after run", grid.CellID(100, 10), false},
		{"empty row", grid.CellID(101, 5), false},
		{"row before", grid.CellID(99, 5), false},
		{"row after", grid.CellID(103, 1), false},
		{"zero", 0, false},
		{"beyond the lattice", grid.MaxID + 1, false},
		{"largest uint64", math.MaxUint64, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := lat.Shape(tc.id)
			if ok != tc.ok || (ok && (s.ID != tc.id || s.Geom != nil || s.Box != grid.LatticeShape(tc.id).Box)) {
				t.Fatalf("lattice Shape(%d) = %+v, %v; want ok %v", tc.id, s, ok, tc.ok)
			}
			p, ok := poly.Shape(tc.id)
			if ok != tc.ok || (ok && (p.ID != tc.id || p.Box != grid.LatticeShape(tc.id).Box || len(p.Geom) != 1)) {
				t.Fatalf("polygon Shape(%d) = %+v, %v; want ok %v", tc.id, p, ok, tc.ok)
			}
		})
	}
}

func TestPolygonsAgainstBruteForce(t *testing.T) {
	// Overlapping star polygons with holes, some of two parts, ids shuffled.
	rng := rand.New(rand.NewPCG(23, 24))
	var frames []grid.Frame
	for i := 0; i < 400; i++ {
		cx, cy := rng.Float64()*2, rng.Float64()*2
		p := grid.Polygon{star(rng, cx, cy, 0.05, 0.15, 3+rng.IntN(9))}
		if i%2 == 0 {
			p = append(p, star(rng, cx, cy, 0.01, 0.04, 4))
		}
		m := grid.MultiPolygon{p}
		if i%7 == 0 {
			m = append(m, grid.Polygon{star(rng, cx+0.4, cy, 0.02, 0.05, 5)})
		}
		frames = append(frames, grid.Frame{ID: uint64(rng.IntN(1 << 40)), Geom: m})
	}
	ix := NewPolygons(frames)
	byID := slices.Clone(frames)
	slices.SortFunc(byID, func(a, b grid.Frame) int { return cmp.Compare(a.ID, b.ID) })
	area := grid.Box{MinLon: -0.2, MinLat: -0.2, MaxLon: 2.2, MaxLat: 2.2}
	for i := 0; i < 300; i++ {
		b := randomBox(rng, area, i)
		b.MinLon, b.MaxLon = b.MinLon*0.5+0.5, b.MaxLon*0.5+0.5 // smaller boxes too
		var want []uint64
		for _, f := range byID {
			if f.Geom.IntersectsBox(b) {
				want = append(want, f.ID)
			}
		}
		t.Run("", func(t *testing.T) { checkBox(t, ix, b, want) })
	}
	overlaps := 0
	for i := 0; i < 3000; i++ {
		lon, lat := -0.2+rng.Float64()*2.4, -0.2+rng.Float64()*2.4
		var want []uint64
		for _, f := range byID {
			if f.Geom.ContainsPoint(lon, lat) {
				want = append(want, f.ID)
			}
		}
		s, ok := ix.At(lat, lon)
		if ok != (len(want) > 0) || (ok && s.ID != want[0]) {
			t.Fatalf("At(%v, %v) = %d, %v; containing frames %v (lowest wins)", lat, lon, s.ID, ok, want)
		}
		if len(want) > 1 {
			overlaps++
		}
	}
	if overlaps == 0 {
		t.Fatalf("no overlapping frames exercised")
	}
}

func TestBoxStopsWhenFnSaysSo(t *testing.T) {
	runs := []grid.Run{{Row: 10, Col0: 0, Col1: 99}}
	for kind, ix := range map[string]*Index{"lattice": NewLattice(runs), "polygons": NewPolygons(squares(cellsOf(runs)))} {
		t.Run(kind, func(t *testing.T) {
			calls := 0
			tr := ix.Box(ix.Bounds(), 50, func(grid.Shape) bool {
				calls++
				return calls < 7
			})
			if calls != 7 || tr {
				t.Fatalf("fn called %d times, truncated %v; want 7, false", calls, tr)
			}
		})
	}
}

func TestEmptyAndDuplicates(t *testing.T) {
	var nilIndex *Index
	empties := map[string]*Index{
		"nil":            nilIndex,
		"zero":           {},
		"no runs":        NewLattice(nil),
		"runs off grid":  NewLattice([]grid.Run{{Row: -1, Col0: 0, Col1: 5}, {Row: grid.Rows, Col0: 0, Col1: 1}}),
		"no frames":      NewPolygons(nil),
		"empty geometry": NewPolygons([]grid.Frame{{ID: 5}}),
	}
	world := grid.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}
	for name, ix := range empties {
		t.Run(name, func(t *testing.T) {
			if _, ok := ix.At(0, 0); ok {
				t.Fatal("At found a frame")
			}
			if tr := ix.Box(world, 10, func(grid.Shape) bool { t.Fatal("fn called"); return true }); tr {
				t.Fatal("truncated")
			}
			if ix.Bounds() != (grid.Box{}) {
				t.Fatalf("Bounds %+v", ix.Bounds())
			}
		})
	}
	if n := empties["empty geometry"].Len(); n != 1 {
		t.Fatalf("Len of one frame without points = %d, want 1", n)
	}
	if _, ok := empties["empty geometry"].Shape(5); !ok {
		t.Fatal("a frame without points is not known to Shape")
	}

	a := grid.Frame{ID: 7, Geom: grid.MultiPolygon{{square(grid.Box{MinLon: 0, MinLat: 0, MaxLon: 1, MaxLat: 1})}}}
	b := grid.Frame{ID: 7, Geom: grid.MultiPolygon{{square(grid.Box{MinLon: 5, MinLat: 5, MaxLon: 6, MaxLat: 6})}}}
	ix := NewPolygons([]grid.Frame{a, b})
	if s, ok := ix.Shape(7); ix.Len() != 1 || !ok || s.Box.MinLon != 0 {
		t.Fatalf("duplicate ids: Len %d, Shape %+v; want the first frame only", ix.Len(), s)
	}
	if _, ok := ix.At(5.5, 5.5); ok {
		t.Fatal("the dropped duplicate is still found")
	}

	// Overlapping and unsorted lattice runs are merged.
	lat := NewLattice([]grid.Run{{Row: 3, Col0: 5, Col1: 9}, {Row: 3, Col0: 1, Col1: 6}, {Row: 1, Col0: 2, Col1: 2}})
	if lat.Len() != 10 {
		t.Fatalf("merged lattice Len = %d, want 10", lat.Len())
	}
}

func TestConcurrentQueries(t *testing.T) {
	// Run with -race: an Index is read-only and shared by goroutines.
	rng := rand.New(rand.NewPCG(25, 26))
	runs := fixtureRuns(rng)
	cells := cellsOf(runs)
	for kind, ix := range map[string]*Index{"lattice": NewLattice(runs), "polygons": NewPolygons(squares(cells))} {
		t.Run(kind, func(t *testing.T) {
			pts := make([]grid.Point, 500)
			b := ix.Bounds()
			for i := range pts {
				pts[i] = grid.Point{b.MinLon + rng.Float64()*(b.MaxLon-b.MinLon), b.MinLat + rng.Float64()*(b.MaxLat-b.MinLat)}
			}
			want := make([]uint64, len(pts))
			for i, p := range pts {
				s, _ := ix.At(p[1], p[0])
				want[i] = s.ID
			}
			errs := make(chan string, 4)
			for g := 0; g < 4; g++ {
				go func() {
					for i, p := range pts {
						if s, _ := ix.At(p[1], p[0]); s.ID != want[i] {
							errs <- "At differs under concurrency"
							return
						}
						ix.Box(grid.Box{MinLon: p[0], MinLat: p[1], MaxLon: p[0] + 0.01, MaxLat: p[1] + 0.01}, 10, func(grid.Shape) bool { return true })
					}
					errs <- ""
				}()
			}
			for g := 0; g < 4; g++ {
				if e := <-errs; e != "" {
					t.Fatal(e)
				}
			}
		})
	}
}

// TestIndex_Pos checks that Pos and IDAt are inverse and dense over both
// kinds of grid.
func TestIndex_Pos(t *testing.T) {
	lattice := NewLattice([]grid.Run{{Row: 10, Col0: 5, Col1: 7}, {Row: 10, Col0: 20, Col1: 20}, {Row: 12, Col0: 0, Col1: 2}})
	sq := func(id uint64, x float64) grid.Frame {
		return grid.Frame{ID: id, Geom: grid.MultiPolygon{{{{x, 0}, {x + 1, 0}, {x + 1, 1}, {x, 1}, {x, 0}}}}}
	}
	polys := NewPolygons([]grid.Frame{sq(9, 2), sq(3, 0), sq(5, 1)})
	for _, ix := range []*Index{lattice, polys} {
		var prev uint64
		for pos := 0; pos < ix.Len(); pos++ {
			id := ix.IDAt(pos)
			if pos > 0 && id <= prev {
				t.Fatalf("IDAt(%d) = %d, not after %d", pos, id, prev)
			}
			prev = id
			got, ok := ix.Pos(id)
			if !ok || got != pos {
				t.Fatalf("Pos(%d) = %d, %v; want %d", id, got, ok, pos)
			}
			if s := ix.ShapeAt(pos); s.ID != id {
				t.Fatalf("ShapeAt(%d).ID = %d, want %d", pos, s.ID, id)
			}
		}
	}
	if lattice.Len() != 7 || polys.Len() != 3 {
		t.Fatalf("Len = %d, %d", lattice.Len(), polys.Len())
	}
	for _, id := range []uint64{grid.CellID(10, 8), grid.CellID(11, 5), grid.CellID(10, 4), grid.MaxID + 1} {
		if _, ok := lattice.Pos(id); ok {
			t.Errorf("Pos(%d) found a frame the lattice does not hold", id)
		}
	}
	if _, ok := polys.Pos(4); ok {
		t.Error("Pos(4) found a frame the polygons do not hold")
	}
}
