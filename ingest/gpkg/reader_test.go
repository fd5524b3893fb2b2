package gpkg

import (
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readAll reads every feature, failing the test on any error.
func readAll(t *testing.T, r *Reader) []Feature {
	t.Helper()
	var out []Feature
	for {
		f, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		f.JSON = append([]byte(nil), f.JSON...)
		out = append(out, f)
	}
}

func TestReaderSQLFixture(t *testing.T) {
	sq := []float64{3, 6, 3, 7, 4, 7, 4, 6, 3, 6} // clockwise
	path := makeGPKG(t, fixtureLayer{
		name:    "places",
		srsID:   4326,
		columns: `, name TEXT, pop INTEGER, area REAL, ok BOOLEAN, day DATE, at DATETIME, raw BLOB, note TEXT`,
		rows: [][]any{
			{7, gp(wkbPt(3.5, 6.5), 0, false), "Kano \"city\"", 100, 2.5, 1, "2024-01-02", "2024-01-02T03:04:05Z", []byte{1, 2, 3}, nil},
			{9, gp(wkbPoly(sq), 1, false), "Ikeja", 5, 0.125, 0, "2023-12-31", "2023-12-31T23:59:59.5Z", nil, "x"},
			{12, nil, nil, "many", math.Inf(1), nil, nil, nil, nil, 42}, // text in an INTEGER column stays text
		},
	})
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Layer() != "places" || !reflect.DeepEqual(r.Layers(), []string{"places"}) {
		t.Errorf("layer %q layers %q", r.Layer(), r.Layers())
	}
	wantFields := []Field{{"name", "TEXT"}, {"pop", "INTEGER"}, {"area", "REAL"}, {"ok", "BOOLEAN"}, {"day", "DATE"}, {"at", "DATETIME"}, {"raw", "BLOB"}, {"note", "TEXT"}}
	if !reflect.DeepEqual(r.Fields(), wantFields) {
		t.Errorf("fields %v\nwant %v", r.Fields(), wantFields)
	}
	got := readAll(t, r)
	want := []struct {
		fid  int64
		json string
	}{
		{7, `{"type":"Feature","geometry":{"type":"Point","coordinates":[3.5,6.5]},"properties":{"name":"Kano \"city\"","pop":100,"area":2.5,"ok":true,"day":"2024-01-02","at":"2024-01-02T03:04:05Z","raw":"AQID","note":null}}`},
		{9, `{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[3,6],[4,6],[4,7],[3,7],[3,6]]]},"properties":{"name":"Ikeja","pop":5,"area":0.125,"ok":false,"day":"2023-12-31","at":"2023-12-31T23:59:59.5Z","raw":null,"note":"x"}}`},
		{12, `{"type":"Feature","geometry":null,"properties":{"name":null,"pop":"many","area":null,"ok":null,"day":null,"at":null,"raw":null,"note":"42"}}`},
	}
	if len(got) != len(want) {
		t.Fatalf("%d features, want %d", len(got), len(want))
	}
	for i, w := range want {
		t.Run(w.json[:40], func(t *testing.T) {
			if got[i].Index != i || got[i].FID != w.fid {
				t.Errorf("index %d fid %d, want %d %d", got[i].Index, got[i].FID, i, w.fid)
			}
			if string(got[i].JSON) != w.json {
				t.Errorf("got  %s\nwant %s", got[i].JSON, w.json)
			}
			if !json.Valid(got[i].JSON) {
				t.Error("invalid JSON")
			}
		})
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the end: %v, want io.EOF", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after Close: %v", err)
	}
}

