package shapefile

import (
	"encoding/binary"
	"fmt"
	"math"

	"frameindex/grid"
	"frameindex/ingest/crs"
)

// Shape types of the ESRI Shapefile Technical Description (1998).
const (
	typeNull        = 0
	typePoint       = 1
	typePolyLine    = 3
	typePolygon     = 5
	typeMultiPoint  = 8
	typeMultiPatch  = 31
	shpHeaderLength = 100
)

var typeNames = map[int32]string{
	0: "Null", 1: "Point", 3: "PolyLine", 5: "Polygon", 8: "MultiPoint",
	11: "PointZ", 13: "PolyLineZ", 15: "PolygonZ", 18: "MultiPointZ",
	21: "PointM", 23: "PolyLineM", 25: "PolygonM", 28: "MultiPointM", 31: "MultiPatch",
}

// baseType maps the Z and M variants to their 2D type; -1 for unknown
// types and MultiPatch.
func baseType(t int32) int32 {
	switch t {
	case 0:
		return typeNull
	case 1, 11, 21:
		return typePoint
	case 3, 13, 23:
		return typePolyLine
	case 5, 15, 25:
		return typePolygon
	case 8, 18, 28:
		return typeMultiPoint
	}
	return -1
}

func typeName(t int32) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("%d (unknown)", t)
}

type shpHeader struct {
	shapeType int32
	length    int64 // file length in bytes, from the header
}

func parseSHPHeader(h []byte) (shpHeader, error) {
	if code := int32(binary.BigEndian.Uint32(h[0:4])); code != 9994 {
		return shpHeader{}, fmt.Errorf("not a shapefile: file code %d, want 9994", code)
	}
	if v := int32(binary.LittleEndian.Uint32(h[28:32])); v != 1000 {
		return shpHeader{}, fmt.Errorf("shapefile version %d, want 1000", v)
	}
	hd := shpHeader{
		shapeType: int32(binary.LittleEndian.Uint32(h[32:36])),
		length:    int64(binary.BigEndian.Uint32(h[24:28])) * 2,
	}
	if hd.length < shpHeaderLength {
		return shpHeader{}, fmt.Errorf("header gives a file length of %d bytes, less than the 100-byte header", hd.length)
	}
	if baseType(hd.shapeType) < 0 {
		return shpHeader{}, fmt.Errorf("shape type %s is not supported (Point, MultiPoint, PolyLine, Polygon and their Z and M variants)", typeName(hd.shapeType))
	}
	return hd, nil
}

// geomDecoder decodes .shp record contents into GeoJSON geometries in WGS 84,
// reusing its buffers from record to record.
type geomDecoder struct {
	sys       *crs.System
	fileType  int32 // base type of the file header
	parts     []int
	src       []pt // record points as stored
	dst       []pt // record points in WGS 84 lon/lat
	rings     []ring
	exteriors []int
}

// pipBudget bounds the point-in-ring work of one record (hole vertices ×
// exterior vertices tested). Past it, holes go to the smallest exterior
// whose bounding box holds theirs, which keeps adversarial records with
// many thousands of rings from taking quadratic time.
const pipBudget = 50_000_000

type pt struct{ x, y float64 }

type ring struct {
	start, end int     // point range in src/dst, closed (first == last)
	area2      float64 // twice the signed area in source coordinates; > 0 counter-clockwise
	minX, minY float64
	maxX, maxY float64
	parent     int // exterior ring holding this hole; -1 for exteriors
}

func le32(b []byte) int32    { return int32(binary.LittleEndian.Uint32(b)) }
func lef64(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }

// appendGeometry appends the GeoJSON geometry of one record's content (shape
// type onwards) to dst: null for Null shapes and empty multipoints.
func (g *geomDecoder) appendGeometry(dst, c []byte) ([]byte, error) {
	if len(c) < 4 {
		return dst, fmt.Errorf("record content is %d bytes, too short for a shape type", len(c))
	}
	t := le32(c)
	bt := baseType(t)
	if bt == typeNull {
		return append(dst, null...), nil
	}
	if bt < 0 {
		return dst, fmt.Errorf("shape type %s is not supported", typeName(t))
	}
	if g.fileType != typeNull && bt != g.fileType {
		return dst, fmt.Errorf("shape type %s in a file of %s shapes", typeName(t), typeName(g.fileType))
	}
	switch bt {
	case typePoint:
		if len(c) < 20 {
			return dst, fmt.Errorf("record length mismatch: %s content is %d bytes, needs at least 20", typeName(t), len(c))
		}
		g.src = append(g.src[:0], pt{lef64(c[4:]), lef64(c[12:])})
		if err := g.project(); err != nil {
			return dst, err
		}
		dst = append(dst, `{"type":"Point","coordinates":`...)
		dst = appendPt(dst, g.dst[0])
		return append(dst, '}'), nil
	case typeMultiPoint:
		if len(c) < 40 {
			return dst, fmt.Errorf("record length mismatch: %s content is %d bytes, needs at least 40", typeName(t), len(c))
		}
		n := int64(le32(c[36:]))
		if n < 0 || 40+16*n > int64(len(c)) {
			return dst, fmt.Errorf("record length mismatch: %s content is %d bytes, too short for %d points", typeName(t), len(c), n)
		}
		if n == 0 {
			return append(dst, null...), nil
		}
		g.readPoints(c[40:], int(n))
		if err := g.project(); err != nil {
			return dst, err
		}
		dst = append(dst, `{"type":"MultiPoint","coordinates":[`...)
		for i, p := range g.dst {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendPt(dst, p)
		}
		return append(dst, "]}"...), nil
	}

	// PolyLine and Polygon.
	if len(c) < 44 {
		return dst, fmt.Errorf("record length mismatch: %s content is %d bytes, needs at least 44", typeName(t), len(c))
	}
	np, n := int64(le32(c[36:])), int64(le32(c[40:]))
	if np < 0 || n < 0 || 44+4*np+16*n > int64(len(c)) {
		return dst, fmt.Errorf("record length mismatch: %s content is %d bytes, too short for %d parts and %d points", typeName(t), len(c), np, n)
	}
	if np == 0 || n == 0 {
		return append(dst, null...), nil
	}
	g.parts = g.parts[:0]
	for i := int64(0); i < np; i++ {
		s := int(le32(c[44+4*i:]))
		if s < 0 || int64(s) >= n || (i == 0 && s != 0) || (i > 0 && s <= g.parts[i-1]) {
			return dst, fmt.Errorf("part %d starts at point %d: parts must start at 0 and increase below the %d points", i+1, s, n)
		}
		g.parts = append(g.parts, s)
	}
	g.readPoints(c[44+4*np:], int(n))
	if bt == typePolyLine {
		return g.appendLines(dst)
	}
	return g.appendPolygons(dst)
}

func (g *geomDecoder) readPoints(b []byte, n int) {
	g.src = g.src[:0]
	for i := 0; i < n; i++ {
		g.src = append(g.src, pt{lef64(b[16*i:]), lef64(b[16*i+8:])})
	}
}

// project fills dst from src.
func (g *geomDecoder) project() error {
	g.dst = g.dst[:0]
	for _, p := range g.src {
		lon, lat := g.sys.ToWGS84(p.x, p.y)
		if !(lon >= -180-1e-9 && lon <= 180+1e-9 && lat >= -90-1e-9 && lat <= 90+1e-9) {
			return fmt.Errorf("point (%g, %g) is not a valid position in %s (gives longitude %g, latitude %g): is the coordinate system (.prj) right?",
				p.x, p.y, g.sys, lon, lat)
		}
		g.dst = append(g.dst, pt{lon, lat})
	}
	return nil
}

func appendPt(dst []byte, p pt) []byte {
	dst = append(dst, '[')
	dst = grid.AppendCoord(dst, p.x)
	dst = append(dst, ',')
	dst = grid.AppendCoord(dst, p.y)
	return append(dst, ']')
}

func (g *geomDecoder) appendLines(dst []byte) ([]byte, error) {
	for i, s := range g.parts {
		if g.partEnd(i)-s < 2 {
			return dst, fmt.Errorf("line part %d has %d point, a line needs at least 2", i+1, g.partEnd(i)-s)
		}
	}
	if err := g.project(); err != nil {
		return dst, err
	}
	if len(g.parts) == 1 {
		dst = append(dst, `{"type":"LineString","coordinates":`...)
		dst = g.appendRun(dst, 0, len(g.dst), false)
		return append(dst, '}'), nil
	}
	dst = append(dst, `{"type":"MultiLineString","coordinates":[`...)
	for i, s := range g.parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = g.appendRun(dst, s, g.partEnd(i), false)
	}
	return append(dst, "]}"...), nil
}

func (g *geomDecoder) partEnd(i int) int {
	if i+1 < len(g.parts) {
		return g.parts[i+1]
	}
	return len(g.src)
}

// appendRun appends dst points [s, e) as a JSON array, reversed if asked.
func (g *geomDecoder) appendRun(dst []byte, s, e int, reverse bool) []byte {
	dst = append(dst, '[')
	for k := s; k < e; k++ {
		if k > s {
			dst = append(dst, ',')
		}
		i := k
		if reverse {
			i = e - 1 - (k - s)
		}
		dst = appendPt(dst, g.dst[i])
	}
	return append(dst, ']')
}

