package shapefile

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"frameindex/ingest/crs"
)

// readAll opens path and returns every feature's JSON text.
func readAll(t testing.TB, path string, opts Options) ([]string, error) {
	t.Helper()
	r, err := Open(path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []string
	for {
		f, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if !json.Valid(f.JSON) {
			t.Fatalf("feature %d: invalid JSON %s", f.Index, f.JSON)
		}
		out = append(out, string(f.JSON))
	}
}

func square(x0, y0, s float64, clockwise bool) []pt {
	r := []pt{{x0, y0}, {x0 + s, y0}, {x0 + s, y0 + s}, {x0, y0 + s}, {x0, y0}}
	if clockwise {
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
	}
	return r
}

func TestPropertiesAndPoints(t *testing.T) {
	dir := t.TempDir()
	p := writeFixture(t, dir, "pts", fixture{
		shapeType: typePoint,
		shapes:    []shape{{1, [][]pt{{{3.5, 6.25}}}}, {0, nil}, {1, [][]pt{{{-0.0000001, 13.9}}}}},
		fields: []dbfField{
			{"NAME", 'C', 12, 0}, {"POP", 'N', 12, 0}, {"AREA", 'N', 12, 3}, {"RATIO", 'F', 10, 4},
			{"OPEN", 'L', 1, 0}, {"SINCE", 'D', 8, 0}, {"NAME", 'C', 4, 0},
		},
		rows: [][]string{
			{"  Ikeja \"x\"", "+0012", "12.500", ".5", "T", "20240131", "a"},
			{"", "", "", "**********", "?", "00000000", ""},
			{"Kano", "-7", "3", "1e3", "n", "", "b"},
		},
		prj: prjWGS84,
	})
	got, err := readAll(t, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"type":"Feature","properties":{"NAME":"Ikeja \"x\"","POP":12,"AREA":12.5,"RATIO":0.5,"OPEN":true,"SINCE":"2024-01-31","NAME_2":"a"},"geometry":{"type":"Point","coordinates":[3.5,6.25]}}`,
		`{"type":"Feature","properties":{"NAME":null,"POP":null,"AREA":null,"RATIO":null,"OPEN":null,"SINCE":null,"NAME_2":null},"geometry":null}`,
		`{"type":"Feature","properties":{"NAME":"Kano","POP":-7,"AREA":3.0,"RATIO":1000.0,"OPEN":false,"SINCE":null,"NAME_2":"b"},"geometry":{"type":"Point","coordinates":[-0.0000001,13.9]}}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d features, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("feature %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	r, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if fs := r.Fields(); len(fs) != 7 || fs[6].Name != "NAME_2" || fs[2].Type != 'N' || fs[2].Decimals != 3 {
		t.Errorf("Fields() = %+v", fs)
	}
	if r.System().Code != 4326 || r.Layer() != "pts" || r.NumRecords() != 3 || r.ShapeType() != "Point" {
		t.Errorf("System %v Layer %q NumRecords %d ShapeType %s", r.System(), r.Layer(), r.NumRecords(), r.ShapeType())
	}
}

func geometryOf(t *testing.T, feature string) string {
	t.Helper()
	var f struct {
		Geometry json.RawMessage `json:"geometry"`
	}
	if err := json.Unmarshal([]byte(feature), &f); err != nil {
		t.Fatal(err)
	}
	return string(f.Geometry)
}

func TestGeometries(t *testing.T) {
	outer := square(0, 0, 10, true)     // clockwise: exterior
	hole := square(2, 2, 2, false)      // counter-clockwise: hole
	outer2 := square(20, 0, 10, true)   // second exterior
	hole2 := square(22, 2, 2, false)    // hole of the second
	island := square(2.5, 2.5, 1, true) // exterior inside the hole
	unclosed := outer[:4]
	tests := []struct {
		name      string
		shapeType int32
		s         shape
		want      string
		wantErr   string
	}{
		{"polygon", typePolygon, shape{5, [][]pt{outer}},
			`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}`, ""},
		{"hole", typePolygon, shape{5, [][]pt{outer, hole}},
			`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]]}`, ""},
		{"hole first", typePolygon, shape{5, [][]pt{hole, outer}},
			`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]]}`, ""},
		{"multi", typePolygon, shape{5, [][]pt{outer, outer2, hole2}},
			`{"type":"MultiPolygon","coordinates":[[[[0,0],[10,0],[10,10],[0,10],[0,0]]],[[[20,0],[30,0],[30,10],[20,10],[20,0]],[[22,2],[22,4],[24,4],[24,2],[22,2]]]]}`, ""},
		{"island in hole", typePolygon, shape{5, [][]pt{outer, hole, island}},
			`{"type":"MultiPolygon","coordinates":[[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]],[[[2.5,2.5],[3.5,2.5],[3.5,3.5],[2.5,3.5],[2.5,2.5]]]]}`, ""},
		{"orphan counter-clockwise ring", typePolygon, shape{5, [][]pt{square(0, 0, 1, false)}},
			`{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}`, ""},
		{"unclosed ring", typePolygon, shape{5, [][]pt{unclosed}},
			`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}`, ""},
		{"ring of 3", typePolygon, shape{5, [][]pt{outer, {{1, 1}, {2, 1}, {1, 1}}}}, "", "ring 2 has 3 points"},
		{"polygonZ", typePolygon, shape{15, [][]pt{outer}},
			`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}`, ""},
		{"polygonM", typePolygon, shape{25, [][]pt{outer}},
			`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}`, ""},
		{"line", typePolyLine, shape{3, [][]pt{{{1, 2}, {3, 4}}}},
			`{"type":"LineString","coordinates":[[1,2],[3,4]]}`, ""},
		{"lines", typePolyLine, shape{13, [][]pt{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}, {9, 9}}}},
			`{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8],[9,9]]]}`, ""},
		{"line of 1", typePolyLine, shape{3, [][]pt{{{1, 2}}}}, "", "line part 1 has 1 point"},
		{"multipoint", typeMultiPoint, shape{8, [][]pt{{{1, 2}, {3, 4}}}},
			`{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}`, ""},
		{"multipointM", typeMultiPoint, shape{28, [][]pt{{{1, 2}}}},
			`{"type":"MultiPoint","coordinates":[[1,2]]}`, ""},
		{"pointZ", typePoint, shape{11, [][]pt{{{1, 2}}}}, `{"type":"Point","coordinates":[1,2]}`, ""},
		{"pointM", typePoint, shape{21, [][]pt{{{1, 2}}}}, `{"type":"Point","coordinates":[1,2]}`, ""},
		{"null", typePolygon, shape{0, nil}, `null`, ""},
		{"wrong type", typePolygon, shape{1, [][]pt{{{1, 2}}}}, "", "shape type Point in a file of Polygon shapes"},
		{"out of range", typePoint, shape{1, [][]pt{{{500000, 900000}}}}, "", "is the coordinate system (.prj) right?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFixture(t, t.TempDir(), "g", fixture{
				shapeType: tc.shapeType, shapes: []shape{tc.s},
				fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}}, prj: prjWGS84,
			})
			got, err := readAll(t, p, Options{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "g.shp: record 1 (FID 0)") {
					t.Fatalf("got %v, %v; want error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := geometryOf(t, got[0]); g != tc.want {
				t.Errorf("geometry\n got %s\nwant %s", g, tc.want)
			}
		})
	}
}

