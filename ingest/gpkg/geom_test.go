package gpkg

import (
	"encoding/json"
	"frameindex/grid"
	"math"
	"strings"
	"testing"
)

func TestDecodeGeometry(t *testing.T) {
	nan := math.NaN()
	sq := []float64{0, 0, 0, 1, 1, 1, 1, 0, 0, 0}     // clockwise unit square
	ccw := []float64{0, 0, 1, 0, 1, 1, 0, 1, 0, 0}    // counter-clockwise
	hole := []float64{.2, .2, .4, .2, .4, .4, .2, .2} // counter-clockwise hole
	tests := []struct {
		name string
		blob []byte
		want string
	}{
		{"point", gp(wkbPt(3.5, 7.25), 0, false), `{"type":"Point","coordinates":[3.5,7.25]}`},
		{"point big endian, xy envelope", gp((&wkbw{big: true}).head(1).f(-1, 2).b, 1, false), `{"type":"Point","coordinates":[-1,2]}`},
		{"point Z ISO", gp((&wkbw{}).head(1001).f(1, 2, 99).b, 2, false), `{"type":"Point","coordinates":[1,2]}`},
		{"point M ISO", gp((&wkbw{}).head(2001).f(1, 2, 99).b, 3, false), `{"type":"Point","coordinates":[1,2]}`},
		{"point ZM ISO", gp((&wkbw{}).head(3001).f(1, 2, 98, 99).b, 4, false), `{"type":"Point","coordinates":[1,2]}`},
		{"point Z extended code", gp((&wkbw{}).head(0x80000001).f(1, 2, 99).b, 0, false), `{"type":"Point","coordinates":[1,2]}`},
		{"point rounded to 7 decimals", gp(wkbPt(1.123456789, -0.000000049), 0, false), `{"type":"Point","coordinates":[1.1234568,0]}`},
		{"empty flag", gp(wkbPt(1, 2), 0, true), `null`},
		{"empty point NaN", gp(wkbPt(nan, nan), 0, false), `null`},
		{"nil blob", nil, `null`},
		{"linestring", gp((&wkbw{}).head(2).pts(2, 0, 0, 1, 1, 2, 0).b, 0, false), `{"type":"LineString","coordinates":[[0,0],[1,1],[2,0]]}`},
		{"linestring ZM", gp((&wkbw{}).head(3002).pts(4, 0, 0, 5, 6, 1, 1, 5, 6).b, 0, false), `{"type":"LineString","coordinates":[[0,0],[1,1]]}`},
		{"empty linestring", gp((&wkbw{}).head(2).u32(0).b, 0, false), `null`},
		{"polygon clockwise is reversed", gp(wkbPoly(sq), 1, false), `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}`},
		{"polygon ccw kept, hole reversed", gp(wkbPoly(ccw, hole), 0, false), `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]],[[0.2,0.2],[0.4,0.4],[0.4,0.2],[0.2,0.2]]]}`},
		{"polygon empty hole dropped", gp(wkbPoly(ccw, nil), 0, false), `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}`},
		{"polygon no rings", gp(wkbPoly(), 0, false), `null`},
		{"multipoint with empty member", gp(func() []byte {
			w := (&wkbw{}).head(4).u32(3)
			w.b = append(w.b, wkbPt(1, 2)...)
			w.b = append(w.b, wkbPt(nan, nan)...)
			w.b = append(w.b, (&wkbw{big: true}).head(1).f(3, 4).b...)
			return w.b
		}(), 0, false), `{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}`},
		{"multipoint all empty", gp(func() []byte {
			w := (&wkbw{}).head(4).u32(1)
			w.b = append(w.b, wkbPt(nan, nan)...)
			return w.b
		}(), 0, false), `null`},
		{"multilinestring", gp(func() []byte {
			w := (&wkbw{}).head(5).u32(2)
			w.b = append(w.b, (&wkbw{}).head(2).pts(2, 0, 0, 1, 1).b...)
			w.b = append(w.b, (&wkbw{}).head(2).pts(2, 2, 2, 3, 3).b...)
			return w.b
		}(), 0, false), `{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3]]]}`},
		{"multipolygon Z", gp(func() []byte {
			w := (&wkbw{}).head(1006).u32(2)
			w.b = append(w.b, (&wkbw{}).head(1003).u32(1).pts(3, 0, 0, 9, 0, 1, 9, 1, 1, 9, 0, 0, 9).b...)
			w.b = append(w.b, (&wkbw{}).head(1003).u32(0).b...)
			return w.b
		}(), 0, false), `{"type":"MultiPolygon","coordinates":[[[[0,0],[1,1],[0,1],[0,0]]]]}`},
		{"geometry collection nested", gp(func() []byte {
			inner := (&wkbw{}).head(7).u32(1)
			inner.b = append(inner.b, wkbPt(5, 6)...)
			w := (&wkbw{}).head(7).u32(3)
			w.b = append(w.b, wkbPt(1, 2)...)
			w.b = append(w.b, (&wkbw{}).head(2).u32(0).b...) // empty: dropped
			w.b = append(w.b, inner.b...)
			return w.b
		}(), 0, false), `{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[5,6]}]}]}`},
		{"EWKB SRID skipped", gp((&wkbw{}).head(0x20000001).u32(4326).f(1, 2).b, 0, false), `{"type":"Point","coordinates":[1,2]}`},
		{"trailing bytes ignored", gp(append(wkbPt(1, 2), 0xde, 0xad), 0, false), `{"type":"Point","coordinates":[1,2]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d decoder
			got, err := d.appendGeometry([]byte("x"), tc.blob)
			if err != nil {
				t.Fatal(err)
			}
			if string(got[1:]) != tc.want {
				t.Errorf("got  %s\nwant %s", got[1:], tc.want)
			}
			if !json.Valid(got[1:]) {
				t.Errorf("invalid JSON %s", got[1:])
			}
		})
	}
}

func TestDecodeGeometryErrors(t *testing.T) {
	nested := wkbPt(0, 0)
	for i := 0; i <= maxDepth; i++ {
		w := (&wkbw{}).head(7).u32(1)
		nested = append(w.b, nested...)
	}
	tests := []struct {
		name string
		blob []byte
		want string
	}{
		{"short header", []byte("GP\x00"), "shorter than its 8-byte header"},
		{"bad magic", []byte("XX\x00\x01\x00\x00\x00\x00"), `want "GP"`},
		{"bad version", []byte("GP\x01\x01\x00\x00\x00\x00"), "version 1"},
		{"extended", []byte("GP\x00\x21\x00\x00\x00\x00ABCD"), `extension code "ABCD"`},
		{"bad envelope", []byte("GP\x00\x0b\x00\x00\x00\x00"), "envelope indicator 5"},
		{"envelope cut", append([]byte("GP\x00\x03\x00\x00\x00\x00"), make([]byte, 20)...), "shorter than its 40-byte header"},
		{"bad byte order", gp([]byte{7, 1, 0, 0, 0}, 0, false), "byte order 7"},
		{"unknown type", gp((&wkbw{}).head(99).b, 0, false), "type 99 is not a known type"},
		{"unknown dimension", gp((&wkbw{}).head(4001).f(1, 2).b, 0, false), "type 4001"},
		{"curve", gp((&wkbw{}).head(8).u32(0).b, 0, false), "CircularString is not supported"},
		{"curve polygon Z", gp((&wkbw{}).head(1010).u32(0).b, 0, false), "CurvePolygon is not supported"},
		{"point cut", gp((&wkbw{}).head(1).f(1).b, 0, false), "inside a point"},
		{"forged point count", gp((&wkbw{}).head(2).u32(1<<30).f(1, 2).b, 0, false), "claims 1073741824 points"},
		{"forged ring count", gp((&wkbw{}).head(3).u32(1<<31).b, 0, false), "claims 2147483648 rings"},
		{"forged member count", gp((&wkbw{}).head(7).u32(1<<20).b, 0, false), "claims 1048576 geometries"},
		{"wrong member type", gp(func() []byte {
			w := (&wkbw{}).head(6).u32(1)
			return append(w.b, wkbPt(1, 2)...)
		}(), 0, false), "member 1 is a Point, want a Polygon"},
		{"infinite coordinate", gp(wkbPt(math.Inf(1), 2), 0, false), "not a finite number"},
		{"NaN in ring", gp(wkbPoly([]float64{0, 0, math.NaN(), 1, 1, 1, 0, 0}), 0, false), "not a finite number"},
		{"too deep", gp(nested, 0, false), "nested deeper than 32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d decoder
			got, err := d.appendGeometry([]byte("keep"), tc.blob)
			if err == nil {
				t.Fatalf("no error; got %s", got)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if string(got) != "keep" {
				t.Errorf("dst changed to %q on error", got)
			}
		})
	}
}

func TestDecodeTransform(t *testing.T) {
	d := decoder{tr: func(x, y float64) (float64, float64) { return x / 1000, y / 1000 }}
	// clockwise in lon/lat after the transformation: reversed.
	got, err := d.appendGeometry(nil, gp(wkbPoly([]float64{0, 0, 0, 1000, 1000, 1000, 0, 0}), 0, false))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"Polygon","coordinates":[[[0,0],[1,1],[0,1],[0,0]]]}`
	if string(got) != want {
		t.Errorf("got %s want %s", got, want)
	}
	d.tr = func(x, y float64) (float64, float64) { return math.NaN(), 0 }
	if _, err := d.appendGeometry(nil, gp(wkbPt(1, 2), 0, false)); err == nil || !strings.Contains(err.Error(), "no longitude/latitude") {
		t.Errorf("err = %v, want a transformation failure", err)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\`, "ctl\x00\x1f\n\r\t", "é 北 🙂", "bad\xffutf8\xc3", "<&>\u2028"} {
		t.Run(s, func(t *testing.T) {
			got := grid.AppendJSONString(nil, s)
			var back string
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			want, _ := json.Marshal(s)
			var wantBack string
			json.Unmarshal(want, &wantBack)
			if back != wantBack {
				t.Errorf("round trip %q -> %s -> %q, want %q", s, got, back, wantBack)
			}
		})
	}
}

func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, 1, -2.5, 1e-7, 123456789012345678, 1e21, 3.141592653589793, math.MaxFloat64, 5e-324} {
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Errorf("%v: got %s want %s", f, got, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := appendFloat(nil, f); string(got) != "null" {
			t.Errorf("%v: got %s want null", f, got)
		}
	}
}
