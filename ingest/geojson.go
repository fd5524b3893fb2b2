package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"frameindex/bolt"
	"frameindex/grid"
)

// readFeatures reads one features input: each feature is stored, compact,
// on the frame holding its representative point.
func (im *importer) readFeatures(ctx context.Context, r io.Reader, path string, input int, skip bool) error {
	im.register(path, input, inputFeatures)
	n := 0
	err := grid.ReadFeatures(r, func(i int, f grid.InFeature) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n++
		pt, err := RepresentativePoint(f.Geometry)
		if err != nil {
			return fmt.Errorf("%w: %s feature %d: %v", bolt.ErrInvalid, path, i, err)
		}
		sh, ok := im.ix.At(pt[1], pt[0])
		if !ok {
			if skip {
				im.skipped++
				return nil
			}
			return fmt.Errorf("%w: %s feature %d: its point (lon %v, lat %v) is on no frame of the grid (\"outside\": \"skip\" skips such features)",
				bolt.ErrInvalid, path, i, pt[0], pt[1])
		}
		start := len(im.fbytes)
		im.fbytes, err = appendFeature(im.fbytes, f)
		if err != nil {
			im.fbytes = im.fbytes[:start]
			return fmt.Errorf("%w: %s feature %d: %v", bolt.ErrInvalid, path, i, err)
		}
		if len(im.fbytes)-start > maxArena {
			return fmt.Errorf("%w: %s feature %d: larger than 4 GiB", bolt.ErrInvalid, path, i)
		}
		im.feats = append(im.feats, featEntry{frame: sh.ID, off: uint64(start), n: uint32(len(im.fbytes) - start)})
		return nil
	})
	if err != nil {
		if errors.Is(err, bolt.ErrInvalid) || ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w: %s: %v", bolt.ErrInvalid, path, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s: no features", bolt.ErrInvalid, path)
	}
	return nil
}

// appendFeature appends f as one compact GeoJSON Feature:
// {"type":"Feature","id":…,"geometry":…,"properties":…}. The id and the
// geometry are the input's JSON compacted; the properties are the input's
// members with their values unchanged (numbers keep their text; members
// come in name order, and HTML characters are not escaped).
func appendFeature(dst []byte, f grid.InFeature) ([]byte, error) {
	dst = append(dst, `{"type":"Feature"`...)
	if f.ID != nil {
		dst = append(dst, `,"id":`...)
		var err error
		if dst, err = appendCompact(dst, f.ID); err != nil {
			return dst, fmt.Errorf("id: %v", err)
		}
	}
	dst = append(dst, `,"geometry":`...)
	var err error
	if dst, err = appendCompact(dst, f.Geometry); err != nil {
		return dst, fmt.Errorf("geometry: %v", err)
	}
	dst = append(dst, `,"properties":`...)
	if f.Properties == nil {
		dst = append(dst, "null"...)
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(f.Properties); err != nil {
			return dst, fmt.Errorf("properties: %v", err)
		}
		dst = append(dst, bytes.TrimRight(buf.Bytes(), "\n")...)
	}
	return append(dst, '}'), nil
}

func appendCompact(dst []byte, raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}

// RepresentativePoint returns the point ([lon, lat]) a GeoJSON geometry is
// located by: a Point itself; a MultiPoint its first point; a LineString,
// or a MultiLineString's first line, the point halfway along it (lengths
// measured in degrees, as drawn on a plate carrée map); a Polygon, or a
// MultiPolygon's first polygon, the centroid of its outer ring when the
// polygon contains it (holes respected), else the midpoint of the first
// inside stretch of the horizontal line through the outer ring's vertical
// middle. Polygons must pass grid.MultiPolygon.Validate. Errors describe a
// missing, unsupported (GeometryCollection) or broken geometry.
func RepresentativePoint(raw json.RawMessage) (grid.Point, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return grid.Point{}, errors.New("has no geometry")
	}
	var g struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return grid.Point{}, fmt.Errorf("geometry: %v", err)
	}
	bad := func(format string, args ...any) (grid.Point, error) {
		return grid.Point{}, fmt.Errorf("%s: %s", g.Type, fmt.Sprintf(format, args...))
	}
	switch g.Type {
	case "Point":
		var c []float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not a position [lon, lat]")
		}
		return position(c, "Point")
	case "MultiPoint":
		var c [][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not an array of positions")
		}
		if len(c) == 0 {
			return bad("has no points")
		}
		return position(c[0], "MultiPoint point 0")
	case "LineString":
		var c [][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not an array of positions")
		}
		return halfway(c, "LineString")
	case "MultiLineString":
		var c [][][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not an array of lines")
		}
		if len(c) == 0 {
			return bad("has no lines")
		}
		return halfway(c[0], "MultiLineString line 0")
	case "Polygon", "MultiPolygon":
		m, err := grid.ParseGeometry(raw)
		if err != nil {
			return grid.Point{}, err
		}
		if err := m.Validate(); err != nil {
			return grid.Point{}, err
		}
		return polygonPoint(m[0]), nil
	case "":
		return grid.Point{}, errors.New("geometry has no type")
	}
	return bad("geometry type %q is not supported (Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon)", g.Type)
}

