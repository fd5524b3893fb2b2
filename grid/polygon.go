package grid

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// ErrInvalidGeometry is matched (errors.Is) by every error that
// ParseGeometry, ValidateRing and MultiPolygon.Validate return.
var ErrInvalidGeometry = errors.New("invalid geometry")

// geomError is a plain geometry error whose message says what was wrong.
type geomError struct{ msg string }

func (e *geomError) Error() string        { return e.msg }
func (e *geomError) Is(target error) bool { return target == ErrInvalidGeometry }

func geomErrorf(format string, args ...any) error {
	return &geomError{msg: fmt.Sprintf(format, args...)}
}

// RingError reports why a ring is not valid and which ring it is.
//
// Its message reads "ring 1 crosses itself at segments 12 and 40" (a ring
// of a single Polygon), "polygon 2 ring 0 is not closed" (a ring of a
// MultiPolygon of several parts) or "ring is not closed" (ValidateRing, which
// does not know the ring's place). Segment k runs from point k to point k+1.
type RingError struct {
	Polygon int    // index of the polygon in the MultiPolygon; -1 when not known or not needed
	Ring    int    // index of the ring in its polygon (0 = outer ring); -1 when not known
	Reason  string // what is wrong, e.g. "is not closed"
}

func (e *RingError) Error() string {
	switch {
	case e.Polygon >= 0 && e.Ring >= 0:
		return fmt.Sprintf("polygon %d ring %d %s", e.Polygon, e.Ring, e.Reason)
	case e.Ring >= 0:
		return fmt.Sprintf("ring %d %s", e.Ring, e.Reason)
	default:
		return "ring " + e.Reason
	}
}

// Is reports whether target is ErrInvalidGeometry.
func (e *RingError) Is(target error) bool { return target == ErrInvalidGeometry }

// ContainsPoint reports whether the point lies in the polygon by the even-odd
// rule over all its rings, so a point in a hole is outside.
//
// Edges follow the half-open rule of the lattice: a point on a west or north
// edge is inside, a point on an east or south edge is outside. (A north edge
// has the polygon's interior south of it; a hole's edges count from the
// hole's side, so a point on a hole's west edge is outside the polygon.)
// In a tiling of polygons that share edges and vertices
// exactly, every point therefore lies in exactly one polygon, the one east and
// south of it; for lattice squares this is what CellAt computes.
//
// The test is exact for float64 coordinates (a robust orientation predicate
// decides points close to sloping edges). It does not snap, unlike CellAt: a
// point 1e-12 degrees west of an edge is west of it. Rings need not be
// closed; the last point joins the first. Non-finite input gives false.
func (p Polygon) ContainsPoint(lon, lat float64) bool {
	in := false
	for _, r := range p {
		if ringCrossesOdd(r, lon, lat) {
			in = !in
		}
	}
	return in
}

// ContainsPoint reports whether any of the polygons contains the point; see
// Polygon.ContainsPoint for the rule on edges.
func (m MultiPolygon) ContainsPoint(lon, lat float64) bool {
	for _, p := range m {
		if p.ContainsPoint(lon, lat) {
			return true
		}
	}
	return false
}

// ringCrossesOdd reports whether a ray from (x, y) due east crosses the ring
// an odd number of times. An edge counts when y lies in its half-open
// latitude range (lower, upper] and the point is strictly west of it.
func ringCrossesOdd(r Ring, x, y float64) bool {
	odd := false
	n := len(r)
	if n < 2 {
		return false
	}
	j := n - 1
	for i := 0; i < n; i++ {
		a, b := r[j], r[i]
		j = i
		if (a[1] < y) == (b[1] < y) {
			continue
		}
		if a[1] > b[1] {
			a, b = b, a // canonical direction: upwards, so shared edges decide alike
		}
		switch {
		case x < a[0] && x < b[0]:
			odd = !odd
		case x >= a[0] && x >= b[0]:
			// East of or on the edge.
		case orient(a, b, Point{x, y}) > 0:
			odd = !odd
		}
	}
	return odd
}

