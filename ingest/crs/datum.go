package crs

import "math"

// helmert is a seven-parameter transformation between geocentric
// Cartesian frames in the position vector convention (EPSG method 9606;
// 9603, the three-parameter geocentric translation, is the special case with
// no rotation and no scale), linearised in the rotations as PROJ's helmert
// applies it.
type helmert struct {
	tx, ty, tz float64 // metres
	rx, ry, rz float64 // radians
	scale      float64 // 1 + s·10⁻⁶
}

func newHelmert(tx, ty, tz, rxSec, rySec, rzSec, ppm float64) helmert {
	const sec = math.Pi / (180 * 3600)
	return helmert{tx, ty, tz, rxSec * sec, rySec * sec, rzSec * sec, 1 + ppm*1e-6}
}

// apply transforms geodetic longitude and latitude (radians, height zero)
// on the source ellipsoid to geodetic longitude and latitude (radians) on
// WGS 84. As in PROJ's pipelines (push v_3 … pop v_3) the height the shift
// produces is dropped.
func (h *helmert) apply(src ellipsoid, lon, lat float64) (float64, float64) {
	x, y, z := toCartesian(src, lon, lat)
	x2 := h.tx + h.scale*(x-h.rz*y+h.ry*z)
	y2 := h.ty + h.scale*(h.rz*x+y-h.rx*z)
	z2 := h.tz + h.scale*(-h.ry*x+h.rx*y+z)
	return toGeodetic(wgs84Ellipsoid, x2, y2, z2)
}

func toCartesian(el ellipsoid, lon, lat float64) (x, y, z float64) {
	f := 1 / el.rf
	e2 := f * (2 - f)
	sl, cl := math.Sincos(lon)
	sp, cp := math.Sincos(lat)
	n := el.a / math.Sqrt(1-e2*sp*sp)
	return n * cp * cl, n * cp * sl, n * (1 - e2) * sp
}

// toGeodetic uses Bowring's formula, as PROJ's cart does; for points near
// the ellipsoid surface it is exact to far below a millimetre.
func toGeodetic(el ellipsoid, x, y, z float64) (lon, lat float64) {
	f := 1 / el.rf
	e2 := f * (2 - f)
	b := el.a * (1 - f)
	ep2 := e2 / (1 - e2)
	p := math.Hypot(x, y)
	theta := math.Atan2(z*el.a, p*b)
	s, c := math.Sincos(theta)
	lat = math.Atan2(z+ep2*b*s*s*s, p-e2*el.a*c*c*c)
	lon = math.Atan2(y, x)
	return lon, lat
}

// shiftOp is one candidate Minna → WGS 84 transformation from the EPSG
// dataset, with its area of use (degrees) and accuracy (metres).
type shiftOp struct {
	code                     int
	name                     string
	h                        helmert
	south, west, north, east float64
	accuracy                 float64
	offshore                 bool // area name holds "- offshore", as PROJ tests
	// ballpark keeps longitude and latitude unchanged (PROJ's "Ballpark
	// geographic offset", accuracy unknown, area the whole world).
	ballpark bool
}

// ballparkCode marks the ballpark candidate in minnaOrder.
const ballparkCode = -1

var ballparkOp = shiftOp{code: ballparkCode, name: "Ballpark geographic offset from Minna to WGS 84",
	south: -90, west: -180, north: 90, east: 180, accuracy: -1, ballpark: true}

// apply transforms Minna longitude and latitude (radians) to WGS 84.
func (op *shiftOp) apply(lon, lat float64) (float64, float64) {
	if op.ballpark {
		return lon, lat
	}
	return op.h.apply(clarke1880RGS, lon, lat)
}

