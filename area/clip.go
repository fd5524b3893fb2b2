package area

import (
	"math"

	"frameindex/access"
	"frameindex/grid"
	"frameindex/index"
)

// Partial frames. A drawn shape, a box or a ring counts each frame by the
// fraction of the frame's area inside it. Each ring of the shape is
// clipped to the frame in longitude and latitude, where GeoJSON's edges
// are straight (RFC 7946) and a lattice cell is a rectangle
// (Sutherland–Hodgman, first to the cell's row, then to its columns,
// which is exact for any simple ring against a rectangle); holes are
// subtracted. The clipped rings' areas are taken on the WGS84 ellipsoid
// as every frame's is (access.EqualAreaXY: the cylindrical equal-area
// projection of the authalic sphere; within one frame an edge straight in
// degrees and one straight there differ by under a millimetre), and
// divided by the frame's.

// pt is a point, lon and lat in degrees.
type pt struct{ x, y float64 }

// toPts is a ring without its closing point.
func toPts(r grid.Ring) []pt {
	n := len(r)
	if n > 1 && r[0] == r[n-1] {
		n--
	}
	out := make([]pt, n)
	for i := 0; i < n; i++ {
		out[i] = pt{r[i][0], r[i][1]}
	}
	return out
}

// ringAreaAbs is the unsigned area of a ring on the ellipsoid, km²: the
// shoelace area of its vertices in the equal-area projection.
func ringAreaAbs(r []pt) float64 {
	if len(r) < 3 {
		return 0
	}
	s := 0.0
	// A clipped ring's vertices mostly lie on its strip's two clip lines:
	// the projection of the last two latitudes is kept (the same numbers,
	// fewer logarithms).
	var lat [2]float64
	var proj [2]float64
	lat[0], lat[1] = math.NaN(), math.NaN()
	xy := func(p pt) (float64, float64) {
		x := access.EqualAreaX(p.x)
		for k := range lat {
			if lat[k] == p.y {
				return x, proj[k]
			}
		}
		y := access.EqualAreaY(p.y)
		lat[1], proj[1] = lat[0], proj[0]
		lat[0], proj[0] = p.y, y
		return x, y
	}
	x0, y0 := xy(r[0])
	px, py := xy(r[1])
	px, py = px-x0, py-y0
	for i := 2; i < len(r); i++ {
		x, y := xy(r[i])
		x, y = x-x0, y-y0
		s += px*y - x*py
		px, py = x, y
	}
	return math.Abs(s) / 2
}

// clipHalf keeps the part of r on one side of an axis line: coordinate >=
// v (keepAbove) or <= v. Two passes keep lo <= coordinate <= hi (strip,
// areaInX); the result may hold zero-width bridges along the clip lines
// where a concave ring leaves and re-enters, which add no area.
func clipHalf(r []pt, v float64, onX, keepAbove bool, out []pt) []pt {
	if len(r) == 0 {
		return out
	}
	coord := func(p pt) float64 {
		if onX {
			return p.x
		}
		return p.y
	}
	in := func(p pt) bool {
		if keepAbove {
			return coord(p) >= v
		}
		return coord(p) <= v
	}
	cross := func(a, b pt) pt {
		t := (v - coord(a)) / (coord(b) - coord(a))
		if onX {
			return pt{v, a.y + t*(b.y-a.y)}
		}
		return pt{a.x + t*(b.x-a.x), v}
	}
	prev := r[len(r)-1]
	pin := in(prev)
	for _, cur := range r {
		cin := in(cur)
		switch {
		case cin && pin:
			out = append(out, cur)
		case cin && !pin:
			out = append(out, cross(prev, cur), cur)
		case !cin && pin:
			out = append(out, cross(prev, cur))
		}
		prev, pin = cur, cin
	}
	return out
}

// shape is a multipolygon in the projection, with its bounds.
type shape struct {
	polys                  [][][]pt // polygons, each outer ring then holes
	minX, minY, maxX, maxY float64
	convex                 bool // one polygon of one convex ring
	buf0, buf1             []pt // areaInX's clipping buffers
}