func TestReaderFeatureErrorContinues(t *testing.T) {
	path := makeGPKG(t, fixtureLayer{name: "pts", srsID: 4326, rows: [][]any{
		{1, gp(wkbPt(1, 2), 0, false)},
		{2, []byte("GP\x00\x01\x00\x00")},
		{3, gp(wkbPt(5, 6), 0, false)},
	}})
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f, err := r.Next(); err != nil || f.FID != 1 {
		t.Fatalf("first: %v %v", f, err)
	}
	f2, err := r.Next()
	if f2.Index != 1 || f2.FID != 2 || f2.JSON != nil {
		t.Errorf("failed feature %+v, want index 1, fid 2, no JSON", f2)
	}
	var fe *FeatureError
	if !errors.As(err, &fe) || fe.FID != 2 || fe.Index != 1 || fe.Layer != "pts" {
		t.Fatalf("second: %v, want a FeatureError for fid 2", err)
	}
	for _, part := range []string{path, `layer "pts"`, "feature 1 (fid 2)", "shorter than its 8-byte header"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	if f, err := r.Next(); err != nil || f.FID != 3 || f.Index != 2 {
		t.Fatalf("third: %+v %v", f, err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	two := makeGPKG(t,
		fixtureLayer{name: "roads", srsID: 4326},
		fixtureLayer{name: "Buildings", srsID: 4326},
		fixtureLayer{name: "utm", srsID: 32632},
		fixtureLayer{name: "nosrs", srsID: 999},
	)
	notSQLite := filepath.Join(dir, "text.gpkg")
	os.WriteFile(notSQLite, []byte("hello, this is not a database at all"), 0o644)
	plain := filepath.Join(dir, "plain.sqlite")
	db, _ := sql.Open("sqlite", plain)
	db.Exec("CREATE TABLE t (a)")
	db.Close()
	empty := makeGPKG(t)

	tests := []struct {
		name  string
		path  string
		opts  Options
		wants []string
	}{
		{"missing file", filepath.Join(dir, "nope.gpkg"), Options{}, []string{"nope.gpkg", "no such file"}},
		{"directory", dir, Options{}, []string{"is a directory"}},
		{"not sqlite", notSQLite, Options{}, []string{"text.gpkg", "not an SQLite database"}},
		{"plain sqlite", plain, Options{}, []string{"plain.sqlite", "not a GeoPackage"}},
		{"no layers", empty, Options{}, []string{"no feature layers"}},
		{"several, no name", two, Options{}, []string{"4 feature layers", `"Buildings", "nosrs", "roads", "utm"`, "say which"}},
		{"missing name", two, Options{Layer: "rivers"}, []string{`no feature layer "rivers"`, `"Buildings", "nosrs", "roads", "utm"`}},
		{"utm without hook", two, Options{Layer: "utm"}, []string{`layer "utm"`, "srs_id 32632 (EPSG:32632", "UTM zone 32N", "EPSG:4326"}},
		{"unknown srs", two, Options{Layer: "nosrs"}, []string{"srs_id 999 is not in gpkg_spatial_ref_sys"}},
		{"hook refuses", two, Options{Layer: "utm", Transform: func(int, string, int, string) (func(x, y float64) (float64, float64), error) {
			return nil, errors.New("no such projection here")
		}}, []string{`layer "utm"`, "32632", "no such projection here"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(tc.path, tc.opts)
			if err == nil {
				r.Close()
				t.Fatal("no error")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestOpenLayerChoiceAndHook(t *testing.T) {
	path := makeGPKG(t,
		fixtureLayer{name: "roads", srsID: 4326, rows: [][]any{{1, gp(wkbPt(1, 1), 0, false)}}},
		fixtureLayer{name: "utm", srsID: 32632, rows: [][]any{{1, gp(wkbPt(500000, 1000000), 0, false)}}},
	)
	t.Run("case-insensitive name", func(t *testing.T) {
		r, err := Open(path, Options{Layer: "ROADS"})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Layer() != "roads" {
			t.Errorf("layer %q", r.Layer())
		}
	})
	t.Run("hook gets the system and transforms", func(t *testing.T) {
		var gotID, gotCode int
		var gotOrg, gotDef string
		r, err := Open(path, Options{Layer: "utm", Transform: func(id int, org string, code int, def string) (func(x, y float64) (float64, float64), error) {
			gotID, gotOrg, gotCode, gotDef = id, org, code, def
			return func(x, y float64) (float64, float64) { return 9 + (x-500000)/1e5, y / 1e5 }, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if gotID != 32632 || gotOrg != "EPSG" || gotCode != 32632 || !strings.Contains(gotDef, "UTM zone 32N") {
			t.Errorf("hook got %d %q %d %q", gotID, gotOrg, gotCode, gotDef)
		}
		fs := readAll(t, r)
		if len(fs) != 1 || !strings.Contains(string(fs[0].JSON), `"coordinates":[9,10]`) {
			t.Errorf("features %s", fs[0].JSON)
		}
	})
	t.Run("hook not called for 4326", func(t *testing.T) {
		r, err := Open(path, Options{Layer: "roads", Transform: func(int, string, int, string) (func(x, y float64) (float64, float64), error) {
			t.Error("hook called")
			return nil, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
	})
}

func TestIsWGS84(t *testing.T) {
	tests := []struct {
		srs  int
		org  string
		code int64
		name string
		def  string
		want bool
	}{
		{4326, "EPSG", 4326, "WGS 84", "", true},
		{99, "epsg", 4326, "WGS 84", "", true},
		{4326, "", 0, "", "", true},
		{4326, "EPSG", 32632, "", "", false},
		{100, "OGC", 84, "", "", true},
		{100, "NONE", 0, "", `GEOGCRS["WGS 84 (CRS84)",ID["OGC","CRS84"]]`, true},
		{0, "NONE", 0, "Undefined geographic SRS", "undefined", false},
		{-1, "NONE", -1, "", "undefined", false},
		{32632, "EPSG", 32632, "", "", false},
	}
	for _, tc := range tests {
		if got := isWGS84(tc.srs, tc.org, tc.code, tc.name, tc.def); got != tc.want {
			t.Errorf("%+v: got %v", tc, got)
		}
	}
}

func TestReadOnlyAndWAL(t *testing.T) {
	path := makeGPKG(t, fixtureLayer{name: "p", srsID: 4326, rows: [][]any{{1, gp(wkbPt(1, 1), 0, false)}}})
	before, _ := os.ReadFile(path)
	ro, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Exec("INSERT INTO p (geom) VALUES (NULL)"); err == nil {
		t.Error("write through the read-only DSN succeeded")
	}
	ro.Close()
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, r)
	r.Close()
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the file changed")
	}
	if dsn := readOnlyDSN(path); !strings.Contains(dsn, "immutable=1") || !strings.Contains(dsn, "mode=ro") {
		t.Errorf("dsn %s", dsn)
	}
	os.WriteFile(path+"-wal", []byte("x"), 0o644)
	if dsn := readOnlyDSN(path); strings.Contains(dsn, "immutable") {
		t.Errorf("dsn %s is immutable beside a WAL", dsn)
	}
	if got := uriPath("/a b/c?d#e%f"); got != "/a b/c%3Fd%23e%25f" {
		t.Errorf("uriPath: %s", got)
	}
}

func TestOddFileName(t *testing.T) {
	src := makeGPKG(t, fixtureLayer{name: "p", srsID: 4326, rows: [][]any{{1, gp(wkbPt(1, 1), 0, false)}}})
	data, _ := os.ReadFile(src)
	path := filepath.Join(t.TempDir(), "odd ?#% name.gpkg")
	os.WriteFile(path, data, 0o644)
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if fs := readAll(t, r); len(fs) != 1 {
		t.Errorf("%d features", len(fs))
	}
}
