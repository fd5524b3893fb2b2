package gpkg

import (
	"encoding/binary"
	"fmt"
	"math"

	"frameindex/grid"
)

// WKB geometry type codes (ISO 19125 / the GeoPackage spec, 2D).
const (
	wkbPoint              = 1
	wkbLineString         = 2
	wkbPolygon            = 3
	wkbMultiPoint         = 4
	wkbMultiLineString    = 5
	wkbMultiPolygon       = 6
	wkbGeometryCollection = 7
)

// maxDepth bounds the nesting of GeometryCollections, so a hostile blob
// cannot exhaust the stack.
const maxDepth = 32

// envelopeSizes gives the byte size of the envelope for each envelope
// contents indicator of the GeoPackage binary header (0: none, 1: xy,
// 2: xyz, 3: xym, 4: xyzm; 5-7 are invalid).
var envelopeSizes = [8]int{0, 32, 48, 48, 64, -1, -1, -1}

// typeNames names WKB geometry types for error messages, including the
// curved and surface types of ISO SQL/MM that GeoPackage's non-linear
// geometry extension allows and this reader refuses.
var typeNames = map[uint32]string{
	1: "Point", 2: "LineString", 3: "Polygon", 4: "MultiPoint",
	5: "MultiLineString", 6: "MultiPolygon", 7: "GeometryCollection",
	8: "CircularString", 9: "CompoundCurve", 10: "CurvePolygon",
	11: "MultiCurve", 12: "MultiSurface", 13: "Curve", 14: "Surface",
	15: "PolyhedralSurface", 16: "TIN", 17: "Triangle",
}

// decoder turns GeoPackage geometry blobs into RFC 7946 GeoJSON geometry
// text. It keeps scratch buffers between calls and is not safe for
// concurrent use.
type decoder struct {
	tr   func(x, y float64) (lon, lat float64) // nil: coordinates are lon/lat already
	b    []byte                                // the WKB being read
	pos  int
	out  []byte
	ring []float64 // scratch: one ring's transformed coordinates
}

// appendGeometry decodes blob (GeoPackage binary: header then WKB) and
// appends its GeoJSON geometry to dst, or "null" for a missing or empty
// geometry. On error dst is returned unchanged with the error.
func (d *decoder) appendGeometry(dst, blob []byte) ([]byte, error) {
	if blob == nil {
		return append(dst, "null"...), nil
	}
	wkb, empty, err := parseHeader(blob)
	if err != nil {
		return dst, err
	}
	if empty {
		return append(dst, "null"...), nil
	}
	d.b, d.pos, d.out = wkb, 0, dst
	mark := len(dst)
	ok, err := d.geometry(0)
	out := d.out
	d.b, d.out = nil, nil
	if err != nil {
		return dst, err
	}
	if !ok {
		return append(out[:mark], "null"...), nil
	}
	return out, nil
}

// parseHeader checks the GeoPackage binary header and returns the WKB that
// follows it, and whether the header flags the geometry as empty.
func parseHeader(b []byte) (wkb []byte, empty bool, err error) {
	if len(b) < 8 {
		return nil, false, fmt.Errorf("GeoPackage geometry blob of %d bytes is shorter than its 8-byte header", len(b))
	}
	if b[0] != 'G' || b[1] != 'P' {
		return nil, false, fmt.Errorf("not a GeoPackage geometry blob: it starts with %#x %#x, want \"GP\"", b[0], b[1])
	}
	if b[2] != 0 {
		return nil, false, fmt.Errorf("GeoPackage binary version %d is not supported (want 0)", b[2])
	}
	flags := b[3]
	if flags&0x20 != 0 {
		return nil, false, fmt.Errorf("extended GeoPackage binary geometry (extension code %q) is not supported", safeCode(b[8:]))
	}
	env := envelopeSizes[(flags>>1)&7]
	if env < 0 {
		return nil, false, fmt.Errorf("GeoPackage geometry header has invalid envelope indicator %d (want 0-4)", (flags>>1)&7)
	}
	if len(b) < 8+env {
		return nil, false, fmt.Errorf("GeoPackage geometry blob of %d bytes is shorter than its %d-byte header", len(b), 8+env)
	}
	return b[8+env:], flags&0x10 != 0, nil
}