func position(c []float64, what string) (grid.Point, error) {
	if len(c) < 2 {
		return grid.Point{}, fmt.Errorf("%s has %d numbers, want at least 2 (lon, lat)", what, len(c))
	}
	if !(c[0] >= -180 && c[0] <= 180) {
		return grid.Point{}, fmt.Errorf("%s longitude %v is outside -180..180", what, c[0])
	}
	if !(c[1] >= -90 && c[1] <= 90) {
		return grid.Point{}, fmt.Errorf("%s latitude %v is outside -90..90", what, c[1])
	}
	return grid.Point{c[0], c[1]}, nil
}

// halfway returns the point halfway along a line of at least 2 positions.
func halfway(c [][]float64, what string) (grid.Point, error) {
	if len(c) < 2 {
		return grid.Point{}, fmt.Errorf("%s has %d positions, want at least 2", what, len(c))
	}
	pts := make([]grid.Point, len(c))
	total := 0.0
	for i, p := range c {
		pt, err := position(p, fmt.Sprintf("%s point %d", what, i))
		if err != nil {
			return grid.Point{}, err
		}
		pts[i] = pt
		if i > 0 {
			total += math.Hypot(pt[0]-pts[i-1][0], pt[1]-pts[i-1][1])
		}
	}
	half := total / 2
	for i := 1; i < len(pts); i++ {
		seg := math.Hypot(pts[i][0]-pts[i-1][0], pts[i][1]-pts[i-1][1])
		if seg > 0 && half <= seg {
			t := half / seg
			return grid.Point{pts[i-1][0] + t*(pts[i][0]-pts[i-1][0]), pts[i-1][1] + t*(pts[i][1]-pts[i-1][1])}, nil
		}
		half -= seg
	}
	return pts[len(pts)-1], nil // zero length, or rounding at the very end
}

// polygonPoint returns a point of a valid polygon: its outer ring's
// centroid when inside, else a point on its surface.
func polygonPoint(p grid.Polygon) grid.Point {
	outer := p[0]
	if c, ok := ringCentroid(outer); ok && p.ContainsPoint(c[0], c[1]) {
		return c
	}
	minLat, maxLat := outer[0][1], outer[0][1]
	for _, q := range outer {
		minLat, maxLat = min(minLat, q[1]), max(maxLat, q[1])
	}
	y := (minLat + maxLat) / 2
	xs := appendCrossings(nil, p, y)
	slices.Sort(xs)
	if len(xs) >= 2 {
		return grid.Point{(xs[0] + xs[1]) / 2, y}
	}
	return outer[0]
}

// ringCentroid returns the area centroid of a ring; ok is false for a ring
// without area. Coordinates are taken relative to the first point, to keep
// rounding small.
func ringCentroid(r grid.Ring) (grid.Point, bool) {
	if len(r) < 3 {
		return grid.Point{}, false
	}
	o := r[0]
	var a, cx, cy float64
	for i := 0; i < len(r); i++ {
		p, q := r[i], r[(i+1)%len(r)]
		x0, y0, x1, y1 := p[0]-o[0], p[1]-o[1], q[0]-o[0], q[1]-o[1]
		cross := x0*y1 - x1*y0
		a += cross
		cx += (x0 + x1) * cross
		cy += (y0 + y1) * cross
	}
	if a == 0 || math.IsNaN(a) || math.IsInf(a, 0) {
		return grid.Point{}, false
	}
	return grid.Point{o[0] + cx/(3*a), o[1] + cy/(3*a)}, true
}