// TestProjected reads a WGS 84 / UTM zone 32N point: 500000 E, 1000000 N
// is 9°E, 9.04656246376895°N (gdaltransform).
func TestProjected(t *testing.T) {
	p := writeFixture(t, t.TempDir(), "utm", fixture{
		shapeType: typePoint, shapes: []shape{{1, [][]pt{{{500000, 1000000}}}}},
		fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}}, prj: prjUTM32N,
	})
	got, err := readAll(t, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := geometryOf(t, got[0]); g != `{"type":"Point","coordinates":[9,9.0465625]}` {
		t.Errorf("geometry %s", g)
	}
	// An explicit system overrides the .prj.
	sys, _ := crs.FromEPSG(26332)
	r, err := Open(p, Options{System: sys})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.System().Code != 26332 {
		t.Errorf("System() = %v", r.System())
	}
}

func TestEncodings(t *testing.T) {
	tests := []struct {
		name    string
		cpg     string
		ldid    byte
		text    string
		want    string
		wantErr string
	}{
		{"utf8 default", "", 0, "Ọ̀yọ́ é", "Ọ̀yọ́ é", ""},
		{"latin1 fallback", "", 0x57, "Caf\xe9", "Café", ""},
		{"ldid 1252", "", 0x03, "\x80 \xe9", "€ é", ""},
		{"ldid 437", "", 0x01, "\x82", "é", ""},
		{"cpg utf8", "UTF-8\r\n", 0x03, "Ọ̀yọ́", "Ọ̀yọ́", ""},
		{"cpg 1252", "1252", 0, "\x93q\x94", "“q”", ""},
		{"cpg ansi", "ANSI 1252", 0, "\x80", "€", ""},
		{"cpg iso", "ISO-8859-1", 0, "\xe9", "é", ""},
		{"cpg 88591", "88591", 0, "\xe9", "é", ""},
		{"cpg iso-8859-15", "ISO-8859-15", 0, "\xa4", "€", ""},
		{"cpg unknown", "EBCDIC", 0, "x", "", `code page "EBCDIC" is not supported`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFixture(t, t.TempDir(), "e", fixture{
				shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}},
				fields: []dbfField{{"T", 'C', 20, 0}}, rows: [][]string{{tc.text}},
				prj: prjWGS84, cpg: tc.cpg, ldid: tc.ldid,
			})
			got, err := readAll(t, p, Options{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "e.cpg") {
					t.Fatalf("got %v; want error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var f struct{ Properties map[string]string }
			if err := json.Unmarshal([]byte(got[0]), &f); err != nil {
				t.Fatal(err)
			}
			if f.Properties["T"] != tc.want {
				t.Errorf("T = %q, want %q", f.Properties["T"], tc.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	good := fixture{
		shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}, {1, [][]pt{{{3, 4}}}}},
		fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}, {"2"}}, prj: prjWGS84,
	}
	tests := []struct {
		name    string
		mod     func(f *fixture)
		after   func(t *testing.T, shp string)
		opts    Options
		wantErr string
		is      error
	}{
		{name: "missing dbf", mod: func(f *fixture) { f.noDBF = true }, wantErr: "x.dbf: missing"},
		{name: "missing prj", mod: func(f *fixture) { f.prj = "" }, wantErr: "x.prj: missing"},
		{name: "unsupported crs", mod: func(f *fixture) { f.prj = prjWebMerc },
			wantErr: `x.prj: "WGS_1984_Web_Mercator_Auxiliary_Sphere"`, is: crs.ErrUnsupported},
		{name: "bad prj", mod: func(f *fixture) { f.prj = "GEOGCS[" }, wantErr: "x.prj: WKT"},
		{name: "unknown field type", mod: func(f *fixture) { f.fields[0].typ = 'M' },
			wantErr: `x.dbf: field "ID" has dBASE type "M"`},
		{name: "truncated shp", after: func(t *testing.T, shp string) { truncate(t, shp, 10) },
			wantErr: "x.shp: truncated: the file has 146 bytes, its header says 156"},
		{name: "truncated dbf", after: func(t *testing.T, shp string) { truncate(t, strings.TrimSuffix(shp, ".shp")+".dbf", 4) },
			wantErr: "x.dbf: truncated"},
		{name: "not a shapefile", after: func(t *testing.T, shp string) { corrupt(t, shp, 3, 0) },
			wantErr: "x.shp: not a shapefile"},
		{name: "multipatch", mod: func(f *fixture) { f.shapeType = typeMultiPatch }, wantErr: "shape type MultiPatch is not supported"},
		{name: "shx count", mod: func(f *fixture) { f.rows = f.rows[:1] }, wantErr: "x.shx lists 2 records but"},
		{name: "no prj but system given", mod: func(f *fixture) { f.prj = "" }, opts: Options{System: mustEPSG(t, 4326)}},
		{name: "wrong extension", after: func(t *testing.T, shp string) {}, wantErr: "want a .shp file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := good
			f.fields = append([]dbfField(nil), good.fields...)
			if tc.mod != nil {
				tc.mod(&f)
			}
			p := writeFixture(t, t.TempDir(), "x", f)
			if tc.after != nil {
				tc.after(t, p)
			}
			if tc.name == "wrong extension" {
				p = strings.TrimSuffix(p, ".shp") + ".dbf"
			}
			r, err := Open(p, tc.opts)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				r.Close()
				return
			}
			if err == nil {
				r.Close()
				t.Fatalf("Open succeeded, want error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %q, want it to contain %q", err, tc.wantErr)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
}

func mustEPSG(t *testing.T, code int) *crs.System {
	s, err := crs.FromEPSG(code)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func truncate(t *testing.T, p string, n int64) {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, st.Size()-n); err != nil {
		t.Fatal(err)
	}
}

func corrupt(t *testing.T, p string, at int, b byte) {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[at] = b
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNextErrors(t *testing.T) {
	pointRec := encodeShape(shape{1, [][]pt{{{1, 2}}}})
	tests := []struct {
		name    string
		f       fixture
		wantErr string
		wantN   int // features read before the error
	}{
		{name: "bad number", f: fixture{shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}, {1, [][]pt{{{1, 2}}}}},
			fields: []dbfField{{"POP", 'N', 6, 0}}, rows: [][]string{{"12"}, {"1,5"}}},
			wantErr: `x.dbf: record 2 (FID 1): field "POP": bad number "1,5"`, wantN: 1},
		{name: "bad date", f: fixture{shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}},
			fields: []dbfField{{"D", 'D', 8, 0}}, rows: [][]string{{"20241301"}}},
			wantErr: `field "D": bad date "20241301"`},
		{name: "bad logical", f: fixture{shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}},
			fields: []dbfField{{"L", 'L', 1, 0}}, rows: [][]string{{"x"}}},
			wantErr: `field "L": bad logical value "x"`},
		{name: "more shp than dbf", f: fixture{shapeType: typePoint, noSHX: true, shapes: []shape{{1, [][]pt{{{1, 2}}}}, {1, [][]pt{{{1, 2}}}}},
			fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}}},
			wantErr: "x.shp has more records than the 1 of", wantN: 1},
		{name: "more dbf than shp", f: fixture{shapeType: typePoint, noSHX: true, shapes: []shape{{1, [][]pt{{{1, 2}}}}},
			fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}, {"2"}}},
			wantErr: "x.shp has 1 records but", wantN: 1},
		{name: "content too short", f: fixture{shapeType: typePoint, raw: [][]byte{pointRec[:12]},
			fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}}},
			wantErr: "x.shp: record 1 (FID 0): record length mismatch: Point content is 12 bytes"},
		{name: "too many points", f: fixture{shapeType: typePolygon, raw: [][]byte{func() []byte {
			c := encodeShape(shape{5, [][]pt{square(0, 0, 1, true)}})
			c[40] = 50 // numPoints
			return c
		}()}, fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}}},
			wantErr: "record length mismatch: Polygon content is 128 bytes, too short for 1 parts and 50 points"},
		{name: "bad part index", f: fixture{shapeType: typePolyLine, raw: [][]byte{func() []byte {
			c := encodeShape(shape{3, [][]pt{{{0, 0}, {1, 1}}, {{2, 2}, {3, 3}}}})
			c[48] = 9
			return c
		}()}, fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}}},
			wantErr: "part 2 starts at point 9"},
		{name: "deleted records skipped", f: fixture{shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}, {1, [][]pt{{{3, 4}}}}},
			fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}, {"2"}}, deleted: []bool{true, false}},
			wantN: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.prj = prjWGS84
			p := writeFixture(t, t.TempDir(), "x", tc.f)
			got, err := readAll(t, p, Options{})
			if tc.wantErr == "" {
				if err != nil || len(got) != tc.wantN {
					t.Fatalf("got %d features, %v; want %d", len(got), err, tc.wantN)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
			}
			if len(got) != tc.wantN {
				t.Fatalf("%d features before the error, want %d", len(got), tc.wantN)
			}
		})
	}
}

