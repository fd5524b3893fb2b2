package enrich_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"frameindex/enrich"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/ingest/gpkg"
	"frameindex/state"
)

func readAll(t *testing.T, r enrich.Reader) []enrich.Site {
	t.Helper()
	var out []enrich.Site
	for {
		s, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
}

func TestCSVReader(t *testing.T) {
	in := "\ufeffname,Longitude,LAT,kind\n" +
		"Dala clinic,8.4912,12.0094,clinic\n" +
		"short row,3.39\n" +
		"bad,east,north,x\n" +
		"far north,8,89.5,x\n" +
		"\"quoted, name\",3.3947,6.4541,hospital\n"
	r, err := enrich.NewCSVReader(strings.NewReader(in), enrich.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); strings.Join(h, "|") != "name|Longitude|LAT|kind" || r.Features() {
		t.Fatalf("header %q, features %v", h, r.Features())
	}
	sites := readAll(t, r)
	if len(sites) != 5 {
		t.Fatalf("%d sites, want 5", len(sites))
	}
	if s := sites[0]; s.Lon != 8.4912 || s.Lat != 12.0094 || s.Note != "" || s.N != 1 || s.Fields[0] != "Dala clinic" {
		t.Errorf("first site %+v", s)
	}
	for i, want := range []string{"not numbers", "not numbers", "too near a pole"} {
		if !strings.Contains(sites[i+1].Note, want) {
			t.Errorf("site %d: note %q, want %q", i+2, sites[i+1].Note, want)
		}
	}
	if s := sites[4]; s.Fields[0] != "quoted, name" || s.Lon != 3.3947 {
		t.Errorf("quoted site %+v", s)
	}
	if r.Read() != int64(len(in)) {
		t.Errorf("read %d bytes of %d", r.Read(), len(in))
	}

	// Named columns, and their absence.
	r, err = enrich.NewCSVReader(strings.NewReader("a,e,n\n1,7,9\n"), enrich.Options{LonColumn: "e", LatColumn: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if s := readAll(t, r); s[0].Lon != 7 || s[0].Lat != 9 {
		t.Errorf("named columns: %+v", s[0])
	}
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"name,lat\n", "no longitude column"},
		{"name,lon\n", "no latitude column"},
	} {
		_, err := enrich.NewCSVReader(strings.NewReader(c.in), enrich.Options{})
		var ee *enrich.Error
		if !errors.As(err, &ee) || ee.Code != enrich.CodeInvalid || !strings.Contains(ee.Message, c.want) {
			t.Errorf("%q: %v, want invalid %q", c.in, err, c.want)
		}
	}
}

func TestGeoJSONReader(t *testing.T) {
	in := `{"name":"sites","crs":{"type":"name"},"type":"FeatureCollection","features":[
	{"type":"Feature","properties":{"id":1,"name":"a"},"geometry":{"type":"Point","coordinates":[8.5,12]}},
	{"type":"Feature","properties":{"id":2,"extra":true},"geometry":{"type":"Polygon","coordinates":[[[8,11],[8.1,11],[8.1,11.1],[8,11.1],[8,11]]]}},
	{"type":"Feature","properties":null,"geometry":{"type":"LineString","coordinates":[[8,11],[9,12]]}},
	{"type":"Feature","properties":{},"geometry":null},
	{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[8,11],[9,12],[8,12],[9,11],[8,11]]]}}
	],"bbox":[0,0,1,1]}`
	r, err := enrich.NewGeoJSONReader(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); strings.Join(h, "|") != "id|name" || !r.Features() {
		t.Fatalf("header %q", h)
	}
	sites := readAll(t, r)
	if len(sites) != 5 {
		t.Fatalf("%d sites", len(sites))
	}
	if s := sites[0]; s.Lon != 8.5 || s.Lat != 12 || s.Polygon || s.Note != "" {
		t.Errorf("point %+v", s)
	}
	if s := sites[1]; !s.Polygon || math.Abs(s.Lon-8.05) > 1e-9 || math.Abs(s.Lat-11.05) > 1e-9 || s.Note != "" {
		t.Errorf("polygon %+v", s)
	}
	for i, want := range []string{"LineString is not a site", "no geometry", "not valid"} {
		if !strings.Contains(sites[i+2].Note, want) {
			t.Errorf("site %d: note %q, want %q", i+3, sites[i+2].Note, want)
		}
	}

	// A lone Feature, and an empty collection.
	r, err = enrich.NewGeoJSONReader(strings.NewReader(`{"geometry":{"type":"Point","coordinates":[3,7]},"type":"Feature","properties":{"k":"v"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := readAll(t, r); len(s) != 1 || s[0].Lon != 3 || string(s[0].Props) != `{"k":"v"}` {
		t.Errorf("lone feature: %+v", s)
	}
	r, err = enrich.NewGeoJSONReader(strings.NewReader(`{"type":"FeatureCollection","features":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := readAll(t, r); len(s) != 0 {
		t.Errorf("empty collection: %+v", s)
	}
	for _, bad := range []string{`[]`, `{"type":"FeatureCollection"}`, `{"features":{}}`, `{"features":[{"type":"Feature",`} {
		r, err := enrich.NewGeoJSONReader(strings.NewReader(bad))
		if err == nil {
			_, err = r.Next()
		}
		var ee *enrich.Error
		if !errors.As(err, &ee) || ee.Code != enrich.CodeInvalid {
			t.Errorf("%s: %v, want invalid", bad, err)
		}
	}
}

// FuzzGeoJSONReader: any input is read to its end or refused, never a
// panic, and every site either has a note or a point in range.
func FuzzGeoJSONReader(f *testing.F) {
	f.Add(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[8,12]}}]}`)
	f.Add(`{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[[[8,11],[8.1,11],[8.1,11.1],[8,11]]]]}}`)
	f.Add(`{"features":[{"geometry":{"type":"Point","coordinates":[1e400,2]}},null,1,"x"]}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := enrich.NewGeoJSONReader(strings.NewReader(in))
		if err != nil {
			return
		}
		checkSites(t, r)
	})
}

