package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"frameindex/grid"

	"github.com/tidwall/gjson"
)

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
	if p, ok := fastPoint(raw); ok {
		return p, nil
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
	xs := p.AppendCrossings(nil, y)
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

// fastPoint reads a plain Point geometry, {"type":"Point","coordinates":
// [lon,lat]} with numbers in range, without encoding/json: most features
// of a national import are points, and this is most of their cost. Any
// other text (or a point that is not plain) gets ok false, and the full
// path decides, with its messages.
func fastPoint(raw []byte) (grid.Point, bool) {
	// A member given twice is decided by the full path: encoding/json keeps
	// the last, gjson finds the first.
	if !gjson.ValidBytes(raw) || bytes.Count(raw, []byte(`"type"`)) != 1 || bytes.Count(raw, []byte(`"coordinates"`)) != 1 {
		return grid.Point{}, false
	}
	r := gjson.GetManyBytes(raw, "type", "coordinates")
	if r[0].Type != gjson.String || r[0].Str != "Point" || !r[1].IsArray() {
		return grid.Point{}, false
	}
	var c [3]float64
	n, ok := 0, true
	r[1].ForEach(func(_, v gjson.Result) bool {
		if v.Type != gjson.Number || n == len(c) {
			ok = false
			return false
		}
		c[n] = v.Num
		n++
		return true
	})
	if !ok || n < 2 || !(c[0] >= -180 && c[0] <= 180) || !(c[1] >= -90 && c[1] <= 90) {
		return grid.Point{}, false
	}
	return grid.Point{c[0], c[1]}, true
}
