package grid

import (
	"cmp"
	"math"
	"slices"
)

// Rasterize returns the lattice cells whose closed square intersects the
// closed multipolygon, as runs sorted by row then column and merged (no two
// runs of one row overlap or touch). Holes are respected: a cell wholly
// inside a hole is out, a cell touching a hole's edge is in.
//
// A cell is in when a ring edge touches its square (decided exactly, with
// the test of IntersectsBox) or when its centre lies inside by the even-odd
// rule; together these are exactly the cells m.IntersectsBox(CellBox(...))
// accepts, because a cell no edge touches lies wholly inside or wholly
// outside. Cost: O(V log V + R·P + C) for V vertices, R rows spanned, P
// crossings per row and C cells on the boundary; memory is proportional to
// the number of runs, never to the number of cells.
//
// m should pass Validate. If any coordinate is non-finite or outside world
// range the result is nil; other invalid input (unclosed or self-crossing
// rings) gives an unspecified but bounded result, never a panic.
func Rasterize(m MultiPolygon) []Run {
	if !m.finiteInRange() {
		return nil
	}
	var runs []Run
	for _, p := range m {
		runs = appendTouched(runs, p)
		runs = appendCentres(runs, p)
	}
	return mergeRuns(runs)
}

// appendTouched appends, for every edge of p, the cells its closed segment
// touches: one run per row it passes through.
func appendTouched(runs []Run, p Polygon) []Run {
	for _, r := range p {
		n := len(r)
		switch {
		case n == 0:
			continue
		case n == 1:
			runs = appendSegmentCells(runs, r[0], r[0])
			continue
		}
		for k := 0; k+1 < n; k++ {
			runs = appendSegmentCells(runs, r[k], r[k+1])
		}
		if r[n-1] != r[0] { // an unclosed ring: its last point joins the first
			runs = appendSegmentCells(runs, r[n-1], r[0])
		}
	}
	return runs
}

// pad widens a segment's longitude range in a row before the exact trim; it
// is far above float64 rounding in degrees and far below a cell.
const pad = 1e-9

// appendSegmentCells appends the cells the closed segment a-b touches.
func appendSegmentCells(runs []Run, a, b Point) []Run {
	if a[1] > b[1] {
		a, b = b, a // a is the southern end
	}
	r0, r1 := RowSpan(a[1], b[1])
	for row := r0; row <= r1; row++ {
		south, north := Lat(row+1), Lat(row)
		var x0, x1 float64
		if a[1] == b[1] {
			x0, x1 = a[0], b[0]
		} else {
			x0 = xAt(a, b, math.Max(a[1], south))
			x1 = xAt(a, b, math.Min(b[1], north))
		}
		lo, hi := math.Min(x0, x1), math.Max(x0, x1)
		lo = math.Max(lo, math.Min(a[0], b[0])) - pad
		hi = math.Min(hi, math.Max(a[0], b[0])) + pad
		c0, c1 := ColSpan(math.Max(lo, -180), math.Min(hi, 180))
		// The exact set is contiguous; trim the padded ends.
		for c0 <= c1 && !segmentTouchesBox(a, b, CellBox(row, c0)) {
			c0++
		}
		for c1 >= c0 && !segmentTouchesBox(a, b, CellBox(row, c1)) {
			c1--
		}
		if c0 <= c1 {
			runs = append(runs, Run{Row: int32(row), Col0: int32(c0), Col1: int32(c1)})
		}
	}
	return runs
}

// xAt returns the longitude of segment a-b (a south of b, a[1] < b[1]) at
// latitude y, clamped to the segment.
func xAt(a, b Point, y float64) float64 {
	if y <= a[1] {
		return a[0]
	}
	if y >= b[1] {
		return b[0]
	}
	return a[0] + (y-a[1])*(b[0]-a[0])/(b[1]-a[1])
}

// rowCentre returns the latitude of the centre line of row.
func rowCentre(row int) float64 { return (Lat(row) + Lat(row+1)) / 2 }

type crossing struct {
	row int32
	x   float64
}

// appendCentres appends the cells of p's rows whose centre lies inside p by
// the even-odd rule, scanning each row along its centre latitude. Cells
// whose centre is within rounding error of an edge are touched by that edge
// and come from appendTouched, so rounding here cannot change the union.
func appendCentres(runs []Run, p Polygon) []Run {
	var xs []crossing
	for _, r := range p {
		j := len(r) - 1
		for i := range r {
			a, b := r[j], r[i]
			j = i
			if a[1] == b[1] {
				continue
			}
			if a[1] > b[1] {
				a, b = b, a
			}
			// Rows whose centre y has a[1] < y <= b[1], the rule of
			// ContainsPoint; the span is a superset, the test is the rule.
			r0, r1 := RowSpan(a[1], b[1])
			for row := r0; row <= r1; row++ {
				y := rowCentre(row)
				if !(a[1] < y && y <= b[1]) {
					continue
				}
				xs = append(xs, crossing{int32(row), crossingLon(a, b, y)})
			}
		}
	}
	slices.SortFunc(xs, func(p, q crossing) int {
		if c := cmp.Compare(p.row, q.row); c != 0 {
			return c
		}
		return cmp.Compare(p.x, q.x)
	})
	for i := 0; i+1 < len(xs); {
		if xs[i].row != xs[i+1].row {
			i++ // an odd crossing left over (an invalid ring); skip it
			continue
		}
		// Centres Lon(c)+1/240 within [x0, x1].
		c0 := int(math.Ceil((xs[i].x+180)*CellsPerDegree - 0.5))
		c1 := int(math.Floor((xs[i+1].x+180)*CellsPerDegree - 0.5))
		c0, c1 = max(c0, 0), min(c1, Cols-1)
		if c0 <= c1 {
			runs = append(runs, Run{Row: xs[i].row, Col0: int32(c0), Col1: int32(c1)})
		}
		i += 2
	}
	return runs
}