// crossingLon returns the longitude where the edge a-b, a south of b,
// meets the latitude y.
func crossingLon(a, b Point, y float64) float64 {
	return a[0] + (y-a[1])*(b[0]-a[0])/(b[1]-a[1])
}

// AppendCrossings appends to xs, unsorted, the longitudes where the rings
// of p cross the latitude lat, counting an edge as ContainsPoint does: when
// exactly one of its ends lies south of lat. A point on that latitude lies
// in p when an odd number of the crossings are east of it, except within
// rounding distance of a crossing, where only ContainsPoint is exact. Rings
// need not be closed; the last point joins the first.
//
// The test of an edge is ringCrossesOdd's, written out again: a helper
// taking the two points makes this loop up to a third slower, as Go keeps
// arrays of two floats in memory rather than in registers.
func (p Polygon) AppendCrossings(xs []float64, lat float64) []float64 {
	for _, r := range p {
		j := len(r) - 1
		for i := range r {
			a, b := r[j], r[i]
			j = i
			if (a[1] < lat) == (b[1] < lat) {
				continue
			}
			if a[1] > b[1] {
				a, b = b, a
			}
			xs = append(xs, crossingLon(a, b, lat))
		}
	}
	return xs
}

// orient returns +1 when c lies left of the directed line a->b, -1 when right
// and 0 when the three points are collinear, exactly (Shewchuk's filter, then
// exact rational arithmetic for the rare close calls). Non-finite input gives 0.
func orient(a, b, c Point) int {
	l := (a[0] - c[0]) * (b[1] - c[1])
	r := (a[1] - c[1]) * (b[0] - c[0])
	det := l - r
	bound := 3.3306690738754716e-16 * (math.Abs(l) + math.Abs(r))
	switch {
	case det > bound:
		return 1
	case -det > bound:
		return -1
	}
	// Both products zero because a factor is an exact zero (equal
	// coordinates): collinear, no need for rationals. Common on lattice data.
	if l == 0 && r == 0 &&
		(a[0] == c[0] || b[1] == c[1]) && (a[1] == c[1] || b[0] == c[0]) {
		return 0
	}
	return orientExact(a, b, c)
}

func orientExact(a, b, c Point) int {
	var v [6]big.Rat
	for i, f := range [6]float64{a[0], a[1], b[0], b[1], c[0], c[1]} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		v[i].SetFloat64(f)
	}
	var dx1, dy1, dx2, dy2, l, r big.Rat
	dx1.Sub(&v[0], &v[4])
	dy2.Sub(&v[3], &v[5])
	dy1.Sub(&v[1], &v[5])
	dx2.Sub(&v[2], &v[4])
	l.Mul(&dx1, &dy2)
	r.Mul(&dy1, &dx2)
	return l.Cmp(&r)
}

