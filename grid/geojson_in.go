package grid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"frameindex/internal/jsonscan"
)

// ParseGeometry parses a GeoJSON (RFC 7946) geometry object of type Polygon
// or MultiPolygon into a MultiPolygon; a Polygon becomes a MultiPolygon of
// one. Positions are [lon, lat] with optional further members (altitude),
// which are ignored. Members other than "type" and "coordinates" are
// ignored.
//
// Errors match ErrInvalidGeometry and say what was wrong and where:
// another or missing type, malformed JSON, a coordinate that is not a number,
// a position with fewer than 2 numbers, a non-finite or out-of-range
// coordinate (lon in [-180, 180], lat in [-90, 90]), a polygon without rings,
// an empty ring. Ring shape (closure, self-crossing) is not checked here:
// call Validate.
func ParseGeometry(raw []byte) (MultiPolygon, error) {
	var g struct {
		Type        *string         `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, geomErrorf("geometry is missing")
	}
	if raw[0] != '{' {
		return nil, geomErrorf("geometry is not a JSON object")
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, geomErrorf("geometry member %q has the wrong JSON type (%s)", te.Field, te.Value)
		}
		return nil, geomErrorf("geometry is not valid JSON: %v", err)
	}
	if g.Type == nil {
		return nil, geomErrorf("geometry has no type")
	}
	depth := 0
	switch *g.Type {
	case "Polygon":
		depth = 3
	case "MultiPolygon":
		depth = 4
	default:
		return nil, geomErrorf("geometry type %q is not Polygon or MultiPolygon", *g.Type)
	}
	if len(g.Coordinates) == 0 || bytes.Equal(g.Coordinates, []byte("null")) {
		return nil, geomErrorf("%s has no coordinates", *g.Type)
	}
	ps := coordParser{src: g.Coordinates, multi: depth == 4}
	if depth == 3 {
		p, err := ps.polygon()
		if err != nil {
			return nil, err
		}
		return MultiPolygon{p}, nil
	}
	return ps.multiPolygon()
}

// coordParser reads nested JSON arrays of numbers from src, which
// json.Unmarshal has already found to be valid JSON. It tracks where it is
// (polygon, ring, point) and names the place only when it reports an error.
type coordParser struct {
	src               []byte
	pos               int
	multi             bool // a MultiPolygon: places start with "polygon N "
	poly, ring, point int
}

// Levels of nesting, for naming places in errors.
const (
	lvlCoords = iota // the coordinates member
	lvlRings         // a polygon's array of rings
	lvlRing          // one ring
	lvlPoint         // one position
)

func (p *coordParser) what(lvl int) string {
	prefix := ""
	if p.multi {
		prefix = fmt.Sprintf("polygon %d ", p.poly)
	}
	switch lvl {
	case lvlCoords:
		return "coordinates"
	case lvlRings:
		if !p.multi {
			return "coordinates"
		}
		return prefix + "rings"
	case lvlRing:
		return fmt.Sprintf("%sring %d", prefix, p.ring)
	default:
		return fmt.Sprintf("%sring %d point %d", prefix, p.ring, p.point)
	}
}

func (p *coordParser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// jsonKind names the JSON value starting at the current position.
func (p *coordParser) jsonKind() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	if k := jsonscan.KindOf(p.src[p.pos : p.pos+1]); k != jsonscan.Invalid {
		return k.String()
	}
	return fmt.Sprintf("%q", p.src[p.pos])
}

// open consumes the '[' of an array at level lvl; empty reports that the
// array was "[]" (and consumed whole).
func (p *coordParser) open(lvl int) (empty bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.src) || p.src[p.pos] != '[' {
		return false, geomErrorf("%s is %s, want an array", p.what(lvl), p.jsonKind())
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return true, nil
	}
	return false, nil
}

// next consumes the delimiter after element i of an array at level lvl and
// reports whether another element follows.
func (p *coordParser) next(lvl, i int) (more bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return false, geomErrorf("%s is not terminated", p.what(lvl))
	}
	switch p.src[p.pos] {
	case ',':
		p.pos++
		return true, nil
	case ']':
		p.pos++
		return false, nil
	}
	return false, geomErrorf("%s has %q after element %d", p.what(lvl), p.src[p.pos], i)
}

// skipValue skips one JSON value, leaving the position on the delimiter
// after it (src is valid JSON, so brackets match).
func (p *coordParser) skipValue() {
	p.skipSpace()
	depth := 0
	inString := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case inString:
			if c == '\\' {
				p.pos++
			} else if c == '"' {
				inString = false
				if depth == 0 {
					p.pos++
					return
				}
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				p.pos++
				return
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return
		}
		p.pos++
	}
}

var axisName = [2]string{"longitude", "latitude"}

// number reads coordinate k (0 longitude, 1 latitude) of the current point.
func (p *coordParser) number(k int) (float64, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.pos++
			continue
		}
		break
	}
	if start == p.pos {
		return 0, geomErrorf("%s %s is %s, want a number", p.what(lvlPoint), axisName[k], p.jsonKind())
	}
	f, err := strconv.ParseFloat(string(p.src[start:p.pos]), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, geomErrorf("%s %s %s is not a finite number", p.what(lvlPoint), axisName[k], p.src[start:p.pos])
	}
	return f, nil
}

func (p *coordParser) position() (Point, error) {
	var pt Point
	empty, err := p.open(lvlPoint)
	if err != nil {
		return pt, err
	}
	n := 0
	for i := 0; !empty; i++ {
		if i < 2 {
			if pt[i], err = p.number(i); err != nil {
				return pt, err
			}
			n++
		} else {
			p.skipValue() // altitude and beyond: ignored
		}
		more, err := p.next(lvlPoint, i)
		if err != nil {
			return pt, err
		}
		if !more {
			break
		}
	}
	if n < 2 {
		return pt, geomErrorf("%s has %d numbers, want at least 2 (longitude, latitude)", p.what(lvlPoint), n)
	}
	if pt[0] < -180 || pt[0] > 180 {
		return pt, geomErrorf("%s longitude %s is outside -180..180", p.what(lvlPoint), fmtCoord(pt[0]))
	}
	if pt[1] < -90 || pt[1] > 90 {
		return pt, geomErrorf("%s latitude %s is outside -90..90", p.what(lvlPoint), fmtCoord(pt[1]))
	}
	return pt, nil
}

func (p *coordParser) readRing() (Ring, error) {
	empty, err := p.open(lvlRing)
	if err != nil {
		return nil, err
	}
	if empty {
		return nil, geomErrorf("%s is empty", p.what(lvlRing))
	}
	r := make(Ring, 0, 8)
	for p.point = 0; ; p.point++ {
		pt, err := p.position()
		if err != nil {
			return nil, err
		}
		r = append(r, pt)
		more, err := p.next(lvlRing, p.point)
		if err != nil {
			return nil, err
		}
		if !more {
			return slices.Clip(r), nil
		}
	}
}

func (p *coordParser) polygon() (Polygon, error) {
	empty, err := p.open(lvlRings)
	if err != nil {
		return nil, err
	}
	if empty {
		if p.multi {
			return nil, geomErrorf("polygon %d has no rings", p.poly)
		}
		return nil, geomErrorf("polygon has no rings")
	}
	var poly Polygon
	for p.ring = 0; ; p.ring++ {
		r, err := p.readRing()
		if err != nil {
			return nil, err
		}
		poly = append(poly, r)
		more, err := p.next(lvlRings, p.ring)
		if err != nil {
			return nil, err
		}
		if !more {
			return poly, nil
		}
	}
}

func (p *coordParser) multiPolygon() (MultiPolygon, error) {
	empty, err := p.open(lvlCoords)
	if err != nil {
		return nil, err
	}
	if empty {
		return nil, geomErrorf("MultiPolygon has no polygons")
	}
	var m MultiPolygon
	for p.poly = 0; ; p.poly++ {
		poly, err := p.polygon()
		if err != nil {
			return nil, err
		}
		m = append(m, poly)
		more, err := p.next(lvlCoords, p.poly)
		if err != nil {
			return nil, err
		}
		if !more {
			return m, nil
		}
	}
}

// InFeature is one feature read from GeoJSON input.
type InFeature struct {
	// ID is the feature's top-level "id" member as written (a JSON number
	// or string), or nil when absent or null.
	ID json.RawMessage
	// Properties holds the "properties" member; numbers are json.Number,
	// so no precision is lost. Nil when absent or null.
	Properties map[string]any
	// Geometry is the "geometry" member as written, or nil when absent or
	// null. ParseGeometry reads polygons from it.
	Geometry json.RawMessage
	// RawProperties is the "properties" member as written (an object), or
	// nil when absent or null. ReadRawFeatures sets it instead of
	// Properties.
	RawProperties json.RawMessage
}

// inFeatureJSON is a feature as decoded from the stream.
type inFeatureJSON struct {
	Type       *string         `json:"type"`
	ID         json.RawMessage `json:"id"`
	Properties json.RawMessage `json:"properties"`
	Geometry   json.RawMessage `json:"geometry"`
}

// geometryTypes are the RFC 7946 geometry types a bare geometry may have.
var geometryTypes = map[string]bool{
	"Point": true, "MultiPoint": true, "LineString": true, "MultiLineString": true,
	"Polygon": true, "MultiPolygon": true, "GeometryCollection": true,
}

// ReadFeatures streams GeoJSON from r and calls fn for every feature, with
// its index from 0. The input may be a FeatureCollection, a single Feature or
// a bare geometry (passed on as one feature without id or properties). The
// features of a collection are decoded one at a time with a json.Decoder, so
// memory stays proportional to the largest feature, not to the input.
//
// Errors ReadFeatures finds name the feature ("feature 12: properties is
// an array, want an object"). An error fn returns stops the walk and is
// returned unchanged, so fn should name the index it was given (as in
// fmt.Errorf("feature %d: %w", i, err)). fn has been called for the features before a failing one,
// so callers that must not keep partial input should stage what fn gets
// until ReadFeatures returns nil. Malformed JSON, a missing or wrong "type",
// a collection without "features", a feature whose properties are not an
// object, and data after the top-level value are errors.
func ReadFeatures(r io.Reader, fn func(i int, f InFeature) error) error {
	return readFeatures(r, true, fn)
}

// ReadRawFeatures is ReadFeatures without decoding properties: each
// feature's RawProperties holds the member's text (checked to be an
// object), and Properties is nil. Importers that copy or pick properties
// use it: decoding every feature's properties into a map costs more than
// the rest of reading it.
func ReadRawFeatures(r io.Reader, fn func(i int, f InFeature) error) error {
	return readFeatures(r, false, fn)
}

func readFeatures(r io.Reader, decodeProps bool, fn func(i int, f InFeature) error) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	tok, err := dec.Token()
	if err == io.EOF {
		return errors.New("no GeoJSON: the input is empty")
	}
	if err != nil {
		return fmt.Errorf("no GeoJSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("no GeoJSON: the input starts with %v, want an object", jsonscan.TokenKind(tok))
	}
	var (
		typ         string
		haveType    bool
		sawFeatures bool
		top         inFeatureJSON
		coords      json.RawMessage
		geometries  json.RawMessage
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("GeoJSON object: %w", err)
		}
		key, _ := tok.(string)
		switch key {
		case "type":
			if err := dec.Decode(&typ); err != nil {
				return fmt.Errorf("GeoJSON object: type: %w", err)
			}
			haveType = true
		case "features":
			if haveType && typ != "FeatureCollection" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return fmt.Errorf("GeoJSON object: features: %w", err)
				}
				continue
			}
			if sawFeatures {
				return errors.New(`GeoJSON object has two "features" members`)
			}
			sawFeatures = true
			if err := readFeatureArray(dec, decodeProps, fn); err != nil {
				return err
			}
		case "id", "properties", "geometry", "coordinates", "geometries":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return fmt.Errorf("GeoJSON object: %s: %w", key, err)
			}
			switch key {
			case "id":
				top.ID = raw
			case "properties":
				top.Properties = raw
			case "geometry":
				top.Geometry = raw
			case "coordinates":
				coords = raw
			case "geometries":
				geometries = raw
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fmt.Errorf("GeoJSON object: %s: %w", key, err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return fmt.Errorf("GeoJSON object: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return fmt.Errorf("after the GeoJSON object: %w", err)
		}
		return errors.New("unexpected data after the GeoJSON object")
	}
	switch {
	case !haveType:
		return errors.New(`GeoJSON object has no "type"`)
	case typ == "FeatureCollection":
		if !sawFeatures {
			return errors.New(`FeatureCollection has no "features" member`)
		}
		return nil
	case sawFeatures:
		return fmt.Errorf(`GeoJSON object of type %q has a "features" member; only a FeatureCollection may`, typ)
	case typ == "Feature":
		top.Type = &typ
		f, err := toInFeature(top, decodeProps)
		if err != nil {
			return fmt.Errorf("feature 0: %w", err)
		}
		return fn(0, f)
	case geometryTypes[typ]:
		g := struct {
			Type        string          `json:"type"`
			Coordinates json.RawMessage `json:"coordinates,omitempty"`
			Geometries  json.RawMessage `json:"geometries,omitempty"`
		}{typ, coords, geometries}
		raw, err := json.Marshal(g)
		if err != nil {
			return fmt.Errorf("feature 0: %w", err)
		}
		return fn(0, InFeature{Geometry: raw})
	default:
		return fmt.Errorf("GeoJSON type %q is not FeatureCollection, Feature or a geometry", typ)
	}
}

// readFeatureArray streams the array value of "features".
func readFeatureArray(dec *json.Decoder, decodeProps bool, fn func(int, InFeature) error) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("features: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("features is %v, want an array", jsonscan.TokenKind(tok))
	}
	i := 0
	for ; dec.More(); i++ {
		var fj inFeatureJSON
		if err := dec.Decode(&fj); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				if te.Field == "" {
					return fmt.Errorf("feature %d: is %s, want an object", i, jsonValueName(te.Value))
				}
				return fmt.Errorf("feature %d: %s is %s, want a string", i, te.Field, jsonValueName(te.Value))
			}
			return fmt.Errorf("feature %d: %w", i, err)
		}
		f, err := toInFeature(fj, decodeProps)
		if err != nil {
			return fmt.Errorf("feature %d: %w", i, err)
		}
		if err := fn(i, f); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return fmt.Errorf("features: %w", err)
	}
	return nil
}

// ToInFeature checks a decoded feature's members (type "Feature",
// properties an object or null) and returns it, with its properties
// decoded when decodeProps is set and kept as text otherwise.
func ToInFeature(typ *string, id, geometry, properties json.RawMessage, decodeProps bool) (InFeature, error) {
	return toInFeature(inFeatureJSON{Type: typ, ID: id, Geometry: geometry, Properties: properties}, decodeProps)
}

func toInFeature(fj inFeatureJSON, decodeProps bool) (InFeature, error) {
	if fj.Type == nil {
		return InFeature{}, errors.New(`has no "type"`)
	}
	if *fj.Type != "Feature" {
		return InFeature{}, fmt.Errorf("type is %q, want \"Feature\"", *fj.Type)
	}
	f := InFeature{ID: nullToNil(fj.ID), Geometry: nullToNil(fj.Geometry)}
	if props := nullToNil(fj.Properties); props != nil {
		if props[0] != '{' {
			return InFeature{}, fmt.Errorf("properties is %s, want an object", jsonscan.KindOf(props))
		}
		if !decodeProps {
			f.RawProperties = props
			return f, nil
		}
		dec := json.NewDecoder(bytes.NewReader(props))
		dec.UseNumber()
		if err := dec.Decode(&f.Properties); err != nil {
			return InFeature{}, fmt.Errorf("properties: %w", err)
		}
	}
	return f, nil
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	return raw
}

// unmarshalKinds are the kinds of the type names of a
// json.UnmarshalTypeError's Value.
var unmarshalKinds = map[string]jsonscan.Kind{"array": jsonscan.Array, "object": jsonscan.Object,
	"bool": jsonscan.Bool, "string": jsonscan.String, "number": jsonscan.Number}

// jsonValueName words a type name of a json.UnmarshalTypeError's Value
// as messages do ("an array"); other values as they are.
func jsonValueName(v string) string {
	if k, ok := unmarshalKinds[v]; ok {
		return k.String()
	}
	return v
}

// ErrNoID is returned by ParseFrameID when a feature carries no id.
var ErrNoID = errors.New("id missing")

// IDError reports a frame id that is present but not a valid id.
type IDError struct {
	Value  string // the id as written, JSON strings unquoted
	Reason string // e.g. "is not a number"
}

func (e *IDError) Error() string { return fmt.Sprintf("id %q %s", e.Value, e.Reason) }

// ParseFrameID returns the numeric id of an imported frame: the feature's
// top-level id (raw, a JSON number or a string of decimal digits) or, when
// that is absent or null, the property "id" and then "frame_id". An id is 1
// to 20 ASCII digits whose value fits in a uint64 (leading zeros allowed);
// signs, fractions, exponents and spaces are refused. A present but invalid
// id is an error (*IDError), never skipped in favour of a property; no id
// at all gives ErrNoID. Property values may be json.Number, string, or Go
// integers and integral float64 values (for maps not built by ReadFeatures).
func ParseFrameID(raw json.RawMessage, props map[string]any) (uint64, error) {
	if raw = nullToNil(raw); raw != nil {
		switch raw[0] {
		case '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return 0, &IDError{Value: string(raw), Reason: "is not a valid JSON string"}
			}
			return parseDigits(s)
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return parseDigits(string(raw))
		default:
			return 0, &IDError{Value: string(raw), Reason: "is not a number"}
		}
	}
	for _, key := range [2]string{"id", "frame_id"} {
		v, ok := props[key]
		if !ok || v == nil {
			continue
		}
		switch v := v.(type) {
		case json.Number:
			return parseDigits(string(v))
		case string:
			return parseDigits(v)
		case float64:
			if v >= 0 && v <= 1<<53 && v == math.Trunc(v) {
				return uint64(v), nil
			}
			return 0, &IDError{Value: strconv.FormatFloat(v, 'g', -1, 64), Reason: "is not a whole number in 0..2^53"}
		case int:
			if v >= 0 {
				return uint64(v), nil
			}
			return 0, &IDError{Value: strconv.Itoa(v), Reason: "is negative"}
		case int64:
			if v >= 0 {
				return uint64(v), nil
			}
			return 0, &IDError{Value: strconv.FormatInt(v, 10), Reason: "is negative"}
		case uint64:
			return v, nil
		default:
			return 0, &IDError{Value: fmt.Sprint(v), Reason: "is not a number"}
		}
	}
	return 0, ErrNoID
}

// parseDigits parses 1-20 ASCII digits into a uint64.
func parseDigits(s string) (uint64, error) {
	show := s
	if len(show) > 40 {
		show = show[:40] + "..."
	}
	if s == "" {
		return 0, &IDError{Value: s, Reason: "is empty"}
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, &IDError{Value: show, Reason: "is not a number (want 1-20 decimal digits)"}
		}
	}
	if len(s) > 20 {
		return 0, &IDError{Value: show, Reason: "has more than 20 digits"}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, &IDError{Value: show, Reason: "is too large (largest 18446744073709551615)"}
	}
	return v, nil
}