// mergeRuns sorts runs by row and first column and merges those that
// overlap or touch in a row. It reuses the slice.
func mergeRuns(runs []Run) []Run {
	if len(runs) == 0 {
		return nil
	}
	slices.SortFunc(runs, func(p, q Run) int {
		if c := cmp.Compare(p.Row, q.Row); c != 0 {
			return c
		}
		return cmp.Compare(p.Col0, q.Col0)
	})
	out := runs[:1]
	for _, r := range runs[1:] {
		last := &out[len(out)-1]
		if r.Row == last.Row && r.Col0 <= last.Col1+1 {
			last.Col1 = max(last.Col1, r.Col1)
			continue
		}
		out = append(out, r)
	}
	return slices.Clip(out)
}

// MergeRuns returns runs sorted by row and first column with overlapping or
// adjacent runs of a row merged, dropping runs outside the lattice and
// clamping columns to it. The input slice is not modified.
func MergeRuns(runs []Run) []Run {
	clean := make([]Run, 0, len(runs))
	for _, r := range runs {
		if r.Row < 0 || r.Row >= Rows || r.Col0 > r.Col1 || r.Col1 < 0 || r.Col0 >= Cols {
			continue
		}
		r.Col0, r.Col1 = max(r.Col0, 0), min(r.Col1, Cols-1)
		clean = append(clean, r)
	}
	return mergeRuns(clean)
}

// latticeTol is how far (degrees) a vertex may be from the lattice corner
// for DetectLattice to take the frame as that lattice cell.
const latticeTol = 1e-7

// DetectLattice reports whether the frames are exactly lattice cells: every
// frame is a single polygon with a single ring of 5 points (4 corners and the
// first repeated) tracing, in either direction, the square CellBox of its own
// id within 1e-7 degrees, and no id repeats. It then returns the frames as
// merged runs sorted by row and column. An empty slice gives (nil, false).
// It does not modify frames; cost O(n log n).
func DetectLattice(frames []Frame) ([]Run, bool) {
	if len(frames) == 0 {
		return nil, false
	}
	ids := make([]uint64, len(frames))
	for i, f := range frames {
		if !isLatticeCell(f) {
			return nil, false
		}
		ids[i] = f.ID
	}
	slices.Sort(ids)
	runs := make([]Run, 0, 64)
	for i, id := range ids {
		if i > 0 && ids[i-1] == id {
			return nil, false
		}
		row, col, _ := RowCol(id)
		if n := len(runs); n > 0 && runs[n-1].Row == int32(row) && runs[n-1].Col1+1 == int32(col) {
			runs[n-1].Col1++
			continue
		}
		runs = append(runs, Run{Row: int32(row), Col0: int32(col), Col1: int32(col)})
	}
	return slices.Clip(runs), true
}

func isLatticeCell(f Frame) bool {
	row, col, ok := RowCol(f.ID)
	if !ok || len(f.Geom) != 1 || len(f.Geom[0]) != 1 {
		return false
	}
	r := f.Geom[0][0]
	if len(r) != 5 || r[0] != r[4] {
		return false
	}
	b := CellBox(row, col)
	near := func(v, w float64) bool { return math.Abs(v-w) <= latticeTol }
	var seen [4]bool // corners: 0 SW, 1 SE, 2 NE, 3 NW
	for _, pt := range r[:4] {
		var k int
		switch {
		case near(pt[0], b.MinLon) && near(pt[1], b.MinLat):
			k = 0
		case near(pt[0], b.MaxLon) && near(pt[1], b.MinLat):
			k = 1
		case near(pt[0], b.MaxLon) && near(pt[1], b.MaxLat):
			k = 2
		case near(pt[0], b.MinLon) && near(pt[1], b.MaxLat):
			k = 3
		default:
			return false
		}
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	// Four distinct corners; consecutive ones must share an edge of the
	// square (not a diagonal), in either direction.
	for i := 0; i < 4; i++ {
		a, c := r[i], r[i+1]
		if !near(a[0], c[0]) && !near(a[1], c[1]) {
			return false
		}
	}
	return true
}