func projectShape(m grid.MultiPolygon) *shape {
	s := &shape{minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	for _, p := range m {
		var rings [][]pt
		for _, r := range p {
			pr := toPts(r)
			for _, q := range pr {
				s.minX, s.maxX = math.Min(s.minX, q.x), math.Max(s.maxX, q.x)
				s.minY, s.maxY = math.Min(s.minY, q.y), math.Max(s.maxY, q.y)
			}
			rings = append(rings, pr)
		}
		s.polys = append(s.polys, rings)
	}
	s.convex = len(s.polys) == 1 && len(s.polys[0]) == 1 && isConvex(s.polys[0][0])
	return s
}

// isConvex reports whether a ring (without closing point) turns one way
// only.
func isConvex(r []pt) bool {
	if len(r) < 3 {
		return false
	}
	sign := 0
	for i := range r {
		a, b, c := r[i], r[(i+1)%len(r)], r[(i+2)%len(r)]
		z := (b.x-a.x)*(c.y-b.y) - (b.y-a.y)*(c.x-b.x)
		switch {
		case z > 0 && sign < 0, z < 0 && sign > 0:
			return false
		case z > 0:
			sign = 1
		case z < 0:
			sign = -1
		}
	}
	return sign != 0
}

// clipConvex keeps the part of ring r inside the convex ring w.
func clipConvex(r, w []pt) []pt {
	ccw := signedArea(w) > 0
	out := r
	for i := range w {
		a, b := w[i], w[(i+1)%len(w)]
		side := func(p pt) float64 {
			z := (b.x-a.x)*(p.y-a.y) - (b.y-a.y)*(p.x-a.x)
			if !ccw {
				z = -z
			}
			return z
		}
		in := out
		out = nil
		if len(in) == 0 {
			break
		}
		prev := in[len(in)-1]
		sp := side(prev)
		for _, cur := range in {
			sc := side(cur)
			if sc >= 0 {
				if sp < 0 {
					out = append(out, lerp(prev, cur, sp/(sp-sc)))
				}
				out = append(out, cur)
			} else if sp >= 0 {
				out = append(out, lerp(prev, cur, sp/(sp-sc)))
			}
			prev, sp = cur, sc
		}
	}
	return out
}

func lerp(a, b pt, t float64) pt { return pt{a.x + t*(b.x-a.x), a.y + t*(b.y-a.y)} }

func signedArea(r []pt) float64 {
	s := 0.0
	for i := range r {
		j := (i + 1) % len(r)
		s += r[i].x*r[j].y - r[j].x*r[i].y
	}
	return s / 2
}

// areaInConvex is the area of s inside the convex ring w.
func (s *shape) areaInConvex(w []pt) float64 {
	total := 0.0
	for _, p := range s.polys {
		for k, r := range p {
			a := ringAreaAbs(clipConvex(r, w))
			if k == 0 {
				total += a
			} else {
				total -= a
			}
		}
	}
	return math.Max(total, 0)
}

// minWeight drops frames that only touch a shape.
const minWeight = 1e-9

// weigh returns the frames of ix that m covers in part or whole, with
// the fraction of each frame's area inside m, and the area of m on the
// grid in km². m must be valid (grid.MultiPolygon.Validate).
//
// On a lattice grid the candidate cells are those m touches
// (grid.Rasterize), each clipped exactly. On an imported polygon grid the
// frames whose bounds meet m's are clipped against m when the frame is
// one convex ring (the usual case), or m clipped against the frame when m
// is one convex ring (a ring or a box); a frame where neither is convex
// counts whole when its centre lies in m, and centred is set.
func weigh(ix *index.Index, m grid.MultiPolygon) (pos []int32, w []float64, km2 float64, centred bool) {
	s := projectShape(m)
	if !ix.Polygons() {
		var row int32 = -1
		var y0, y1, cell float64
		var strip *shape
		for _, run := range grid.Rasterize(m) {
			if run.Row != row {
				row = run.Row
				b := grid.CellBox(int(row), int(run.Col0))
				y0, y1 = b.MinLat, b.MaxLat
				strip = s.strip(y0, y1, strip)
				cell = access.BoxAreaKm2(b)
			}
			for col := run.Col0; col <= run.Col1; col++ {
				p, ok := ix.Pos(grid.CellID(int(row), int(col)))
				if !ok {
					continue
				}
				in := strip.areaInX(grid.Lon(int(col)), grid.Lon(int(col)+1))
				f := math.Min(in/cell, 1)
				if f < minWeight {
					continue
				}
				pos = append(pos, int32(p))
				w = append(w, f)
				km2 += f * cell
			}
		}
		return pos, w, km2, false
	}
	b := m.Bounds()
	ix.Box(b, ix.Len(), func(sh grid.Shape) bool {
		p, ok := ix.Pos(sh.ID)
		if !ok {
			return true
		}
		fs := projectShape(sh.Geom)
		frameArea := 0.0
		for _, poly := range fs.polys {
			for k, r := range poly {
				if k == 0 {
					frameArea += ringAreaAbs(r)
				} else {
					frameArea -= ringAreaAbs(r)
				}
			}
		}
		if frameArea <= 0 {
			return true
		}
		var in float64
		switch {
		case fs.convex:
			in = s.areaInConvex(fs.polys[0][0])
		case s.convex:
			in = fs.areaInConvex(s.polys[0][0])
		default:
			centred = true
			cx, cy := (sh.Box.MinLon+sh.Box.MaxLon)/2, (sh.Box.MinLat+sh.Box.MaxLat)/2
			if m.ContainsPoint(cx, cy) {
				in = frameArea
			}
		}
		f := math.Min(in/frameArea, 1)
		if f < minWeight {
			return true
		}
		pos = append(pos, int32(p))
		w = append(w, f)
		km2 += f * frameArea
		return true
	})
	return pos, w, km2, centred
}

// strip is the part of s between y0 and y1 (one row of cells), written
// over reuse (the previous row's strip, or nil) to spare allocations.
func (s *shape) strip(y0, y1 float64, reuse *shape) *shape {
	out := reuse
	if out == nil || len(out.polys) != len(s.polys) {
		out = &shape{polys: make([][][]pt, len(s.polys))}
	}
	for i, p := range s.polys {
		if len(out.polys[i]) != len(p) {
			out.polys[i] = make([][]pt, len(p))
		}
		for k, r := range p {
			out.buf0 = clipHalf(r, y0, false, true, out.buf0[:0])
			out.polys[i][k] = clipHalf(out.buf0, y1, false, false, out.polys[i][k][:0])
		}
	}
	return out
}

// areaInX is the area of s between x0 and x1. It clips into buffers kept
// in s (one row's strip, used by one goroutine): two passes of clipHalf without
// allocations a cell.
func (s *shape) areaInX(x0, x1 float64) float64 {
	total := 0.0
	for _, p := range s.polys {
		for k, r := range p {
			s.buf0 = clipHalf(r, x0, true, true, s.buf0[:0])
			s.buf1 = clipHalf(s.buf0, x1, true, false, s.buf1[:0])
			a := ringAreaAbs(s.buf1)
			if k == 0 {
				total += a
			} else {
				total -= a
			}
		}
	}
	return math.Max(total, 0)
}
