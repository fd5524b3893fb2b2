package grid

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParseGeometry(t *testing.T) {
	sq := Ring{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}
	tests := []struct {
		name string
		in   string
		want MultiPolygon
		err  string // exact message when want is nil
	}{
		{"polygon", `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}`, MultiPolygon{{sq}}, ""},
		{"members in any order, extras ignored", ` {"bbox":[0,0,1,1],"coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]],"type":"Polygon","foo":{"a":[1]}} `, MultiPolygon{{sq}}, ""},
		{"altitude ignored", `{"type":"Polygon","coordinates":[[[0,0,5],[1,0,5.5],[1,1,-3e2],[0,1,0],[0,0,1]]]}`, MultiPolygon{{sq}}, ""},
		{"whitespace and exponents", "{\"type\":\"Polygon\",\"coordinates\":[ [ [ 0 , 0 ] ,\n[1e0,0],[ 1, 1.0 ],[0,10E-1],[0,0] ] ]}", MultiPolygon{{sq}}, ""},
		{"multipolygon", `{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],[[[0,0],[1,0],[1,1],[0,1],[0,0]],[[0,0],[1,0],[1,1],[0,1],[0,0]]]]}`,
			MultiPolygon{{sq}, {sq, sq}}, ""},
		{"negative and decimal", `{"type":"Polygon","coordinates":[[[-180,-90],[180,-90],[7.1,90],[-180,-90]]]}`,
			MultiPolygon{{{{-180, -90}, {180, -90}, {7.1, 90}, {-180, -90}}}}, ""},

		{"empty input", ``, nil, "geometry is missing"},
		{"null", `null`, nil, "geometry is missing"},
		{"not an object", `[1,2]`, nil, "geometry is not a JSON object"},
		{"malformed", `{"type":"Polygon",`, nil, "geometry is not valid JSON: unexpected end of JSON input"},
		{"no type", `{"coordinates":[]}`, nil, "geometry has no type"},
		{"type not a string", `{"type":5}`, nil, `geometry member "type" has the wrong JSON type (number)`},
		{"point", `{"type":"Point","coordinates":[1,2]}`, nil, `geometry type "Point" is not Polygon or MultiPolygon`},
		{"collection", `{"type":"GeometryCollection","geometries":[]}`, nil, `geometry type "GeometryCollection" is not Polygon or MultiPolygon`},
		{"no coordinates", `{"type":"Polygon"}`, nil, "Polygon has no coordinates"},
		{"null coordinates", `{"type":"Polygon","coordinates":null}`, nil, "Polygon has no coordinates"},
		{"coordinates not an array", `{"type":"Polygon","coordinates":{}}`, nil, "coordinates is an object, want an array"},
		{"no rings", `{"type":"Polygon","coordinates":[]}`, nil, "polygon has no rings"},
		{"empty ring", `{"type":"Polygon","coordinates":[[]]}`, nil, "ring 0 is empty"},
		{"ring not an array", `{"type":"Polygon","coordinates":[5]}`, nil, "ring 0 is a number, want an array"},
		{"string coordinate", `{"type":"Polygon","coordinates":[[[0,0],["1",0]]]}`, nil, "ring 0 point 1 longitude is a string, want a number"},
		{"null coordinate", `{"type":"Polygon","coordinates":[[[0,0],[1,null]]]}`, nil, "ring 0 point 1 latitude is null, want a number"},
		{"short position", `{"type":"Polygon","coordinates":[[[0,0],[1]]]}`, nil, "ring 0 point 1 has 1 numbers, want at least 2 (longitude, latitude)"},
		{"empty position", `{"type":"Polygon","coordinates":[[[]]]}`, nil, "ring 0 point 0 has 0 numbers, want at least 2 (longitude, latitude)"},
		{"overflowing number", `{"type":"Polygon","coordinates":[[[0,1e999]]]}`, nil, "ring 0 point 0 latitude 1e999 is not a finite number"},
		{"lon out of range", `{"type":"Polygon","coordinates":[[[180.5,0]]]}`, nil, "ring 0 point 0 longitude 180.5 is outside -180..180"},
		{"lat out of range", `{"type":"Polygon","coordinates":[[[0,-91]]]}`, nil, "ring 0 point 0 latitude -91 is outside -90..90"},
		{"multi: empty polygons", `{"type":"MultiPolygon","coordinates":[]}`, nil, "MultiPolygon has no polygons"},
		{"multi: polygon without rings", `{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[]]}`, nil, "polygon 1 has no rings"},
		{"multi: bad point", `{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[0,0]],[[0,true]]]]}`, nil, "polygon 1 ring 1 point 0 latitude is a boolean, want a number"},
		{"multi: too shallow", `{"type":"MultiPolygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`, nil, "polygon 0 ring 0 point 0 is a number, want an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseGeometry([]byte(tc.in))
			if tc.want != nil {
				if err != nil {
					t.Fatalf("ParseGeometry: %v", err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("ParseGeometry = %v, want %v", got, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseGeometry = %v, want error %q", got, tc.err)
			}
			if err.Error() != tc.err {
				t.Fatalf("ParseGeometry error %q, want %q", err, tc.err)
			}
			if !errors.Is(err, ErrInvalidGeometry) {
				t.Fatalf("error %v does not match ErrInvalidGeometry", err)
			}
		})
	}
}

// FuzzParseGeometry: ParseGeometry never panics, and what it accepts is a
// non-empty MultiPolygon of non-empty rings of in-range coordinates.
func FuzzParseGeometry(f *testing.F) {
	f.Add(`{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`)                    // valid polygon
	f.Add(`{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[2,2,9]]]]}`) // valid, altitude
	f.Add(`{"type":"Polygon","coordinates":[[[0,"x"]]]}`)                                    // string coordinate
	f.Add(`{"type":"Polygon","coordinates":[[[0,1e999]]]}`)                                  // overflow
	f.Add(`{"type":"Polygon","coordinates":[[[0,[1]]]]}`)                                    // array as number
	f.Add(`{"type":"Polygon","coordinates":[[[0,0,{"a":"]"}]]]}`)                            // object with bracket as altitude
	f.Add(`{"type":"Point","coordinates":[0,0]}`)                                            // wrong type
	f.Add(`{"type":"Polygon","coordinates":[[[-0.0,-1E+1]]]}`)                               // signs and exponents
	f.Add(`{"type":"Polygon"`)                                                               // truncated
	f.Add(`{"type":"Polygon","coordinates":[[[0,0,"\"]"]]]}`)                                // escaped quote in a skipped value
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseGeometry([]byte(in))
		if err != nil {
			if m != nil {
				t.Fatalf("error %v with a result", err)
			}
			if !errors.Is(err, ErrInvalidGeometry) {
				t.Fatalf("error %v does not match ErrInvalidGeometry", err)
			}
			return
		}
		if len(m) == 0 {
			t.Fatalf("accepted an empty MultiPolygon from %q", in)
		}
		for _, p := range m {
			if len(p) == 0 {
				t.Fatalf("accepted a polygon without rings from %q", in)
			}
			for _, r := range p {
				if len(r) == 0 {
					t.Fatalf("accepted an empty ring from %q", in)
				}
				for _, pt := range r {
					if !(pt[0] >= -180 && pt[0] <= 180 && pt[1] >= -90 && pt[1] <= 90) {
						t.Fatalf("accepted point %v from %q", pt, in)
					}
				}
			}
		}
		// Never panics on what it accepted either.
		_ = m.Validate()
		Rasterize(m)
	})
}