// minnaOps are the EPSG transformations from Minna (EPSG:4263) to WGS 84
// known to PROJ 9.1 (EPSG dataset v10.076): parameters, area-of-use
// bounding boxes and accuracies as `projinfo -k operation EPSG:n` prints them.
var minnaOps = map[int]shiftOp{
	1067:  {1067, "Minna to WGS 84 (11)", newHelmert(-92.1, -89.9, 114.9, 0, 0, 0, 0), 3.24, 4.41, 5.54, 6.29, 8, true, false},
	1167:  {1167, "Minna to WGS 84 (1)", newHelmert(-81, -84, 115, 0, 0, 0, 0), 1.65, 8.45, 13.09, 16.21, 44, false, false},
	1168:  {1168, "Minna to WGS 84 (2)", newHelmert(-92, -93, 122, 0, 0, 0, 0), 1.92, 2.66, 13.9, 14.65, 15, false, false},
	1754:  {1754, "Minna to WGS 84 (3)", newHelmert(-111.92, -87.85, 114.5, 1.875, 0.202, 0.219, 0.032), 4.22, 4.35, 6.95, 9.45, 5, false, false},
	1818:  {1818, "Minna to WGS 84 (4)", newHelmert(-89, -112, 125.9, 0, 0, 0.814, -0.38), 1.92, 2.66, 6.14, 7.82, 12, true, false},
	1820:  {1820, "Minna to WGS 84 (6)", newHelmert(-93.2, -93.31, 121.156, 0, 0, 0, 0), 3.25, 4.01, 5.54, 6.96, 12, true, false},
	1821:  {1821, "Minna to WGS 84 (7)", newHelmert(-88.98, -83.23, 113.55, 0, 0, 0, 0), 3.25, 7.16, 4.51, 8.25, 6, true, false},
	1822:  {1822, "Minna to WGS 84 (8)", newHelmert(-92.726, -90.304, 115.735, 0, 0, 0, 0), 4.22, 3.83, 6.31, 5.17, 10, true, false},
	1823:  {1823, "Minna to WGS 84 (9)", newHelmert(-93.134, -86.647, 114.196, 0, 0, 0, 0), 3.24, 5.58, 3.86, 8, 8, true, false},
	1824:  {1824, "Minna to WGS 84 (10)", newHelmert(-93, -94, 124, 0, 0, 0, 0), 8.78, 9.41, 11.63, 12.13, 25, false, false},
	6196:  {6196, "Minna to WGS 84 (16)", newHelmert(-93.179, -87.124, 114.338, 0, 0, 0, 0), 5.56, 6.72, 5.74, 6.97, 5, false, false},
	15493: {15493, "Minna to WGS 84 (15)", newHelmert(-94.031, -83.317, 116.708, 0, 0, 0, 0), 3.99, 5.99, 5.01, 8.01, 5, false, false},
	15705: {15705, "Minna to WGS 84 (12)", newHelmert(-83.13, -104.95, 114.63, 0, 0, 0.554, 0), 3.25, 5.02, 4.23, 7.31, 8, true, false},
	15706: {15706, "Minna to WGS 84 (13)", newHelmert(-93.6, -83.7, 113.8, 0, 0, 0, 0), 1.92, 2.66, 6.14, 7.82, 7, true, false},
	15755: {15755, "Minna to WGS 84 (14)", newHelmert(-90.2, -87.32, 114.17, 0, 0, 0, 0), 5.05, 6.53, 5.36, 6.84, 7, false, false},
}

// minnaOrder lists, per source system, the candidate transformations in the
// order PROJ 9.1 sorts them for that source (`projinfo -s EPSG:n -t
// EPSG:4326 --spatial-test intersects`). The order matters: PROJ takes the
// first candidate whose area holds the point and replaces it only by a
// more accurate onshore one. The lists differ because PROJ first drops the
// candidates whose area misses the source system's own area of use: EPSG
// gives Minna / UTM zones 31N and 32N offshore areas only.
var minnaOrder = map[int][]int{
	4263:  {1168, 1167, 15706, 1818, 1754, 1824, 1820, 1067, 1822, 15705, 15493, 1823, 1821, 15755, 6196},
	26331: {15706, 1818, 1168, 1820, 1067, 1754, 1822, 15705, 1823, 15493},
	26332: {15706, 1818, 1168, 1823, 15705, 1820, 1821, 1067},
	26391: {1168, 15706, 1818, 1754, 1820, 1067, 1822, 15705, 15493, 1823},
	26392: {1168, 1167, 1754, 15706, 1818, 1824, 15493, 1821, 1820, 15705, 1823, 15755, 6196},
	26393: {1168, 1167, 1824},
	// Minna / UTM zone 33N is not in the EPSG dataset: PROJ sees the Minna
	// datum with no area restriction, sorts as for Minna geographic and
	// adds the ballpark transformation, used where no area holds the point.
	26333: {1168, 1167, 15706, 1818, 1754, 1824, 1820, 1067, 1822, 15705, 15493, 1823, 1821, 15755, 6196, ballparkCode},
}