// safeCode shows up to four bytes as text for an error message.
func safeCode(b []byte) string {
	if len(b) > 4 {
		b = b[:4]
	}
	return string(b)
}

// wkbHeader is a geometry's byte order and type as read from WKB.
type wkbHeader struct {
	order binary.ByteOrder
	typ   uint32 // 2D base type: 1..7
	dims  int    // coordinates per point: 2, 3 or 4
}

// readHeader reads a WKB byte order and type code, in ISO form (1000s for
// Z, M and ZM) or the older extended form (high bits, as GDAL and PostGIS
// write), dropping Z and M.
func (d *decoder) readHeader() (wkbHeader, error) {
	var h wkbHeader
	if len(d.b)-d.pos < 5 {
		return h, d.short("a geometry header", 5)
	}
	switch d.b[d.pos] {
	case 0:
		h.order = binary.BigEndian
	case 1:
		h.order = binary.LittleEndian
	default:
		return h, fmt.Errorf("WKB byte order %d at byte %d is neither 0 nor 1", d.b[d.pos], d.pos)
	}
	raw := h.order.Uint32(d.b[d.pos+1:])
	d.pos += 5
	t := raw
	h.dims = 2
	if t&0x80000000 != 0 {
		h.dims++
	}
	if t&0x40000000 != 0 {
		h.dims++
	}
	if t&0x20000000 != 0 { // an EWKB SRID follows the type: skip it
		if len(d.b)-d.pos < 4 {
			return h, d.short("an EWKB SRID", 4)
		}
		d.pos += 4
	}
	t &= 0x0FFFFFFF
	switch t / 1000 {
	case 0:
	case 1, 2:
		h.dims++
	case 3:
		h.dims += 2
	default:
		return h, fmt.Errorf("WKB geometry type %d is not a known type", raw)
	}
	if h.dims > 4 {
		return h, fmt.Errorf("WKB geometry type %d is not a known type", raw)
	}
	h.typ = t % 1000
	if h.typ < wkbPoint || h.typ > wkbGeometryCollection {
		if name, ok := typeNames[h.typ]; ok {
			return h, fmt.Errorf("WKB geometry type %s is not supported (curved and surface types are not; convert them first, e.g. ogr2ogr -nlt CONVERT_TO_LINEAR)", name)
		}
		return h, fmt.Errorf("WKB geometry type %d is not a known type", raw)
	}
	return h, nil
}

func (d *decoder) short(what string, need int) error {
	return fmt.Errorf("WKB ends at byte %d inside %s (%d bytes needed, %d left)", d.pos, what, need, len(d.b)-d.pos)
}

// count reads a uint32 element count and checks that the bytes left can
// hold that many elements of at least minSize bytes each, so a forged
// count never drives an allocation or a long loop.
func (d *decoder) count(order binary.ByteOrder, what string, minSize int) (int, error) {
	if len(d.b)-d.pos < 4 {
		return 0, d.short("the number of "+what, 4)
	}
	n := order.Uint32(d.b[d.pos:])
	d.pos += 4
	if left := len(d.b) - d.pos; uint64(n)*uint64(minSize) > uint64(left) {
		return 0, fmt.Errorf("WKB claims %d %s at byte %d but only %d bytes are left", n, what, d.pos-4, left)
	}
	return int(n), nil
}

// point reads one position and returns it transformed to lon/lat.
func (d *decoder) point(h wkbHeader) (x, y float64, err error) {
	need := 8 * h.dims
	if len(d.b)-d.pos < need {
		return 0, 0, d.short("a point", need)
	}
	x = math.Float64frombits(h.order.Uint64(d.b[d.pos:]))
	y = math.Float64frombits(h.order.Uint64(d.b[d.pos+8:]))
	d.pos += need
	return x, y, nil
}