// Bounds returns the smallest box holding every point of every ring, or the
// zero Box when m has no points.
func (m MultiPolygon) Bounds() Box {
	b := Box{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	for _, p := range m {
		for _, r := range p {
			for _, pt := range r {
				b.MinLon = math.Min(b.MinLon, pt[0])
				b.MaxLon = math.Max(b.MaxLon, pt[0])
				b.MinLat = math.Min(b.MinLat, pt[1])
				b.MaxLat = math.Max(b.MaxLat, pt[1])
			}
		}
	}
	if b.MinLon > b.MaxLon {
		return Box{}
	}
	return b
}

// IntersectsBox reports whether the closed multipolygon and the closed box
// share at least one point. Holes are respected: a box wholly inside a hole
// does not intersect, a box touching a hole's edge does. A box touching only
// an edge or a vertex intersects. Degenerate boxes (a point or a line) work.
// The test is exact for float64 coordinates. It costs O(number of vertices).
func (m MultiPolygon) IntersectsBox(b Box) bool {
	if !(b.MinLon <= b.MaxLon && b.MinLat <= b.MaxLat) {
		return false // also NaN
	}
	for _, p := range m {
		if p.intersectsBox(b) {
			return true
		}
	}
	return false
}

func (p Polygon) intersectsBox(b Box) bool {
	for _, r := range p {
		n := len(r)
		if n == 0 {
			continue
		}
		j := n - 1
		for i := 0; i < n; i++ {
			if segmentTouchesBox(r[j], r[i], b) {
				return true
			}
			j = i
		}
	}
	// No edge touches the box, so the box lies wholly inside or wholly
	// outside the polygon, and none of its points is on the boundary.
	return p.ContainsPoint(b.MinLon, b.MinLat)
}

// segmentTouchesBox reports whether the closed segment a-b and the closed box
// share a point: their bounding boxes overlap and the box's corners are not
// all strictly on one side of the segment's line (separating axis test).
func segmentTouchesBox(a, c Point, b Box) bool {
	if math.Max(a[0], c[0]) < b.MinLon || math.Min(a[0], c[0]) > b.MaxLon ||
		math.Max(a[1], c[1]) < b.MinLat || math.Min(a[1], c[1]) > b.MaxLat {
		return false
	}
	if b.Contains(a[0], a[1]) || b.Contains(c[0], c[1]) {
		return true
	}
	if a[0] == c[0] || a[1] == c[1] {
		return true // axis-aligned and the boxes overlap
	}
	s := orient(a, c, Point{b.MinLon, b.MinLat})
	if s == 0 {
		return true
	}
	for _, q := range [3]Point{{b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}} {
		if orient(a, c, q) != s {
			return true
		}
	}
	return false
}

// ValidateRing checks one ring: at least 4 points, closed (the first point
// repeats as the last), finite coordinates in world range (lon in [-180, 180],
// lat in [-90, 90]), at least 3 distinct points, and simple: segments that
// are not adjacent neither cross nor touch, and adjacent segments do not fold
// back over each other. Repeated consecutive points are allowed and ignored.
//
// The error is a *RingError (Polygon and Ring -1) matching
// ErrInvalidGeometry. The check runs in O(n log n) for ordinary rings (a
// sweep over segments sorted by longitude, with box pruning); a ring of many
// long segments overlapping in longitude degrades towards O(n²). The
// winding direction is not checked: point tests use the even-odd rule.
func ValidateRing(r Ring) error {
	if err := validateRing(r); err != nil {
		return &RingError{Polygon: -1, Ring: -1, Reason: err.Error()}
	}
	return nil
}

// Validate checks every ring of every polygon with the rules of ValidateRing
// and that every polygon has an outer ring. The error is a *RingError naming
// the ring ("ring 1 crosses itself at segments 12 and 40"; the polygon is
// named only when m has several), or, for an empty MultiPolygon or polygon,
// an error matching ErrInvalidGeometry.
//
// Not checked: whether holes lie inside their outer ring, whether rings of
// one polygon cross each other, and whether polygons overlap. ContainsPoint
// and IntersectsBox stay well defined in those cases (even-odd rule).
func (m MultiPolygon) Validate() error {
	if len(m) == 0 {
		return geomErrorf("geometry has no polygons")
	}
	for pi, p := range m {
		if len(p) == 0 {
			if len(m) > 1 {
				return geomErrorf("polygon %d has no rings", pi)
			}
			return geomErrorf("polygon has no rings")
		}
		for ri, r := range p {
			if err := validateRing(r); err != nil {
				e := &RingError{Polygon: -1, Ring: ri, Reason: err.Error()}
				if len(m) > 1 {
					e.Polygon = pi
				}
				return e
			}
		}
	}
	return nil
}

// validateRing returns the reason as a predicate phrase ("is not closed").
func validateRing(r Ring) error {
	if len(r) < 4 {
		return fmt.Errorf("has %d points, a ring needs at least 4 (3 corners and the first repeated)", len(r))
	}
	for i, pt := range r {
		if !isFinite(pt[0]) || !isFinite(pt[1]) {
			return fmt.Errorf("has a non-finite coordinate at point %d", i)
		}
		if pt[0] < -180 || pt[0] > 180 || pt[1] < -90 || pt[1] > 90 {
			return fmt.Errorf("has point %d [%s, %s] outside lon -180..180, lat -90..90",
				i, fmtCoord(pt[0]), fmtCoord(pt[1]))
		}
	}
	if r[0] != r[len(r)-1] {
		return fmt.Errorf("is not closed: first point [%s, %s] differs from last point [%s, %s]",
			fmtCoord(r[0][0]), fmtCoord(r[0][1]), fmtCoord(r[len(r)-1][0]), fmtCoord(r[len(r)-1][1]))
	}
	// Drop repeated consecutive points; orig[k] is the index in r of the
	// start of segment k of the cleaned ring.
	pts := make([]Point, 0, len(r))
	orig := make([]int, 0, len(r))
	for i, pt := range r {
		if len(pts) > 0 && pts[len(pts)-1] == pt {
			continue
		}
		pts = append(pts, pt)
		orig = append(orig, i)
	}
	// pts is closed too (the last point equals the first and was kept
	// unless the ring is a single repeated point).
	nseg := len(pts) - 1
	if nseg < 3 {
		return errors.New("has fewer than 3 distinct points")
	}
	// orig for segment k is the last repeat of pts[k], so it names a
	// segment of non-zero length in the input.
	for k := 0; k < nseg; k++ {
		for orig[k]+1 < len(r) && r[orig[k]+1] == pts[k] {
			orig[k]++
		}
	}
	// Adjacent segments k-1 and k share pts[k]; they must not fold back.
	for k := 0; k < nseg; k++ {
		prev := k - 1
		if prev < 0 {
			prev = nseg - 1
		}
		a, b, c := pts[prev], pts[k], pts[k+1]
		if orient(a, b, c) == 0 && foldsBack(a, b, c) {
			s1, s2 := orig[prev], orig[k]
			if s1 > s2 {
				s1, s2 = s2, s1
			}
			return fmt.Errorf("overlaps itself at segments %d and %d near [%s, %s]",
				s1, s2, fmtCoord(b[0]), fmtCoord(b[1]))
		}
	}
	if nseg == 3 {
		return nil // every pair of segments of a triangle is adjacent
	}
	// Sweep: segments sorted by their west end; a segment can only meet the
	// ones that start before its east end.
	type seg struct {
		minX, maxX, minY, maxY float64
		k                      int
	}
	segs := make([]seg, nseg)
	for k := range segs {
		a, b := pts[k], pts[k+1]
		segs[k] = seg{math.Min(a[0], b[0]), math.Max(a[0], b[0]), math.Min(a[1], b[1]), math.Max(a[1], b[1]), k}
	}
	slices.SortFunc(segs, func(x, y seg) int {
		if x.minX != y.minX {
			if x.minX < y.minX {
				return -1
			}
			return 1
		}
		return x.k - y.k
	})
	best1, best2 := -1, -1
	for i := range segs {
		si := &segs[i]
		for j := i + 1; j < len(segs) && segs[j].minX <= si.maxX; j++ {
			sj := &segs[j]
			if sj.minY > si.maxY || sj.maxY < si.minY {
				continue
			}
			k1, k2 := si.k, sj.k
			if k1 > k2 {
				k1, k2 = k2, k1
			}
			if k2 == k1+1 || (k1 == 0 && k2 == nseg-1) {
				continue // adjacent, checked above
			}
			if segmentsMeet(pts[k1], pts[k1+1], pts[k2], pts[k2+1]) {
				// Report the first pair in ring order, whatever the sweep order.
				if best1 < 0 || k1 < best1 || (k1 == best1 && k2 < best2) {
					best1, best2 = k1, k2
				}
			}
		}
	}
	if best1 >= 0 {
		p := meetPoint(pts[best1], pts[best1+1], pts[best2], pts[best2+1])
		verb := "crosses"
		if touchesOnly(pts[best1], pts[best1+1], pts[best2], pts[best2+1]) {
			verb = "touches"
		}
		return fmt.Errorf("%s itself at segments %d and %d near [%s, %s]",
			verb, orig[best1], orig[best2], fmtCoord(p[0]), fmtCoord(p[1]))
	}
	return nil
}

// foldsBack reports, for collinear a, b, c with a != b and b != c, whether
// b->c turns back along a->b.
func foldsBack(a, b, c Point) bool {
	if a[0] != b[0] {
		return (b[0] > a[0]) != (c[0] > b[0])
	}
	return (b[1] > a[1]) != (c[1] > b[1])
}

// segmentsMeet reports whether the closed segments p1-p2 and q1-q2 share a point.
func segmentsMeet(p1, p2, q1, q2 Point) bool {
	o1, o2 := orient(p1, p2, q1), orient(p1, p2, q2)
	if o1 != 0 && o1 == o2 {
		return false
	}
	o3, o4 := orient(q1, q2, p1), orient(q1, q2, p2)
	if o3 != 0 && o3 == o4 {
		return false
	}
	if o1 == 0 && o2 == 0 { // collinear: the projections must overlap
		return math.Max(p1[0], p2[0]) >= math.Min(q1[0], q2[0]) &&
			math.Max(q1[0], q2[0]) >= math.Min(p1[0], p2[0]) &&
			math.Max(p1[1], p2[1]) >= math.Min(q1[1], q2[1]) &&
			math.Max(q1[1], q2[1]) >= math.Min(p1[1], p2[1])
	}
	return true
}

// touchesOnly reports whether meeting segments only touch (an end of one
// lies on the other) rather than cross.
func touchesOnly(p1, p2, q1, q2 Point) bool {
	return orient(p1, p2, q1) == 0 || orient(p1, p2, q2) == 0 ||
		orient(q1, q2, p1) == 0 || orient(q1, q2, p2) == 0
}

// meetPoint returns a point where two meeting segments meet (approximately,
// for messages).
func meetPoint(p1, p2, q1, q2 Point) Point {
	d := (p2[0]-p1[0])*(q2[1]-q1[1]) - (p2[1]-p1[1])*(q2[0]-q1[0])
	if d == 0 {
		for _, c := range [4]Point{q1, q2, p1, p2} {
			if onSegment(p1, p2, c) && onSegment(q1, q2, c) {
				return c
			}
		}
		return p1
	}
	t := ((q1[0]-p1[0])*(q2[1]-q1[1]) - (q1[1]-p1[1])*(q2[0]-q1[0])) / d
	return Point{p1[0] + t*(p2[0]-p1[0]), p1[1] + t*(p2[1]-p1[1])}
}

func onSegment(a, b, c Point) bool {
	return orient(a, b, c) == 0 &&
		c[0] >= math.Min(a[0], b[0]) && c[0] <= math.Max(a[0], b[0]) &&
		c[1] >= math.Min(a[1], b[1]) && c[1] <= math.Max(a[1], b[1])
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// fmtCoord formats a coordinate for an error message (7 decimals at most).
func fmtCoord(f float64) string {
	if !isFinite(f) || math.Abs(f) > 1e15 {
		return fmt.Sprint(f)
	}
	return string(AppendCoord(nil, f))
}

// finiteInRange reports whether every coordinate of m is finite and in
// world range.
func (m MultiPolygon) finiteInRange() bool {
	for _, p := range m {
		for _, r := range p {
			for _, pt := range r {
				if !(pt[0] >= -180 && pt[0] <= 180 && pt[1] >= -90 && pt[1] <= 90) {
					return false
				}
			}
		}
	}
	return true
}