// collect runs ReadFeatures and returns the features it delivered.
func collect(in string) ([]InFeature, error) {
	var got []InFeature
	err := ReadFeatures(strings.NewReader(in), func(i int, f InFeature) error {
		if i != len(got) {
			return fmt.Errorf("index %d, want %d", i, len(got))
		}
		got = append(got, f)
		return nil
	})
	return got, err
}

func TestReadFeatures(t *testing.T) {
	poly := `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`
	tests := []struct {
		name string
		in   string
		want []InFeature
		err  string
	}{
		{"collection", `{"type":"FeatureCollection","features":[
			{"type":"Feature","id":7,"properties":{"a":1.50,"b":"x","c":null,"d":[1]},"geometry":` + poly + `},
			{"type":"Feature","id":"8","properties":null,"geometry":null},
			{"geometry":` + poly + `,"type":"Feature"}]}`,
			[]InFeature{
				{ID: json.RawMessage(`7`), Properties: map[string]any{"a": json.Number("1.50"), "b": "x", "c": nil, "d": []any{json.Number("1")}}, Geometry: json.RawMessage(poly)},
				{ID: json.RawMessage(`"8"`)},
				{Geometry: json.RawMessage(poly)},
			}, ""},
		{"type after features, foreign members", `{"name":"x","features":[{"type":"Feature","id":null,"geometry":` + poly + `}],"crs":{"a":[1,2]},"type":"FeatureCollection"}`,
			[]InFeature{{Geometry: json.RawMessage(poly)}}, ""},
		{"empty collection", `{"type":"FeatureCollection","features":[]}`, nil, ""},
		{"single feature", `{"type":"Feature","id":"12","properties":{"frame_id":3},"geometry":` + poly + `}`,
			[]InFeature{{ID: json.RawMessage(`"12"`), Properties: map[string]any{"frame_id": json.Number("3")}, Geometry: json.RawMessage(poly)}}, ""},
		{"bare geometry", poly, []InFeature{{Geometry: json.RawMessage(poly)}}, ""},
		{"bare geometry, coordinates first", `{"coordinates":[[[0,0],[1,0],[1,1],[0,0]]],"type":"Polygon"}`, []InFeature{{Geometry: json.RawMessage(poly)}}, ""},

		{"empty input", ``, nil, "no GeoJSON: the input is empty"},
		{"not JSON", `hello`, nil, "no GeoJSON: invalid character 'h' looking for beginning of value"},
		{"array", `[1]`, nil, `no GeoJSON: the input starts with an array, want an object`},
		{"no type", `{"features":[]}`, nil, `GeoJSON object has no "type"`},
		{"unknown type", `{"type":"Topology"}`, nil, `GeoJSON type "Topology" is not FeatureCollection, Feature or a geometry`},
		{"collection without features", `{"type":"FeatureCollection"}`, nil, `FeatureCollection has no "features" member`},
		{"features not an array", `{"type":"FeatureCollection","features":{}}`, nil, `features is an object, want an array`},
		{"features null", `{"type":"FeatureCollection","features":null}`, nil, `features is null, want an array`},
		{"feature not an object", `{"type":"FeatureCollection","features":[{"type":"Feature"},5]}`, nil, "feature 1: is a number, want an object"},
		{"feature without type", `{"type":"FeatureCollection","features":[{"type":"Feature"},{"geometry":null}]}`, nil, `feature 1: has no "type"`},
		{"feature of another type", `{"type":"FeatureCollection","features":[` + poly + `]}`, nil, `feature 0: type is "Polygon", want "Feature"`},
		{"feature type not a string", `{"type":"FeatureCollection","features":[{"type":1}]}`, nil, `feature 0: type is a number, want a string`},
		{"properties not an object", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":[1]}]}`, nil, "feature 0: properties is an array, want an object"},
		{"truncated in a feature", `{"type":"FeatureCollection","features":[{"type":"Feature"},{"type":"Fea`, nil, "feature 1: unexpected EOF"},
		{"malformed feature", `{"type":"FeatureCollection","features":[{"type":"Feature"},{"type" "Feature"}]}`, nil, "feature 1: invalid character '\"' after object key"},
		{"trailing data", `{"type":"FeatureCollection","features":[]} {}`, nil, "unexpected data after the GeoJSON object"},
		{"two features members", `{"type":"FeatureCollection","features":[],"features":[]}`, nil, `GeoJSON object has two "features" members`},
		{"features in a Feature", `{"features":[],"type":"Feature"}`, nil, `GeoJSON object of type "Feature" has a "features" member; only a FeatureCollection may`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collect(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("ReadFeatures error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadFeatures: %v", err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d features, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if string(g.ID) != string(w.ID) || !reflect.DeepEqual(g.Properties, w.Properties) {
					t.Fatalf("feature %d = %s %#v, want %s %#v", i, g.ID, g.Properties, w.ID, w.Properties)
				}
				if !jsonEqual(t, g.Geometry, w.Geometry) {
					t.Fatalf("feature %d geometry %s, want %s", i, g.Geometry, w.Geometry)
				}
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestReadFeaturesCallbackError(t *testing.T) {
	in := `{"type":"FeatureCollection","features":[{"type":"Feature","id":1},{"type":"Feature","id":"x"},{"type":"Feature","id":3}]}`
	var seen []uint64
	err := ReadFeatures(strings.NewReader(in), func(i int, f InFeature) error {
		id, err := ParseFrameID(f.ID, f.Properties)
		if err != nil {
			return fmt.Errorf("feature %d: %w", i, err)
		}
		seen = append(seen, id)
		return nil
	})
	// fn's error comes back unchanged: one "feature 1:" prefix, fn's own.
	if err == nil || err.Error() != `feature 1: id "x" is not a number (want 1-20 decimal digits)` {
		t.Fatalf("error %v", err)
	}
	var idErr *IDError
	if !errors.As(err, &idErr) || idErr.Value != "x" {
		t.Fatalf("error %v does not wrap the IDError", err)
	}
	if len(seen) != 1 || seen[0] != 1 {
		t.Fatalf("fn saw %v, want [1] before the failure", seen)
	}
}

// endlessCollection streams a FeatureCollection of n features without ever
// holding it whole: it proves ReadFeatures streams.
type endlessCollection struct {
	n, i int
	buf  []byte
	done bool
}

func (e *endlessCollection) Read(p []byte) (int, error) {
	for len(e.buf) == 0 {
		switch {
		case e.done:
			return 0, io.EOF
		case e.i == 0:
			e.buf = []byte(`{"type":"FeatureCollection","features":[`)
		case e.i > e.n:
			e.buf, e.done = []byte(`]}`), true
		default:
			sep := ","
			if e.i == 1 {
				sep = ""
			}
			e.buf = fmt.Appendf(nil, `%s{"type":"Feature","id":%d,"properties":{"n":%d},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}`, sep, e.i, e.i)
		}
		e.i++
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

func TestReadFeaturesStreams(t *testing.T) {
	const n = 100000 // about 13 MB of GeoJSON
	count := 0
	err := ReadFeatures(&endlessCollection{n: n}, func(i int, f InFeature) error {
		id, err := ParseFrameID(f.ID, f.Properties)
		if err != nil {
			return err
		}
		if id != uint64(i+1) {
			return fmt.Errorf("id %d at index %d", id, i)
		}
		count++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count != n {
		t.Fatalf("read %d features, want %d", count, n)
	}
}

// FuzzReadFeatures: ReadFeatures never panics; every feature it delivers
// carries the index it was delivered with, in order.
func FuzzReadFeatures(f *testing.F) {
	f.Add(`{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{"a":1},"geometry":null}]}`) // valid collection
	f.Add(`{"type":"Feature","id":"12","properties":{"frame_id":3},"geometry":{"type":"Point","coordinates":[1,2]}}`) // single feature
	f.Add(`{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`)                                             // bare geometry
	f.Add(`{"features":[{"type":"Feature"}],"type":"Feature"}`)                                                       // features in a Feature
	f.Add(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":"x"}]}`)                            // bad properties
	f.Add(`{"type":"FeatureCollection","features":[{"type":"Feature"},`)                                              // truncated
	f.Add(`{"type":"FeatureCollection","features":[]}]`)                                                              // trailing bracket
	f.Add(`{"type":"GeometryCollection","geometries":[]}`)                                                            // bare collection
	f.Add(``)                                                                                                         // empty
	f.Fuzz(func(t *testing.T, in string) {
		next := 0
		_ = ReadFeatures(strings.NewReader(in), func(i int, f InFeature) error {
			if i != next {
				t.Fatalf("feature index %d, want %d", i, next)
			}
			next++
			if f.ID != nil && string(f.ID) == "null" {
				t.Fatalf("null id delivered as %q", f.ID)
			}
			_, _ = ParseFrameID(f.ID, f.Properties)
			_, _ = ParseGeometry(f.Geometry)
			return nil
		})
	})
}

func TestParseFrameID(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		props map[string]any
		want  uint64
		err   string
	}{
		{"number", `42`, nil, 42, ""},
		{"string", `"432756405"`, nil, 432756405, ""},
		{"leading zeros", `"007"`, nil, 7, ""},
		{"zero", `0`, nil, 0, ""},
		{"largest", `18446744073709551615`, nil, 18446744073709551615, ""},
		{"id wins over properties", `5`, map[string]any{"id": json.Number("6")}, 5, ""},
		{"null id falls back", `null`, map[string]any{"id": json.Number("6")}, 6, ""},
		{"property id", ``, map[string]any{"id": "17", "frame_id": json.Number("18")}, 17, ""},
		{"property frame_id", ``, map[string]any{"frame_id": json.Number("18")}, 18, ""},
		{"null property id falls back", ``, map[string]any{"id": nil, "frame_id": "19"}, 19, ""},
		{"float64 property", ``, map[string]any{"id": float64(20)}, 20, ""},
		{"int property", ``, map[string]any{"id": 21}, 21, ""},

		{"missing", ``, nil, 0, "id missing"},
		{"missing, other properties", ``, map[string]any{"name": "x"}, 0, "id missing"},
		{"letters", `"abc"`, nil, 0, `id "abc" is not a number (want 1-20 decimal digits)`},
		{"empty string", `""`, nil, 0, `id "" is empty`},
		{"negative", `-5`, nil, 0, `id "-5" is not a number (want 1-20 decimal digits)`},
		{"fraction", `1.5`, nil, 0, `id "1.5" is not a number (want 1-20 decimal digits)`},
		{"exponent", `1e3`, nil, 0, `id "1e3" is not a number (want 1-20 decimal digits)`},
		{"space in string", `" 12"`, nil, 0, `id " 12" is not a number (want 1-20 decimal digits)`},
		{"unicode digits", `"١٢"`, nil, 0, `id "١٢" is not a number (want 1-20 decimal digits)`},
		{"too large", `18446744073709551616`, nil, 0, `id "18446744073709551616" is too large (largest 18446744073709551615)`},
		{"21 digits", `"000000000000000000001"`, nil, 0, `id "000000000000000000001" has more than 20 digits`},
		{"boolean", `true`, nil, 0, `id "true" is not a number`},
		{"object", `{"a":1}`, nil, 0, `id "{\"a\":1}" is not a number`},
		{"bad property does not fall back", ``, map[string]any{"id": "x", "frame_id": "3"}, 0, `id "x" is not a number (want 1-20 decimal digits)`},
		{"fractional float64 property", ``, map[string]any{"frame_id": 1.5}, 0, `id "1.5" is not a whole number in 0..2^53`},
		{"negative int property", ``, map[string]any{"frame_id": -1}, 0, `id "-1" is negative`},
		{"bool property", ``, map[string]any{"frame_id": true}, 0, `id "true" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var raw json.RawMessage
			if tc.raw != "" {
				raw = json.RawMessage(tc.raw)
			}
			got, err := ParseFrameID(raw, tc.props)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("ParseFrameID = %d, %v; want error %q", got, err, tc.err)
				}
				if tc.err == "id missing" && !errors.Is(err, ErrNoID) {
					t.Fatalf("error %v is not ErrNoID", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseFrameID = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// FuzzParseFrameID: never panics; an accepted string id is 1-20 digits and
// its value prints back to the same digits without leading zeros.
func FuzzParseFrameID(f *testing.F) {
	f.Add(`42`)                     // number
	f.Add(`"432756405"`)            // string
	f.Add(`"18446744073709551616"`) // overflow
	f.Add(`-1`)                     // negative
	f.Add(`"\u0031"`)               // escaped digit
	f.Add(`{}`)                     // object
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := ParseFrameID(json.RawMessage(raw), nil)
		if err != nil {
			return
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) != nil {
			s = strings.TrimSpace(raw)
		}
		if strings.TrimLeft(s, "0") != strings.TrimLeft(fmt.Sprint(id), "0") {
			t.Fatalf("ParseFrameID(%q) = %d", raw, id)
		}
	})
}

func BenchmarkParseGeometryNigeria(b *testing.B) {
	raw := readNGA(b, "nga_country.geojson")
	var geom []byte
	if err := ReadFeatures(strings.NewReader(string(raw)), func(_ int, f InFeature) error {
		geom = f.Geometry
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(geom)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseGeometry(geom); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFeaturesLGAs(b *testing.B) {
	raw := readNGA(b, "nga_lgas.geojson")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := ReadFeatures(strings.NewReader(string(raw)), func(_ int, f InFeature) error {
			_, err := ParseGeometry(f.Geometry)
			n++
			return err
		}); err != nil || n != 774 {
			b.Fatalf("%d features, %v", n, err)
		}
	}
}
