package area

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"frameindex/grid"
)

// Error codes an area can be refused with; the API's codes (spec,
// Errors).
const (
	CodeInvalid     = "invalid"
	CodeInvalidBody = "invalid_body"
	CodeNotFound    = "not_found"
)

// Error is an area the API refuses: Code is one of the codes above and
// Message says what to change.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// Spec is an area as a question's body gives it: exactly one of a place
// (optionally with its kind), a box, a GeoJSON geometry, a ring, or the
// place the question names.
type Spec struct {
	Place      string          `json:"place,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	BBox       []float64       `json:"bbox,omitempty"`
	Geometry   json.RawMessage `json:"geometry,omitempty"`
	Around     []float64       `json:"around,omitempty"`
	RadiusKm   float64         `json:"radiusKm,omitempty"`
	InQuestion bool            `json:"inQuestion,omitempty"`
	// Frames is a selection of frames by id (the question call's
	// frameIds), for reports; never read from an area object.
	Frames []uint64 `json:"-"`

	geom grid.MultiPolygon // parsed Geometry
}

// Example is the smallest area, for messages.
const Example = `{"place":"Dala","kind":"lga"}`

// specMembers are the members of an area object.
var specMembers = []string{"place", "kind", "bbox", "geometry", "around", "radiusKm", "inQuestion"}

// Decode reads and checks an area object (raw is one JSON value, as a
// strict decoder of the whole body returns it). A value that is not an
// object, an unknown or repeated member, a member of the wrong type, and
// anything but exactly one way of naming the area are CodeInvalid;
// malformed JSON is CodeInvalidBody.
func Decode(raw []byte) (Spec, error) {
	var s Spec
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		return s, &Error{Code: CodeInvalidBody, Message: "the value of area is not valid JSON"}
	}
	if len(raw) == 0 || raw[0] != '{' {
		return s, invalid("area must be an object such as %s; see the kinds of area in the API documentation", Example)
	}
	// Members: known, once each, each of its type.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return s, &Error{Code: CodeInvalidBody, Message: "the value of area is not valid JSON: " + err.Error()}
	}
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token()
	for dec.More() {
		tok, _ := dec.Token()
		name, _ := tok.(string)
		if !slices.Contains(specMembers, name) {
			return s, invalid("area has an unknown member %q; its members are %s (one way of naming the area)", name, strings.Join(specMembers, ", "))
		}
		if seen[name] {
			return s, invalid("area has the member %s twice; give it once", name)
		}
		seen[name] = true
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	str := func(name string, dst *string) error {
		v, ok := members[name]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil || v[0] != '"' {
			return invalid("area.%s must be a string", name)
		}
		return nil
	}
	nums := func(name string, n int, dst *[]float64, what string) error {
		v, ok := members[name]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil || v[0] != '[' || len(*dst) != n {
			return invalid("area.%s must be an array of %d numbers: %s", name, n, what)
		}
		return nil
	}
	if err := str("place", &s.Place); err != nil {
		return s, err
	}
	if err := str("kind", &s.Kind); err != nil {
		return s, err
	}
	if err := nums("bbox", 4, &s.BBox, "[minLon, minLat, maxLon, maxLat] in degrees"); err != nil {
		return s, err
	}
	if err := nums("around", 2, &s.Around, "[lon, lat] in degrees"); err != nil {
		return s, err
	}
	if v, ok := members["radiusKm"]; ok {
		if err := json.Unmarshal(v, &s.RadiusKm); err != nil || v[0] == 'n' {
			return s, invalid("area.radiusKm must be a number of km, more than 0 and at most %d", MaxRadiusKm)
		}
	}
	if v, ok := members["inQuestion"]; ok {
		if err := json.Unmarshal(v, &s.InQuestion); err != nil || v[0] == 'n' {
			return s, invalid("area.inQuestion must be true (the place the question names) or left out")
		}
		if !s.InQuestion {
			return s, invalid(`area.inQuestion may only be true; to ask about the place the question names send {"inQuestion":true}`)
		}
	}
	if v, ok := members["geometry"]; ok {
		s.Geometry = v
	}
	return s, s.check(seen)
}

// check applies the rules between members and the values' ranges.
func (s *Spec) check(seen map[string]bool) error {
	var ways []string
	for _, m := range []string{"place", "bbox", "geometry", "around", "inQuestion"} {
		if seen[m] {
			ways = append(ways, m)
		}
	}
	if seen["kind"] && !seen["place"] && !seen["inQuestion"] {
		return invalid("area.kind goes with place (or inQuestion): it says which kind of place is meant")
	}
	switch {
	case len(ways) == 0:
		return invalid("area names no area: give one of place (with kind, optionally), bbox, geometry, around with radiusKm, or inQuestion, e.g. %s", Example)
	case len(ways) > 1:
		return invalid("area gives %s: give exactly one way of naming the area", strings.Join(ways, " and "))
	}
	if seen["radiusKm"] != seen["around"] {
		return invalid(`area.around and area.radiusKm go together: {"around":[lon, lat],"radiusKm":5}`)
	}
	switch ways[0] {
	case "place":
		if strings.TrimSpace(s.Place) == "" {
			return invalid("area.place is empty: name a state, an LGA or a ward, e.g. %s", Example)
		}
		if len(s.Place) > 200 {
			return invalid("area.place is over 200 bytes; name one place")
		}
	case "bbox":
		b := s.BBox
		for _, v := range b {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return invalid("area.bbox must hold finite numbers")
			}
		}
		if b[0] < -180 || b[2] > 180 || b[1] < -90 || b[3] > 90 || b[0] > b[2] || b[1] > b[3] {
			return invalid("area.bbox must be [minLon, minLat, maxLon, maxLat] with minLon <= maxLon, minLat <= maxLat, lon in [-180, 180] and lat in [-90, 90]; it is %v", b)
		}
		if b[0] == b[2] || b[1] == b[3] {
			return invalid("area.bbox %v has no area: its edges must differ", b)
		}
	case "geometry":
		m, err := grid.ParseGeometry(s.Geometry)
		if err == nil {
			err = m.Validate()
		}
		if err != nil {
			msg := err.Error()
			if errors.Is(err, grid.ErrInvalidGeometry) {
				msg = strings.TrimPrefix(msg, "grid: ")
			}
			return invalid("area.geometry must be a valid GeoJSON Polygon or MultiPolygon in WGS 84 [lon, lat] (holes allowed): %s", msg)
		}
		s.geom = m
	case "around":
		lon, lat := s.Around[0], s.Around[1]
		if !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90) {
			return invalid("area.around must be [lon, lat] with lon in [-180, 180] and lat in [-90, 90]; it is %v", s.Around)
		}
		if !(s.RadiusKm > 0 && s.RadiusKm <= MaxRadiusKm) {
			return invalid("area.radiusKm must be more than 0 and at most %d km; it is %v", MaxRadiusKm, s.RadiusKm)
		}
		if math.Abs(lat)+s.RadiusKm/111 >= 89 {
			return invalid("area.around is too near a pole for a ring of %v km", s.RadiusKm)
		}
	}
	return nil
}