// lonLat transforms a finite position; a NaN or infinite one is an error.
func (d *decoder) lonLat(x, y float64) (float64, float64, error) {
	if !finite(x) || !finite(y) {
		return 0, 0, fmt.Errorf("coordinate (%g, %g) at byte %d is not a finite number", x, y, d.pos)
	}
	if d.tr != nil {
		x, y = d.tr(x, y)
		if !finite(x) || !finite(y) {
			return 0, 0, fmt.Errorf("coordinate near byte %d has no longitude/latitude in WGS 84 (the transformation gave %g, %g)", d.pos, x, y)
		}
	}
	return x, y, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func (d *decoder) appendPos(lon, lat float64) {
	d.out = append(d.out, '[')
	d.out = grid.AppendCoord(d.out, lon)
	d.out = append(d.out, ',')
	d.out = grid.AppendCoord(d.out, lat)
	d.out = append(d.out, ']')
}

// geometry reads one geometry (header included) and appends it as a GeoJSON
// geometry object; ok is false (and nothing appended) when it is empty.
func (d *decoder) geometry(depth int) (bool, error) {
	h, err := d.readHeader()
	if err != nil {
		return false, err
	}
	return d.geometryBody(h, depth)
}

// geometryBody is geometry after its header h.
func (d *decoder) geometryBody(h wkbHeader, depth int) (ok bool, err error) {
	mark := len(d.out)
	switch h.typ {
	case wkbPoint:
		d.out = append(d.out, `{"type":"Point","coordinates":`...)
		ok, err = d.pointCoords(h)
	case wkbLineString:
		d.out = append(d.out, `{"type":"LineString","coordinates":`...)
		ok, err = d.lineCoords(h)
	case wkbPolygon:
		d.out = append(d.out, `{"type":"Polygon","coordinates":`...)
		ok, err = d.polygonCoords(h)
	case wkbMultiPoint:
		d.out = append(d.out, `{"type":"MultiPoint","coordinates":`...)
		ok, err = d.members(h, wkbPoint, "points", 21, d.pointCoords)
	case wkbMultiLineString:
		d.out = append(d.out, `{"type":"MultiLineString","coordinates":`...)
		ok, err = d.members(h, wkbLineString, "line strings", 9, d.lineCoords)
	case wkbMultiPolygon:
		d.out = append(d.out, `{"type":"MultiPolygon","coordinates":`...)
		ok, err = d.members(h, wkbPolygon, "polygons", 9, d.polygonCoords)
	case wkbGeometryCollection:
		if depth >= maxDepth {
			return false, fmt.Errorf("geometry collections nested deeper than %d", maxDepth)
		}
		d.out = append(d.out, `{"type":"GeometryCollection","geometries":`...)
		ok, err = d.members(h, 0, "geometries", 9, func(mh wkbHeader) (bool, error) {
			return d.geometryBody(mh, depth+1)
		})
	}
	if err != nil || !ok {
		d.out = d.out[:mark]
		return false, err
	}
	d.out = append(d.out, '}')
	return true, nil
}

// pointCoords appends [lon,lat]; a point whose coordinates are both NaN is
// WKB's empty point.
func (d *decoder) pointCoords(h wkbHeader) (bool, error) {
	x, y, err := d.point(h)
	if err != nil {
		return false, err
	}
	if math.IsNaN(x) && math.IsNaN(y) {
		return false, nil
	}
	lon, lat, err := d.lonLat(x, y)
	if err != nil {
		return false, err
	}
	d.appendPos(lon, lat)
	return true, nil
}

// lineCoords appends a line string's positions.
func (d *decoder) lineCoords(h wkbHeader) (bool, error) {
	n, err := d.count(h.order, "points", 8*h.dims)
	if err != nil || n == 0 {
		return false, err
	}
	d.out = append(d.out, '[')
	for i := 0; i < n; i++ {
		x, y, err := d.point(h)
		if err != nil {
			return false, err
		}
		lon, lat, err := d.lonLat(x, y)
		if err != nil {
			return false, err
		}
		if i > 0 {
			d.out = append(d.out, ',')
		}
		d.appendPos(lon, lat)
	}
	d.out = append(d.out, ']')
	return true, nil
}

// positions reads n positions into the scratch ring as lon/lat pairs,
// transformed.
func (d *decoder) positions(h wkbHeader, n int) ([]float64, error) {
	pts := d.ring[:0]
	for i := 0; i < n; i++ {
		x, y, err := d.point(h)
		if err != nil {
			return nil, err
		}
		lon, lat, err := d.lonLat(x, y)
		if err != nil {
			return nil, err
		}
		pts = append(pts, lon, lat)
	}
	d.ring = pts
	return pts, nil
}

// appendPositions appends pts, lon/lat pairs, as an array of positions,
// last first when reverse is set.
func (d *decoder) appendPositions(pts []float64, reverse bool) {
	n := len(pts) / 2
	d.out = append(d.out, '[')
	for i := 0; i < n; i++ {
		k := i
		if reverse {
			k = n - 1 - i
		}
		if i > 0 {
			d.out = append(d.out, ',')
		}
		d.appendPos(pts[2*k], pts[2*k+1])
	}
	d.out = append(d.out, ']')
}

// polygonCoords appends a polygon's rings, the exterior counter-clockwise
// and the holes clockwise (RFC 7946 §3.1.6), reversing rings as needed.
// Orientation is judged in lon/lat, after the transformation. An empty
// exterior makes the polygon empty; empty holes are dropped.
func (d *decoder) polygonCoords(h wkbHeader) (bool, error) {
	n, err := d.count(h.order, "rings", 4)
	if err != nil || n == 0 {
		return false, err
	}
	d.out = append(d.out, '[')
	wrote := 0
	for r := 0; r < n; r++ {
		np, err := d.count(h.order, "points", 8*h.dims)
		if err != nil {
			return false, err
		}
		if np == 0 {
			if r == 0 {
				// Skip the remaining rings' bytes by reading them: the
				// caller may be inside a collection and needs d.pos right.
				for r++; r < n; r++ {
					m, err := d.count(h.order, "points", 8*h.dims)
					if err != nil {
						return false, err
					}
					d.pos += m * 8 * h.dims
				}
				return false, nil
			}
			continue
		}
		ring, err := d.positions(h, np)
		if err != nil {
			return false, err
		}
		area := signedArea(ring)
		reverse := (r == 0 && area < 0) || (r > 0 && area > 0)
		if wrote > 0 {
			d.out = append(d.out, ',')
		}
		d.appendPositions(ring, reverse)
		wrote++
	}
	d.out = append(d.out, ']')
	return true, nil
}

// signedArea returns twice the signed area of a ring of lon/lat pairs:
// positive when counter-clockwise. Coordinates are taken relative to the
// first point so large projected values keep their precision.
func signedArea(ring []float64) float64 {
	n := len(ring) / 2
	if n < 3 {
		return 0
	}
	x0, y0 := ring[0], ring[1]
	var s float64
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		xi, yi := ring[2*i]-x0, ring[2*i+1]-y0
		xj, yj := ring[2*j]-x0, ring[2*j+1]-y0
		s += xi*yj - xj*yi
	}
	return s
}