// checkSites reads up to 1,000 sites of r: each has a note or a point in
// range.
func checkSites(t *testing.T, r enrich.Reader) {
	for range 1000 {
		s, err := r.Next()
		if err != nil {
			return
		}
		if s.Note == "" && !(s.Lon >= -180 && s.Lon <= 180 && s.Lat >= -85 && s.Lat <= 85) {
			t.Fatalf("site %+v has no note and no point", s)
		}
	}
}

// FuzzCSVReader: as FuzzGeoJSONReader, for CSV.
func FuzzCSVReader(f *testing.F) {
	f.Add("lon,lat\n8,12\n")
	f.Add("x,y,z\n\"1\",2,\"a\"\"b\"\n,,\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := enrich.NewCSVReader(strings.NewReader(in), enrich.Options{})
		if err != nil {
			return
		}
		checkSites(t, r)
	})
}

func TestWriters(t *testing.T) {
	l := enrich.Layout{Header: []string{"id", "name"}, Features: true, Figures: []string{"population_2020_2km", "nearest_health_km"}}
	sites := []enrich.Site{
		{N: 1, Lon: 8.5, Lat: 12, Geometry: json.RawMessage(`{"type": "Point", "coordinates": [8.5, 12]}`), Props: json.RawMessage(`{"id":1,"name":"a \"b\"","more":[1]}`)},
		{N: 2, Note: "the feature has no geometry", Props: json.RawMessage(`{"id":2}`)},
	}
	rows := []enrich.Row{{Figures: []float64{1234.5678901234567, 1.25}}, {Figures: []float64{math.NaN(), math.NaN()}, Note: "the feature has no geometry"}}

	var b bytes.Buffer
	w, err := enrich.NewCSVWriter(&b, l)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sites {
		if err := w.Write(&sites[i], &rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	want := "id,name,lon,lat,population_2020_2km,nearest_health_km,enrich_note\n" +
		"1,\"a \"\"b\"\"\",8.5,12,1234.5678901234567,1.25,\n" +
		"2,,,,,,the feature has no geometry\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	g, err := enrich.NewGeoJSONWriter(&b, l)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sites {
		if err := g.Write(&sites[i], &rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	g.Close()
	var fc struct {
		Features []struct {
			Geometry   json.RawMessage
			Properties map[string]any
		}
	}
	if err := json.Unmarshal(b.Bytes(), &fc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(fc.Features) != 2 || fc.Features[0].Properties["population_2020_2km"] != 1234.5678901234567 ||
		fc.Features[0].Properties["name"] != `a "b"` || fc.Features[1].Properties["population_2020_2km"] != nil ||
		fc.Features[1].Properties[enrich.NoteColumn] != "the feature has no geometry" || string(fc.Features[1].Geometry) != "null" {
		t.Errorf("GeoJSON: %s", b.String())
	}

	// A figure's name already among the input's columns is refused.
	_, err = enrich.NewCSVWriter(io.Discard, enrich.Layout{Header: []string{"Population_2020_2km"}, Figures: []string{"population_2020_2km"}})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a repeated column: %v", err)
	}
}

// TestNew_Refusals: what the engine refuses before reading anything.
func TestNew_Refusals(t *testing.T) {
	ix := index.NewLattice([]grid.Run{{Row: 9360, Col0: 22560, Col1: 22570}})
	pop := state.Dataset{ID: "population", Attributes: []state.Attribute{{Name: "population_2020", Type: state.TypeNumber, Aggregation: "sum"}}}
	admin := state.Dataset{ID: "admin", Attributes: []state.Attribute{{Name: "lga", Type: state.TypeCategory, Aggregation: "mode"}}}
	lights := state.Dataset{ID: "nightlights", Price: 1, Attributes: []state.Attribute{{Name: "radiance", Type: state.TypeNumber, Aggregation: "mean"}}}
	census := state.Dataset{ID: "census", Attributes: []state.Attribute{{Name: "population_2020", Type: state.TypeNumber, Aggregation: "sum"}}}
	for _, c := range []struct {
		name     string
		readable []state.Access
		measures []string
		radii    []float64
		want     string
	}{
		{"unreadable", []state.Access{{Dataset: admin}}, []string{"population_2020"}, []float64{2}, "measure population_2020: no dataset you may read records it"},
		{"unknown dataset", []state.Access{{Dataset: pop}}, []string{"census.population_2020"}, []float64{2}, "measure census.population_2020: no dataset you may read"},
		{"category", []state.Access{{Dataset: admin}}, []string{"lga"}, []float64{2}, "category attribute of dataset admin"},
		{"per query", []state.Access{{Dataset: lights, PerQuery: true}}, []string{"radiance"}, []float64{2}, "licensed per query"},
		{"ambiguous", []state.Access{{Dataset: census}, {Dataset: pop}}, []string{"population_2020"}, []float64{2}, "census.population_2020, population.population_2020"},
		{"twice", []state.Access{{Dataset: pop}}, []string{"population_2020", "population.population_2020"}, []float64{2}, "named twice"},
		{"no default", []state.Access{{Dataset: admin}}, nil, []float64{2}, "none of the default measures"},
		{"radius", []state.Access{{Dataset: pop}}, nil, []float64{2, 101}, "at most 100 km"},
		{"no radius", []state.Access{{Dataset: pop}}, nil, nil, "at least one radius"},
		{"radius twice", []state.Access{{Dataset: pop}}, nil, []float64{5, 5}, "given twice"},
	} {
		_, err := enrich.New(enrich.Config{Index: ix, Readable: c.readable, Measures: c.measures, Radii: c.radii})
		var ee *enrich.Error
		if !errors.As(err, &ee) || ee.Code != enrich.CodeInvalid || !strings.Contains(ee.Message, c.want) {
			t.Errorf("%s: %v, want invalid %q", c.name, err, c.want)
		}
	}
}

// TestGPKG_RoundTrip writes sites as a GeoPackage with Create and reads
// them back with the importers' GeoPackage reader.
func TestGPKG_RoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.gpkg")
	l := enrich.Layout{Header: []string{"name"}, Figures: []string{"population_2020_2km", "population_2020_site"}}
	w, _, err := enrich.Create(path, l)
	if err != nil {
		t.Fatal(err)
	}
	square := json.RawMessage(`{"type":"Polygon","coordinates":[[[8,11],[8.1,11],[8.1,11.1],[8,11.1],[8,11]]]}`)
	sites := []enrich.Site{
		{N: 1, Lon: 8.5, Lat: 12, Fields: []string{"clinic, \"A\""}},
		{N: 2, Polygon: true, Geometry: square, Lon: 8.05, Lat: 11.05, Fields: []string{"ward"}},
		{N: 3, Note: "lon \"x\", lat \"y\" are not numbers", Fields: []string{"bad"}},
	}
	rows := []enrich.Row{
		{Figures: []float64{1234.5, math.NaN()}},
		{Figures: []float64{math.NaN(), 99.25}},
		{Figures: []float64{math.NaN(), math.NaN()}, Note: sites[2].Note},
	}
	for i := range sites {
		if err := w.Write(&sites[i], &rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := gpkg.Open(path, gpkg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.Fields() {
		names = append(names, f.Name+":"+f.Type)
	}
	if got := strings.Join(names, ","); got != "name:TEXT,population_2020_2km:DOUBLE,population_2020_site:DOUBLE,enrich_note:TEXT" {
		t.Errorf("fields %s", got)
	}
	want := []string{
		`{"type":"Feature","geometry":{"type":"Point","coordinates":[8.5,12]},"properties":{"name":"clinic, \"A\"","population_2020_2km":1234.5,"population_2020_site":null,"enrich_note":null}}`,
		`{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[[[8,11],[8.1,11],[8.1,11.1],[8,11.1],[8,11]]]]},"properties":{"name":"ward","population_2020_2km":null,"population_2020_site":99.25,"enrich_note":null}}`,
		`{"type":"Feature","geometry":null,"properties":{"name":"bad","population_2020_2km":null,"population_2020_site":null,"enrich_note":"lon \"x\", lat \"y\" are not numbers"}}`,
	}
	for i, w := range want {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("feature %d: %v", i, err)
		}
		if string(f.JSON) != w {
			t.Errorf("feature %d:\n%s\nwant\n%s", i, f.JSON, w)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last: %v", err)
	}
}