// appendPolygons groups the rings into polygons as GDAL does for
// shapefiles: clockwise rings are exteriors; each counter-clockwise ring is
// a hole of the smallest exterior that contains it, or an exterior of its
// own when none does. It writes RFC 7946 winding: exteriors
// counter-clockwise, holes clockwise.
func (g *geomDecoder) appendPolygons(dst []byte) ([]byte, error) {
	// Close open rings by repeating their first point; src is rebuilt so
	// that ring ranges stay contiguous.
	nparts := len(g.parts)
	g.rings = g.rings[:0]
	closed := len(g.src)
	for i := 0; i < nparts; i++ {
		s, e := g.parts[i], g.partEnd(i)
		if g.src[s] != g.src[e-1] {
			closed++
		}
	}
	if closed != len(g.src) {
		old := g.src
		g.src = make([]pt, 0, closed)
		for i := 0; i < nparts; i++ {
			s, e := g.parts[i], partEndOf(g.parts, i, len(old))
			start := len(g.src)
			g.src = append(g.src, old[s:e]...)
			if old[s] != old[e-1] {
				g.src = append(g.src, old[s])
			}
			g.parts[i] = start
		}
	}
	for i := 0; i < nparts; i++ {
		s, e := g.parts[i], g.partEnd(i)
		if e-s < 4 {
			return dst, fmt.Errorf("ring %d has %d points, a polygon ring needs at least 4 (closed)", i+1, e-s)
		}
		r := ring{start: s, end: e, parent: -1,
			minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
		// Shoelace about the first point, which keeps the products small
		// for large projected coordinates.
		ox, oy := g.src[s].x, g.src[s].y
		for k := s; k < e; k++ {
			p := g.src[k]
			r.minX, r.maxX = math.Min(r.minX, p.x), math.Max(r.maxX, p.x)
			r.minY, r.maxY = math.Min(r.minY, p.y), math.Max(r.maxY, p.y)
			if k+1 < e {
				q := g.src[k+1]
				r.area2 += (p.x-ox)*(q.y-oy) - (q.x-ox)*(p.y-oy)
			}
		}
		g.rings = append(g.rings, r)
	}
	if err := g.project(); err != nil {
		return dst, err
	}
	// Exteriors: clockwise (or flat) rings.
	g.exteriors = g.exteriors[:0]
	for i := range g.rings {
		if g.rings[i].area2 <= 0 {
			g.exteriors = append(g.exteriors, i)
		}
	}
	nExt := len(g.exteriors)
	budget := pipBudget
	for i := range g.rings {
		h := &g.rings[i]
		if h.area2 <= 0 {
			continue
		}
		best := -1
		for _, j := range g.exteriors[:nExt] {
			o := &g.rings[j]
			if h.minX < o.minX || h.maxX > o.maxX || h.minY < o.minY || h.maxY > o.maxY {
				continue
			}
			if budget > 0 {
				budget -= o.end - o.start
				if !g.ringInside(h, o) {
					continue
				}
			}
			if best < 0 || math.Abs(o.area2) < math.Abs(g.rings[best].area2) {
				best = j
			}
		}
		if best < 0 {
			g.exteriors = append(g.exteriors, i) // an orphan hole is an exterior
			continue
		}
		h.parent = best
	}
	multi := len(g.exteriors) > 1
	if multi {
		dst = append(dst, `{"type":"MultiPolygon","coordinates":[`...)
	} else {
		dst = append(dst, `{"type":"Polygon","coordinates":`...)
	}
	for k, j := range g.exteriors {
		if k > 0 {
			dst = append(dst, ',')
		}
		o := &g.rings[j]
		dst = append(dst, '[')
		dst = g.appendRun(dst, o.start, o.end, o.area2 < 0)
		for hi := range g.rings {
			h := &g.rings[hi]
			if h.parent != j {
				continue
			}
			dst = append(dst, ',')
			dst = g.appendRun(dst, h.start, h.end, h.area2 > 0)
		}
		dst = append(dst, ']')
	}
	if multi {
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

func partEndOf(parts []int, i, n int) int {
	if i+1 < len(parts) {
		return parts[i+1]
	}
	return n
}

// ringInside reports whether ring h lies inside ring o, judged by the first
// vertex of h that is not on o's boundary; a hole touching its exterior at
// every vertex counts as inside.
func (g *geomDecoder) ringInside(h, o *ring) bool {
	for k := h.start; k < h.end-1; k++ {
		switch pointInRing(g.src[k], g.src[o.start:o.end]) {
		case 1:
			return true
		case -1:
			return false
		}
	}
	return true
}

// pointInRing returns 1 inside, -1 outside, 0 on the boundary of the
// closed ring r (even-odd rule).
func pointInRing(p pt, r []pt) int {
	in := false
	for i := 0; i+1 < len(r); i++ {
		a, b := r[i], r[i+1]
		// On the segment?
		if (p.x-a.x)*(b.y-a.y) == (p.y-a.y)*(b.x-a.x) &&
			p.x >= math.Min(a.x, b.x) && p.x <= math.Max(a.x, b.x) &&
			p.y >= math.Min(a.y, b.y) && p.y <= math.Max(a.y, b.y) {
			return 0
		}
		if (a.y > p.y) != (b.y > p.y) {
			x := a.x + (p.y-a.y)*(b.x-a.x)/(b.y-a.y)
			if p.x < x {
				in = !in
			}
		}
	}
	if in {
		return 1
	}
	return -1
}