// members appends the non-empty members of a Multi* geometry or a
// GeometryCollection as a JSON array, and reports false when every member
// is empty (the caller then drops what it appended). The count comes
// first, named what in errors and checked against minSize bytes a member.
// Each member is a full WKB geometry whose header is read here and must be
// of type want, unless want is 0 (a collection's members may be of any
// type); member appends the rest.
func (d *decoder) members(h wkbHeader, want uint32, what string, minSize int, member func(wkbHeader) (bool, error)) (bool, error) {
	n, err := d.count(h.order, what, minSize)
	if err != nil || n == 0 {
		return false, err
	}
	d.out = append(d.out, '[')
	wrote := 0
	for i := 0; i < n; i++ {
		mh, err := d.readHeader()
		if err != nil {
			return false, fmt.Errorf("member %d: %w", i+1, err)
		}
		if want != 0 && mh.typ != want {
			return false, fmt.Errorf("member %d is a %s, want a %s", i+1, typeNames[mh.typ], typeNames[want])
		}
		mark := len(d.out)
		if wrote > 0 {
			d.out = append(d.out, ',')
		}
		ok, err := member(mh)
		if err != nil {
			return false, fmt.Errorf("member %d: %w", i+1, err)
		}
		if !ok {
			d.out = d.out[:mark] // the comma too
			continue
		}
		wrote++
	}
	if wrote == 0 {
		return false, nil
	}
	d.out = append(d.out, ']')
	return true, nil
}
