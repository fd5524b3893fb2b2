package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

// fuzzIndex is the small test lattice as an index, without a store.
func fuzzIndex() *index.Index {
	var runs []grid.Run
	for r := row0; r <= row1; r++ {
		runs = append(runs, grid.Run{Row: int32(r), Col0: col0, Col1: col1})
	}
	return index.NewLattice(runs)
}

// FuzzAppendNumber: whatever the cell, appendNumber never panics, and what
// it accepts it writes as a valid JSON number of the same value.
func FuzzAppendNumber(f *testing.F) {
	for _, s := range []string{
		"1234",                    // integer, kept as is
		"0012",                    // leading zeros dropped
		"-0",                      // negative zero becomes 0
		"1.50",                    // shortest form: 1.5
		" 2.5e3 ",                 // spaces around, exponent
		"1e-7",                    // small: exponent form
		"1.5e21",                  // large: exponent form
		"1e999",                   // overflow: refused
		"0x10",                    // hex: refused
		"1_000",                   // underscores: refused
		"NaN",                     // refused
		"12345678901234567890123", // long integer: every digit kept
		".",                       // no digits: refused
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := appendNumber(nil, s)
		if !ok {
			if len(out) != 0 {
				t.Fatalf("refused %q but wrote %q", s, out)
			}
			return
		}
		if !json.Valid(out) || out[0] == '"' || out[0] == '{' || out[0] == '[' {
			t.Fatalf("%q -> %q: not a JSON number", s, out)
		}
		want, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			t.Fatalf("%q accepted, but ParseFloat says %v", s, err)
		}
		got, err := strconv.ParseFloat(string(out), 64)
		if err != nil || (got != want && !(got == 0 && want == 0)) {
			t.Fatalf("%q -> %q reads back as %v, want %v (%v)", s, out, got, want, err)
		}
	})
}

// FuzzReadCSV: any bytes as a CSV input never panic; errors name the file
// and wrap state.ErrInvalid; accepted input yields JSON attribute objects.
func FuzzReadCSV(f *testing.F) {
	id := strconv.FormatUint(cell(9705, 22485), 10)
	for _, s := range []string{
		"frame_id,pop,class\n" + id + ",12,urban\n",   // a good row
		"lat,lon,pop\n9.0958,7.4042,5\n",              // keyed by a point
		"frame_id,pop\n" + id + ",1\n" + id + ",2\n",  // the same frame twice
		"frame_id,pop\n5,1\n",                         // a frame not in the grid
		"frame_id,class\n" + id + ",\"two\nlines\"\n", // a quoted line break
		"frame_id,pop\n" + id + ",caf\xe9\n",          // not UTF-8
		"\ufeffframe_id,pop\n" + id + ",1e3\n",        // a byte-order mark
		"",                                            // empty
		"frame_id\n",                                  // header only
	} {
		f.Add([]byte(s))
	}
	ix := fuzzIndex()
	attrs := []state.Attribute{attrPop, attrClass}
	f.Fuzz(func(t *testing.T, data []byte) {
		im := newImporter(ix, state.Dataset{ID: "fuzz", Attributes: attrs}, true)
		defer im.close()
		c, err := im.openCSV(bytes.NewReader(data), "/in.csv", 0, false)
		if err == nil {
			err = c.read(context.Background())
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid: /in.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		recs, err := emitAll(im)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Attrs != nil && !json.Valid(r.Attrs) {
				t.Fatalf("frame %d: %q is not JSON", r.Frame, r.Attrs)
			}
			if _, ok := ix.Shape(r.Frame); !ok {
				t.Fatalf("frame %d is not in the grid", r.Frame)
			}
		}
	})
}

// FuzzRepresentativePoint: any geometry text never panics, and a point
// returned lies in the world (and in a polygon's bounds).
func FuzzRepresentativePoint(f *testing.F) {
	for _, s := range []string{
		`{"type":"Point","coordinates":[7.4,9.1]}`,                                                   // a point
		`{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}`,                                          // first point
		`{"type":"LineString","coordinates":[[0,0],[3,0],[3,1]]}`,                                    // halfway
		`{"type":"MultiLineString","coordinates":[[[0,0],[0,2]]]}`,                                   // first line
		`{"type":"Polygon","coordinates":[[[0,0],[3,0],[3,3],[2,3],[2,1],[1,1],[1,3],[0,3],[0,0]]]}`, // U: surface point
		`{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}`,                         // bow tie: refused
		`{"type":"GeometryCollection","geometries":[]}`,                                              // unsupported
		`{"type":"LineString","coordinates":[[1e308,0],[-1e308,0]]}`,                                 // out of range
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := RepresentativePoint(data)
		if err != nil {
			return
		}
		if !(p[0] >= -180 && p[0] <= 180 && p[1] >= -90 && p[1] <= 90) {
			t.Fatalf("%s: point %v outside the world", data, p)
		}
		if m, err := grid.ParseGeometry(data); err == nil {
			b := m.Bounds()
			if !b.Contains(p[0], p[1]) {
				t.Fatalf("%s: point %v outside the bounds %v", data, p, b)
			}
		}
	})
}

// FuzzReadZones: any GeoJSON as a zones input never panics; accepted zones
// put values only on frames of the grid.
func FuzzReadZones(f *testing.F) {
	for _, s := range []string{
		`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"st":"A","n":1},"geometry":{"type":"Polygon","coordinates":[[[7.34,9.01],[7.4,9.01],[7.4,9.1],[7.34,9.1],[7.34,9.01]]]}}]}`, // one zone
		`{"type":"Feature","properties":{"st":"B"},"geometry":{"type":"MultiPolygon","coordinates":[[[[7,8],[8,8],[8,10],[7,10],[7,8]]]]}}`,                                                                  // one feature, covering the block
		`{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`,                                        // a bare geometry
		`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":"x"},"geometry":null}]}`, // no geometry
	} {
		f.Add([]byte(s))
	}
	ix := fuzzIndex()
	attrs := []state.Attribute{attrState, attrNum}
	props := []zoneProp{{"n", 1}, {"st", 0}}
	f.Fuzz(func(t *testing.T, data []byte) {
		im := newImporter(ix, state.Dataset{ID: "fuzz", Attributes: attrs}, true)
		defer im.close()
		z, err := im.openZones(&geojsonSource{r: bytes.NewReader(data), path: "/z.geojson"}, checkedInput{path: "/z.geojson", props: props}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := z.read(context.Background()); err != nil {
			return
		}
		recs, err := emitAll(im)
		if err != nil {
			return
		}
		for _, r := range recs {
			if _, ok := ix.Shape(r.Frame); !ok || !json.Valid(r.Attrs) {
				t.Fatalf("frame %d (in grid %v): %q", r.Frame, ok, r.Attrs)
			}
		}
	})
}

// emitAll returns what im gathered as records, in memory.
func emitAll(im *importer) ([]bolt.FrameRecord, error) {
	if err := im.finishDerived(); err != nil {
		return nil, err
	}
	var sink memSink
	err := im.emit(context.Background(), &sink)
	return sink.records, err
}