// candidate is a shiftOp with its area of use in the source system's
// coordinates.
type candidate struct {
	op                     *shiftOp
	minX, minY, maxX, maxY float64
}

// datumShift turns Minna longitude/latitude into WGS 84, choosing per point
// among candidates as PROJ's proj_trans does (PROJ 9.1,
// pj_get_suggested_operation): among the candidates whose area (a box in
// source coordinates) holds the point, the first one, replaced by a later
// one that is not offshore and is more accurate, or equally accurate with an
// area strictly inside the current one's. When no area holds the point the
// first candidate is used. A WKT TOWGS84 clause gives a single candidate.
type datumShift struct {
	cands []candidate
}

// newDatumShift places the candidates' areas in the source coordinates: for
// a projected source, like proj_trans_bounds with 21 densifying points, the
// box of the projected outline of each area.
func newDatumShift(order []int, proj *tmerc) *datumShift {
	d := &datumShift{}
	for _, code := range order {
		op := minnaOps[code]
		if code == ballparkCode {
			op = ballparkOp
		}
		c := candidate{op: &op}
		if op.ballpark {
			c.minX, c.minY, c.maxX, c.maxY = math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)
		} else if proj == nil {
			c.minX, c.minY, c.maxX, c.maxY = op.west, op.south, op.east, op.north
		} else {
			c.minX, c.minY = math.Inf(1), math.Inf(1)
			c.maxX, c.maxY = math.Inf(-1), math.Inf(-1)
			const side = 22 // 21 densifying points + 1 segments per side
			add := func(lonDeg, latDeg float64) {
				x, y := proj.forward(lonDeg*math.Pi/180, latDeg*math.Pi/180)
				c.minX, c.maxX = math.Min(c.minX, x), math.Max(c.maxX, x)
				c.minY, c.maxY = math.Min(c.minY, y), math.Max(c.maxY, y)
			}
			for i := 0; i < side; i++ {
				u := float64(i) / side
				lon := op.west + u*(op.east-op.west)
				lat := op.south + u*(op.north-op.south)
				add(lon, op.south)
				add(op.east, lat)
				lon2 := op.east - u*(op.east-op.west)
				lat2 := op.north - u*(op.north-op.south)
				add(lon2, op.north)
				add(op.west, lat2)
			}
		}
		d.cands = append(d.cands, c)
	}
	return d
}

// pick returns the candidate for the source coordinates x, y.
func (d *datumShift) pick(x, y float64) *shiftOp {
	best := -1
	bestAcc := math.MaxFloat64
	for i := range d.cands {
		c := &d.cands[i]
		if !(x >= c.minX && y >= c.minY && x <= c.maxX && y <= c.maxY) {
			continue
		}
		if best < 0 {
			best, bestAcc = i, c.op.accuracy
			continue
		}
		b := &d.cands[best]
		if c.op.offshore || c.op.accuracy < 0 {
			continue
		}
		if c.op.accuracy < bestAcc || (c.op.accuracy == bestAcc &&
			c.minX > b.minX && c.minY > b.minY && c.maxX < b.maxX && c.maxY < b.maxY) {
			best, bestAcc = i, c.op.accuracy
		}
	}
	if best < 0 {
		best = 0
	}
	return d.cands[best].op
}