// TestTruncatedRecord cuts the .shp inside its last record and fixes the
// header length, so that Open passes and Next finds the short record.
func TestTruncatedRecord(t *testing.T) {
	p := writeFixture(t, t.TempDir(), "x", fixture{
		shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}, {1, [][]pt{{{3, 4}}}}}, noSHX: true,
		fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}, {"2"}}, prj: prjWGS84,
	})
	data, _ := os.ReadFile(p)
	data = data[:len(data)-8]
	copy(data, shpFileHeader(typePoint, len(data)))
	os.WriteFile(p, data, 0o644)
	got, err := readAll(t, p, Options{})
	if err == nil || !strings.Contains(err.Error(), "x.shp: record 2 (FID 1): record length mismatch") || len(got) != 1 {
		t.Fatalf("got %d features, %v", len(got), err)
	}
}

func TestUpperCaseExtensions(t *testing.T) {
	p := writeFixture(t, t.TempDir(), "UP", fixture{
		shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}},
		fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"7"}}, prj: prjWGS84,
		extCase: strings.ToUpper,
	})
	got, err := readAll(t, p, Options{})
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
}

func zipDir(t testing.TB, dir, zipPath, prefix string) {
	t.Helper()
	zf, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
}

func TestZip(t *testing.T) {
	one := t.TempDir()
	f := fixture{shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}},
		fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"7"}}, prj: prjWGS84}
	writeFixture(t, one, "roads", f)
	two := t.TempDir()
	writeFixture(t, two, "roads", f)
	f.rows = [][]string{{"8"}}
	writeFixture(t, two, "wells", f)
	zdir := t.TempDir()
	zipDir(t, one, filepath.Join(zdir, "one.zip"), "data/")
	zipDir(t, two, filepath.Join(zdir, "two.zip"), "")
	tests := []struct {
		zip, layer, want, wantErr string
	}{
		{zip: "one.zip", want: `"ID":7`},
		{zip: "one.zip", layer: "ROADS", want: `"ID":7`},
		{zip: "two.zip", wantErr: `two.zip: holds 2 shapefiles, name the layer to read: "roads", "wells"`},
		{zip: "two.zip", layer: "wells", want: `"ID":8`},
		{zip: "two.zip", layer: "rivers", wantErr: `no layer "rivers"; it holds "roads", "wells"`},
	}
	for _, tc := range tests {
		t.Run(tc.zip+"/"+tc.layer, func(t *testing.T) {
			got, err := readAll(t, filepath.Join(zdir, tc.zip), Options{Layer: tc.layer})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("got %v, %v", got, err)
			}
		})
	}
	// Errors inside a zip name the entry and the archive.
	nodbf := t.TempDir()
	f.noDBF = true
	writeFixture(t, nodbf, "x", f)
	zipDir(t, nodbf, filepath.Join(zdir, "nodbf.zip"), "")
	_, err := Open(filepath.Join(zdir, "nodbf.zip"), Options{})
	if err == nil || !strings.Contains(err.Error(), "x.dbf in "+filepath.Join(zdir, "nodbf.zip")+": missing") {
		t.Fatalf("error %v", err)
	}
}

// TestDeletedKeepsIndex checks that Index counts deleted records, so that it
// stays the record number minus one.
func TestDeletedKeepsIndex(t *testing.T) {
	p := writeFixture(t, t.TempDir(), "d", fixture{
		shapeType: typePoint, shapes: []shape{{1, [][]pt{{{1, 2}}}}, {1, [][]pt{{{3, 4}}}}, {1, [][]pt{{{5, 6}}}}},
		fields: []dbfField{{"ID", 'N', 4, 0}}, rows: [][]string{{"1"}, {"2"}, {"3"}}, deleted: []bool{false, true, false},
		prj: prjWGS84,
	})
	r, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var idx []int
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		idx = append(idx, f.Index)
	}
	if len(idx) != 2 || idx[0] != 0 || idx[1] != 2 {
		t.Fatalf("indexes %v, want [0 2]", idx)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after the end: %v", err)
	}
}
